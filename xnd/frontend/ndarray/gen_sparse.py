"""``mxnet.ndarray.gen_sparse``: MXNet's ``_sparse_`` operators, the functions of mx.nd.sparse
(dense storage in xnd: see xnd/lowering/op_groups.py and sparse.py)."""
from ...lowering import op_groups as _groups
from ...ndarray import NDArray as NDArrayBase  # noqa: F401  (MXNet's base class of NDArray)
from . import sparse as _sparse

_groups.bind_names(globals(), _sparse, _groups.SPARSE)
