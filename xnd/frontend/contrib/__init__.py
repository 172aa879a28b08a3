"""``mx.contrib``: MXNet 1.9.1's contributed packages.

The subpackages (``text``, ``amp``, ``svrg_optimization``, ``onnx``, ``autograd``, ``io``,
``tensorboard``, ``quantization``/``quant``, ``tensorrt``) are imported on first use, so
``import mxnet`` stays cheap.  ``contrib.nd``/``contrib.ndarray`` and
``contrib.sym``/``contrib.symbol`` are the contrib operator namespaces ``mx.nd.contrib`` and
``mx.sym.contrib``, looked up when asked for.
"""
import importlib

_SUBMODULES = frozenset({"amp", "autograd", "io", "onnx", "quantization", "svrg_optimization",
                         "tensorboard", "tensorrt", "text"})
_ALIASES = {"quant": "quantization"}

__all__ = sorted(_SUBMODULES | set(_ALIASES) | {"nd", "ndarray", "sym", "symbol"})


def __getattr__(name):
    if name in ("nd", "ndarray"):
        from .. import ndarray as nd
        return nd.contrib
    if name in ("sym", "symbol"):
        from ... import symbol
        return symbol.contrib
    target = _ALIASES.get(name, name)
    if target in _SUBMODULES:
        module = importlib.import_module(__name__ + "." + target)
        globals()[name] = module
        return module
    raise AttributeError("module 'mxnet.contrib' has no attribute %r" % name)


def __dir__():
    return __all__
