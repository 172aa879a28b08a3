"""Devices: mx.cpu(i), mx.gpu(i), mx.Context and the default-context stack.

MXNet compares only the device *type* when an op mixes inputs (cpu(1) + cpu(0)
is allowed and lands on cpu(1)); cpu vs gpu raises. cpu(i) maps to JAX CPU
device i when XLA exposes that many host devices, else to device 0 (MXNet's
cpu(i) share one memory space).
"""
import threading

import jax

from .base import MXNetError, _ClassPropertyMetaClass, classproperty
# names MXNet's module holds by importing them (its users import them from here)
from .base import check_call, with_metaclass  # noqa: E402,F401

_DEVTYPE2STR = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
_DEVSTR2TYPE = {v: k for k, v in _DEVTYPE2STR.items()}


class Context(metaclass=_ClassPropertyMetaClass):
    """A device: ``Context('cpu', 0)``, ``Context(other_ctx)``; usable as ``with``.

    The default context is per thread, as in MXNet 1.9.1: ``Context.default_ctx = c``
    in one thread leaves the others' default alone.
    """

    __slots__ = ("device_typeid", "device_id", "_old", "_jax_device")
    devtype2str = _DEVTYPE2STR
    devstr2type = _DEVSTR2TYPE
    _default = threading.local()

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            device_type, device_id = device_type.device_type, device_type.device_id
        if device_type not in _DEVSTR2TYPE:
            raise MXNetError(f"unknown device type {device_type!r}; expected one of {sorted(_DEVSTR2TYPE)}")
        self.device_typeid = _DEVSTR2TYPE[device_type]
        self.device_id = int(device_id)
        self._old = None
        self._jax_device = None

    @property
    def device_type(self):
        return _DEVTYPE2STR[self.device_typeid]

    def __hash__(self):
        return hash((self.device_typeid, self.device_id))

    def __eq__(self, other):
        return (isinstance(other, Context) and self.device_typeid == other.device_typeid
                and self.device_id == other.device_id)

    def __repr__(self):
        return f"{self.device_type}({self.device_id})"

    __str__ = __repr__

    def __reduce__(self):
        # the resolved JAX device does not pickle; it is looked up again on first use
        return (Context, (self.device_type, self.device_id))

    def __enter__(self):
        self._old = current_context()
        Context._default.value = self
        return self

    def __exit__(self, *exc):
        Context._default.value = self._old

    @property
    def kind(self):
        """'gpu' or 'cpu': the only part MXNet compares between op inputs."""
        return "gpu" if self.device_typeid == 2 else "cpu"

    def jax_device(self):
        """The JAX device holding this context's arrays."""
        dev = self._jax_device
        if dev is None:
            dev = self._jax_device = _jax_device(self.kind, self.device_id, self)
        return dev

    def empty_cache(self):
        """MXNet frees its memory pool here; XLA manages its own, so nothing to do."""

    @classproperty
    def default_ctx(cls):
        """Deprecated in MXNet 1.9.1 (DeprecationWarning): the current context."""
        _warn_default_ctx()
        return current_context()

    @default_ctx.setter
    def default_ctx(cls, value):  # MXNet 1.9.1 warns on reading it only
        Context._default.value = value


def _warn_default_ctx():
    import warnings
    warnings.warn("Context.default_ctx has been deprecated. Please use "
                  "Context.current_context() instead. Please use "
                  "test_utils.set_default_context to set a default context",
                  DeprecationWarning, stacklevel=3)


def _jax_device(kind, i, ctx):
    if kind == "gpu":
        try:
            devs = jax.local_devices(backend="gpu")
        except RuntimeError:
            devs = []
        if i >= len(devs):
            raise MXNetError(f"{ctx} is not available: this machine has {len(devs)} GPU(s) visible to JAX")
        return devs[i]
    devs = jax.local_devices(backend="cpu")
    return devs[i] if i < len(devs) else devs[0]


_interned = {}


def _ctx(device_type, device_id=0):
    key = (device_type, device_id)
    c = _interned.get(key)
    if c is None:
        c = _interned[key] = Context(device_type, device_id)
    return c


def cpu(device_id=0):
    return _ctx("cpu", device_id)


def gpu(device_id=0):
    return _ctx("gpu", device_id)


def cpu_pinned(device_id=0):
    return _ctx("cpu_pinned", device_id)


def num_gpus():
    try:
        return len(jax.local_devices(backend="gpu"))
    except RuntimeError:
        return 0


def current_context():
    return getattr(Context._default, "value", None) or cpu(0)


default_context = current_context  # extension: MXNet 1.9.1 has no mx.default_context


def gpu_memory_info(device_id=0):
    stats = gpu(device_id).jax_device().memory_stats() or {}
    total = stats.get("bytes_limit", 0)
    return total - stats.get("bytes_in_use", 0), total
