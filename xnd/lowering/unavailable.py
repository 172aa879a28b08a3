"""MXNet 1.9.1 names that cannot work on JAX/XLA, each with its reason (issue 41).

Each is defined in its MXNet module as an entry that raises MXNetError saying why, and
carries the reason as ``_xnd_unsupported``, which ``python -m xnd check`` reports when a
script uses it; xnd/porting/surface_exceptions.py (the list the surface-inventory test
reads) holds these together with the names xnd lacks outright.  Here, below the
frontend, so that mx.sym's modules install them too.
"""
from ..base import MXNetError

__all__ = ["C_LIBRARY", "CUDA_RTC", "TVM", "PS_SERVER", "QUANTIZED", "SPARSE_GRAPH",
           "BACKWARD_OP", "CONTRIB_OPS", "install"]

C_LIBRARY = ("a handle of MXNet's C library (libmxnet.so); xnd runs on JAX/XLA and has no C "
             "library: use the Python API")
CUDA_RTC = ("CUDA-only: compiles CUDA C source at run time with NVRTC; XLA generates the GPU "
            "kernels in xnd (write the computation with mx.nd / mx.np, or a Python CustomOp)")
TVM = ("MXNet's TVM-op schedule configuration (objects of its C++ FFI); xnd has no TVM "
       "operators (runtime Features report TVM_OP off)")
PS_SERVER = ("MXNet's ps-lite parameter-server process; xnd's 'dist_*' stores keep the values "
             "on the workers (xnd/frontend/distributed.py), and a server or scheduler process "
             "ends at `import mxnet`")
QUANTIZED = ("an int8 quantized operator (MXNet's MKL-DNN / cuDNN kernels); xnd has no "
             "quantized kernels (mx.contrib.quantization is unavailable)")
SPARSE_GRAPH = ("an operator of MXNet's DGL graph support on CSR storage (graph sampling, edge "
                "ids, nnz), which xnd does not have")
BACKWARD_OP = ("one of MXNet's internal backward operators, registered for its graph "
               "executor; xnd computes gradients with autograd / JAX")

# the _contrib_ operators of MXNet 1.9.1 (mx.nd.contrib, mx.sym.contrib, gen_contrib)
CONTRIB_OPS = dict(
    [(n, QUANTIZED) for n in (
        "quantize", "quantize_v2", "quantize_asym", "dequantize", "requantize",
        "calibrate_entropy", "quantized_act", "quantized_batch_norm", "quantized_concat",
        "quantized_conv", "quantized_elemwise_add", "quantized_elemwise_mul",
        "quantized_embedding", "quantized_flatten", "quantized_fully_connected",
        "quantized_pooling", "quantized_rnn")]
    + [(n, SPARSE_GRAPH) for n in (
        "dgl_adjacency", "dgl_csr_neighbor_non_uniform_sample",
        "dgl_csr_neighbor_uniform_sample", "dgl_graph_compact", "dgl_subgraph", "edge_id",
        "getnnz")]
    + [(n, BACKWARD_OP) for n in (
        "backward_gradientmultiplier", "backward_hawkesll", "backward_index_copy",
        "backward_quadratic")])


def _entry(qualname, reason, as_class):
    def raise_(*args, **kwargs):
        raise MXNetError(f"{qualname}: {reason}")
    name = qualname.rpartition(".")[2]
    doc = f"MXNet's {qualname}; raises MXNetError under xnd: {reason}"
    if as_class:   # a class of MXNet's: isinstance checks still work, making one raises
        return type(name, (), {"__init__": raise_, "__doc__": doc, "_xnd_unsupported": reason})
    raise_.__name__ = raise_.__qualname__ = name
    raise_.__doc__ = doc
    raise_._xnd_unsupported = reason
    return raise_


def install(namespace, module_name, reasons):
    """Define each name of `reasons` ({name: reason}) in `namespace` (a module's globals) as
    an entry raising MXNetError naming ``module_name.<name>`` and its reason (a class for a
    capitalised name); a name the module already defines is left alone."""
    for name, reason in reasons.items():
        namespace.setdefault(name, _entry(f"{module_name}.{name}", reason, name[:1].isupper()))
