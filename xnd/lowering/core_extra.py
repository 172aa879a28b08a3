"""Core operators outside the big families: moments, hard_sigmoid, SVMOutput,
ravel_multi_index / unravel_index.

MXNet 1.9.1 behaviour matched:
- ``moments(data, axes, keepdims)`` returns (mean, population variance); ``axes`` must be
  given (MXNet refuses empty axes).
- ``hard_sigmoid = clip(alpha * x + beta, 0, 1)``, gradient alpha inside (0, 1), else 0.
- ``SVMOutput`` is the identity forward; a loss head whose backward ignores the head gradient:
  L2-SVM (default) ``2 c (margin + x_k)`` for k != label where ``margin > -x_k``, and
  ``-2 c (margin - x_label)`` where ``margin > x_label``; L1 (``use_linear``) ``c`` / ``-c``
  under the same conditions (c = regularization_coefficient).
- ``ravel_multi_index(data (ndim, n), shape)`` is ``sum_i data[i] * stride_i`` with the strides
  of ``shape`` (no bounds check, -1 in shape computed as is); ``unravel_index`` the inverse;
  both in the input's dtype; ``unravel_index`` leaves the leading coordinate unwrapped.
- ``_histogram(data, bins=None, bin_cnt=, range=)``: (counts int64, bin edges in data's dtype).
  Uniform bins: edges ``dtype((hi*i + (cnt-i)*lo) / cnt)``; a value in [lo, hi] goes to bin
  ``min(cnt-1, int((x-lo)*cnt/(hi-lo)))``, moved one down or up to agree with those (cast)
  edges. Given edges: the last edge not above x, the right end inclusive. Others not counted.
"""
import jax.numpy as jnp
import numpy as np

from ..base import MXNetError
from .attrs import Bool, Float, Int, IntOrShape, Shape, _literal, optional
from .loss import _head_ignoring, _int_label
from .nn_common import param_shapes_from
from .registry import register


@register("moments", num_outputs=2, output_names=("mean", "var"))
def moments(data, *, axes: IntOrShape = None, keepdims: Bool = False):
    if axes is None or axes == ():
        raise MXNetError("moments: Empty axes is not supported, if you would like to do global "
                         "moments, please pass all axes to axes argument")
    ax = (axes,) if isinstance(axes, int) else tuple(axes)
    mean = jnp.mean(data, axis=ax, keepdims=True)
    var = jnp.mean(jnp.square(data - mean), axis=ax, keepdims=keepdims)
    mean = mean if keepdims else jnp.squeeze(mean, ax)
    return tuple((r.reshape((1,)) if r.ndim == 0 else r).astype(data.dtype) for r in (mean, var))


@register("hard_sigmoid")
def hard_sigmoid(data, *, alpha: Float = 0.2, beta: Float = 0.5):
    return jnp.clip(alpha * data + beta, 0, 1).astype(data.dtype)


def _svm(margin, reg, linear):
    def grad(data, label, out):
        lab = _int_label(label)
        onehot = jnp.arange(data.shape[1])[None, :] == lab[:, None]
        if linear:
            other = jnp.where(margin > -data, reg, 0.0)
            own = jnp.where(margin > data, -reg, 0.0)
        else:
            other = jnp.where(margin > -data, 2 * reg * (margin + data), 0.0)
            own = jnp.where(margin > data, -2 * reg * (margin - data), 0.0)
        return jnp.where(onehot, own, other)
    return _head_ignoring(lambda d, lab: d, grad)


def _svm_shapes(attrs, data_shape):
    return {"label": (data_shape[0],)}


@register("SVMOutput", loss=True, param_shapes=param_shapes_from(_svm_shapes, ("data", "label")))
def svm_output(data, label, *, margin: Float = 1.0, regularization_coefficient: Float = 1.0,
               use_linear: Bool = False):
    if data.ndim != 2 or label.shape != data.shape[:1]:
        raise MXNetError(f"SVMOutput: data must be (batch, classes) and label (batch,), got "
                         f"data {data.shape} and label {label.shape}")
    return _svm(margin, regularization_coefficient, use_linear)(data, label)


def _strides(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return strides[::-1]


@register("ravel_multi_index", "_ravel_multi_index")
def ravel_multi_index(data, *, shape: optional(Shape) = None):
    if shape is None or data.shape[0] != len(shape):
        raise MXNetError(f"ravel_multi_index: data's first dimension ({data.shape[0]}) must be "
                         f"the length of shape {shape}")
    st = jnp.asarray(_strides(shape), data.dtype).reshape((-1,) + (1,) * (data.ndim - 1))
    return jnp.sum(data * st, axis=0).astype(data.dtype)


@register("unravel_index", "_unravel_index")
def unravel_index(data, *, shape: optional(Shape) = None):
    if shape is None:
        raise MXNetError("unravel_index: shape is required")
    idx = data.astype(jnp.int64)
    # the leading coordinate is not wrapped (MXNet: 49 in shape (3, 7) -> (7, 0)), so a
    # leading -1 ("any length") works too
    out = [idx // _strides(shape)[0]]
    for st, d in list(zip(_strides(shape), shape))[1:]:
        out.append((idx // st) % d)
    return jnp.stack(out).astype(data.dtype)


def _pair(v):
    """``range=(lo, hi)``: two floats, lo <= hi."""
    v = _literal(v)
    lo, hi = (float(e) for e in v)
    if lo > hi:
        raise ValueError(f"range {v} must have its first element <= its second")
    return lo, hi


def _cast_edges(e, dtype):
    return (jnp.trunc(e) if jnp.issubdtype(dtype, jnp.integer) else e).astype(dtype)


@register("_histogram", "_npi_histogram", num_outputs=2)
def histogram(data, bins=None, *, bin_cnt: optional(Int) = None, range: optional(_pair) = None):
    x = data.reshape(-1)
    if bins is not None:
        edges = bins.astype(data.dtype)
        n = edges.shape[0] - 1
        t = jnp.minimum(jnp.sum(x[:, None] >= edges[None, :], axis=1) - 1, n - 1)
        ok = (x >= edges[0]) & (x <= edges[-1])
    else:
        if bin_cnt is None or range is None:
            raise MXNetError("_histogram: give either the bins input or both bin_cnt and range")
        lo, hi, n = range[0], range[1], bin_cnt
        i = np.arange(n + 1, dtype=np.float64)      # static: numpy's exact division, not
        edges = _cast_edges(jnp.asarray((hi * i + (n - i) * lo) / n), data.dtype)  # XLA's
        xf = x.astype(jnp.float64)
        ok = (xf >= lo) & (xf <= hi)
        t = jnp.minimum(n - 1, jnp.trunc((xf - lo) * n / (hi - lo)).astype(jnp.int32))
        t = jnp.clip(t, 0, n - 1)
        t = t - (x < edges[t])
        up = (x >= edges[jnp.clip(t + 1, 0, n)]) & (t != n - 1)
        t = t + up
        ok = ok & (t >= 0)
    counts = jnp.zeros((n,), jnp.int64).at[jnp.where(ok, t, n)].add(1, mode="drop")
    return counts, edges
