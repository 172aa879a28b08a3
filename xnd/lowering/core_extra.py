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
  both in the input's dtype.
"""
import jax.numpy as jnp

from ..base import MXNetError
from .attrs import Bool, Float, IntOrShape, Shape, optional
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
    out = []
    for st, d in zip(_strides(shape), shape):
        out.append((idx // st) % d)
    return jnp.stack(out).astype(data.dtype)
