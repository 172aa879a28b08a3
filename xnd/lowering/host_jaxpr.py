"""Jaxprs evaluated by numpy, with XLA:CPU's semantics: xnd's host tier.

MXNet has no compile step: a graph's first call costs what its arithmetic costs.  Every xnd
program (a bound graph, a fused training step, a backward plan, an optimizer update, an eager
kernel on a new shape) is an XLA compilation first: 30-70 ms for a one-op kernel on 2 cores,
about a second for a small network's training step.  For a program's first calls xnd can
instead trace it (``jax.jit(...).trace``: no compilation) and run its jaxpr here, one numpy
call per equation, with BLAS doing the convolutions and matrix products.

``evaluate(closed_jaxpr, args)`` runs a jaxpr whose every primitive is in ``RULES`` with
parameters its table lists (``host_params``; ``unsupported`` names the first primitive,
parameter or dtype that is not: such a program compiles as before).  A rule that declines
a value (``Unsupported``) or fails (``RuleError``) makes ``evaluate`` raise, and the caller
compiles; each is counted in ``FAILURES`` and logged (``xnd.host``).  Every rule is checked
against XLA by tests/test_host_rules.py.  A rule follows XLA's definition of its primitive
where numpy's differs:

* integer division and remainder by zero give -1 / the dividend (all ones unsigned), and
  ``INT_MIN / -1`` gives ``INT_MIN``; a float converted to an integer saturates, NaN gives 0;
  shifts by the bit width or more give 0 (arithmetic right shift: the sign);
* ``integer_pow`` multiplies by squaring as XLA's expansion does (numpy's ``power`` calls
  libm's ``pow``, which may round differently); ``round`` has both of XLA's methods;
* gathers clamp out-of-bounds starts (``mode`` clip and promise) or fill them; scatters
  clamp or drop whole windows; dynamic slices clamp their starts;
* a max-pooling gradient (``select_and_scatter_add``) picks the first maximum of a window
  under ``ge``, the last under ``gt``, as XLA's select loop does;
* float16/float32 sums accumulate in float64 (numpy adds along a non-last axis one row at a
  time, which for a 4096-row gradient sum was 10x XLA's error; over leading axes, blocks of
  256 rows are summed in float32 by BLAS first), and their transcendentals are computed in
  float64 and rounded once (numpy's float32 exp is an ulp off).

As XLA does, ``evaluate`` skips equations whose results nothing needs (inside calls too) and
frees each intermediate after its last use.

Float results can differ from XLA's in the last bits where the order of a sum differs
(reductions, BLAS) or a transcendental is approximated differently; XLA:CPU also flushes
denormals to zero, numpy keeps them.  The two tiers' numbers therefore agree to float
tolerance, not bit for bit, like XLA's own optimization levels (docs/porting.md).
"""
import logging
import math
import sys
import threading
import weakref

import numpy as np

from .._compat_jax import ZERO_ORDER as _ZERO_ORDER
from . import host_blas as _blas
from . import host_params as _params
from . import host_random as _rand
from . import host_state as _state
from . import host_windows as _win

# dtypes numpy computes as XLA does: bfloat16, float8, complex and int4 programs compile
_DTYPES = frozenset(np.dtype(t) for t in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64"))
_SPECIAL_MAX = 1 << 16   # transcendentals numpy lacks (erf...) run per element up to this size


Unsupported = _win.Unsupported   # a rule's parameter value it does not follow: compile
RuleError = _win.RuleError       # a rule raised something else (a gap in it): compile


# ---- elementwise -------------------------------------------------------------------------
def _unary(f, accuracy=False):
    def rule(eqn, x):
        return np.asarray(f(x), dtype=eqn.outvars[0].aval.dtype)

    def rule_accuracy(eqn, x, *, accuracy=None):    # (None only: host_params)
        return rule(eqn, x)
    return rule_accuracy if accuracy else rule


def _precise(f, accuracy=False):
    """A transcendental of a float16/float32 computed in float64 and rounded once: numpy's
    float32 ``exp`` and friends are SIMD approximations an ulp off (exp(1) = 2.718282, where
    XLA, MXNet and libm give 2.7182817).  (tanh and the logistic, the activations of every
    recurrent cell, stay in float32: XLA approximates them too, and float64 costs 5x.)"""
    def rule(eqn, *xs):
        dt = eqn.outvars[0].aval.dtype
        if dt in (np.float16, np.float32):
            xs = [x.astype(np.float64) for x in xs]
        return np.asarray(f(*xs), dtype=dt)

    def rule_accuracy(eqn, x, *, accuracy=None):    # (None only: host_params)
        return rule(eqn, x)
    return rule_accuracy if accuracy else rule


def _binary(f):
    def rule(eqn, x, y):
        return np.asarray(f(x, y), dtype=eqn.outvars[0].aval.dtype)
    return rule


def _max(eqn, x, y):
    """XLA's max: NaN propagates (as numpy's); of +0.0 and -0.0, what this XLA gives
    (``_compat_jax.ZERO_ORDER``: jaxlib 0.10 orders -0.0 below +0.0, 0.4.30 returns the first
    operand; numpy returns the second)."""
    return _zeros_ordered(eqn, np.maximum(x, y), x, y, lambda a, b: a + b)


def _min(eqn, x, y):
    """XLA's min (see ``_max``)."""
    return _zeros_ordered(eqn, np.minimum(x, y), x, y, lambda a, b: -(-a - b))


def _zeros_ordered(eqn, r, x, y, ieee):
    """``r`` with XLA's zero where both operands are zeros: the first operand's, or
    ``ieee(x, y)``, IEEE 754's (a sum of zeros is -0.0 only for two -0.0: the maximum's; the
    minimum's by negation)."""
    if r.dtype.kind == "f":
        zeros = (x == 0) & (y == 0)
        if zeros.any():
            if _ZERO_ORDER == "first":
                r = np.where(zeros, x, r)
            elif _ZERO_ORDER == "ieee":
                r = np.where(zeros, ieee(x, y), r)
            elif (np.signbit(x) != np.signbit(y))[zeros].any():
                raise Unsupported("max/min of zeros of both signs (this XLA's is not known)")
    return np.asarray(r, dtype=eqn.outvars[0].aval.dtype)


def _mul(eqn, x, y, *, out_dtype=None):
    if out_dtype is not None:           # (jax 0.7's mixed precision: in the result's dtype)
        x, y = x.astype(out_dtype), y.astype(out_dtype)
    return np.asarray(np.multiply(x, y), dtype=eqn.outvars[0].aval.dtype)


def _sign(x):
    """XLA's sign: a zero keeps its sign (numpy's sign(-0.0) is +0.0)."""
    return np.where(x == 0, x, np.sign(x)) if x.dtype.kind == "f" else np.sign(x)


def _is_int(x):
    return np.issubdtype(x.dtype, np.integer)


def _div(eqn, x, y):
    if not _is_int(x):
        return np.asarray(np.divide(x, y), dtype=x.dtype)
    zero = y == 0
    safe = np.where(zero, 1, y).astype(x.dtype)
    q = np.floor_divide(x, safe)
    q = q + ((np.remainder(x, safe) != 0) & ((x < 0) != (safe < 0))).astype(x.dtype)  # truncate
    if np.issubdtype(x.dtype, np.signedinteger):
        lo = np.iinfo(x.dtype).min
        q = np.where((x == lo) & (y == -1), x, q)
    return np.asarray(np.where(zero, np.array(-1).astype(x.dtype), q), dtype=x.dtype)


def _rem(eqn, x, y):
    if not _is_int(x):
        return np.asarray(np.fmod(x, y), dtype=x.dtype)
    zero = y == 0
    r = np.fmod(x, np.where(zero, 1, y).astype(x.dtype))
    return np.asarray(np.where(zero, x, r), dtype=x.dtype)


def _integer_pow(eqn, x, *, y):
    """XLA's expansion: multiplication by squaring, then one reciprocal for y < 0."""
    n, acc = abs(int(y)), None
    while n:
        if n & 1:
            acc = x if acc is None else acc * x
        n >>= 1
        if n:
            x = x * x
    dt = eqn.outvars[0].aval.dtype
    acc = np.ones_like(x) if acc is None else acc
    return np.asarray(np.asarray(1, dt) / acc if y < 0 else acc, dtype=dt)


def _round(eqn, x, *, rounding_method):
    if int(rounding_method) == 1:                   # TO_NEAREST_EVEN
        return np.round(x)
    t = np.trunc(x)                                 # AWAY_FROM_ZERO; x - trunc(x) is exact
    return np.asarray(np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t), dtype=x.dtype)


def _rsqrt(eqn, x, *, accuracy=None):
    if x.dtype == np.float64:
        return 1.0 / np.sqrt(x)
    return np.asarray(1.0 / np.sqrt(x.astype(np.float64)), dtype=x.dtype)   # rounded once


def _convert(eqn, x, *, new_dtype, weak_type, sharding=None):
    dt = np.dtype(new_dtype)
    if dt == x.dtype:
        return x
    if dt == np.bool_:
        return x != 0
    if np.issubdtype(dt, np.integer) and np.issubdtype(x.dtype, np.floating):
        info = np.iinfo(dt)                         # saturate; NaN -> 0 (XLA:CPU)
        f = np.where(np.isnan(x), 0, x).astype(np.float64)
        hi = f >= float(info.max)                   # (2**63 - 1 rounds up in float64)
        out = np.clip(np.trunc(np.where(hi, 0, f)), info.min, info.max).astype(dt)
        return np.where(hi, dt.type(info.max), out)
    with np.errstate(over="ignore"):
        return x.astype(dt)


def _bitcast(eqn, x, *, new_dtype):
    """Little-endian, as XLA's: a wider type's words split along a new last axis (or joined
    from it)."""
    dt = np.dtype(new_dtype)
    c = np.ascontiguousarray(x)
    if dt.itemsize == x.dtype.itemsize:
        return c.view(dt)
    if dt.itemsize < x.dtype.itemsize:
        return c.reshape(-1).view(dt).reshape(x.shape + (x.dtype.itemsize // dt.itemsize,))
    return c.reshape(-1).view(dt).reshape(x.shape[:-1])


def _shift(kind):
    def rule(eqn, x, s):
        bits = x.dtype.itemsize * 8
        big = (s < 0) | (s >= bits)
        s_ok = np.where(big, 0, s).astype(x.dtype)
        if kind == "left":
            r, fill = np.left_shift(x, s_ok), 0
        elif kind == "arith":
            r, fill = np.right_shift(x, s_ok), np.where(x < 0, -1, 0) if \
                np.issubdtype(x.dtype, np.signedinteger) else 0
        else:
            u = x.view(np.dtype(f"u{x.dtype.itemsize}"))
            r, fill = np.right_shift(u, s_ok.view(u.dtype)).view(x.dtype), 0
        return np.asarray(np.where(big, np.asarray(fill).astype(x.dtype), r), dtype=x.dtype)
    return rule


def _math(f):
    """A transcendental numpy lacks, per element through ``math`` (small arrays only)."""
    vf = np.vectorize(lambda v: f(float(v)), otypes=[np.float64])

    def rule(eqn, x):
        if x.size > _SPECIAL_MAX:
            raise Unsupported("large special function")
        return np.asarray(vf(x) if x.size else x, dtype=x.dtype)
    return rule


_ERFINV_SMALL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                 0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_LARGE = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                 0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _erf_inv(eqn, x):
    """XLA's erf_inv: Giles' single-precision polynomials in w = -log(1 - x^2) (float32 and
    float16; normal samplers draw through it), refined by Newton steps on math.erf for
    float64 (small arrays, as ``_math``)."""
    dt = x.dtype
    xd = x.astype(np.float64 if dt == np.float64 else np.float32)   # XLA's precision
    w = -np.log1p((-xd * xd).astype(np.float64)).astype(xd.dtype)
    small = w < 5.0
    ws, wl = w - xd.dtype.type(2.5), np.sqrt(w) - xd.dtype.type(3.0)
    ps, pl = np.full_like(xd, _ERFINV_SMALL[0]), np.full_like(xd, _ERFINV_LARGE[0])
    for a, b in zip(_ERFINV_SMALL[1:], _ERFINV_LARGE[1:]):
        ps, pl = xd.dtype.type(a) + ps * ws, xd.dtype.type(b) + pl * wl
    y = np.where(small, ps, pl) * xd
    y = np.where(np.abs(xd) == 1.0, xd * np.inf, y)
    if dt == np.float64:
        if x.size > _SPECIAL_MAX:
            raise Unsupported("large float64 erf_inv")
        erf = np.vectorize(math.erf, otypes=[np.float64])
        for _ in range(3):
            fin = np.isfinite(y)
            yf = np.where(fin, y, 0.0)
            step = (erf(yf) - xd) / (2 / math.sqrt(math.pi) * np.exp(-yf * yf))
            y = np.where(fin, y - step, y)
    return np.asarray(y, dtype=dt)


_BITWISE_SELECT_MIN = 4096


def _select_n(eqn, which, *cases):
    if len(cases) == 1:
        return cases[0]
    if which.dtype == np.bool_:
        c0, c1 = cases
        if which.size >= _BITWISE_SELECT_MIN and which.shape == c0.shape == c1.shape \
                and c0.dtype == c1.dtype and c0.dtype.itemsize in (1, 2, 4, 8):
            # c0 ^ ((c1 ^ c0) & mask) on the bits: np.where branches per element, 4x slower
            # on a ReLU's random mask; the bits (NaN payloads, -0.0) are kept exactly
            # (views of any strides: a broadcast zero, a crop of a padded gradient, as they are)
            it = np.dtype(f"i{c0.dtype.itemsize}")
            mask = np.negative(which.view(np.int8))     # -1, all ones, where case 1 is taken
            i0 = c0.view(it)
            out = np.bitwise_xor(c1.view(it), i0)
            out &= mask
            out ^= i0
            return out.view(c0.dtype)
        return np.where(which, c1, c0)
    out = cases[0]
    for i, c in enumerate(cases[1:], 1):
        out = np.where(which == i, c, out)
    return out


def _clamp(eqn, lo, x, hi):
    """``min(max(x, lo), hi)``, with jaxlib 0.10's ordered zeros (``_max``); jaxlib 0.4.30's
    clamp gives numpy's zeros."""
    if x.dtype.kind == "f" and _ZERO_ORDER != "first":
        m = _zeros_ordered(eqn, np.maximum(x, lo), x, lo, lambda a, b: a + b)
        return _zeros_ordered(eqn, np.minimum(m, hi), m, hi, lambda a, b: -(-a - b))
    return np.asarray(np.minimum(np.maximum(x, lo), hi), dtype=x.dtype)


# ---- shape and data movement -------------------------------------------------------------
def _broadcast_in_dim(eqn, x, *dyn, shape, broadcast_dimensions, sharding=None):
    if dyn:
        raise Unsupported("dynamic shapes")
    expanded = [1] * len(shape)
    for d, s in zip(broadcast_dimensions, x.shape):
        expanded[d] = s
    return np.broadcast_to(np.reshape(x, expanded), shape)


def _reshape(eqn, x, *dyn, new_sizes, dimensions, sharding=None):
    if dyn:
        raise Unsupported("dynamic shapes")
    if dimensions is not None:                      # XLA: collapse in this order
        x = np.transpose(x, dimensions)
    return np.reshape(x, new_sizes)


def _slice(eqn, x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * x.ndim
    return x[tuple(slice(a, b, s) for a, b, s in zip(start_indices, limit_indices, strides))]


def _clamped_starts(shape, sizes, starts):
    return [int(min(max(int(s), 0), d - n)) for s, d, n in zip(starts, shape, sizes)]


def _dynamic_slice(eqn, x, *starts, slice_sizes):
    if len(starts) != x.ndim:
        raise Unsupported("dynamic shapes")
    st = _clamped_starts(x.shape, slice_sizes, starts)
    return x[tuple(slice(s, s + n) for s, n in zip(st, slice_sizes))]


def _dynamic_update_slice(eqn, x, update, *starts):
    st = _clamped_starts(x.shape, update.shape, starts)
    out = np.array(x, copy=True)
    out[tuple(slice(s, s + n) for s, n in zip(st, update.shape))] = update
    return out


def _pad(eqn, x, value, *, padding_config):
    axes = tuple(range(x.ndim))
    x = _win.dilate(x, axes, [i + 1 for _, _, i in padding_config], value)   # interior
    return _win.pad(x, axes, [(lo, hi) for lo, hi, _ in padding_config], value)


def _iota(eqn, *dyn, dtype, shape, dimension, sharding=None):
    if dyn:
        raise Unsupported("dynamic shapes")
    r = np.arange(shape[dimension], dtype=dtype)
    expanded = [1] * len(shape)
    expanded[dimension] = shape[dimension]
    return np.broadcast_to(r.reshape(expanded), shape)


def _split(eqn, x, *, sizes, axis):
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


def _concatenate(eqn, *xs, dimension):
    return np.concatenate(xs, axis=dimension)


def _identity(eqn, *xs):
    return xs[0] if len(xs) == 1 and not eqn.primitive.multiple_results else list(xs)


def _sharding_constraint(eqn, x, *, sharding, unconstrained_dims, resource_env=None,
                         layout=None, context_mesh=None):
    return x                 # (one device: where the values live, not what they are)


# ---- reductions, scans, sorting --------------------------------------------------------------
def _init(dtype, which):
    if np.issubdtype(dtype, np.floating):
        return -np.inf if which == "max" else np.inf
    if dtype == np.bool_:
        return which != "max"
    info = np.iinfo(dtype)
    return info.min if which == "max" else info.max


def _reduce(kind):
    def rule(eqn, x, *, axes, out_sharding=None):
        axes = tuple(axes)
        if kind == "sum":
            if x.dtype in (np.float16, np.float32):   # (numpy sums a non-last axis naively)
                return _sum64(x, axes).astype(x.dtype)
            return np.sum(x, axis=axes, dtype=x.dtype)
        if kind == "prod":
            return np.prod(x, axis=axes, dtype=x.dtype)
        if kind in ("max", "min"):
            f = np.max if kind == "max" else np.min
            return np.asarray(f(x, axis=axes, initial=_init(x.dtype, kind)), dtype=x.dtype)
        f = {"and": np.logical_and if x.dtype == np.bool_ else np.bitwise_and,
             "or": np.logical_or if x.dtype == np.bool_ else np.bitwise_or,
             "xor": np.logical_xor if x.dtype == np.bool_ else np.bitwise_xor}[kind]
        return np.asarray(f.reduce(x, axis=axes), dtype=x.dtype)
    return rule


def _sum64(x, axes):
    """A float64 sum of a float16/float32 ``x`` over ``axes``.  Over the leading axes of a
    contiguous float32 array (BatchNorm's per-channel sums over N, H, W of a channel-last
    activation) it is blocks of ``_SUM_BLOCK`` rows summed by one batched BLAS product with
    ones, then the blocks' sums added in float64: 4-10x numpy's float64 sum, and within
    a float32 rounding of it (each block's float32 sum has at most 256 terms)."""
    rows = math.prod(x.shape[d] for d in axes)
    if x.dtype == np.float32 and x.flags.c_contiguous and rows >= 2 * _SUM_BLOCK \
            and sorted(axes) == list(range(len(axes))):
        r = x.reshape(rows, -1)
        full = rows // _SUM_BLOCK * _SUM_BLOCK
        blocks = np.matmul(_SUM_ONES, r[:full].reshape(-1, _SUM_BLOCK, r.shape[1]))
        out = np.sum(blocks, axis=(0, 1), dtype=np.float64)
        if full < rows:
            out += np.sum(r[full:], axis=0, dtype=np.float64)
        return out.reshape(x.shape[len(axes):])
    return np.sum(x, axis=axes, dtype=np.float64)


_SUM_BLOCK = 256
_SUM_ONES = np.ones((1, _SUM_BLOCK), np.float32)


def _arg(kind):
    def rule(eqn, x, *, axes, index_dtype):
        if x.shape[axes[0]] == 0:
            raise Unsupported("arg-reduction of an empty axis")
        f = np.argmax if kind == "max" else np.argmin
        return f(x, axis=axes[0]).astype(index_dtype)
    return rule


def _cumulative(f):
    def rule(eqn, x, *, axis, reverse):
        y = np.flip(x, axis) if reverse else x
        r = f(y, axis)
        return np.asarray(np.flip(r, axis) if reverse else r, dtype=x.dtype)
    return rule


def _cumsum(y, axis):
    if y.dtype in (np.float16, np.float32):
        return np.cumsum(y, axis=axis, dtype=np.float64).astype(y.dtype)
    return np.cumsum(y, axis=axis, dtype=y.dtype)


def _cumprod(y, axis):
    return np.cumprod(y, axis=axis, dtype=y.dtype)


def _sort(eqn, *xs, dimension, is_stable, num_keys):
    if not is_stable and len(xs) > num_keys:
        raise Unsupported("an unstable sort of carried operands (XLA's order of ties)")
    keys = [np.moveaxis(k, dimension, -1) for k in xs[:num_keys]]
    order = np.lexsort(keys[::-1], axis=-1) if num_keys > 1 else \
        np.argsort(keys[0], axis=-1, kind="stable")
    return [np.moveaxis(np.take_along_axis(np.moveaxis(x, dimension, -1), order, -1), -1, dimension)
            for x in xs]


def _top_k_selected(y, k):
    """The top-k order of each row of ``y`` from a partition, not a whole sort (MXNet's
    test_order takes the top 5 of 100 rows of 300,096): where every row's k largest values
    are the only ones at or above its k-th largest, those k sorted descending with ties in
    index order; None where a row has NaN or more values tie at its k-th (a whole sort)."""
    if y.dtype.kind == "f" and np.isnan(y).any():
        return None
    n = y.shape[-1]
    part = np.argpartition(y, n - k, axis=-1)[..., n - k:]
    vals = np.take_along_axis(y, part, -1)
    if not ((y >= vals.min(axis=-1, keepdims=True)).sum(-1) == k).all():
        return None
    # ascending by value, ties by descending index; reversed: descending, ties by index
    o = np.lexsort((-part, vals), axis=-1)[..., ::-1]
    return np.take_along_axis(part, o, -1)


def _top_k(eqn, x, *dyn, k, axis=-1):
    if dyn:
        raise Unsupported("dynamic k")
    y = np.moveaxis(x, axis, -1)
    n = y.shape[-1]
    order = _top_k_selected(y, k) if 0 < 8 * k < n else None
    if order is None:
        # descending, ties in index order, NaN largest: a stable ascending sort of the
        # reversed row, read backwards
        order = (n - 1 - np.argsort(y[..., ::-1], axis=-1, kind="stable"))[..., ::-1][..., :k]
    vals = np.take_along_axis(y, order, -1)
    return [np.moveaxis(vals, -1, axis), np.moveaxis(order.astype(np.int32), -1, axis)]


# ---- products ----------------------------------------------------------------------------
def _dot_general(eqn, x, y, *, dimension_numbers, precision, preferred_element_type,
                 out_sharding=None):
    (xc, yc), (xb, yb) = dimension_numbers
    dt = eqn.outvars[0].aval.dtype
    work = _work_dtype(x.dtype, y.dtype, dt)
    xf = [d for d in range(x.ndim) if d not in xc and d not in xb]
    yf = [d for d in range(y.ndim) if d not in yc and d not in yb]
    batch = [x.shape[d] for d in xb]
    m = [x.shape[d] for d in xf]
    n = [y.shape[d] for d in yf]
    k = math.prod(x.shape[d] for d in xc)
    a = np.transpose(x, list(xb) + xf + list(xc)).reshape(
        (math.prod(batch), math.prod(m), k)).astype(work, copy=False)
    b = np.transpose(y, list(yb) + list(yc) + yf).reshape(
        (math.prod(batch), k, math.prod(n))).astype(work, copy=False)
    return np.asarray(_blas.matmul(a, b).reshape(batch + m + n), dtype=dt)


def _work_dtype(a, b, out):
    """float16 products accumulate in float32, as XLA:CPU's dot emitter does."""
    if np.issubdtype(out, np.floating):
        return np.result_type(np.float32, out)
    return np.dtype(out)


# ---- calls and control flow -------------------------------------------------------------
def _inner(params):
    for k in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        j = params.get(k)
        if j is not None:
            return j
    raise Unsupported("call without a jaxpr")


def _call(eqn, *args, needed=None):
    """Any call primitive (``_CALLS``): its inner jaxpr on ``args``, the results ``needed``
    only.  (``_run`` calls it with the equation alone: the parameters a call has besides
    its jaxpr, checked by ``host_params``, place or name it and change no value.)"""
    j = _inner(eqn.params)
    if hasattr(j, "consts"):
        return _run(j.jaxpr, j.consts, args, needed)
    return _run(j, (), args, needed)


def _cond(eqn, index, *ops, branches, linear=None):
    i = int(np.clip(int(index), 0, len(branches) - 1))
    return run_closed(branches[i], ops)


def _while(eqn, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cc, bc = args[:cond_nconsts], args[cond_nconsts:cond_nconsts + body_nconsts]
    carry = list(args[cond_nconsts + body_nconsts:])
    while bool(run_closed(cond_jaxpr, list(cc) + carry)[0]):
        carry = run_closed(body_jaxpr, list(bc) + carry)
    return carry


def _scan(eqn, *args, jaxpr, length, reverse, num_consts, num_carry, unroll, linear=None,
          _split_transpose=False):
    consts, carry = list(args[:num_consts]), list(args[num_consts:num_consts + num_carry])
    xs = args[num_consts + num_carry:]
    ys = []
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        out = run_closed(jaxpr, consts + carry + [x[i] for x in xs])
        carry, y = out[:num_carry], out[num_carry:]
        ys.append(y)
    if reverse:
        ys.reverse()
    avals = [v.aval for v in eqn.outvars[num_carry:]]
    stacked = [np.stack([y[j] for y in ys]) if ys else np.zeros(a.shape, a.dtype)
               for j, a in enumerate(avals)]
    return list(carry) + stacked


def _pure_callback(eqn, *args, callback, result_avals, sharding, vectorized=None,
                   vmap_method=None):
    try:
        outs = _state.run_outside(callback, *args)
    except Exception as e:  # noqa: BLE001  (the user's function: XLA's call raises it again)
        raise Unsupported(f"the callback raised {type(e).__name__}") from e
    return [np.asarray(o, dtype=v.aval.dtype) for o, v in zip(outs, eqn.outvars)]


RULES = {
    # arithmetic
    "neg": _unary(np.negative), "sign": _unary(_sign), "floor": _unary(np.floor),
    "ceil": _unary(np.ceil), "round": _round, "is_finite": _unary(np.isfinite),
    "exp": _precise(np.exp, True), "exp2": _precise(np.exp2, True),
    "log": _precise(np.log, True), "log1p": _precise(np.log1p, True),
    "expm1": _precise(np.expm1, True), "tanh": _unary(np.tanh, True),
    "logistic": _unary(lambda x: 1 / (1 + np.exp(-x)), True),
    "sin": _precise(np.sin, True), "cos": _precise(np.cos, True),
    "tan": _precise(np.tan, True),
    "asin": _precise(np.arcsin), "acos": _precise(np.arccos), "atan": _precise(np.arctan),
    "sinh": _precise(np.sinh), "cosh": _precise(np.cosh), "asinh": _precise(np.arcsinh),
    "acosh": _precise(np.arccosh), "atanh": _precise(np.arctanh),
    "sqrt": _unary(np.sqrt, True), "rsqrt": _rsqrt, "cbrt": _precise(np.cbrt, True),
    "abs": _unary(np.abs), "not": _unary(np.invert), "square": _unary(np.square),
    "integer_pow": _integer_pow, "erf": _math(math.erf), "erfc": _math(math.erfc),
    "lgamma": _math(math.lgamma), "erf_inv": _erf_inv,
    "add": _binary(np.add), "add_any": _binary(np.add), "sub": _binary(np.subtract),
    "mul": _mul, "div": _div, "rem": _rem, "pow": _precise(np.power),
    "max": _max, "min": _min, "atan2": _precise(np.arctan2),
    "nextafter": _binary(np.nextafter),
    "and": _binary(np.bitwise_and), "or": _binary(np.bitwise_or), "xor": _binary(np.bitwise_xor),
    "eq": _binary(np.equal), "ne": _binary(np.not_equal), "lt": _binary(np.less),
    "le": _binary(np.less_equal), "gt": _binary(np.greater), "ge": _binary(np.greater_equal),
    "shift_left": _shift("left"), "shift_right_arithmetic": _shift("arith"),
    "shift_right_logical": _shift("logical"),
    "select_n": _select_n, "clamp": _clamp,
    "convert_element_type": _convert, "bitcast_convert_type": _bitcast,
    # shapes and data movement
    "broadcast_in_dim": _broadcast_in_dim, "reshape": _reshape,
    "transpose": lambda eqn, x, *, permutation: np.transpose(x, permutation),
    "squeeze": lambda eqn, x, *, dimensions: np.squeeze(x, tuple(dimensions)),
    "rev": lambda eqn, x, *, dimensions: np.flip(x, tuple(dimensions)) if dimensions else x,
    "slice": _slice, "dynamic_slice": _dynamic_slice,
    "dynamic_update_slice": _dynamic_update_slice, "pad": _pad, "iota": _iota,
    "split": _split, "concatenate": _concatenate,
    "tile": lambda eqn, x, *, reps: np.tile(x, reps),
    "stack": lambda eqn, *xs, axis: np.stack(xs, axis=axis),
    "copy": _identity, "stop_gradient": _identity, "optimization_barrier": _identity,
    "sharding_constraint": _sharding_constraint,
    # reductions, scans, sorting
    "reduce_sum": _reduce("sum"), "reduce_prod": _reduce("prod"),
    "reduce_max": _reduce("max"), "reduce_min": _reduce("min"),
    "reduce_and": _reduce("and"), "reduce_or": _reduce("or"), "reduce_xor": _reduce("xor"),
    "argmax": _arg("max"), "argmin": _arg("min"),
    "cumsum": _cumulative(_cumsum), "cumprod": _cumulative(_cumprod),
    "cummax": _cumulative(lambda y, a: np.maximum.accumulate(y, axis=a)),
    "cummin": _cumulative(lambda y, a: np.minimum.accumulate(y, axis=a)),
    "sort": _sort, "top_k": _top_k,
    # products, windows, indexing, random bits
    "dot_general": _dot_general, **_win.RULES, **_rand.RULES,
    # calls (pjit up to jax 0.4.x, jit after; custom_vjp_call_jaxpr up to 0.4.x) and control flow
    "pjit": _call, "jit": _call, "closed_call": _call, "custom_jvp_call": _call,
    "custom_vjp_call": _call, "custom_vjp_call_jaxpr": _call, "remat2": _call,
    "cond": _cond, "while": _while, "scan": _scan, "pure_callback": _pure_callback,
}
_MULTIPLE = {"sort", "top_k", "split", "optimization_barrier"} | _rand.MULTIPLE


def _sub_jaxprs(eqn):
    for v in eqn.params.values():
        for j in (v if isinstance(v, (tuple, list)) else (v,)):
            inner = getattr(j, "jaxpr", None)
            if inner is not None and hasattr(inner, "eqns"):
                yield inner
            elif hasattr(j, "eqns"):
                yield j


def _dtype_ok(dt, keys):
    try:
        return _DTYPE_OK[dt, keys]
    except KeyError:
        ok = _DTYPE_OK[dt, keys] = _check_dtype(dt, keys)
        return ok
    except TypeError:                              # (an unhashable dtype-like)
        return _check_dtype(dt, keys)


_DTYPE_OK = {}        # (dtype, keys) -> verdict: str() of a dtype costs 9 us, a program has 6,000


def _check_dtype(dt, keys):
    if dt is None:
        return False
    if str(dt).startswith("key<"):                 # typed PRNG keys, inside a program only
        return keys
    try:
        return np.dtype(dt) in _DTYPES
    except TypeError:
        return False


def unsupported(jaxpr, top=True):
    """The name of the first primitive (or dtype) of ``jaxpr`` that ``evaluate`` cannot run
    as XLA would, or None.  (It also marks the states of random-bit generators that nothing
    reads: ``host_random`` can draw those at a bucketed length.)  An inner jaxpr's verdict
    is kept: a network's repeated layers call one staged jaxpr many times."""
    if top:
        return _unsupported(jaxpr, top)
    return _per_jaxpr(_VERDICTS, id(jaxpr), jaxpr, lambda: _unsupported(jaxpr, False))


_VERDICTS = {}   # id(inner jaxpr) -> (weak reference to it, its verdict)


def _per_jaxpr(cache, key, jaxpr, compute):
    """``compute()``, kept in ``cache`` under ``key`` while ``jaxpr`` lives."""
    hit = cache.get(key)
    if hit is not None and hit[0]() is jaxpr:
        return hit[1]
    value = compute()
    if len(cache) > 4096:
        cache.clear()
    cache[key] = (weakref.ref(jaxpr), value)
    return value


def _unsupported(jaxpr, top):
    _rand.mark_unread_states(jaxpr)
    for v in list(jaxpr.invars) + list(jaxpr.outvars):
        dt = getattr(getattr(v, "aval", None), "dtype", None)
        if dt is not None and not _dtype_ok(dt, not top):
            return f"dtype {dt}"
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name not in RULES:
            return name
        bad = _params.rejected(eqn)            # a parameter (value) the rule does not follow
        if bad:
            return bad
        for v in eqn.outvars:
            if not _dtype_ok(getattr(v.aval, "dtype", None), True):
                return f"{name} -> {getattr(v.aval, 'dtype', None)}"
        for inner in _sub_jaxprs(eqn):
            bad = unsupported(inner, top=False)
            if bad:
                return bad
    return None


def _literal(v):
    return np.asarray(v.val, dtype=v.aval.dtype)


def _is_literal(v):
    return type(v).__name__ == "Literal"


def _schedule(jaxpr, needed):
    """Per equation, None where nothing needed reads its results (skipped, as XLA drops
    dead code: a backward's gradient of the input images), else the variables no later
    equation or needed output reads (``_run`` drops them there, so their memory is reused
    by the next results instead of every intermediate of a network living, and being
    page-faulted in, until the end) and, for a call, which of its results are needed.
    ``needed``: per output of ``jaxpr``, or None for all."""
    return _per_jaxpr(_SCHEDULES, (id(jaxpr), needed), jaxpr,
                      lambda: _make_schedule(jaxpr, needed))


def _make_schedule(jaxpr, needed):
    eqns = jaxpr.eqns
    live = {v for i, v in enumerate(jaxpr.outvars)
            if not _is_literal(v) and (needed is None or needed[i])}
    keep = [False] * len(eqns)
    for i in range(len(eqns) - 1, -1, -1):
        eqn = eqns[i]
        if eqn.effects or any(v in live for v in eqn.outvars):
            keep[i] = True
            live.update(v for v in eqn.invars if not _is_literal(v))
    last = {}
    for i, eqn in enumerate(eqns):
        if keep[i]:
            for v in eqn.invars:
                if not _is_literal(v):
                    last[v] = i
            for v in eqn.outvars:
                last.setdefault(v, i)           # never read: dropped at once
    for i, v in enumerate(jaxpr.outvars):
        if not _is_literal(v) and (needed is None or needed[i]):
            last[v] = len(eqns)
    dead = [[] for _ in eqns]
    for v, i in last.items():
        if i < len(eqns):
            dead[i].append(v)
    return [None if not keep[i] else
            (dead[i], tuple(v in live for v in eqn.outvars) if eqn.primitive.name in _CALLS
             else None)
            for i, eqn in enumerate(eqns)]


_SCHEDULES = {}   # (id(jaxpr), needed) -> (weak reference to the jaxpr, its schedule)
_CALLS = frozenset(("pjit", "jit", "closed_call", "custom_jvp_call", "custom_vjp_call",
                    "custom_vjp_call_jaxpr", "remat2"))


# Primitives whose numpy rule gives XLA:CPU's result bit for bit: correctly rounded IEEE
# operations, comparisons and data movement (transcendentals are approximations that differ
# in the last bit, and rsqrt may be one)
EXACT = frozenset((
    "neg", "sign", "floor", "ceil", "round", "is_finite", "sqrt", "abs", "not", "square",
    "add", "add_any", "sub", "mul", "div", "rem", "max", "min", "and", "or", "xor",
    "eq", "ne", "lt", "le", "gt", "ge", "select_n", "clamp", "convert_element_type",
    "broadcast_in_dim", "reshape", "transpose", "squeeze", "expand_dims", "rev", "slice",
    "concatenate", "iota", "copy", "copy_p", "stop_gradient")) | _CALLS
_FUSABLE = ({"mul"}, {"add", "add_any", "sub"})


def exact(jaxpr):
    """Whether ``evaluate`` gives XLA:CPU's results for ``jaxpr`` bit for bit: only ``EXACT``
    primitives, and not both a product and a sum (LLVM may fuse them into one multiply-add
    with one rounding where it optimizes XLA's loop)."""
    names = set()

    def walk(j):
        for eqn in j.eqns:
            names.add(eqn.primitive.name)
            for inner in _sub_jaxprs(eqn):
                walk(inner)
    walk(jaxpr)
    return names <= EXACT and not all(names & f for f in _FUSABLE)


def _run(jaxpr, consts, args, needed=None):
    env = {}
    for v, c in zip(jaxpr.constvars, consts):
        env[v] = np.asarray(c)
    for v, a in zip(jaxpr.invars, args):
        env[v] = a
    for eqn, step in zip(jaxpr.eqns, _schedule(jaxpr, needed)):
        if step is None:
            continue
        dead, outs_needed = step
        ins = [_literal(v) if _is_literal(v) else env[v] for v in eqn.invars]
        try:
            if outs_needed is None:
                out = RULES[eqn.primitive.name](eqn, *ins, **eqn.params)
            else:
                out = _call(eqn, *ins, needed=outs_needed)
        except Unsupported as e:
            if e.primitive is None:
                e.primitive = eqn.primitive.name
            raise
        except Exception as e:  # noqa: BLE001  (any other error of a rule: a gap, counted)
            raise RuleError(f"{type(e).__name__}: {e}", eqn.primitive.name) from e
        if eqn.primitive.multiple_results or eqn.primitive.name in _MULTIPLE:
            for v, o in zip(eqn.outvars, out):
                env[v] = o
        else:
            env[eqn.outvars[0]] = out
        del ins, out
        for v in dead:
            env.pop(v, None)
    return [_literal(v) if _is_literal(v) else env.get(v) for v in jaxpr.outvars]


def evaluate(closed, args):
    """The outputs of ``closed`` (a ClosedJaxpr) on numpy ``args``, as C-contiguous numpy
    arrays of its output dtypes (``c_order``: ready for ``jax.device_put``), under
    ``host_state``'s settings (numpy's BLAS on one thread but for large products, no
    transparent huge pages), restored after.  Raises ``Unsupported`` where a rule declines a
    value or fails (``RuleError``): the caller compiles the program instead; each such
    failure is counted in ``FAILURES`` and logged (``logging`` name ``xnd.host``)."""
    _state.enter()
    try:
        return run_closed(closed, args)
    except Unsupported as e:
        _failed(e)
        raise
    except Exception as e:  # noqa: BLE001  (outside any rule: the evaluator's own gap)
        err = RuleError(f"{type(e).__name__}: {e}", "evaluate")
        _failed(err)
        raise err from e
    finally:
        _state.leave()


def run_closed(closed, args):
    """``evaluate`` inside a host evaluation (a branch, a loop's body, a PRNG's function)."""
    with np.errstate(all="ignore"):
        outs = _run(closed.jaxpr, closed.consts, [np.asarray(a) for a in args])
        return [c_order(o, v.aval.dtype) for o, v in zip(outs, closed.jaxpr.outvars)]


_log = logging.getLogger("xnd.host")
FAILURES = {}          # "<primitive>: <reason>" -> how many host evaluations it ended
_FAILURES_LOCK = threading.Lock()


def _failed(e):
    """Count and log a failed host evaluation once (a nested evaluation's failure passes
    through its callers).  A declined value is routine (debug); a rule's error is a gap in
    the host tier, logged as a warning the first time."""
    if getattr(e, "counted", False):
        return
    e.counted = True
    key = f"{e.primitive}: {str(e)[:120]}"
    with _FAILURES_LOCK:
        n = FAILURES[key] = FAILURES.get(key, 0) + 1
    if isinstance(e, RuleError) and n == 1:
        _log.warning("xnd host tier: the rule for %s failed (%s); the program compiles "
                     "instead", e.primitive, e)
    else:
        _log.debug("xnd host tier declined %s: %s (%d times)", e.primitive, e, n)


def c_order(x, dtype):
    """``x`` as a C-contiguous array of ``dtype``.  A strided view (a transposed weight a
    forward saves for its backward, a weight gradient computed spatial-first) is copied a
    tile of at most ``TILE_BYTES`` at a time, so that both its reads and its writes stay
    in cache: numpy copies a transposed 3x3x512x512 weight an element at a time across
    the whole array, 2-3x slower.  Here, inside ``evaluate``, the copy's fresh memory is
    the freed intermediates' (no huge pages: ``host_state``): copied after
    ``evaluate``, ResNet-18's transposed weights and gradients took 0.25 s, not 0.1 s."""
    if not isinstance(dtype, np.dtype):     # (a PRNG key: its words, as the rules keep it)
        return x
    x = np.asarray(x, dtype=dtype)
    if x.flags.c_contiguous:
        return x
    if x.nbytes <= TILE_BYTES:
        return np.ascontiguousarray(x)
    out = np.empty(x.shape, x.dtype)
    _copy_tiles(out, x)
    return out


TILE_BYTES = 1 << 18


def _copy_tiles(dst, src):
    if src.nbytes <= TILE_BYTES:
        np.copyto(dst, src)
        return
    axis = max(range(src.ndim), key=lambda a: src.shape[a])      # halve the longest axis
    half = src.shape[axis] // 2
    for part in (slice(None, half), slice(half, None)):
        idx = (slice(None),) * axis + (part,)
        _copy_tiles(dst[idx], src[idx])


# ---- what a program costs here ----------------------------------------------------------
def seconds(jaxpr):
    """A rough estimate of ``evaluate``'s time for ``jaxpr`` on this machine's numpy: the
    products' arithmetic at ``FLOPS``, every result's elements at ``ELEMENTS`` per second,
    and each equation's Python overhead.  Only its scale matters: a program far over the
    host budget compiles."""
    flops, elements, eqns = _count(jaxpr)
    return flops / FLOPS + elements / ELEMENTS + eqns * EQN_S


FLOPS, ELEMENTS, EQN_S = 4e10, 4e8, 1e-5


def _count(jaxpr):
    """(flops, elements, equations) of one run of ``jaxpr`` (an inner one's kept)."""
    return _per_jaxpr(_COUNTS, id(jaxpr), jaxpr, lambda: _count_eqns(jaxpr))


_COUNTS = {}


def _count_eqns(jaxpr):
    flops = elements = eqns = 0
    for eqn, step in zip(jaxpr.eqns, _schedule(jaxpr, None)):
        if step is None:                        # (dead code: never evaluated)
            continue
        name = eqn.primitive.name
        eqns += 1
        out = sum(math.prod(getattr(v.aval, "shape", ())) for v in eqn.outvars)
        elements += out
        if name in ("dot_general", "conv_general_dilated"):
            # (a dilated input's zeros are never multiplied: host_windows._transposed)
            dilated = math.prod(eqn.params.get("lhs_dilation") or (1,))
            flops += 2 * out * _win.reduced_size(eqn) // dilated
        n = eqn.params.get("length", 1) if name == "scan" else 1
        for inner in _sub_jaxprs(eqn):
            f, e, q = _count(inner)
            flops, elements, eqns = flops + f * n, elements + e * n, eqns + q * n
    return flops, elements, eqns


_rand.bind_evaluator(sys.modules[__name__])
