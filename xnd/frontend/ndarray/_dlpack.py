"""DLPack exchange of mx.nd arrays (MXNet 1.9.1's ``to_dlpack_for_read/_for_write`` and
``from_dlpack``), and ``from_numpy``.

``to_dlpack_*`` return the PyCapsule named ``"dltensor"`` that DLPack consumers (PyTorch's
``from_dlpack``, CuPy, ...) take. ``from_dlpack`` takes such a capsule, or any object with
``__dlpack__``. JAX buffers are immutable, so an xnd array never aliases foreign memory: the
consumer side copies (MXNet shares; see docs/porting.md).
"""
import ctypes

import numpy as np


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    """DLPack's owning wrapper; its fields name the deleter type, which points back at it."""


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _DELETER)]

_api = ctypes.pythonapi
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

_KINDS = {0: "i", 1: "u", 2: "f", 6: "b"}      # DLPack type codes: int, uint, float, bool
_CPU = 1


def capsule_to_numpy(capsule):
    """A numpy copy of the tensor in a ``"dltensor"`` capsule, which is then consumed (renamed
    ``"used_dltensor"`` and released, as the DLPack protocol asks)."""
    if not _api.PyCapsule_IsValid(capsule, b"dltensor"):
        raise ValueError("from_dlpack: expects a DLPack capsule named 'dltensor' that has not "
                         "been consumed yet")
    managed = ctypes.cast(_api.PyCapsule_GetPointer(capsule, b"dltensor"),
                          ctypes.POINTER(_DLManagedTensor))
    t = managed.contents.dl_tensor
    if t.device.device_type != _CPU:
        raise ValueError(f"from_dlpack: the tensor is on DLPack device type "
                         f"{t.device.device_type}; xnd reads host (CPU) tensors from capsules")
    kind = _KINDS.get(t.dtype.code)
    if kind is None or t.dtype.lanes != 1:
        raise ValueError(f"from_dlpack: unsupported DLPack dtype (code {t.dtype.code}, "
                         f"{t.dtype.bits} bits, {t.dtype.lanes} lanes)")
    dtype = np.dtype(f"{kind}{t.dtype.bits // 8}") if kind != "b" else np.dtype(bool)
    shape = tuple(t.shape[i] for i in range(t.ndim))
    item = dtype.itemsize
    if t.strides and any(t.strides[i] < 0 for i in range(t.ndim)):
        raise ValueError("from_dlpack: negative strides are not supported")
    if t.strides:
        strides = tuple(t.strides[i] * item for i in range(t.ndim))
    else:
        strides = tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) * item
                        for i in range(t.ndim))
    span = sum((d - 1) * abs(s) for d, s in zip(shape, strides)) + item if all(shape) else 0
    buf = (ctypes.c_char * max(span, 1)).from_address(t.data + t.byte_offset) if span else b""
    flat = np.frombuffer(buf, np.uint8, count=span) if span else np.zeros(0, np.uint8)
    out = np.lib.stride_tricks.as_strided(flat.view(dtype) if span else np.zeros(0, dtype),
                                          shape, strides).copy()
    _api.PyCapsule_SetName(capsule, b"used_dltensor")
    if managed.contents.deleter:
        managed.contents.deleter(managed)
    return out


def to_dlpack_for_read(data):
    """A DLPack capsule of ``data`` (a copy-free export of its current buffer)."""
    return data._val().__dlpack__()


def to_dlpack_for_write(data):
    """As ``to_dlpack_for_read``: xnd's buffers are immutable, so a consumer's writes do not
    reach ``data`` (MXNet's do)."""
    return data._val().__dlpack__()


def from_dlpack(dlpack):
    """An NDArray from a DLPack capsule or an object with ``__dlpack__`` (a copy)."""
    if hasattr(dlpack, "__dlpack__"):
        import jax.dlpack
        host = np.asarray(jax.dlpack.from_dlpack(dlpack))
    else:
        host = capsule_to_numpy(dlpack)
    return _on_current_device(host)


def _on_current_device(host):
    import jax
    from ...context import current_context
    from ...ndarray import _wrap
    ctx = current_context()
    return _wrap(jax.device_put(host, ctx.jax_device()), ctx)


def from_numpy(ndarray, zero_copy=True):
    """An NDArray with ``ndarray``'s values, shape and dtype (0-d and zero-size too). As in
    MXNet, ``zero_copy=True`` needs a C-contiguous array and makes it read-only; xnd still
    copies, so later writes to the NDArray do not show in ``ndarray``."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expects a numpy.ndarray, got {type(ndarray).__name__}")
    if zero_copy:
        if not ndarray.flags["C_CONTIGUOUS"]:
            raise ValueError("from_numpy: only C-contiguous arrays can be zero-copied; pass "
                             "zero_copy=False or numpy.ascontiguousarray(...)")
        ndarray.flags.writeable = False
    return _on_current_device(np.array(ndarray))
