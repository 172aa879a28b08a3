"""``mx.npx.random``: the numpy extensions' samplers (``bernoulli``, ``normal_n``,
``uniform_n``) and the random-state switch."""
from .. import random as _random
from ..numpy.random import _sampler
# names MXNet's module holds by importing them (its users import them from here)
from ...context import current_context  # noqa: E402,F401

_bernoulli = _sampler("bernoulli")
normal_n = _sampler("normal_n")
uniform_n = _sampler("uniform_n")


def seed(seed, ctx="all"):
    """Seed xnd's one random state (the one mx.random.seed and np.random.seed seed)."""
    _random.seed(seed, ctx)


def check_bernoulli(prob, logit, size):
    """MXNet's argument rules of npx.random.bernoulli: exactly one of prob and logit; size ()
    is None.  Returns the size to draw."""
    if (prob is None) == (logit is None):
        raise ValueError("Either `prob` or `logit` must be specified, but not both. "
                         f"Received prob={prob}, logit={logit}")
    return None if size == () else size


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None):
    """Draws of 0/1 (float32 unless ``dtype``) with probability ``prob`` or sigmoid(``logit``);
    a prob outside [0, 1] is MXNet's ValueError when the result is read."""
    size = check_bernoulli(prob, logit, size)
    return _bernoulli(prob=prob, logit=logit, size=size, dtype=dtype, ctx=ctx, out=out)


__all__ = ["seed", "bernoulli", "normal_n", "uniform_n"]
