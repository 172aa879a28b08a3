"""Random sampling operators (``_random_*`` / ``_sample_*``).

Each op receives ``key``: a uint32 pair (seed, counter) from xnd's global
random state; the stream is ``fold_in(PRNGKey(seed), counter)``, so a new
draw never recompiles and ``mx.random.seed(s)`` makes runs repeatable. MXNet's
bit streams are not reproduced (OPERATORS.md §14), only distributions,
shapes and dtypes.

The samplers whose element i comes from counter i of the stream (uniform, normal, randint,
exponential, gamma: ``elementwise="flat"``) draw a small new shape at a bucketed length and
keep its first elements (lowering/bucket.py): the same numbers, one program for many shapes.
"""
import math

import jax
import jax.extend.random as jex_random
import jax.numpy as jnp
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Dtype, Float, Int, Shape
from .registry import register


def _rbg_bits(key, bit_width, shape):
    """JAX's 'rbg' random bits, the same bits, faster: XLA's RngBitGenerator makes 32-bit
    words about 4 times slower on CPU than 64-bit ones, whose halves (little-endian) are
    the 32-bit stream (tests/test_random.py checks that the two agree)."""
    if bit_width != 32:
        return jex_random.rbg_prng_impl.random_bits(key, bit_width, shape)
    n = math.prod(shape)
    _, words = lax.rng_bit_generator(key, ((n + 1) // 2,), dtype=jnp.uint64)
    return lax.bitcast_convert_type(words, jnp.uint32).reshape(-1)[:n].reshape(shape)


_base = jex_random.rbg_prng_impl
RBG = jex_random.define_prng_impl(key_shape=_base.key_shape, seed=_base.seed,
                                  split=_base.split, random_bits=_rbg_bits,
                                  fold_in=_base.fold_in, name="xnd_rbg", tag="xrbg")


def prng(key, impl=RBG):
    """The JAX key of one draw. xnd's keys use the 'rbg' generator (through ``_rbg_bits``):
    it compiles several times faster than threefry on CPU (about 0.3 s instead of 1 s per
    new shape, which every initializer and Dropout layer pays once); only xnd's own draws
    use it. JAX's Poisson sampler needs threefry, so the Poisson family asks for it."""
    return jax.random.fold_in(jax.random.key(key[0], impl=impl), key[1])


_GAMMA_ROUNDS = 64  # each round accepts over 95% of what is left: 64 never run out


def gamma(key, alpha, shape, dtype=jnp.float32):
    """Gamma(alpha, scale 1) samples of ``shape`` (alpha broadcast to it), of float32
    precision (held in float64, ``round24``) unless ``dtype`` says otherwise: Marsaglia
    and Tsang's method, drawing whole arrays and keeping the first accepted candidate per
    element, with alpha < 1 boosted as Gamma(alpha + 1) * U^(1/alpha). JAX's own sampler
    runs a rejection loop per element, 20 times slower on CPU (13 s per million samples).
    alpha 0 gives 0, as MXNet does; a negative or NaN alpha gives NaN (MXNet's sampler
    never returns for a negative one).  Computed in float64 and rounded (as ``normal32``): an
    acceptance test decided on float32 roundings may go either way between programs that
    fuse multiply-adds differently, and one seed must draw the same samples in each."""
    a = jnp.broadcast_to(jnp.asarray(alpha, jnp.float32).astype(jnp.float64), shape)
    boost = a < 1
    d = jnp.where(boost, a + 1, a) - 1.0 / 3
    c = jax.lax.rsqrt(9 * d)
    bad = ~(a >= 0) | ~jnp.isfinite(a)
    k_boost, k_loop = jax.random.split(key)

    def round_(state):
        n, out, done, k = state
        k, k_x, k_u = jax.random.split(k, 3)
        x = jax.random.normal(k_x, shape, jnp.float64)
        v = (1 + c * x) ** 3
        log_u = jnp.log(jax.random.uniform(k_u, shape, jnp.float64))
        ok = (v > 0) & (log_u < 0.5 * x * x + d - d * v + d * jnp.log(jnp.where(v > 0, v, 1)))
        return n + 1, jnp.where(~done & ok, d * v, out), done | ok, k
    _, out, _, _ = jax.lax.while_loop(
        lambda st: (st[0] < _GAMMA_ROUNDS) & ~jnp.all(st[2]), round_,
        (0, jnp.zeros(shape, jnp.float64), bad, k_loop))
    u = jax.random.uniform(k_boost, shape, jnp.float64, minval=jnp.finfo(jnp.float32).tiny)
    out = jnp.where(boost, out * u ** (1 / jnp.where(bad, 1, a)), out)
    out = jnp.where(bad, jnp.nan, out)
    return round24(out) if dtype == jnp.float32 else out.astype(dtype)


def affine(shift, scale, x):
    """``shift + scale * x`` of a float32-precision sample, in float64 with float32 parameters (float64
    ones stay): a product of two float32 values is exact in float64, so the sum rounds once
    whether or not XLA fuses it into one multiply-add.  An optimized program fuses, a quickly
    compiled one or the host tier does not, and one seed must give every program the same
    numbers (MXNet's ``forward(is_train=True)``, then ``forward()`` after re-seeding: its
    test_random).  The caller casts the float64 result to the output dtype."""
    def param(p):
        p = jnp.asarray(p)
        return p if p.dtype == jnp.float64 else p.astype(jnp.float32)
    return param(shift).astype(jnp.float64) + param(scale).astype(jnp.float64) * \
        x.astype(jnp.float64)


def narrow(x, dtype):
    """A float64 sample in ``dtype``; a half-precision one through float32 (XLA converts
    float64 to float16 in two roundings, numpy in one)."""
    dtype = jnp.dtype(dtype)
    if dtype.itemsize < 4 and jnp.issubdtype(dtype, jnp.floating):
        x = x.astype(jnp.float32)
    return x.astype(dtype)


def round24(x):
    """A float64 rounded to float32's 24-bit significand (to nearest, ties to even), still a
    float64, by integer operations on its bits: XLA drops a float64 -> float32 -> float64
    convert pair as excess precision (jax 0.4.30), integer arithmetic it keeps."""
    bits = lax.bitcast_convert_type(x, jnp.uint64)
    lsb = (bits >> jnp.uint64(29)) & jnp.uint64(1)
    bits = (bits + jnp.uint64(0x0FFFFFFF) + lsb) & jnp.uint64(0xFFFFFFFFE0000000)
    return lax.bitcast_convert_type(bits, jnp.float64)


def normal32(key, shape):
    """Standard normal samples of float32 precision (held in float64), computed in float64 and
    rounded once: JAX's sampler runs erf_inv's polynomial, whose multiply-adds an optimized
    program fuses and a quick one does not, so in float32 two programs drew different last
    bits for one seed; in float64 the difference sits far below float32's rounding."""
    return round24(jax.random.normal(key, shape, jnp.float64))


def exponential32(key, shape):
    """Exponential(1) samples of float32 precision (held in float64), as ``normal32`` (log1p's
    polynomial fused differently in two programs)."""
    return round24(jax.random.exponential(key, shape, jnp.float64))


def _float(dtype):
    dt = jnp.dtype(dtype or "float32")
    if not jnp.issubdtype(dt, jnp.floating):
        raise MXNetError(f"random: dtype must be a float type, got {dt}")
    return dt


def _num(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


def _param_check(*rules):
    """The parameter checks MXNet's samplers make in their kernels (so a failure surfaces at
    the next read, lowering/registry.Op.kernel_check), with MXNet's messages. A rule:
    (parameter, '>' or '>=', bound: a number or another parameter's name, message)."""
    def check(attrs, *inputs):
        for name, cmp, bound, what in rules:
            v = attrs[name]
            b = attrs[bound] if isinstance(bound, str) else bound
            if not (v > b if cmp == ">" else v >= b):
                shown = f"param.{bound}" if isinstance(bound, str) else _num(b)
                raise MXNetError(f"Check failed: param.{name} {cmp} {shown} ({_num(v)} vs. "
                                 f"{_num(b)}) : {what}")
    return check


_LOW_HIGH = _param_check(("high", ">=", "low", "low must be less or equal to high in uniform "
                                               "distribution"))


@register("_random_uniform", "uniform", "random_uniform", elementwise="flat",
          kernel_check=_LOW_HIGH)
def random_uniform(*, low: Float = 0.0, high: Float = 1.0, shape: Shape = (), dtype: Dtype = "float32",
                   key):
    dt = _float(dtype)
    u = jax.random.uniform(prng(key), shape, jnp.float32)
    lo = jnp.float32(low)
    return narrow(jnp.maximum(lo, affine(lo, jnp.float32(high) - lo, u).astype(jnp.float32)), dt)


@register("_random_normal", "normal", "random_normal", elementwise="flat",
          kernel_check=_param_check(
    ("scale", ">", 0, "scale parameter in gaussian has to be positive")))
def random_normal(*, loc: Float = 0.0, scale: Float = 1.0, shape: Shape = (), dtype: Dtype = "float32",
                  key):
    dt = _float(dtype)
    return narrow(affine(loc, scale, normal32(prng(key), shape)), dt)


@register("_random_randint", "randint", "random_randint", elementwise="flat",
          kernel_check=_LOW_HIGH)
def random_randint(*, low: Int, high: Int, shape: Shape = (), dtype: Dtype = "int32", key):
    return jax.random.randint(prng(key), shape, low, high, jnp.int64).astype(dtype)


@register("_random_exponential", "random_exponential", elementwise="flat",
          kernel_check=_param_check(
    ("lam", ">", 0, "lambda parameter in exponential distribution has to be positive")))
def random_exponential(*, lam: Float = 1.0, shape: Shape = (), dtype: Dtype = "float32", key):
    return (exponential32(prng(key), shape) / lam).astype(_float(dtype))


@register("_random_gamma", "random_gamma", elementwise="flat", kernel_check=_param_check(
    ("alpha", ">", 0, "alpha parameter in gamma distribution has to be positive"),
    ("beta", ">", 0, "beta parameter in gamma distribution has to be positive")))
def random_gamma(*, alpha: Float = 1.0, beta: Float = 1.0, shape: Shape = (), dtype: Dtype = "float32",
                 key):
    return (gamma(prng(key), alpha, shape) * beta).astype(_float(dtype))


@register("_random_poisson", "random_poisson", kernel_check=_param_check(
    ("lam", ">=", 0, "lambda parameter in poisson distribution has to be non-negative")))
def random_poisson(*, lam: Float = 1.0, shape: Shape = (), dtype: Dtype = "float32", key):
    return jax.random.poisson(prng(key, "threefry2x32"), lam, shape).astype(_float(dtype))


@register("_random_negative_binomial", "random_negative_binomial", kernel_check=_param_check(
    ("k", ">=", 0, "k parameter in negative binomial distribution has to be non-negative")))
def random_negative_binomial(*, k: Int = 1, p: Float = 1.0, shape: Shape = (),
                             dtype: Dtype = "float32", key):
    k1, k2 = jax.random.split(prng(key, "threefry2x32"))
    lam = gamma(k1, k, shape, jnp.float64) * (1 - p) / p
    return jax.random.poisson(k2, lam, shape).astype(_float(dtype))


@register("_random_generalized_negative_binomial", "random_generalized_negative_binomial",
          kernel_check=_param_check(
              ("mu", ">=", 0, "mu parameter in generalized negative binomial distribution has "
                              "to be non-negative"),
              ("alpha", ">=", 0, "alpha parameter in generalized negative binomial "
                                 "distribution has to be non-negative")))
def random_generalized_negative_binomial(*, mu: Float = 1.0, alpha: Float = 1.0, shape: Shape = (),
                                         dtype: Dtype = "float32", key):
    """Poisson(lambda), lambda ~ Gamma(1/alpha, scale=mu*alpha): mean mu, variance
    mu + alpha*mu^2."""
    k1, k2 = jax.random.split(prng(key, "threefry2x32"))
    lam = gamma(k1, 1.0 / alpha, shape, jnp.float64) * mu * alpha
    return jax.random.poisson(k2, lam, shape).astype(_float(dtype))


def _param_shape(params, shape):
    return tuple(params.shape) + tuple(shape)


@register("_sample_uniform", "sample_uniform")
def sample_uniform(low, high, *, shape: Shape = (), dtype: Dtype = None, key):
    """Array-valued parameters: output shape = params.shape + shape."""
    s = _param_shape(low, shape)
    u = jax.random.uniform(prng(key), s, jnp.float32)
    ex = (...,) + (None,) * len(shape)
    return narrow(affine(low[ex], (high - low)[ex], u), dtype or low.dtype)


@register("_sample_normal", "sample_normal")
def sample_normal(mu, sigma, *, shape: Shape = (), dtype: Dtype = None, key):
    s = _param_shape(mu, shape)
    ex = (...,) + (None,) * len(shape)
    return narrow(affine(mu[ex], sigma[ex], normal32(prng(key), s)), dtype or mu.dtype)


# the largest category index each output dtype holds exactly (MXNet refuses wider ones)
_INDEX_LIMIT = {"uint8": 255, "int8": 127, "float16": 2 ** 11, "float32": 2 ** 24}


@register("_sample_multinomial", "sample_multinomial",
          num_outputs=lambda attrs: 2 if attrs["get_prob"] else 1)
def sample_multinomial(data, *, shape: Shape = (), get_prob: Bool = False,
                       dtype: Dtype = "int32", key):
    """Draw category indices from each row of probabilities ``data`` (inverse CDF). With
    ``get_prob``, also the log-probability of each draw, ``log(data[draw])`` (MXNet's REINFORCE helper: its
    gradient is 1 / data[draw], the draws themselves have none)."""
    k = data.shape[-1]
    if k - 1 > _INDEX_LIMIT.get(dtype, 2 ** 31 - 1):
        raise MXNetError(f"_sample_multinomial: {k} categories do not fit the output dtype "
                         f"{dtype}")
    n = 1
    for d in shape:
        n *= d
    # MXNet's inverse-CDF draw: the first category whose running sum passes u ~ U[0, 1),
    # without normalising (rows summing to more than 1 favour the first categories, as there)
    rows = data.reshape((-1, k))
    u = jax.random.uniform(prng(key), (rows.shape[0], max(n, 1)), jnp.float32)
    cdf = jnp.cumsum(jax.lax.stop_gradient(rows).astype(jnp.float32), axis=-1)
    draws = jax.vmap(lambda c, x: jnp.searchsorted(c, x, side="right"))(cdf, u)
    draws = jnp.minimum(draws, k - 1).reshape(data.shape[:-1] + (max(n, 1),))
    out_shape = data.shape[:-1] + tuple(shape)
    out = draws.reshape(out_shape).astype(dtype)
    if not get_prob:
        return out
    logp = jnp.log(jnp.take_along_axis(data, draws, axis=-1))
    return out, logp.reshape(out_shape)


_ZIPF_BLOCK = 1024  # candidates drawn per row at once; scanned one by one


@register("_sample_unique_zipfian", num_outputs=2)
def sample_unique_zipfian(*, range_max: Int, shape: Shape, key):
    """For each of ``shape[0]`` rows, ``shape[1]`` distinct classes drawn from the
    log-uniform law over [0, range_max), as MXNet's sampled-softmax helper does: candidates
    ``round(exp(u * log(range_max))) - 1`` (u ~ U[0, 1)) in order, repeats skipped. Also
    returns each row's number of draws (int64, as the classes)."""
    if len(shape) != 2:
        raise MXNetError(f"_sample_unique_zipfian: shape must be (batch_size, num_sampled), "
                         f"got {tuple(shape)}")
    rows, n = shape
    if n > range_max:
        raise MXNetError(f"_sample_unique_zipfian: Number of samples ({n}) cannot exceed the "
                         f"number of possible classes ({range_max})")
    log_max = jnp.log(jnp.float32(range_max))
    r = jnp.arange(rows)

    def block(state):
        out, seen, count, tries, k = state
        k, kb = jax.random.split(k)
        cand = jnp.round(jnp.exp(jax.random.uniform(kb, (_ZIPF_BLOCK, rows)) * log_max))
        cand = jnp.clip(cand.astype(jnp.int32) - 1, 0, range_max - 1)

        def step(j, st):
            out, seen, count, tries = st
            c, live = cand[j], count < n
            new = live & ~seen[r, c]
            out = out.at[r, jnp.where(new, count, n)].set(c, mode="drop")
            return (out, seen.at[r, c].set(seen[r, c] | new), count + new, tries + live)
        return (*jax.lax.fori_loop(0, _ZIPF_BLOCK, step, (out, seen, count, tries)), k)
    state = (jnp.zeros(shape, jnp.int32), jnp.zeros((rows, range_max), bool),
             jnp.zeros(rows, jnp.int32), jnp.zeros(rows, jnp.int32), prng(key))
    out, _, _, tries, _ = jax.lax.while_loop(lambda st: jnp.any(st[2] < n), block, state)
    return out.astype(jnp.int64), tries.astype(jnp.int64)


@register("_shuffle", "shuffle")
def shuffle(data, *, key):
    """Shuffles along the first axis."""
    return jax.random.permutation(prng(key), data, axis=0)


# ---- array-parameter sampling: output shape params.shape + shape --------------------------

def _ex(shape):
    return (...,) + (None,) * len(shape)


@register("_sample_exponential", "sample_exponential")
def sample_exponential(lam, *, shape: Shape = (), dtype: Dtype = None, key):
    s = _param_shape(lam, shape)
    e = exponential32(prng(key), s)
    return (e / lam[_ex(shape)]).astype(dtype or lam.dtype)


@register("_sample_gamma", "sample_gamma")
def sample_gamma(alpha, beta, *, shape: Shape = (), dtype: Dtype = None, key):
    """beta is the scale."""
    s = _param_shape(alpha, shape)
    a = jnp.broadcast_to(alpha[_ex(shape)], s).astype(jnp.float32)
    return (gamma(prng(key), a, s) * beta[_ex(shape)]).astype(
        dtype or alpha.dtype)


@register("_sample_poisson", "sample_poisson")
def sample_poisson(lam, *, shape: Shape = (), dtype: Dtype = None, key):
    s = _param_shape(lam, shape)
    lam_b = jnp.broadcast_to(lam[_ex(shape)], s).astype(jnp.float32)
    return jax.random.poisson(prng(key, "threefry2x32"), lam_b, s).astype(dtype or lam.dtype)


@register("_sample_negative_binomial", "sample_negative_binomial")
def sample_negative_binomial(k, p, *, shape: Shape = (), dtype: Dtype = None, key):
    s = _param_shape(k, shape)
    k1, k2 = jax.random.split(prng(key, "threefry2x32"))
    kb = jnp.broadcast_to(k[_ex(shape)], s).astype(jnp.float32)
    pb = p[_ex(shape)].astype(jnp.float32)
    lam = gamma(k1, kb, s, jnp.float64) * (1 - pb) / pb
    return jax.random.poisson(k2, lam, s).astype(dtype or k.dtype)


@register("_sample_generalized_negative_binomial", "sample_generalized_negative_binomial")
def sample_generalized_negative_binomial(mu, alpha, *, shape: Shape = (), dtype: Dtype = None,
                                         key):
    s = _param_shape(mu, shape)
    k1, k2 = jax.random.split(prng(key, "threefry2x32"))
    a = alpha[_ex(shape)].astype(jnp.float32)
    lam = gamma(k1, 1.0 / a, s, jnp.float64) * mu[_ex(shape)] * a
    return jax.random.poisson(k2, lam, s).astype(dtype or mu.dtype)


# ---- *_like: the distribution with scalar parameters, data's shape and dtype ---------------

_LIKE = {
    "uniform": (random_uniform, ("low", "high")),
    "normal": (random_normal, ("loc", "scale")),
    "exponential": (random_exponential, ("lam",)),
    "gamma": (random_gamma, ("alpha", "beta")),
    "poisson": (random_poisson, ("lam",)),
    "negative_binomial": (random_negative_binomial, ("k", "p")),
    "generalized_negative_binomial": (random_generalized_negative_binomial, ("mu", "alpha")),
}


def _define_like(name, base, names):
    import inspect
    params = inspect.signature(base).parameters

    def like(data, *, key, **kw):
        dt = data.dtype if jnp.issubdtype(data.dtype, jnp.floating) else jnp.float32
        return base(shape=data.shape, dtype=jnp.dtype(dt).name, key=key, **kw)
    kwonly = [inspect.Parameter("data", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    kwonly += [params[n] for n in names] + [params["key"]]
    like.__signature__ = inspect.Signature(kwonly)
    like.__doc__ = f"random_{name} with data's shape and dtype."
    register(f"_random_{name}_like", f"random_{name}_like")(like)


for _n, (_base, _names) in _LIKE.items():
    _define_like(_n, _base, _names)


# ---- densities: random_pdf_* (sample shape = params shape + extra dims) --------------------

def _logpdf(kind, x, p):
    from jax.scipy.special import gammaln
    if kind == "uniform":
        low, high = p  # MXNet does not check that x lies in [low, high]
        return jnp.zeros_like(x) - jnp.log(high - low)
    if kind == "normal":
        mu, sigma = p
        return -0.5 * jnp.square((x - mu) / sigma) - jnp.log(sigma) - 0.5 * jnp.log(2 * jnp.pi)
    if kind == "gamma":  # beta is the rate here, as in MXNet's pdf
        a, b = p
        return a * jnp.log(b) + (a - 1) * jnp.log(x) - b * x - gammaln(a)
    if kind == "exponential":
        (lam,) = p
        return jnp.log(lam) - lam * x
    if kind == "poisson":
        (lam,) = p
        return x * jnp.log(lam) - lam - gammaln(x + 1)
    if kind == "negative_binomial":
        k, q = p
        return (gammaln(x + k) - gammaln(x + 1) - gammaln(k) + k * jnp.log(q)
                + x * jnp.log1p(-q))
    if kind == "generalized_negative_binomial":
        mu, alpha = p
        k = 1.0 / alpha
        q = 1.0 / (1.0 + alpha * mu)
        return (gammaln(x + k) - gammaln(x + 1) - gammaln(k) + k * jnp.log(q)
                + x * jnp.log1p(-q))
    raise AssertionError(kind)


_PDF = {"uniform": ("low", "high"), "normal": ("mu", "sigma"), "gamma": ("alpha", "beta"),
        "exponential": ("lam",), "poisson": ("lam",), "negative_binomial": ("k", "p"),
        "generalized_negative_binomial": ("mu", "alpha")}


def _define_pdf(kind, names):
    import inspect

    def pdf(sample, *params, is_log=False):
        for n, q in zip(names, params):
            if tuple(sample.shape[:q.ndim]) != tuple(q.shape):
                raise MXNetError(f"random_pdf_{kind}: parameter {n} of shape {q.shape} must be "
                                 f"the leading part of sample's shape {sample.shape}")
        ex = [q.reshape(q.shape + (1,) * (sample.ndim - q.ndim)) for q in params]
        lp = _logpdf(kind, sample, ex)
        return (lp if is_log else jnp.exp(lp)).astype(sample.dtype)
    P = inspect.Parameter
    sig = [P("sample", P.POSITIONAL_OR_KEYWORD)] + [P(n, P.POSITIONAL_OR_KEYWORD) for n in names]
    sig.append(P("is_log", P.KEYWORD_ONLY, default=False, annotation=Bool))

    def fn(sample, *params, is_log=False):
        return pdf(sample, *params, is_log=is_log)
    fn.__signature__ = inspect.Signature(sig)
    fn.__doc__ = f"Density of {kind} distributions at sample (log-density when is_log)."
    register(f"_random_pdf_{kind}", f"random_pdf_{kind}")(fn)


for _k, _names in _PDF.items():
    _define_pdf(_k, _names)


@register("_random_pdf_dirichlet", "random_pdf_dirichlet")
def random_pdf_dirichlet(sample, alpha, *, is_log: Bool = False):
    """sample (alpha.shape[:-1] + extra + (k,)), alpha (..., k): one density per k-vector."""
    from jax.scipy.special import gammaln
    a = alpha.reshape(alpha.shape[:-1] + (1,) * (sample.ndim - alpha.ndim) + alpha.shape[-1:])
    lp = (jnp.sum((a - 1) * jnp.log(sample), axis=-1) + gammaln(jnp.sum(a, axis=-1))
          - jnp.sum(gammaln(a), axis=-1))
    return (lp if is_log else jnp.exp(lp)).astype(sample.dtype)
