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
from . import stdsort


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


def _extreme(f, name):
    """max/min whose gradient goes in full to every tied element, as MXNet's does. An empty
    input raises, whatever the axis (MXNet's check: sum/mean/prod/argmax of it return)."""
    def red(x, axis, keepdims):
        if x.size == 0:
            raise MXNetError(f"{name}: Check failed: (*in_attrs)[0].Size() > 0U (0 vs. 0) : "
                             f"Reduction input's size should > 0 [{','.join(map(str, x.shape))}]")
        @jax.custom_vjp
        def h(x):
            r = f(x, axis=axis, keepdims=keepdims)
            if jnp.issubdtype(x.dtype, jnp.floating):  # XLA:CPU's vectorised full reduction
                nan = jnp.any(jnp.isnan(x), axis=axis, keepdims=keepdims)  # can drop a NaN
                r = jnp.where(nan, jnp.asarray(jnp.nan, r.dtype), r)
            return r

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
    ("max", "max_axis"): _extreme(jnp.max, "max"),
    ("min", "min_axis"): _extreme(jnp.min, "min"),
    ("nansum",): _keep_dtype(jnp.nansum),
    ("nanprod",): _keep_dtype(jnp.nanprod),
}
for _names, _f in REDUCTIONS.items():
    register(*_names)(_reduction(_names[0], _f))


@register("_square_sum")
def square_sum(data, *, axis: IntOrShape = None, keepdims: Bool = False,
               exclude: Bool = False):
    """MXNet's ``_square_sum``: ``sum(data * data, axis, keepdims)`` fused, an op MXNet only
    implements for a 2-D row_sparse matrix and one axis, 0 or 1 (a factorization machine's
    ``sum(v**2, axis=1)`` without a dense ``v**2``). xnd has no sparse storage and computes
    on the dense array, which holds the same values; its gradient is ``2 * data * head``, the
    dense form of MXNet's row_sparse one. MXNet's limits are kept: a dense array there has
    no kernel at all, and neither another axis (not even -1), ``exclude`` nor a missing axis
    has a storage type."""
    axes = (axis,) if isinstance(axis, int) else tuple(axis) if axis is not None else ()
    if len(axes) != 1 or axes[0] not in (0, 1) or exclude:
        raise MXNetError("Operator not implemented: operator = _square_sum: "
                         "_square_sum(row_sparse_matrix) only supports axis=0 or 1 "
                         f"(got axis={axis}, exclude={exclude})")
    if data.ndim != 2:
        raise MXNetError(f"Check failed: inputs[0].shape().ndim() == 2U ({data.ndim} vs. 2) : "
                         "_square_sum op only supports 2D ndarray as input")
    return jnp.sum(data * data, axis=axes[0], keepdims=keepdims).astype(data.dtype)


@register("norm")
def norm(data, *, ord: Int = 2, axis: IntOrShape = None, out_dtype: Dtype = None,
         keepdims: Bool = False):
    """L2 (ord=2) or L1 (ord=1) norm; over everything gives shape (1,)."""
    if ord not in (1, 2):
        raise MXNetError(f"norm: ord must be 1 or 2, got {ord}")
    axes = reduce_axes("norm", data.ndim, axis)
    x = mx_abs(data)  # gradient 0 at 0, as MXNet's
    if ord == 1:
        r = jnp.sum(x, axis=axes, keepdims=keepdims)
    else:
        r = _scaled_l2(x, axes, keepdims)
    return at_least_1d(r.astype(out_dtype or data.dtype))


def _scaled_l2(x, axes, keepdims):
    """sqrt(sum x^2) scaled by max|x| first, as MXNet's nrm2 reducer: norm([1e20, 1e20]) is
    1.414e20 in float32, not inf, and norm([1e-30, 1e-30]) is not 0. The scale carries no
    gradient (the norm is homogeneous), so d norm / dx stays x / norm."""
    m = lax.stop_gradient(jnp.max(x, axis=axes, keepdims=True))
    bad = (m == 0) | jnp.isinf(m)
    safe = jnp.where(bad, jnp.ones((), x.dtype), m)
    y = x / safe
    r = safe * jnp.sqrt(jnp.sum(y * y, axis=axes, keepdims=True))
    r = jnp.where(jnp.isinf(m), m, r)
    return r if keepdims else jnp.squeeze(r, axes)


def _arg(name, f):
    def op(data, *, axis: optional(Int) = None, keepdims: Bool = False):
        if axis is None:
            r = f(data.reshape(-1), axis=0)
            r = r.reshape((1,) * data.ndim) if keepdims else r.reshape((1,))
        else:
            reduce_axes(name, data.ndim, axis)
            r = at_least_1d(f(data, axis=axis, keepdims=keepdims))  # 1-D, axis=0: (1,) in MXNet
        return r.astype(data.dtype)
    op.__name__ = name
    return op


register("argmax")(_arg("argmax", jnp.argmax))
register("argmin")(_arg("argmin", jnp.argmin))


@register("argmax_channel")
def argmax_channel(data):
    return jnp.argmax(data, axis=-1).astype(data.dtype)


@register("sort")
def sort(data, *, axis: optional(Int) = -1, is_ascend: Bool = True):
    """MXNet's CPU order (``stdsort``): equal values and NaN stay where its introsort puts
    them."""
    if axis is None:
        data, axis = data.reshape(-1), 0
    n = data.shape[axis]
    return jnp.take_along_axis(data, stdsort.order(data, axis, is_ascend, n), axis=axis)


@register("argsort")
def argsort(data, *, axis: optional(Int) = -1, is_ascend: Bool = True, dtype: Dtype = "float32"):
    """Indices in MXNet's CPU order (``stdsort``), as ``dtype``."""
    if axis is None:
        data, axis = data.reshape(-1), 0
    return stdsort.order(data, axis, is_ascend, data.shape[axis]).astype(dtype)


def _topk_visible(attrs):
    return 2 if attrs.get("ret_typ") == "both" else 1


@register("topk", num_outputs=_topk_visible)
def topk(data, *, axis: optional(Int) = -1, k: Int = 1,
         ret_typ: choice("value", "indices", "mask", "both") = "indices",
         is_ascend: Bool = False, dtype: Dtype = "float32"):
    """Top k along ``axis`` (descending unless is_ascend); indices in ``dtype`` (float32).
    With ``axis=None`` over the flattened data; the mask then has the data's shape."""
    shape = data.shape
    if axis is None:
        data, axis = data.reshape(-1), 0
    if not -data.ndim <= axis < data.ndim:
        raise MXNetError(f"topk: Invalid axis! axis should be between 0 and {data.ndim}, "
                         f"found axis={axis}")
    axis = axis % data.ndim
    n = data.shape[axis]
    k = n if k <= 0 else k
    if k > n:
        raise MXNetError(f"topk: k must be smaller than {n}, get k = {k}")
    idx = stdsort.order(data, axis, is_ascend, k)   # std::sort, or partial_sort if k*8 <= n
    vals = jnp.take_along_axis(data, idx, axis=axis)
    if ret_typ == "value":
        return vals
    if ret_typ == "indices":
        return idx.astype(dtype)
    if ret_typ == "both":
        return vals, idx.astype(dtype)
    # 1 where an index was picked (jnp.put_along_axis, but that needs jax >= 0.4.31)
    picked = jnp.moveaxis(idx, axis, -1)[..., :, None] == jnp.arange(data.shape[axis],
                                                                      dtype=idx.dtype)
    return jnp.moveaxis(jnp.any(picked, axis=-2).astype(data.dtype), -1, axis).reshape(shape)
