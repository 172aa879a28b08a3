"""``mx.contrib.quantization``: INT8 quantization and calibration.

MXNet quantizes through oneDNN (MKL-DNN) INT8 kernels and graph passes of its C++ backend;
XLA has neither, so every entry point raises MXNetError.  Train and export in float32 (or
bfloat16/float16 with ``mx.contrib.amp``) and quantize the ONNX export
(``mx.onnx.export_model``) with onnxruntime's quantization tools instead."""
from ._unavailable import install
# names MXNet's module holds by importing them (its users import them from here)
from ...base import c_array, c_str, c_str_array, check_call, py_str  # noqa: E402,F401
from ...context import Context, cpu  # noqa: E402,F401
from ...ndarray import NDArray  # noqa: E402,F401
from ...symbol import Symbol, load as sym_load  # noqa: E402,F401
from ..io import DataBatch, DataDesc, DataIter  # noqa: E402,F401
from ..module import Module  # noqa: E402,F401
from ..ndarray import load as nd_load, save as nd_save  # noqa: E402,F401
from .. import ndarray  # noqa: E402,F401

_NAMES = ("quantize_model", "quantize_model_mkldnn", "quantize_graph", "calib_graph",
          "quantize_net", "quantize_net_v2", "combine_histogram")
install(globals(), "mxnet.contrib.quantization", _NAMES,
        "INT8 quantization needs MXNet's oneDNN kernels and C++ graph passes, which do not "
        "exist on JAX/XLA; quantize an ONNX export (mx.onnx.export_model) with onnxruntime "
        "instead")
__all__ = list(_NAMES)
