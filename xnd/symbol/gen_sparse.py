"""``mxnet.symbol.gen_sparse``: MXNet's ``_sparse_`` operators, the functions of mx.sym.sparse
(dense storage in xnd: see xnd/lowering/op_groups.py)."""
from ..lowering import op_groups as _groups
from . import sparse as _sparse
from .symbol import Symbol as SymbolBase  # noqa: F401  (MXNet's base class of Symbol)

_groups.bind_names(globals(), _sparse, _groups.SPARSE)
