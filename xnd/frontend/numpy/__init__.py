"""``mx.np``: MXNet 1.9.1's numpy interface (python/mxnet/numpy), over xnd's registry.

Every function of the `NP_FUNCS` table of xnd/lowering/numpy.py is here under its
numpy name (``multiarray.func``); the creation functions below add MXNet's
defaults (float32, ``ctx=``).  A numpy name that MXNet 1.9.1's ``mx.np`` lacks
raises AttributeError naming it.
"""
import builtins as _builtins
import numpy as _onp

from ...lowering import numpy as _lnp
from . import multiarray
from .multiarray import array, func as _func, ndarray

from . import _internal, linalg, random  # noqa: E402,F401

# dtypes and constants, as MXNet re-exports them from numpy
bool_ = _onp.bool_
bool = _onp.bool_
float16, float32, float64 = _onp.float16, _onp.float32, _onp.float64
int8, int32, int64, uint8 = _onp.int8, _onp.int32, _onp.int64, _onp.uint8
pi, e, inf, nan, newaxis = _onp.pi, _onp.e, _onp.inf, _onp.nan, None
NAN = NaN = _onp.nan
PINF, NINF, PZERO, NZERO = _onp.inf, -_onp.inf, 0.0, -0.0
dtype, finfo, iinfo = _onp.dtype, _onp.finfo, _onp.iinfo
result_type, promote_types, min_scalar_type = _onp.result_type, _onp.promote_types, \
    _onp.min_scalar_type
set_printoptions = _onp.set_printoptions

# the numpy functions of MXNet 1.9.1's mx.np that xnd maps onto jnp
_NAMES = [n for n in _lnp.NP_FUNCS if n.isidentifier() and "_" not in n[:1]
          and not n.startswith("linalg_") and n not in _lnp.NPX_ONLY
          and n not in ("getitem", "astype", "float_cast", "arange", "zeros", "ones")]
for _n in _NAMES:
    globals()[_n] = _func(_n)
for _n in _lnp.HOST_FUNCS:
    globals()[_n] = multiarray.host_func(_n)


def _dtype_or(dtype, default="float32"):
    return default if dtype is None else dtype


def zeros(shape, dtype=None, order="C", ctx=None, device=None):
    multiarray._order_c("zeros", order)
    """float32 unless dtype is given (MXNet's default float)."""
    return _func("zeros")(shape, dtype=_dtype_or(dtype), ctx=ctx, device=device)


def ones(shape, dtype=None, order="C", ctx=None, device=None):
    multiarray._order_c("ones", order)
    return _func("ones")(shape, dtype=_dtype_or(dtype), ctx=ctx, device=device)


empty = zeros


def full(shape, fill_value, dtype=None, order="C", ctx=None, device=None, out=None):
    multiarray._order_c("full", order)
    if isinstance(fill_value, ndarray) and dtype is None:
        dtype = fill_value.dtype
    return _func("full")(shape, fill_value, dtype=_dtype_or(dtype), ctx=ctx, device=device,
                         out=out)


def arange(start, stop=None, step=1, dtype=None, ctx=None, device=None):
    """float32 unless dtype is given, whatever the type of the bounds (MXNet 1.9.1)."""
    return _func("arange")(start, stop, step, dtype=_dtype_or(dtype), ctx=ctx, device=device)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None,
             device=None):
    out = _func("linspace")(start, stop, num, endpoint, dtype=_dtype_or(dtype), axis=axis,
                            ctx=ctx, device=device)
    if retstep:
        return out, (stop - start) / ((num - 1) if endpoint else num)
    return out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, ctx=None,
             device=None):
    return _func("logspace")(start, stop, num, endpoint, base, dtype=_dtype_or(dtype),
                             axis=axis, ctx=ctx, device=device)


def eye(N, M=None, k=0, dtype=None, ctx=None, device=None, **kwargs):
    return _func("eye")(N, M, k, dtype=_dtype_or(dtype), ctx=ctx, device=device)


def identity(n, dtype=None, ctx=None, device=None):
    return _func("identity")(n, dtype=_dtype_or(dtype), ctx=ctx, device=device)


def tri(N, M=None, k=0, dtype=None, ctx=None, device=None):
    return _func("tri")(N, M, k, dtype=_dtype_or(dtype), ctx=ctx, device=device)


def empty_like(prototype, dtype=None, order="C", subok=False, shape=None):
    return zeros_like(prototype, dtype=dtype)  # noqa: F821 (defined from the table)


def asarray(a, dtype=None, ctx=None, device=None):
    if isinstance(a, ndarray) and dtype is None and ctx is None and device is None:
        return a
    return array(a, dtype=dtype, ctx=ctx, device=device)


def copy(a):
    return a.copy()


def shape(a):
    return a.shape


def size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


def ndim(a):
    return a.ndim


def reshape(a, newshape, order="C"):
    return a.reshape(newshape)


may_share_memory = shares_memory = multiarray.may_share_memory
product = prod  # noqa: F821
round_ = round  # noqa: F821
alltrue, sometrue = all, any  # noqa: F821
abs = absolute  # noqa: F821


# MXNet's mx.np also holds numpy/fallback.py's names where the table has none (official
# NumPy's functions: on mx.np arrays numpy hands the call to ndarray.__array_function__,
# which runs it on host copies) and numpy/io.py's genfromtxt
from . import fallback, fallback_linalg, io  # noqa: E402
for _n in fallback.__all__:
    if _n not in globals():
        globals()[_n] = getattr(fallback, _n)
genfromtxt = io.genfromtxt


def _fallback_missing(name):
    return AttributeError(
        f"module 'mxnet.numpy' has no attribute {name!r}: xnd's mx.np does not provide "
        f"numpy.{name}" + ("" if hasattr(_onp, name) else
                           f" (neither does MXNet 1.9.1's mx.np, nor numpy)"))


def __getattr__(name):
    raise _fallback_missing(name)


__all__ = sorted(n for n in globals() if not n.startswith("_") and n not in (
    "multiarray", "linalg", "random", "fallback", "fallback_linalg", "io"))
del _builtins
import builtins as _builtins_mod  # noqa: E402

# MXNet defines mx.np's functions in numpy/multiarray.py (mx.np re-exports them): the same
# functions are that module's names here too (`from mxnet.numpy.multiarray import zeros`)
# (never a builtin's name: multiarray's own code calls any(), all(), max() ...)
for _n in __all__:
    if callable(globals()[_n]) and not hasattr(multiarray, _n) and \
            not hasattr(_builtins_mod, _n):
        setattr(multiarray, _n, globals()[_n])
multiarray.row_stack = globals().get("row_stack", multiarray.vstack)
