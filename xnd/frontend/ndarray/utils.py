"""``mxnet.ndarray.utils`` (MXNet's module): the storage-dispatching creation functions and
save/load, mx.nd's own (xnd's arrays are dense: see sparse.py), with the names MXNet's
module imports."""
from ...base import (c_array, c_handle_array, c_str, c_str_array, check_call,  # noqa: F401
                     py_str, string_types)
from ...ndarray import NDArray  # noqa: F401
from . import array, empty, load, load_frombuffer, save, zeros  # noqa: F401

__all__ = ["zeros", "empty", "array", "load", "load_frombuffer", "save"]
