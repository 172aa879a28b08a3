"""Graph nodes traced once per (operator, attributes, input shapes): each node of a graph
program is staged as a call of one cached ``jax.jit`` per operator and attribute set.

xnd traces a whole graph (a bound symbol, a hybridized block, its backward) into one
program.  Differentiating that trace costs JAX a few hundred microseconds per primitive
(``jax.vjp`` linearizes each one), and a network repeats its layers: ResNet-18's first
training step traced 735 forward and 997 backward equations, 0.48 s of its 2.4 s on the
host tier.  A jitted function met again with the same input types is not traced again,
and its linearization and transpose are cached by JAX too, so a layer repeated with the
same shapes costs one trace.  XLA inlines the calls: the compiled programs are the same.

``staged(fn, **attrs)`` is ``fn`` with its keyword attributes bound; called on traced
values it runs the cached jitted call, on concrete arrays ``fn`` itself (a jit per node
there would compile each).  The cache key also holds the trace-time state a lowering reads
besides its arguments: NumPy shape/array semantics and ``dtypes.real_run``.  Attribute
values that cannot be hashed (a custom operator's Python objects) are called unstaged.
"""
import functools

import jax

from .. import semantics
from . import dtypes

_CACHE = {}          # (fn, attributes, trace-time state) -> jitted fn
CACHE_MAX = 1 << 12
STATS = {"staged": 0, "traced": 0}


def staged(fn, /, **attrs):
    """``fn(*arrays, **attrs)`` as a cached jitted call under a trace (see the module doc)."""
    try:
        base = (fn, _frozen(attrs))
        hash(base)
    except TypeError:
        return functools.partial(fn, **attrs)

    def call(*arrays):
        if not any(isinstance(a, jax.core.Tracer) for a in jax.tree_util.tree_leaves(arrays)):
            return fn(*arrays, **attrs)
        key = base + (semantics.is_np_shape(), semantics.is_np_array(),
                      dtypes.REAL_RUN.active)
        jitted = _CACHE.get(key)
        if jitted is None:
            if len(_CACHE) >= CACHE_MAX:
                _CACHE.clear()
            jitted = _CACHE[key] = jax.jit(_traced(fn, attrs))
        STATS["staged"] += 1
        return jitted(*arrays)
    return call


def _traced(fn, attrs):
    def body(*arrays):
        STATS["traced"] += 1
        return fn(*arrays, **attrs)
    return body


def _frozen(value):
    """A hashable key for an attribute value, its type included (``1``, ``1.0`` and ``True``
    are equal in Python but can give a scalar operator three result dtypes)."""
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value),) + tuple(_frozen(v) for v in value)
    return (type(value), value)
