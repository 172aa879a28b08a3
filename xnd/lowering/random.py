"""Random sampling operators (``_random_*`` / ``_sample_*``).

Each op receives ``key``: a uint32 pair (seed, counter) from xnd's global
random state; the stream is ``fold_in(PRNGKey(seed), counter)``, so a new
draw never recompiles and ``mx.random.seed(s)`` makes runs repeatable. MXNet's
bit streams are not reproduced (OPERATORS.md §14), only distributions,
shapes and dtypes.
"""
import jax
import jax.numpy as jnp

from ..base import MXNetError
from .attrs import Dtype, Float, Int, Shape, optional
from .registry import register


def prng(key, impl="rbg"):
    """The JAX key of one draw. xnd's keys use the 'rbg' generator: it compiles several times
    faster than threefry on CPU (about 0.3 s instead of 1 s per new shape, which every
    initializer and Dropout layer pays once); only xnd's own draws use it. JAX's Poisson
    sampler needs threefry, so the Poisson family asks for it."""
    return jax.random.fold_in(jax.random.key(key[0], impl=impl), key[1])


def _float(dtype):
    dt = jnp.dtype(dtype or "float32")
    if not jnp.issubdtype(dt, jnp.floating):
        raise MXNetError(f"random: dtype must be a float type, got {dt}")
    return dt


@register("_random_uniform", "uniform", "random_uniform")
def random_uniform(*, low: Float = 0.0, high: Float = 1.0, shape: Shape = (), dtype: Dtype = "float32",
                   key):
    dt = _float(dtype)
    return jax.random.uniform(prng(key), shape, jnp.float32, low, high).astype(dt)


@register("_random_normal", "normal", "random_normal")
def random_normal(*, loc: Float = 0.0, scale: Float = 1.0, shape: Shape = (), dtype: Dtype = "float32",
                  key):
    dt = _float(dtype)
    return (loc + scale * jax.random.normal(prng(key), shape, jnp.float32)).astype(dt)


@register("_random_randint", "randint", "random_randint")
def random_randint(*, low: Int, high: Int, shape: Shape = (), dtype: Dtype = "int32", key):
    return jax.random.randint(prng(key), shape, low, high, jnp.int64).astype(dtype)


@register("_random_exponential", "random_exponential")
def random_exponential(*, lam: Float = 1.0, shape: Shape = (), dtype: Dtype = "float32", key):
    return (jax.random.exponential(prng(key), shape, jnp.float32) / lam).astype(_float(dtype))


@register("_random_gamma", "random_gamma")
def random_gamma(*, alpha: Float = 1.0, beta: Float = 1.0, shape: Shape = (), dtype: Dtype = "float32",
                 key):
    return (jax.random.gamma(prng(key), alpha, shape, jnp.float32) * beta).astype(_float(dtype))


@register("_random_poisson", "random_poisson")
def random_poisson(*, lam: Float = 1.0, shape: Shape = (), dtype: Dtype = "float32", key):
    return jax.random.poisson(prng(key, "threefry2x32"), lam, shape).astype(_float(dtype))


@register("_random_negative_binomial", "random_negative_binomial")
def random_negative_binomial(*, k: Int = 1, p: Float = 1.0, shape: Shape = (),
                             dtype: Dtype = "float32", key):
    k1, k2 = jax.random.split(prng(key, "threefry2x32"))
    lam = jax.random.gamma(k1, k, shape) * (1 - p) / p
    return jax.random.poisson(k2, lam, shape).astype(_float(dtype))


@register("_random_generalized_negative_binomial", "random_generalized_negative_binomial")
def random_generalized_negative_binomial(*, mu: Float = 1.0, alpha: Float = 1.0, shape: Shape = (),
                                         dtype: Dtype = "float32", key):
    """Poisson(lambda), lambda ~ Gamma(1/alpha, scale=mu*alpha): mean mu, variance
    mu + alpha*mu^2."""
    k1, k2 = jax.random.split(prng(key, "threefry2x32"))
    lam = jax.random.gamma(k1, 1.0 / alpha, shape) * mu * alpha
    return jax.random.poisson(k2, lam, shape).astype(_float(dtype))


def _param_shape(params, shape):
    return tuple(params.shape) + tuple(shape)


@register("_sample_uniform", "sample_uniform")
def sample_uniform(low, high, *, shape: Shape = (), dtype: Dtype = None, key):
    """Array-valued parameters: output shape = params.shape + shape."""
    s = _param_shape(low, shape)
    u = jax.random.uniform(prng(key), s, jnp.float32)
    ex = (...,) + (None,) * len(shape)
    return (low[ex] + (high - low)[ex] * u).astype(dtype or low.dtype)


@register("_sample_normal", "sample_normal")
def sample_normal(mu, sigma, *, shape: Shape = (), dtype: Dtype = None, key):
    s = _param_shape(mu, shape)
    ex = (...,) + (None,) * len(shape)
    return (mu[ex] + sigma[ex] * jax.random.normal(prng(key), s, jnp.float32)).astype(dtype or mu.dtype)


@register("_sample_multinomial", "sample_multinomial")
def sample_multinomial(data, *, shape: Shape = (), get_prob=False, dtype: Dtype = "int32", key):
    """Draw category indices from each row of probabilities ``data``."""
    logits = jnp.log(data)
    n = 1
    for d in shape:
        n *= d
    draws = jax.random.categorical(prng(key), logits[..., None, :], axis=-1,
                                   shape=data.shape[:-1] + (max(n, 1),))
    return draws.reshape(data.shape[:-1] + tuple(shape)).astype(dtype)


@register("_shuffle", "shuffle")
def shuffle(data, *, key):
    """Shuffles along the first axis."""
    return jax.random.permutation(prng(key), data, axis=0)
