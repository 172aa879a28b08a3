"""Reductions, arg-reductions, sorting.

MXNet (legacy shape semantics) never returns 0-d arrays: a full reduction has
shape (1,). ``exclude=True`` reduces every axis *except* the listed ones; an
empty ``axis=()`` means all axes. Integer means truncate. Index outputs of
argmax/argmin keep the input dtype (float32 indices for float32 data);
argsort/topk take ``dtype`` (default float32).
"""
import jax
import jax.numpy as jnp
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Dtype, Float, Int, IntOrShape, choice, optional
from .elemwise import mx_abs
from .registry import register


def reduce_axes(op, ndim, axis, exclude=False):
    """Normalised tuple of axes an MXNet reduction reduces."""
    if axis is None or axis == ():
        axes = tuple(range(ndim))
        return () if exclude and axis is not None else axes
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    norm = []
    for a in axes:
        if not -ndim <= a < max(ndim, 1):
            raise MXNetError(f"{op}: axis {a} is out of bounds for an array of {ndim} dimension(s)")
        norm.append(a % max(ndim, 1))
    if exclude:
        return tuple(i for i in range(ndim) if i not in norm)
    return tuple(sorted(set(norm)))


def at_least_1d(x):
    return x.reshape((1,)) if x.ndim == 0 else x


def _reduction(name, f):
    def op(data, *, axis: IntOrShape = None, keepdims: Bool = False, exclude: Bool = False):
        axes = reduce_axes(name, data.ndim, axis, exclude)
        return at_least_1d(f(data, axis=axes, keepdims=keepdims))
    op.__name__ = name
    return op


def _int_mean(x, axis, keepdims):
    if jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.mean(x, axis=axis, keepdims=keepdims).astype(x.dtype)
    n = 1
    for a in axis:
        n *= x.shape[a]
    return lax.div(jnp.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype), jnp.asarray(n, x.dtype))


def _keep_dtype(f):
    return lambda x, axis, keepdims: f(x, axis=axis, keepdims=keepdims).astype(x.dtype)


def _extreme(f):
    """max/min whose gradient goes in full to every tied element, as MXNet's does."""
    def red(x, axis, keepdims):
        @jax.custom_vjp
        def h(x):
            return f(x, axis=axis, keepdims=keepdims)

        def fwd(x):
            y = h(x)
            return y, (x, y)

        def bwd(res, g):
            x, y = res
            if not keepdims:
                y, g = jnp.expand_dims(y, axis), jnp.expand_dims(g, axis)
            return ((x == y) * g).astype(x.dtype),
        h.defvjp(fwd, bwd)
        return h(x)
    return red


REDUCTIONS = {
    ("sum", "sum_axis"): _keep_dtype(jnp.sum),
    ("mean",): _int_mean,
    ("prod",): _keep_dtype(jnp.prod),
    ("max", "max_axis"): _extreme(jnp.max),
    ("min", "min_axis"): _extreme(jnp.min),
    ("nansum",): _keep_dtype(jnp.nansum),
    ("nanprod",): _keep_dtype(jnp.nanprod),
}
for _names, _f in REDUCTIONS.items():
    register(*_names)(_reduction(_names[0], _f))


@register("norm")
def norm(data, *, ord: Int = 2, axis: IntOrShape = None, out_dtype: Dtype = None,
         keepdims: Bool = False):
    """L2 (ord=2) or L1 (ord=1) norm; over everything gives shape (1,)."""
    if ord not in (1, 2):
        raise MXNetError(f"norm: ord must be 1 or 2, got {ord}")
    axes = reduce_axes("norm", data.ndim, axis)
    x = mx_abs(data)  # gradient 0 at 0, as MXNet's
    r = jnp.sum(x, axis=axes, keepdims=keepdims) if ord == 1 else \
        jnp.sqrt(jnp.sum(x * x, axis=axes, keepdims=keepdims))
    return at_least_1d(r.astype(out_dtype or data.dtype))


def _arg(name, f):
    def op(data, *, axis: optional(Int) = None, keepdims: Bool = False):
        if axis is None:
            r = f(data.reshape(-1), axis=0)
            r = r.reshape((1,) * data.ndim) if keepdims else r.reshape((1,))
        else:
            reduce_axes(name, data.ndim, axis)
            r = f(data, axis=axis, keepdims=keepdims)
        return r.astype(data.dtype)
    op.__name__ = name
    return op


register("argmax")(_arg("argmax", jnp.argmax))
register("argmin")(_arg("argmin", jnp.argmin))


@register("argmax_channel")
def argmax_channel(data):
    return jnp.argmax(data, axis=-1).astype(data.dtype)


def _sorted_idx(data, axis, is_ascend):
    return jnp.argsort(data if is_ascend else -data, axis=axis, stable=True)


@register("sort")
def sort(data, *, axis: optional(Int) = -1, is_ascend: Bool = True):
    if axis is None:
        data, axis = data.reshape(-1), 0
    s = jnp.sort(data, axis=axis)
    return s if is_ascend else jnp.flip(s, axis=axis)


@register("argsort")
def argsort(data, *, axis: optional(Int) = -1, is_ascend: Bool = True, dtype: Dtype = "float32"):
    if axis is None:
        data, axis = data.reshape(-1), 0
    return _sorted_idx(data, axis, is_ascend).astype(dtype)


def _topk_visible(attrs):
    return 2 if attrs.get("ret_typ") == "both" else 1


@register("topk", num_outputs=_topk_visible)
def topk(data, *, axis: optional(Int) = -1, k: Int = 1,
         ret_typ: choice("value", "indices", "mask", "both") = "indices",
         is_ascend: Bool = False, dtype: Dtype = "float32"):
    """Top k along ``axis`` (descending unless is_ascend); indices in ``dtype`` (float32)."""
    if axis is None:
        data, axis = data.reshape(-1), 0
    axis = axis % data.ndim
    idx = lax.slice_in_dim(_sorted_idx(data, axis, is_ascend), 0, k, axis=axis)
    vals = jnp.take_along_axis(data, idx, axis=axis)
    if ret_typ == "value":
        return vals
    if ret_typ == "indices":
        return idx.astype(dtype)
    if ret_typ == "both":
        return vals, idx.astype(dtype)
    mask = jnp.zeros(data.shape, data.dtype)
    return jnp.put_along_axis(mask, idx, jnp.ones((), data.dtype), axis=axis, inplace=False)
