"""``mxnet.ndarray.gen_contrib``: the ``_contrib_`` operators under their short names, those of
mx.nd.contrib (aliases: see xnd/lowering/op_groups.py)."""
import sys as _sys

from ...lowering import op_groups as _groups
from ...ndarray import NDArray as NDArrayBase  # noqa: F401  (MXNet's base class of NDArray)
from ...op_function import op_function as _make

_nd = _sys.modules[__package__]  # mx.nd (these modules are imported at its end)
_groups.bind(globals(), "contrib", [_nd.contrib, _nd._internal], _make)
_groups.bind_names(globals(), _nd.contrib, _groups.unavailable.CONTRIB_OPS)  # (raising entries)
