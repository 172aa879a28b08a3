"""The samplers of ``mx.np.random`` and ``mx.npx.random``, one registry operator each
(``_npi_random_<name>``), drawn from xnd's random state (``key``).

They take lowering/numpy.py's frozen call, so a changing scalar parameter does not
recompile.  The numbers follow MXNet 1.9.1's distributions, not its bit stream; float64
results only where ``dtype`` asks; parameter checks raise MXNet's ValueError when the draw
is read (kernel checks).
"""
import inspect

import jax
import jax.numpy as jnp
import numpy as onp

from .numpy import _F32, _F64, _bound, _fdt, _literal, _thaw
from .random import gamma as _gamma_f32
from .random import affine, narrow, normal32, prng
from .registry import Dynamic, _ANY_SHAPE, register


def _size(size):
    return () if size is None else (tuple(size) if isinstance(size, (tuple, list)) else (size,))


def _bshape(size, *params):
    return _size(size) if size is not None else jnp.broadcast_shapes(
        *(jnp.shape(p) for p in params))


def _uniform(k, low=0.0, high=1.0, size=None, dtype=None):
    s = _bshape(size, low, high)
    return narrow(affine(low, jnp.asarray(high) - low, jax.random.uniform(k, s, jnp.float32)),
                  _fdt(dtype))


def _normal(k, loc=0.0, scale=1.0, size=None, dtype=None):
    s = _bshape(size, loc, scale)
    return narrow(affine(loc, jnp.asarray(scale), normal32(k, s)), _fdt(dtype))


def _randint(k, low, high=None, size=None, dtype=None):
    if high is None:
        low, high = 0, low
    return jax.random.randint(k, _size(size), low, high, jnp.dtype(dtype or "int64"))


def _choice(k, a, size=None, replace=True, p=None):
    return jax.random.choice(k, a, _size(size), replace, p)


def _exponential(k, scale=1.0, size=None):
    return (jnp.asarray(scale) * jax.random.exponential(k, _bshape(size, scale), jnp.float32))


def _gamma(k, shape=1.0, scale=1.0, size=None, dtype=None):
    s = _bshape(size, shape, scale)
    return (_gamma_f32(k, shape, s) * scale).astype(_fdt(dtype))


def _beta(k, a, b, size=None, dtype=None):
    s = _bshape(size, a, b)
    ka, kb = jax.random.split(k)
    x, y = _gamma_f32(ka, a, s), _gamma_f32(kb, b, s)
    return (x / (x + y)).astype(_fdt(dtype))


def _lognormal(k, mean=0.0, sigma=1.0, size=None, dtype=None):
    return jnp.exp(_normal(k, mean, sigma, size, dtype))


def _multinomial(k, n, pvals, size=None):
    s = _size(size)
    if jnp.shape(pvals)[-1] == 0:
        return jnp.zeros(s + (0,), jnp.int64)
    draws = jax.random.categorical(k, jnp.log(jnp.asarray(pvals)), shape=s + (n,))
    return jax.nn.one_hot(draws, len(pvals), dtype=jnp.int64).sum(-2)


def _shuffle_perm(k, x):
    return jax.random.permutation(k, x, axis=0)


SAMPLERS = {
    "uniform": _uniform, "normal": _normal, "randint": _randint, "choice": _choice,
    "exponential": _exponential, "gamma": _gamma, "beta": _beta, "lognormal": _lognormal,
    "multinomial": _multinomial, "shuffle": _shuffle_perm,
    "logistic": lambda k, loc=0.0, scale=1.0, size=None: loc + scale * jax.random.logistic(
        k, _bshape(size, loc, scale), jnp.float32),
    "gumbel": lambda k, loc=0.0, scale=1.0, size=None: loc + scale * jax.random.gumbel(
        k, _bshape(size, loc, scale), jnp.float32),
    "rayleigh": lambda k, scale=1.0, size=None: scale * jnp.sqrt(
        -2 * jnp.log1p(-jax.random.uniform(k, _bshape(size, scale), jnp.float32))),
    "weibull": lambda k, a, size=None: jax.random.weibull_min(k, 1.0, a, _bshape(size, a),
                                                              jnp.float32),
    "pareto": lambda k, a, size=None: jax.random.pareto(k, a, _bshape(size, a), jnp.float32) - 1,
    "power": lambda k, a, size=None: jax.random.uniform(k, _bshape(size, a), jnp.float32) ** (
        1.0 / jnp.asarray(a)),
    "chisquare": lambda k, df, size=None, dtype=None: (2.0 * _gamma_f32(
        k, jnp.asarray(df, jnp.float32) / 2, _bshape(size, df))).astype(_fdt(dtype)),
    "multivariate_normal": lambda k, mean, cov, size=None: jax.random.multivariate_normal(
        k, jnp.asarray(mean, jnp.float32), jnp.asarray(cov, jnp.float32), _size(size)
        + jnp.broadcast_shapes(jnp.shape(mean)[:-1], jnp.shape(cov)[:-2])),
}


def _bernoulli(k, prob=None, logit=None, size=None, dtype=None):
    p = jax.nn.sigmoid(jnp.asarray(logit)) if prob is None else jnp.asarray(prob)
    return (jax.random.uniform(k, _bshape(size, p), jnp.float32) < p).astype(_fdt(dtype))


def _batched(sample):
    """npx.random.<x>_n: batch_shape leads the parameters' broadcast shape."""
    def fn(k, a=0.0, b=1.0, batch_shape=None, dtype=None):
        shape = _size(batch_shape) + jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b))
        return sample(k, a, b, size=shape, dtype=dtype)
    return fn


# mx.npx.random's samplers (same registry mechanism, not in mx.np.random)
NPX_SAMPLERS = {"bernoulli": _bernoulli, "normal_n": _batched(_normal),
                "uniform_n": _batched(_uniform)}


def _bounded(sampler, positive=(), nonnegative=()):
    """A sampler's parameter check: MXNet's ValueError (when the draw is read) for a
    parameter in ``positive`` that is not > 0, or in ``nonnegative`` that is < 0."""
    params = list(inspect.signature(SAMPLERS[sampler]).parameters)[1:]

    def check(attrs, *data):
        got = _bound(attrs, data, params)
        for names, ok, what in ((positive, onp.greater, "positive"),
                                (nonnegative, onp.greater_equal, "non-negative")):
            for n in names:
                v = got.get(n)
                if v is not None and not ok(onp.asarray(v), 0).all():
                    raise ValueError(f"{sampler}: {n} must be {what}, got {onp.asarray(v)}")
    return check


def _probability(attrs, *data):
    got = _bound(attrs, data, ("prob", "logit", "size", "dtype"))
    p = got.get("prob")
    if p is not None and not ((onp.asarray(p) >= 0) & (onp.asarray(p) <= 1)).all():
        raise ValueError("bernoulli: prob must be in [0, 1]")


_RANDOM_CHECKS = {
    "gamma": _bounded("gamma", positive=("shape", "scale")),
    **{n: _bounded(n, positive=("a",)) for n in ("weibull", "pareto", "power")},
    **{n: _bounded(n, nonnegative=("scale",)) for n in ("exponential", "rayleigh")},
    "lognormal": _bounded("lognormal", nonnegative=("sigma",)),
    "bernoulli": _probability,
}


def _make_random(name, sampler):
    params = list(inspect.signature(sampler).parameters)[1:]   # (after the key)
    def fn(*data, call: _literal = ((), ()), scalars: Dynamic(_literal) = (), key):
        pos, kw = call
        args = [_thaw(x, data, scalars) for x in pos]
        kwargs = {k: _thaw(v, data, scalars) for k, v in kw}
        out = sampler(prng(key), *args, **kwargs)
        asked = kwargs.get("dtype") is not None or (
            "dtype" in params and len(args) > params.index("dtype") and
            args[params.index("dtype")] is not None)
        return out.astype(_F32) if out.dtype == _F64 and not asked else out
    fn.__name__ = f"_npi_random_{name}"
    fn.__doc__ = f"numpy.random.{name}: MXNet's distribution (not its bit stream)."
    register(f"_npi_random_{name}", kernel_check=_RANDOM_CHECKS.get(name))(fn)
    _ANY_SHAPE.add(f"_npi_random_{name}")


for _n, _f in {**SAMPLERS, **NPX_SAMPLERS}.items():
    _make_random(_n, _f)
