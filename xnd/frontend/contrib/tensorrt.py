"""``mx.contrib.tensorrt``: MXNet's TensorRT integration (a C++ subgraph backend).

There is no TensorRT backend on JAX/XLA (XLA compiles the whole graph itself), so every
entry point raises MXNetError; export to ONNX (``mx.onnx.export_model``) to run under
TensorRT."""
from ._unavailable import install

_NAMES = ("set_use_fp16", "get_use_fp16", "init_tensorrt_params", "tensorrt_bind")
install(globals(), "mxnet.contrib.tensorrt", _NAMES,
        "TensorRT is a C++ subgraph backend of MXNet that does not exist on JAX/XLA (XLA "
        "compiles the graph); export with mx.onnx.export_model and run the ONNX file under "
        "TensorRT instead")
__all__ = list(_NAMES)
