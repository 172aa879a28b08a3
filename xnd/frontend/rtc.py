"""``mx.rtc`` (MXNet's ``mxnet/rtc.py``): CUDA kernels compiled at run time from CUDA C source
(``CudaModule``, ``CudaKernel``, NVRTC).  xnd's GPU kernels are XLA's: making either class
raises MXNetError saying so, the reason ``xnd check`` reports.  The names MXNet's module
imports are here too."""
from ..base import (c_array, c_array_buf, c_str, c_str_array, check_call,  # noqa: F401
                    numeric_types, string_types)
from ..ndarray import NDArray  # noqa: F401
from ..lowering import unavailable as _unavailable

_unavailable.install(globals(), __name__.replace("xnd.frontend", "mxnet"),
                     {"CudaModule": _unavailable.CUDA_RTC, "CudaKernel": _unavailable.CUDA_RTC})
