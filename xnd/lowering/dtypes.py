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


# ---- MXNet's float -> integer conversion (its CPU kernels' C++ static_cast on x86) ----------
# cvttss2si/cvttsd2si truncate toward zero and give the "integer indefinite" value, the
# type's minimum, for NaN, +-inf and anything out of range; the 8- and 16-bit types are
# converted through the 32-bit instruction and keep its low bits (300.0 -> int8 44, -44.0
# -> uint8 212, NaN -> int8 0). Checked on MXNet 1.9.1 for int8, uint8, int32 and int64
# (tests/test_int_math.py): Cast/astype, unary float math on integer arrays (sqrt of -1 is
# -2147483648 in int32), a float scalar meeting an integer array, and float indices.
def c_cast(x, dtype):
    """``x`` as ``dtype`` the way MXNet's C++ ``static_cast`` converts it on x86: floats to
    integers by the rule above; every other conversion is the plain one."""
    import jax.numpy as jnp
    dt = np.dtype(dtype)
    if not (jnp.issubdtype(x.dtype, jnp.floating) and np.issubdtype(dt, np.integer)):
        return x.astype(dt)
    via = np.int64 if dt.itemsize == 8 else np.int32
    lim = float(2 ** (np.iinfo(via).bits - 1))       # exact in every float type
    t = jnp.trunc(x)
    bad = jnp.isnan(t) | (t >= lim) | (t < -lim)
    out = jnp.where(bad, jnp.zeros((), x.dtype), t).astype(via)
    return jnp.where(bad, np.iinfo(via).min, out).astype(dt)


def float_for(dtype):
    """The float type MXNet's math kernels compute an integer type in: double (checked on
    MXNet 1.9.1 for int8/uint8/int32/int64: tan of int32 2147483647 is 1, gammaln of
    16777217 is 262320712, erf of int8 -4 is 0; float32 gives -4, 262320688, -1)."""
    return np.float64


def int_math(f, *xs, wide=None, out=None):
    """``f`` of integer arrays as MXNet computes float math on them: in ``wide`` (default
    ``float_for`` their dtype), converted back to ``out`` (default their dtype) with
    ``c_cast``. Floats: ``f`` itself."""
    import jax.numpy as jnp
    dt = xs[0].dtype
    if not jnp.issubdtype(dt, jnp.integer):
        return f(*xs)
    wide = wide or float_for(dt)
    return c_cast(f(*(x.astype(wide) for x in xs)).astype(wide), out or dt)


def c_negate(x):
    """``-x`` of an integer array as C computes it: 8- and 16-bit values are promoted to int
    first, int32 and int64 wrap (-INT_MIN is INT_MIN)."""
    import jax.numpy as jnp
    return -(x.astype(jnp.int32) if x.dtype.itemsize < 4 else x)
