"""``mx.torch`` (MXNet's ``mxnet/torch.py``): the functions of MXNet's Torch plugin, which a
libmxnet.so built with it registers at import (``_th_*``).  A build without the plugin, as
MXNet's wheels are, defines none, and xnd has no C library to hold one; the names MXNet's
module imports are here."""
from ..base import c_array, c_handle_array, c_str_array, check_call, py_str  # noqa: F401
from ..ndarray import NDArray  # noqa: F401
