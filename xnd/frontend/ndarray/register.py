"""``mxnet.ndarray.register`` (MXNet's module, which generates the operator functions; here
xnd/op_function.py does): the names MXNet's module holds."""
from ...base import check_call, py_str  # noqa: F401
from ...ndarray import NDArray as NDArrayBase  # noqa: F401
from ...op_function import op_function as _make_ndarray_function  # noqa: F401
from ..util import use_np_shape  # noqa: F401
from .contrib import adamw_update, mp_adamw_update  # noqa: F401
