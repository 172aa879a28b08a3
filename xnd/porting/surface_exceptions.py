"""The names of MXNet 1.9.1's public surface that xnd does not provide, each with why.

tests/test_surface_inventory.py holds xnd against the inventory of MXNet's surface
(tests/goldens/surface/mxnet-1.9.1.json): every other module imports and every other name
exists.  ``python -m xnd check`` reports a use of one of these with its reason.  An entry
is ``"<mxnet module>:<name>"`` (fnmatch wildcards allowed in the name), or
``"<mxnet module>:"`` for a module; user code reaches a module under any of its names
(``mx.nd`` is ``mxnet.ndarray``), which `reason_for_path` resolves through xnd.compat.
"""
import fnmatch

from . import surface_gaps

__all__ = ["EXCEPTIONS", "reason", "reason_for_path", "matches", "signature_reason"]

LEGACY_EXEC = ("MXNet's pre-Module executor manager of the legacy FeedForward; xnd's FeedForward "
               "trains through Module (mx.module.executor_group.DataParallelExecutorGroup)")
BOKEH = ("a live bokeh chart for Jupyter, not provided by xnd; PandasLogger's DataFrames hold "
         "the same statistics")

# Names that xnd lacks outright.  (The names that cannot work on XLA -- C handles, CUDA-only
# entry points, quantized kernels -- exist in their modules as entries raising MXNetError with
# the reason, xnd/lowering/unavailable.py, and `xnd check` reads it from them.)
EXCEPTIONS = (
    ("mxnet.executor_manager:DataParallelExecutor*", LEGACY_EXEC),
    ("mxnet.model:DataParallelExecutorManager", LEGACY_EXEC),
    ("mxnet.notebook.callback:Live*", BOKEH),
) + surface_gaps.GAPS


def matches(pattern, key):
    """Whether the entry `pattern` covers `key` ("module:name", or "module:" for a module)."""
    pmod, _, pname = pattern.partition(":")
    kmod, _, kname = key.partition(":")
    return pmod == kmod and (pname == kname or (pname and fnmatch.fnmatchcase(kname, pname)))


def reason(key):
    """The reason xnd lacks `key` ("mxnet.module:name"), or None."""
    for pattern, why in EXCEPTIONS:
        if matches(pattern, key):
            return why
    return None


def reason_for_path(dotted):
    """The reason for an mxnet dotted name as user code spells it (``mxnet.nd.contrib.x``),
    or None: its module part is compared through xnd's module map, so aliases match."""
    from .. import compat
    parts = dotted.split(".")
    for i in range(len(parts) - 1, 0, -1):
        module, name = ".".join(parts[:i]), parts[i]
        target = compat.resolve(module)
        for pattern, why in EXCEPTIONS:
            pmod, _, _ = pattern.partition(":")
            if compat.resolve(pmod) == target and target is not None and \
                    matches(pattern, f"{pmod}:{name}"):
                return why
    return None


# Functions and classes that exist with another parameter list than MXNet's, and why.
_WRAPPERS = ("in progress: issue 41 -- xnd's function is a wrapper taking (*args, **kwargs) "
             "that hands numpy-style arguments to its implementation; MXNet's parameter names "
             "are yet to be declared on it")
_HANDLE = ("MXNet constructs it from a C handle (libmxnet.so); xnd's class is built from "
           "Python values (see its docstring)")
_PENDING = "in progress: issue 41 -- parameter names differ from MXNet's"
SIGNATURES = tuple((f"{m}:*", _WRAPPERS) for m in (
    "mxnet.numpy", "mxnet.numpy.multiarray", "mxnet.numpy.random", "mxnet.numpy.linalg",
    "mxnet.ndarray.numpy", "mxnet.ndarray.numpy.random", "mxnet.ndarray.numpy.linalg",
    "mxnet.symbol.numpy", "mxnet.symbol.numpy.random", "mxnet.symbol.numpy.linalg",
    "mxnet.numpy_extension", "mxnet.numpy_extension.random", "mxnet.ndarray.numpy_extension",
    "mxnet.ndarray.numpy_extension.random", "mxnet.ndarray.numpy_extension.image",
    "mxnet.symbol.numpy_extension", "mxnet.symbol.numpy_extension.random",
    "mxnet.symbol.numpy_extension.image", "mxnet.numpy_extension.image",
    "mxnet.numpy.function_base", "mxnet.numpy.stride_tricks", "mxnet.numpy.arrayprint",
    "mxnet.numpy.io", "mxnet.numpy_extension.utils")) + tuple(
    (f"*:{n}", _HANDLE) for n in ("Symbol", "SymbolBase", "KVStore", "Executor", "MXDataIter")) \
    + surface_gaps.SIGNATURE_GAPS


def signature_reason(key):
    """Why `key`'s parameters differ from MXNet's, or None."""
    for pattern, why in SIGNATURES:
        pmod, _, pname = pattern.partition(":")
        kmod, _, kname = key.partition(":")
        if fnmatch.fnmatchcase(kmod, pmod) and fnmatch.fnmatchcase(kname, pname):
            return why
    return None
