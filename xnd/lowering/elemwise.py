"""Elementwise operators: binary (same-shape, broadcast, scalar) and unary math.

MXNet rules matched here (OPERATORS.md §2-3): ``elemwise_*`` need identical
shapes, ``broadcast_*`` broadcast NumPy-style, both inputs must share a dtype;
a scalar operand is cast to the array's dtype first (int32 ``a * 1.5`` is
``a * 1``); integer division truncates toward zero, ``%`` takes the divisor's
sign; comparisons and logical ops return 1/0 in the input dtype; unary math on
integer input computes in float and truncates back to the integer dtype.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..base import MXNetError
from .attrs import Float, Int
from . import dtypes
from .dtypes import c_cast, int_math, real_ints, same_dtype
from .registry import Dynamic, register


@jax.custom_jvp
def mx_abs(x):
    return jnp.abs(x)


mx_abs.defjvp(lambda p, t: (mx_abs(p[0]), t[0] * jnp.sign(p[0])))  # MXNet: gradient 0 at 0


@jax.custom_jvp
def _relu(x):
    return jnp.maximum(x, 0).astype(x.dtype)


# MXNet's relu gradient is NaN at a NaN input (its relu_grad passes a NaN through)
# (a product with t, as MXNet's ograd * relu_grad: the tangent must stay linear in t)
_relu.defjvp(lambda p, t: (_relu(p[0]), t[0] * jnp.where(
    p[0] > 0, 1, jnp.where(jnp.isnan(p[0]), p[0], 0)).astype(t[0].dtype)))


def _tie_left(cmp, pick):
    """maximum/minimum whose gradient goes wholly to the left operand on a tie (MXNet); a NaN
    on either side gives NaN (MXNet's maximum(1, nan) and maximum(nan, 1) are both nan)."""
    @jax.custom_jvp
    def f(a, b):
        return pick(a, b)

    @f.defjvp
    def _(p, t):
        a, b = p
        mask = cmp(a, b)
        return f(a, b), jnp.where(mask, t[0], t[1])
    return f


def _cmp(f):
    return lambda a, b: f(a, b).astype(a.dtype)


def _logical(f):
    return lambda a, b: f(a != 0, b != 0).astype(a.dtype)


def _div(a, b):
    """C division: truncation toward zero for integers (lax.div), which takes equal shapes
    only, so the operands are broadcast first (broadcast_div, ``x /= y`` with y shorter)."""
    return lax.div(*jnp.broadcast_arrays(a, b))


def _mod(a, b):
    """Python's modulo (the divisor's sign); a float x % 0 is 0 in MXNet, not NaN."""
    r = jnp.mod(a, b)
    if jnp.issubdtype(r.dtype, jnp.floating):
        r = jnp.where(b == 0, jnp.zeros((), r.dtype), r)
    return r


def _hypot(a, b):
    """Integer hypot is the integer dtype (MXNet's ``hypotf`` of the two, converted back):
    hypot(5, 12) is 13 in int32, where jnp's float32 hypot gives 12.999999."""
    if jnp.issubdtype(a.dtype, jnp.integer):
        # hypotf of the integers rounded to float32: in float64 (exact squares, one rounding
        # of the root); the float32 rounding is reduce_precision, as XLA 0.4.30 folds an
        # int -> float32 -> float64 conversion into one and skips it
        def f32_values(x):
            return lax.reduce_precision(x.astype(jnp.float64), exponent_bits=8, mantissa_bits=23)
        return c_cast(jnp.sqrt(jnp.square(f32_values(a)) + jnp.square(f32_values(b)))
                      .astype(jnp.float32), a.dtype)
    return jnp.hypot(a, b)

# MXNet base name -> (elementwise function of two same-dtype arrays)
BINARY = {
    "add": jnp.add, "sub": jnp.subtract, "mul": jnp.multiply, "div": _div,
    "mod": _mod, "power": jnp.power, "maximum": _tie_left(jnp.greater_equal, jnp.maximum),
    "minimum": _tie_left(jnp.less_equal, jnp.minimum),
    "hypot": _hypot,
    "equal": _cmp(jnp.equal), "not_equal": _cmp(jnp.not_equal),
    "greater": _cmp(jnp.greater), "greater_equal": _cmp(jnp.greater_equal),
    "lesser": _cmp(jnp.less), "lesser_equal": _cmp(jnp.less_equal),
    "logical_and": _logical(jnp.logical_and), "logical_or": _logical(jnp.logical_or),
    "logical_xor": _logical(jnp.logical_xor),
}
_REVERSED = {"sub": "rminus", "div": "rdiv", "mod": "rmod", "power": "rpower"}

# (base, same-shape op name and aliases, broadcast op name and aliases, scalar op name)
_NAMES = {
    "add": (("elemwise_add", "_plus", "_add", "_Plus"), ("broadcast_add", "broadcast_plus"), "_plus_scalar"),
    "sub": (("elemwise_sub", "_minus", "_sub", "_Minus"), ("broadcast_sub", "broadcast_minus"), "_minus_scalar"),
    "mul": (("elemwise_mul", "_mul", "_Mul"), ("broadcast_mul",), "_mul_scalar"),
    "div": (("elemwise_div", "_div", "_Div"), ("broadcast_div",), "_div_scalar"),
    "mod": (("_mod", "_Mod"), ("broadcast_mod",), "_mod_scalar"),
    "power": (("_power", "_Power", "_pow"), ("broadcast_power",), "_power_scalar"),
    "maximum": (("_maximum", "_Maximum"), ("broadcast_maximum",), "_maximum_scalar"),
    "minimum": (("_minimum", "_Minimum"), ("broadcast_minimum",), "_minimum_scalar"),
    "hypot": (("_hypot", "_Hypot"), ("broadcast_hypot",), "_hypot_scalar"),
    "equal": (("_equal",), ("broadcast_equal",), "_equal_scalar"),
    "not_equal": (("_not_equal",), ("broadcast_not_equal",), "_not_equal_scalar"),
    "greater": (("_greater",), ("broadcast_greater",), "_greater_scalar"),
    "greater_equal": (("_greater_equal",), ("broadcast_greater_equal",), "_greater_equal_scalar"),
    "lesser": (("_lesser",), ("broadcast_lesser",), "_lesser_scalar"),
    "lesser_equal": (("_lesser_equal",), ("broadcast_lesser_equal",), "_lesser_equal_scalar"),
    "logical_and": (("_logical_and",), ("broadcast_logical_and",), "_logical_and_scalar"),
    "logical_or": (("_logical_or",), ("broadcast_logical_or",), "_logical_or_scalar"),
    "logical_xor": (("_logical_xor",), ("broadcast_logical_xor",), "_logical_xor_scalar"),
}


def broadcast_shape(op, a, b):
    """NumPy broadcasting with MXNet's error message."""
    try:
        return np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        sa, sb = (",".join(map(str, s)) for s in (a.shape, b.shape))
        raise MXNetError(f"{op}: operands could not be broadcast together with shapes [{sa}] [{sb}]") \
            from None


def _same_shape(name, f):
    def op(lhs, rhs):
        lhs, rhs = real_ints(lhs, rhs)
        same_dtype(name, lhs, rhs)
        if lhs.shape != rhs.shape:
            raise MXNetError(f"{name}: shapes must be equal, got {lhs.shape} and {rhs.shape} "
                             f"(use broadcast_{name.split('_', 1)[-1]} to broadcast)")
        return f(lhs, rhs)
    return op


def _broadcast(name, f):
    def op(lhs, rhs):
        lhs, rhs = real_ints(lhs, rhs)
        same_dtype(name, lhs, rhs)
        broadcast_shape(name, lhs, rhs)
        return f(lhs, rhs)
    return op


def scalar_like(a, scalar):
    """MXNet casts a scalar operand to the array's dtype before the op (C-style: -1 -> 255 for
    uint8, 1.5 -> 1 for int32)."""
    s = jnp.asarray(scalar)
    if jnp.issubdtype(a.dtype, jnp.integer) and jnp.issubdtype(s.dtype, jnp.floating):
        return c_cast(s, a.dtype)
    return s.astype(a.dtype)


def _scalar(f, reverse=False):
    if reverse:
        def op(data, *, scalar: Dynamic(Float) = 1.0):
            return f(scalar_like(data, scalar), data)
    else:
        def op(data, *, scalar: Dynamic(Float) = 1.0):
            return f(data, scalar_like(data, scalar))
    return op


def same_shapes(attrs, shapes):
    """Graph shape inference: every input of a same-shape op has the same shape. Partly
    known shapes (0 = unknown dim) complete each other dimension by dimension, as MXNet's
    elementwise shape function does ((0, 10) and (12, 0) are both (12, 10))."""
    known = [s for s in shapes if s is not None]
    if not known:
        return list(shapes)
    if len({len(s) for s in known}) != 1:
        return [known[0] if s is None else s for s in shapes]
    merged = tuple(next((d for d in dims if d), 0) for dims in zip(*known))
    fits = lambda s: all(d in (0, m) for d, m in zip(s, merged))  # noqa: E731
    return [merged if s is None or fits(s) else s for s in shapes]


for _base, (_same, _bcast, _sc) in _NAMES.items():
    _f = BINARY[_base]
    register(_same[0], *_same[1:], param_shapes=same_shapes, elementwise=True)(
        _same_shape(_same[0], _f))
    register(_bcast[0], *_bcast[1:], elementwise="broadcast")(_broadcast(_bcast[0], _f))
    register(_sc, elementwise=True)(_scalar(_f))
    if _base in _REVERSED:
        register(f"_{_REVERSED[_base]}_scalar", elementwise=True)(_scalar(_f, reverse=True))


def _float_math(f, on_int=None):
    """Float functions keep integer dtypes: computed in float and converted back as MXNet's
    kernels do (``dtypes.int_math``: exp([1]) -> [2], sqrt([-1]) int32 -> [-2147483648]);
    ``on_int``: the op's own integer form (INT_FORMS)."""
    def op(data):
        if jnp.issubdtype(data.dtype, jnp.floating):
            return f(data)
        if jnp.issubdtype(data.dtype, jnp.integer):
            return on_int(data) if on_int is not None else int_math(f, data)
        return f(data.astype(jnp.float32)).astype(data.dtype)
    return op



def _log10(x):
    """libm's log10 is exact at the powers of ten; jax before 0.4.36 divides by log(10)
    (log10 of float64 100 was 1.9999999999999996, int8 log10(100) 1 instead of MXNet's 2)."""
    r = jnp.log10(x)
    k = jnp.round(r)
    return jnp.where(jnp.power(jnp.asarray(10, x.dtype), k) == x, k, r)


def _gamma64(y):
    """tgamma in float64: NaN at the negative integers, and exact factorials at the positive
    integers (tgamma's; exp(lgamma(3)) is 1.9999999999999996, so int gamma(3) gave 1)."""
    g = jnp.exp(lax.lgamma(y)) * jnp.where((y < 0) & (jnp.floor(y) % 2 == 1), -1, 1)
    whole = y == jnp.floor(y)
    g = jnp.where(whole & (y > 0) & (g < 2.0 ** 53), jnp.round(g), g)
    return jnp.where((y < 0) & whole, jnp.nan, g)


def _in_f64(x, f):
    """Computed in float64 and rounded back: exp(lgamma) in float32 loses digits MXNet keeps."""
    return f(x.astype(jnp.float64)).astype(x.dtype)


def expm1(x):
    """MXNet's (libm's) expm1: in float64, rounded back (XLA:CPU's float32 one is 2-5 ulps off;
    expm1(-0.1) gave -0.09516256 against MXNet's -0.095162585)."""
    return _in_f64(x, jnp.expm1)


def log1p(x):
    """MXNet's (libm's) log1p, as expm1."""
    return _in_f64(x, jnp.log1p)


def _sign(x):
    """MXNet's sign(nan) is 0."""
    if jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.where(jnp.isnan(x), jnp.zeros((), x.dtype), jnp.sign(x))
    return jnp.sign(x)


def _round_half_away(x):
    return jnp.sign(x) * jnp.floor(jnp.abs(x) + 0.5)


# name and aliases -> function; each runs on float input (integer input via _float_math)
UNARY_FLOAT = {
    ("sqrt",): jnp.sqrt, ("rsqrt",): lax.rsqrt, ("cbrt",): jnp.cbrt,
    ("rcbrt",): lambda x: 1 / jnp.cbrt(x),
    ("exp",): jnp.exp, ("expm1",): expm1, ("log",): jnp.log, ("log10",): _log10,
    ("log2",): jnp.log2, ("log1p",): log1p,
    ("sin",): jnp.sin, ("cos",): jnp.cos, ("tan",): jnp.tan, ("arcsin",): jnp.arcsin,
    ("arccos",): jnp.arccos, ("arctan",): jnp.arctan, ("sinh",): jnp.sinh, ("cosh",): jnp.cosh,
    ("tanh",): jnp.tanh, ("arcsinh",): jnp.arcsinh, ("arccosh",): jnp.arccosh,
    ("arctanh",): jnp.arctanh, ("degrees",): jnp.degrees, ("radians",): jnp.radians,
    ("erf",): lambda x: lax.erf(x), ("erfinv",): lambda x: lax.erf_inv(x),
    # the poles at 0, -1, -2 ...: +inf at 0 (tgamma(+0)), NaN at the negative integers (MXNet)
    ("gamma",): lambda x: _in_f64(x, _gamma64),
    ("gammaln",): lambda x: _in_f64(x, lax.lgamma),
    ("sigmoid",): lambda x: 1 / (1 + jnp.exp(-x)),
    ("softsign",): lambda x: x / (1 + jnp.abs(x)),
    ("reciprocal",): lambda x: 1 / x,
}

UNARY_ANY = {
    ("abs",): mx_abs, ("sign",): _sign, ("negative",): jnp.negative,
    ("square",): jnp.square,
    ("round",): lambda x: _round_half_away(x) if jnp.issubdtype(x.dtype, jnp.floating) else x,
    ("rint",): lambda x: jnp.ceil(x - 0.5) if jnp.issubdtype(x.dtype, jnp.floating) else x,
    ("floor",): lambda x: jnp.floor(x) if jnp.issubdtype(x.dtype, jnp.floating) else x,
    ("ceil",): lambda x: jnp.ceil(x) if jnp.issubdtype(x.dtype, jnp.floating) else x,
    ("trunc",): lambda x: jnp.trunc(x) if jnp.issubdtype(x.dtype, jnp.floating) else x,
    ("fix",): lambda x: jnp.trunc(x) if jnp.issubdtype(x.dtype, jnp.floating) else x,
    ("relu",): _relu,
    ("logical_not",): lambda x: (x == 0).astype(x.dtype),
    ("_copy", "identity"): lambda x: jnp.array(x, copy=True),
    ("zeros_like",): jnp.zeros_like, ("ones_like",): jnp.ones_like,
}


# integer input where MXNet's kernel is not "the float function in double, converted back"
# (checked on MXNet 1.9.1, tests/test_int_math.py): radians and degrees compute in float
# (int64 2**40+1 gives 19190097920; degrees divides by pi first: int32 16777217 gives
# 961263616), sigmoid negates in the integer type first (int32 -2**31 stays -2**31, so its
# sigmoid is 1)
INT_FORMS = {
    "radians": lambda x: int_math(jnp.radians, x, wide=jnp.float32),
    "degrees": lambda x: int_math(lambda y: y / np.float32(np.pi) * np.float32(180), x,
                                  wide=jnp.float32),
    "sigmoid": lambda x: int_math(lambda y: 1 / (1 + jnp.exp(y)), dtypes.c_negate(x),
                                  out=x.dtype),
}


def _unary(f):
    def op(data):
        return f(data)
    return op


# XLA:CPU computes arctan and arcsinh with other last bits in its vector loop than in its scalar tail, so
# a bucketed run (lowering/bucket.py) would not repeat the exact kernel's numbers
_SHAPE_DEPENDENT = {"arctan", "arcsinh"}
for _names, _f in UNARY_FLOAT.items():
    register(*_names, elementwise=_names[0] not in _SHAPE_DEPENDENT)(
        _float_math(_f, INT_FORMS.get(_names[0])))
for _names, _f in UNARY_ANY.items():
    register(*_names, elementwise=True)(_unary(_f))


@register("_copyto")
def copyto(data):
    """MXNet's CopyFromTo (``x.copyto(ctx)``, ``as_in_context``): the values unchanged.
    NDArray.copyto moves the buffer to the other device itself and records this op, so that a
    gradient flows back across devices, as MXNet's autograd does (autograd/devices.py)."""
    return data


@register("smooth_l1")
def smooth_l1(data, *, scalar: Float = 1.0):
    """f(x) = 0.5 (sigma x)^2 if |x| < 1/sigma^2 else |x| - 0.5/sigma^2, sigma = ``scalar``."""
    with np.errstate(divide="ignore", over="ignore"):  # scalar=0: 1/sigma^2 is inf, so
        s2 = np.float64(scalar) * np.float64(scalar)     # every x is quadratic (0)
        inv = np.float64(1.0) / s2
    ax = jnp.abs(data)
    return jnp.where(ax < inv, 0.5 * s2 * data * data, ax - 0.5 * inv).astype(data.dtype)


@register("_identity_with_attr_like_rhs", param_shapes=same_shapes)
def identity_with_attr_like_rhs(lhs, rhs):
    """``lhs``, constrained to ``rhs``'s shape and dtype: graphs use it so that shape inference
    can run backwards into ``lhs`` from a shape known at ``rhs``. ``rhs`` gets no gradient."""
    same_dtype("_identity_with_attr_like_rhs", lhs, rhs)
    if lhs.shape != rhs.shape:
        raise MXNetError(f"_identity_with_attr_like_rhs: lhs of shape {lhs.shape} must have "
                         f"rhs's shape {rhs.shape}")
    return lhs


@register("add_n", "ElementWiseSum", "_sum", param_shapes=same_shapes)
def add_n(*args, num_args: Int = None):
    """Sum of any number of same-shape, same-dtype arrays."""
    args = real_ints(*args)
    same_dtype("add_n", *args)
    out = args[0]
    for a in args[1:]:
        if a.shape != out.shape:
            raise MXNetError(f"add_n: shapes must be equal, got {out.shape} and {a.shape}")
        out = out + a
    return out
