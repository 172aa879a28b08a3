"""mx.util: the NumPy-semantics switches (np_shape, np_array, use_np ...), GPU queries and
the environment helpers of MXNet 1.9.1.

Two per-thread flags, as in MXNet:

* **NumPy shape semantics** (`set_np_shape`, `np_shape`, `use_np_shape`): ``()`` is a
  scalar's shape and a 0 in a shape is a zero-size dimension. Off (the legacy rule, where
  0 means "unknown" and ``()`` an unknown shape), shape inference reports unknown
  dimensions as 0 and unknown shapes as ``()``; on, as -1 and None.
* **NumPy array semantics** (`np_array`, `use_np_array`): arrays that frameworks create
  (Gluon parameters, ...) are ``mx.np.ndarray``s.

``use_np`` turns on both, for a function or every method of a class; `set_np`/`reset_np`
switch both for the calling thread.
"""
import functools
import inspect
import logging
import operator
import os

from ..base import MXNetError
from ..semantics import flag as _flag, is_np_array, is_np_shape, set_flag as _set
from ..semantics import set_global as _set_global
# names MXNet's module holds by importing them (its users import them from here)
from ..base import c_str, check_call, py_str  # noqa: E402,F401


def _readonly(attr, doc=None):
    """A read-only property giving ``self.<attr>`` (xnd's many plain accessors, written once)."""
    return property(operator.attrgetter(attr), doc=doc)


_np_shape_logged = False


def set_np_shape(active):
    """Turn NumPy shape semantics on or off for this thread (``2``: for every thread, MXNet's
    GlobalOn); returns the previous state.
    Turning it off while NumPy array semantics is on raises ValueError, as in MXNet."""
    global _np_shape_logged
    mode = int(active)  # MXNet's modes: 0 off, 1 on in this thread, 2 on in every thread
    active = bool(active)
    if active and not _np_shape_logged:
        logging.info("NumPy-shape semantics has been activated in your code. This is required "
                     "for creating and manipulating scalar and zero-size tensors, which were "
                     "not supported in MXNet before, as in the official NumPy library. Please "
                     "DO NOT manually deactivate this semantics while using `mxnet.numpy` and "
                     "`mxnet.numpy_extension` modules.")
        _np_shape_logged = True
    elif not active and is_np_array():
        raise ValueError("Deactivating NumPy shape semantics while NumPy array semantics is "
                         "still active is not allowed. Please consider calling "
                         "`npx.reset_np()` to deactivate both of them.")
    prev = is_np_shape()
    _set("np_shape", active)
    _set_global("np_shape", mode == 2)
    return prev


def _set_np_array(active):
    """Turn NumPy array semantics on or off for this thread; returns the previous state."""
    active = bool(active)
    if active and not is_np_shape():
        raise ValueError("NumPy Shape semantics is required in using NumPy array semantics. "
                         "Please set `shape=True` in `npx.set_np()` or call `npx.set_np_shape()` "
                         "to activate NumPy shape semantics.")
    prev = is_np_array()
    _set("np_array", active)
    return prev


class _Scope:
    """``with`` scope that sets one flag and restores the previous value on exit."""

    def __init__(self, name, active):
        self._name, self._active, self._prev = name, bool(active), None

    def __enter__(self):
        self._prev = _flag(self._name)
        _set(self._name, self._active)
        return self

    def __exit__(self, *exc):
        _set(self._name, self._prev)


class _NumpyShapeScope(_Scope):
    """MXNet's scope class behind np_shape()."""

    def __init__(self, is_np_shape):  # noqa: F811
        super().__init__("np_shape", is_np_shape)
        self._is_np_shape = bool(is_np_shape)


class _NumpyArrayScope(_Scope):
    """MXNet's scope class behind np_array(); ``_NumpyArrayScope._current`` is the
    thread's innermost scope, as in MXNet."""
    _current = None

    def __init__(self, is_np_array):  # noqa: F811
        super().__init__("np_array", is_np_array)
        self._is_np_array = bool(is_np_array)


def np_shape(active=True):
    """A ``with`` scope with NumPy shape semantics on (or off, with active=False)."""
    return _Scope("np_shape", active)


def np_array(active=True):
    """A ``with`` scope with NumPy array semantics on (or off)."""
    return _Scope("np_array", active)


def _decorate(func, scope, what):
    """Run `func` (every method, static method and property of a class) inside `scope()`."""
    if inspect.isclass(func):
        for name, member in inspect.getmembers(
                func, predicate=lambda f: inspect.isfunction(f) or inspect.ismethod(f)
                or isinstance(f, property)):
            if isinstance(member, property):
                setattr(func, name, property(_decorate(member.__get__, scope, what),
                                             member.__set__, member.__delattr__,
                                             member.__doc__))
            else:
                setattr(func, name, _decorate(member, scope, what))
        return func
    if callable(func):
        @functools.wraps(func)
        def scoped(*args, **kwargs):
            with scope():
                return func(*args, **kwargs)
        return scoped
    raise TypeError(f"{what} can only decorate classes and callable objects, while received "
                    f"a {type(func)}")


def use_np_shape(func):
    """Decorator: `func` (or each method of a class) runs with NumPy shape semantics."""
    return _decorate(func, np_shape, "use_np_shape")


def use_np_array(func):
    """Decorator: `func` (or each method of a class) runs with NumPy array semantics."""
    return _decorate(func, np_array, "use_np_array")


def use_np(func):
    """Decorator: NumPy shape and array semantics both (MXNet: use_np_shape(use_np_array(f)))."""
    return use_np_shape(use_np_array(func))


def set_np(shape=True, array=True):
    """Turn NumPy shape and array semantics on (or off) for this thread. NumPy array
    semantics without NumPy shape semantics is refused, as in MXNet."""
    if not shape and array:
        raise ValueError("NumPy Shape semantics is required in using NumPy array semantics.")
    _set("np_array", False)
    set_np_shape(shape)
    _set_np_array(array)


def reset_np():
    """Turn both NumPy semantics off (MXNet's default)."""
    set_np(shape=False, array=False)


def get_gpu_count():
    """The number of GPUs JAX sees."""
    from .. import context
    return context.num_gpus()


def get_gpu_memory(gpu_dev_id):
    """(free, total) bytes of GPU `gpu_dev_id`, from the device's memory statistics."""
    import jax
    gpus = [d for d in jax.devices() if d.platform == "gpu"] if get_gpu_count() else []
    if not 0 <= gpu_dev_id < len(gpus):
        raise MXNetError(f"get_gpu_memory: no GPU {gpu_dev_id} (this machine has {len(gpus)})")
    stats = gpus[gpu_dev_id].memory_stats() or {}
    total = stats.get("bytes_limit", 0)
    return total - stats.get("bytes_in_use", 0), total


def get_cuda_compute_capability(ctx):
    """The CUDA compute capability of a GPU context as an int (e.g. 90 for sm_90)."""
    if ctx.device_type != "gpu":
        raise ValueError(f"Expecting a gpu context to get cuda compute capability, while "
                         f"received ctx {ctx}")
    import jax
    dev = [d for d in jax.devices() if d.platform == "gpu"][ctx.device_id]
    cc = getattr(dev, "compute_capability", None)
    if cc is None:
        raise MXNetError(f"get_cuda_compute_capability: JAX does not report it for {ctx}")
    major, _, minor = str(cc).partition(".")
    return int(major) * 10 + int(minor or 0)


def getenv(name):
    """The value of environment variable `name`, or None (MXNet reads it through its C
    library; xnd through os.environ, which MXNET_* switches are read from too)."""
    return os.environ.get(name)


def setenv(name, value):
    """Set (or, with value None, unset) environment variable `name`."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


def set_module(module):
    """Decorator that sets a function's or class's ``__module__`` (for docs and repr)."""
    def decorator(func):
        if module is not None:
            func.__module__ = module
        return func
    return decorator


def wraps_safely(wrapped, assigned=functools.WRAPPER_ASSIGNMENTS):
    """functools.wraps that skips attributes the wrapped object lacks."""
    return functools.wraps(wrapped, assigned=[a for a in assigned if hasattr(wrapped, a)])
