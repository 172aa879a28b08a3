"""mx.random / mx.nd.random: the global seed and the sampling functions.

The state is (seed, counter), kept in ``xnd/rng.py`` (below the NDArray core, which
draws from it); each draw passes ``(seed, counter)`` into the sampling kernel, which
derives its stream with ``fold_in``; seeding resets the counter, so a seed reproduces
a run. MXNet's exact bit streams are not reproduced (they differ between MXNet builds
too).
"""
import numpy as np

from .. import rng as _rng
from ..ndarray import NDArray, invoke
from ..base import MXNetError
from ..lowering import registry
from ..lowering.attrs import Shape
from ..op_function import shape_dtype_from_out
# names MXNet's module holds by importing them (its users import them from here)
from ..base import check_call, integer_types, numeric_types  # noqa: E402,F401
from ..context import Context, current_context  # noqa: E402,F401

_state = _rng._state  # the same dict: tests and tools read (seed, counter) here
next_key = _rng.next_key


def seed(seed_state, ctx="all"):
    """Seed the generator (every context: xnd has one stream shared by all devices)."""
    if not isinstance(seed_state, (int, np.integer)):
        raise ValueError(f"seed_state must be an integer, got {type(seed_state).__name__}")
    _rng.seed(seed_state)


def _shape(shape):
    return () if shape is None else Shape(shape)


def _is_array(x):
    return isinstance(x, NDArray)


def _sample(scalar_op, array_op, params, names, shape, dtype, ctx, out, kwargs):
    if kwargs:
        raise MXNetError(f"{scalar_op}: unknown argument(s) {', '.join(sorted(kwargs))}")
    if any(_is_array(p) for p in params):
        if not all(_is_array(p) for p in params):
            raise MXNetError(f"{array_op}: parameters must be all NDArrays or all scalars")
        op = registry.get(array_op)
        if dtype is None and out is not None:  # the output's type, as MXNet infers it
            dtype = np.dtype(out.dtype).name
        attrs = op.parse_attrs({"shape": _shape(shape), "dtype": dtype})
        return invoke(op, list(params), attrs, out=out)
    op = registry.get(scalar_op)
    return _draw(op, dict(zip(names, params), shape=shape, dtype=dtype), "float32", ctx, out)


def _draw(op, kw, dtype, ctx, out):
    """A scalar-parameter sampler: shape and dtype from ``out`` where not given (MXNet's
    imperative inference), else shape (1,) and ``dtype``."""
    kw = shape_dtype_from_out(op, kw, out)
    kw["shape"] = _shape(kw.get("shape")) or (1,)
    kw["dtype"] = kw.get("dtype") or dtype
    ctx = ctx or (out.context if out is not None else None)
    return invoke(op, [], op.parse_attrs(kw), out=out, ctx=ctx)


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    return _sample("_random_uniform", "_sample_uniform", (low, high), ("low", "high"), shape, dtype,
                   ctx, out, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    return _sample("_random_normal", "_sample_normal", (loc, scale), ("loc", "scale"), shape, dtype,
                   ctx, out, kwargs)


def randn(*shape, loc=0, scale=1, dtype=None, ctx=None, out=None, **kwargs):
    return normal(loc, scale, shape or None, dtype, ctx, out, **kwargs)


def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    return _draw(registry.get("_random_randint"),
                 dict(low=low, high=high, shape=shape, dtype=dtype, **kwargs), "int32", ctx, out)


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    return _sample("_random_exponential", "_sample_exponential", (1.0 / scale,), ("lam",), shape,
                   dtype, ctx, out, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    return _sample("_random_gamma", "_sample_gamma", (alpha, beta), ("alpha", "beta"), shape, dtype,
                   ctx, out, kwargs)


def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    return _sample("_random_poisson", "_sample_poisson", (lam,), ("lam",), shape, dtype, ctx, out,
                   kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    return _sample("_random_negative_binomial", "_sample_negative_binomial", (k, p), ("k", "p"),
                   shape, dtype, ctx, out, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None,
                                 **kwargs):
    return _sample("_random_generalized_negative_binomial", "_sample_generalized_negative_binomial",
                   (mu, alpha), ("mu", "alpha"), shape, dtype, ctx, out, kwargs)


def multinomial(data, shape=None, get_prob=False, out=None, dtype="int32", **kwargs):
    op = registry.get("_sample_multinomial")
    if isinstance(out, NDArray) and np.dtype(out.dtype) != np.dtype(dtype):
        raise MXNetError(f"_sample_multinomial: Type inconsistent, Provided = "
                         f"{np.dtype(out.dtype).name}, inferred type = {np.dtype(dtype).name}")
    return invoke(op, [data], op.parse_attrs({"shape": _shape(shape), "get_prob": get_prob,
                                              "dtype": dtype, **kwargs}), out=out)


def shuffle(data, **kwargs):
    return invoke(registry.get("_shuffle"), [data], {})


def _install_like():
    """uniform_like, normal_like, ...: the _random_*_like registry ops (data's shape and dtype)."""
    from ..op_function import op_function
    mod = globals()
    for name, op in registry.all_ops().items():
        if name.startswith("_random_") and name.endswith("_like"):
            mod[name[len("_random_"):]] = op_function(op, name[len("_random_"):])


_install_like()
