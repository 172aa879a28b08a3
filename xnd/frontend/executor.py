"""``mx.executor`` (MXNet's ``mxnet/executor.py``): the Executor class, which lives with the
graph machinery in xnd/symbol/executor.py, with the names MXNet's module imports."""
from .. import ndarray  # noqa: F401
from ..base import c_array_buf, c_handle_array, c_str_array, check_call, py_str  # noqa: F401
from ..ndarray import NDArray  # noqa: F401
from ..symbol.executor import Executor  # noqa: F401

__all__ = ["Executor"]
