"""``mxnet.ndarray.gen__internal``: the ``_`` operators, those of mx.nd._internal (aliases: see
xnd/lowering/op_groups.py)."""
import sys as _sys

from ...lowering import op_groups as _groups
from ...ndarray import NDArray as NDArrayBase  # noqa: F401  (MXNet's base class of NDArray)
from ...op_function import op_function as _make
_nd = _sys.modules[__package__]  # mx.nd (these modules are imported at its end)
_groups.bind(globals(), "_internal", [_nd._internal], _make)
