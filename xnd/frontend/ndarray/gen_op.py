"""``mxnet.ndarray.gen_op``: MXNet's operator functions without a group prefix, those of mx.nd
(aliases: see xnd/lowering/op_groups.py)."""
import sys as _sys

from ...lowering import op_groups as _groups
from ...ndarray import NDArray as NDArrayBase  # noqa: F401  (MXNet's base class of NDArray)
from ...op_function import op_function as _make

_nd = _sys.modules[__package__]  # mx.nd (these modules are imported at its end)
_groups.bind(globals(), "op", [_nd], _make)
