"""MXNet's dtype table and the rules of the legacy ``nd`` API.

The legacy API never promotes: both inputs of a binary op must share a dtype,
Python scalars are cast to the array's dtype before the op, comparisons return
the input dtype (1/0), and index-producing ops return float32.
"""
import contextlib
import threading

import numpy as np

from ..base import MXNetError

# name -> numpy type, in MXNet's type_flag order (the .params codes).
DTYPES = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16,
    "uint8": np.uint8, "int32": np.int32, "int8": np.int8, "int64": np.int64,
    "bool": np.bool_,
}
_ALIASES = {"float": np.float64, "double": np.float64, "half": np.float16,
            "int": np.int64, "bool_": np.bool_}
# bfloat16 (MXNet's type flag 12, past the table above): AMP's low precision type on CPU
BFLOAT16 = __import__("ml_dtypes").bfloat16  # what jax uses (a jax dependency)
_ALIASES["bfloat16"] = BFLOAT16


def np_dtype(dtype, op="array"):
    """Normalise a user dtype (str, numpy type, np.dtype, Python type) to a numpy type class."""
    if dtype is None:
        return np.float32
    if isinstance(dtype, str):
        t = DTYPES.get(dtype) or _ALIASES.get(dtype)
        if t is None:
            raise TypeError(f"{op}: unknown dtype {dtype!r}; MXNet supports {', '.join(DTYPES)}")
        return t
    if dtype is float:
        return np.float64
    if dtype is int:
        return np.int64
    if dtype is bool:
        return np.bool_
    try:
        t = np.dtype(dtype).type
    except TypeError:
        raise TypeError(f"{op}: unknown dtype {dtype!r}") from None
    if t not in _SUPPORTED:
        raise TypeError(f"{op}: dtype {np.dtype(t).name} is not supported by MXNet; "
                        f"use one of {', '.join(DTYPES)}")
    return t


_SUPPORTED = set(DTYPES.values()) | {BFLOAT16}


def same_dtype(op, *arrays):
    """MXNet's type inference: every input shares the first input's dtype."""
    d0 = arrays[0].dtype
    for i, a in enumerate(arrays[1:], 1):
        if a.dtype != d0:
            raise MXNetError(
                f"Incompatible attr in node {op} at {i}-th input: expected {d0}, got {a.dtype} "
                f"(the legacy nd API does not promote; cast explicitly with astype)")
    return d0


def is_float(dtype):
    return np.issubdtype(dtype, np.floating)


def as_real(x):
    """An integer array as float64, the way autograd and executors differentiate it: MXNet
    gives integer arrays gradients in their own dtype (the gradient of ``sum(a)`` for an
    int32 ``a`` is int32 ones), JAX gives integers no tangent. The callers truncate the
    gradient back to the array's dtype, as MXNet's integer kernels do."""
    return x.astype(np.float64) if x is not None and (np.issubdtype(x.dtype, np.integer)
                                                     or x.dtype == np.bool_) else x


class _RealRun(threading.local):
    active = False


REAL_RUN = _RealRun()  # set while a graph is traced for its gradient as float (as_real)


@contextlib.contextmanager
def real_run():
    """While a graph is traced with its integers as float64 for differentiation, a cast to
    an integer dtype keeps the float dtype (same values), so the head gradient passes it back
    unchanged, as MXNet's Cast backward does; the caller casts the outputs it returns."""
    was, REAL_RUN.active = REAL_RUN.active, True
    try:
        yield
    finally:
        REAL_RUN.active = was


def real_ints(*arrays):
    """``arrays`` of one operator, where under ``real_run`` an integer cast's float stand-in
    meets a true integer (``shape_array``, ``arange(dtype='int64')``): the float ones go back
    to that integer dtype (truncated, no gradient), so the op computes as MXNet's (integer
    division, an int64 Concat in GluonCV CenterNet's decoder). Outside it: ``arrays``."""
    if not REAL_RUN.active or len({a.dtype for a in arrays}) < 2:
        return arrays
    ints = [a.dtype for a in arrays if np.issubdtype(a.dtype, np.integer)]
    if not ints or len(ints) == len(arrays):
        return arrays
    import jax
    import jax.numpy as jnp
    return tuple(a if np.issubdtype(a.dtype, np.integer)
                 else jax.lax.stop_gradient(jnp.trunc(a)).astype(ints[0]) for a in arrays)


# what an operator raises when it insists on integer inputs (then they get no gradient)
NOT_REAL_ERRORS = (TypeError, ValueError, MXNetError)

INDEX_DTYPE = np.float32  # argmax/argsort/topk indices on float input
