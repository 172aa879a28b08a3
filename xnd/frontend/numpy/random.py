"""``mx.np.random``: numpy.random's distributions with MXNet's signatures (``ctx=``, ``out=``).

Draws come from xnd's one random state (``mx.random.seed``/``np.random.seed``):
distributions, shapes and dtypes are MXNet's, its bit streams are not.
"""
import inspect

from ...lowering import numpy_random as _lnr
from ...lowering import registry
from .. import random as _random
from .multiarray import _ctx_of, call, ndarray
# names MXNet's module holds by importing them (its users import them from here)
from ...context import current_context  # noqa: E402,F401
from ...ndarray import NDArray  # noqa: E402,F401


def seed(seed, ctx="all"):
    """Seed xnd's random state (the one mx.random.seed seeds)."""
    _random.seed(seed, ctx)


def _sampler(name):
    op = registry.get("_npi_random_" + name)
    sig = inspect.signature({**_lnr.SAMPLERS, **_lnr.NPX_SAMPLERS}[name])

    def fn(*args, ctx=None, device=None, out=None, **kwargs):
        try:  # a keyword numpy's function lacks (shape= for size=) is a TypeError, as there
            sig.bind(None, *args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{name}() {e}") from None
        c = None if ctx is None and device is None else _ctx_of(ctx, device)
        if c is None and not any(isinstance(a, ndarray) for a in list(args) + list(kwargs.values())):
            c = _ctx_of(None, None)
        return call(op, args, kwargs, out, c)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"numpy.random.{name} (MXNet's signature; xnd's random state)."
    return fn


for _n in _lnr.SAMPLERS:
    globals()[_n] = _sampler(_n)


def rand(*size, **kwargs):
    return uniform(size=size or None, **kwargs)  # noqa: F821


def randn(*size, **kwargs):
    return normal(size=size or None, **kwargs)  # noqa: F821


def shuffle(x):
    """Shuffle x along its first axis, in place (as numpy.random.shuffle)."""
    x[:] = globals()["_shuffled"](x)


_shuffled = _sampler("shuffle")

__all__ = sorted(list(_lnr.SAMPLERS) + ["seed", "rand", "randn"])
