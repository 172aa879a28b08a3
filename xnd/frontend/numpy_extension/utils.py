"""``mxnet.numpy_extension.utils`` (MXNet's module): ``save``/``load`` of mx.np.ndarrays,
mx.npx's own, with the names MXNet's module imports."""
from ...base import (c_handle_array, c_str, c_str_array, check_call, py_str,  # noqa: F401
                     string_types)
from ..numpy import ndarray  # noqa: F401
from ..util import is_np_array, is_np_shape  # noqa: F401
from . import load, save  # noqa: F401

__all__ = ["save", "load"]
