"""Loss-layer operators with MXNet's own gradients (OPERATORS.md §6).

SoftmaxOutput, the *RegressionOutput ops, MakeLoss and make_loss **ignore the
head gradient**: their backward uses only data, label and attributes, so each
is a ``jax.custom_vjp`` whose bwd never reads its cotangent. Labels get a zero
gradient. BlockGrad is ``stop_gradient``; softmax_cross_entropy is an ordinary
differentiable op (sum over the batch, shape (1,)).
"""
import jax
import jax.numpy as jnp
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Float, choice
from .nn_common import fmt, param_shapes_from
from .registry import register

Normalization = choice("batch", "null", "valid")

_fmt = fmt


def _head_ignoring(forward, grad):
    """f(data, label) whose vjp is ``grad(data, label, out)``, whatever the head gradient."""
    @jax.custom_vjp
    def f(data, label):
        return forward(data, label)

    def fwd(data, label):
        out = forward(data, label)
        return out, (data, label, out)

    def bwd(res, _head):
        data, label, out = res
        return grad(data, label, out).astype(data.dtype), None

    f.defvjp(fwd, bwd)
    return f


def _int_label(label):
    return label.astype(jnp.int64)  # float labels truncate toward zero, as MXNet's cast


def _so_shapes(attrs, data_shape):
    """The label shape MXNet infers for SoftmaxOutput (symbol ``infer_shape``)."""
    if attrs.get("multi_output") and not attrs.get("preserve_shape"):  # (N, prod(spatial))
        return {"label": (data_shape[0], _size(data_shape[2:]))}
    return {"label": tuple(data_shape[:-1])}


def _label_like_data(attrs, data_shape):
    return {"label": tuple(data_shape)}


_LABEL = ("data", "label")


@register("SoftmaxOutput", "Softmax", loss=True, param_shapes=param_shapes_from(_so_shapes, _LABEL))
def softmax_output(data, label, *, grad_scale: Float = 1.0, ignore_label: Float = -1.0,
                   multi_output: Bool = False, use_ignore: Bool = False,
                   preserve_shape: Bool = False, normalization: Normalization = "null",
                   out_grad: Bool = False, smooth_alpha: Float = 0.0):
    """Softmax forward (axis 1; the last axis with preserve_shape; data flattened to
    (N, -1) otherwise). Backward: grad_scale * (p - onehot(label)) / norm, ignoring the head
    gradient; see OPERATORS.md §6 for ignore_label and multi_output. Normalisation:
    'null' divides by nothing (multi_output: by the spatial size), 'batch' by label.size,
    'valid' by the number of labels != ignore_label (at least 1)."""
    op = "SoftmaxOutput"
    shape = data.shape
    if data.ndim < 1:
        raise MXNetError(f"{op}: data must be at least 1-D")
    soft = label.shape == shape  # a probability distribution per row
    flat = False
    if preserve_shape:
        axis, spatial, lshape = data.ndim - 1, 1, shape[:-1]
    elif multi_output:
        if data.ndim < 2:
            raise MXNetError(f"{op}: multi_output needs data (N, C, ...), got {_fmt(shape)}")
        axis, spatial, lshape = 1, _size(shape[2:]), (shape[0],) + shape[2:]
    else:
        # 2-D (N, C); higher ranks are flattened to (N, -1), MXNet wants a label shaped
        # data.shape[:-1] and reads its first N entries
        axis, spatial, lshape = 1, 1, shape[:-1]
        flat = data.ndim > 2
    if not soft and label.size != _size(lshape):
        raise MXNetError(f"{op}: shape inconsistent: label has shape {_fmt(label.shape)}, "
                         f"expected {_fmt(lshape)} for data {_fmt(shape)} "
                         f"(multi_output={multi_output}, preserve_shape={preserve_shape})")
    n = shape[0]
    c = (data.size // n if n else 0) if flat else shape[axis]

    def to_comp(x):
        return x.reshape((n, -1)) if flat else x

    def forward(d, l):
        return jax.nn.softmax(to_comp(d), axis=axis).reshape(shape).astype(d.dtype)

    def grad(d, l, out):
        p = to_comp(out)
        if soft:
            target = to_comp(l).astype(p.dtype)
            keep = None
            valid = jnp.asarray(n, p.dtype)
            count = n
        else:
            li = _int_label(l).reshape(-1)[:n] if flat else _int_label(l).reshape(lshape)
            hit = jnp.expand_dims(li, axis) == jnp.arange(c).reshape(
                (-1,) + (1,) * (p.ndim - 1 - axis))
            if smooth_alpha:
                target = jnp.where(hit, 1.0 - smooth_alpha, smooth_alpha / (c - 1)).astype(p.dtype)
                inrange = ((li >= 0) & (li < c))
                target = jnp.where(jnp.expand_dims(inrange, axis), target, 0).astype(p.dtype)
            else:
                target = hit.astype(p.dtype)
            ign = li == int(ignore_label)
            keep = jnp.expand_dims(~ign, axis) if use_ignore else None
            valid = jnp.maximum(jnp.sum(~ign), 1).astype(p.dtype)
            count = label.size
        g = p - target
        if out_grad:
            g = g * p
        if keep is not None:
            g = jnp.where(keep, g, jnp.zeros((), g.dtype))
        if normalization == "valid":
            g = g / valid
        elif normalization == "batch":
            g = g / count
        elif multi_output and not preserve_shape:
            g = g / spatial
        return (g * grad_scale).reshape(shape)

    return _head_ignoring(forward, grad)(data, label)


softmax_output.infer_shapes = _so_shapes


def _size(shape):
    s = 1
    for d in shape:
        s *= d
    return s


def _regression(name, fwd_fn, grad_fn):
    def op(data, label, *, grad_scale: Float = 1.0):
        if label.size != data.size:
            raise MXNetError(f"{name}: label shape {_fmt(label.shape)} does not match data "
                             f"{_fmt(data.shape)}")
        num_output = data.size // data.shape[0] if data.ndim and data.shape[0] else 1

        def forward(d, l):
            return fwd_fn(d).astype(d.dtype)

        def grad(d, l, out):
            diff = out - l.reshape(out.shape).astype(out.dtype)
            return grad_fn(diff) * (grad_scale / num_output)

        return _head_ignoring(forward, grad)(data, label)
    op.infer_shapes = _label_like_data
    op.__name__ = name
    op.__doc__ = (f"{name}: forward as documented, backward "
                  f"grad_scale * f(out - label) / (label.size / N), ignoring the head gradient.")
    return op


_REG = dict(loss=True, param_shapes=param_shapes_from(_label_like_data, _LABEL))
register("LinearRegressionOutput", **_REG)(
    _regression("LinearRegressionOutput", lambda x: x, lambda e: e))
register("LogisticRegressionOutput", **_REG)(
    _regression("LogisticRegressionOutput", jax.nn.sigmoid, lambda e: e))
register("MAERegressionOutput", **_REG)(_regression("MAERegressionOutput", lambda x: x, jnp.sign))


def _ones_grad(data, scale):
    @jax.custom_vjp
    def f(d):
        return d

    def fwd(d):
        return d, d

    def bwd(d, _head):
        return (scale(d).astype(d.dtype),)

    f.defvjp(fwd, bwd)
    return f(data)


@register("MakeLoss", loss=True)
def make_loss_op(data, *, grad_scale: Float = 1.0, valid_thresh: Float = 0.0,
                 normalization: Normalization = "null"):
    """Identity forward; backward grad_scale (/ N for 'batch', / the number of elements
    > valid_thresh for 'valid'), ignoring the head gradient."""
    def scale(d):
        g = jnp.full(d.shape, grad_scale, d.dtype)
        if normalization == "batch":
            return g / (d.shape[0] if d.ndim else 1)
        if normalization == "valid":
            cnt = jnp.maximum(jnp.sum(d > valid_thresh), 1).astype(d.dtype)
            return g / cnt
        return g
    return _ones_grad(data, scale)


@register("make_loss", loss=True, output_names=("loss",))
def make_loss(data):
    """Identity forward; gradient 1 everywhere, ignoring the head gradient."""
    return _ones_grad(data, jnp.ones_like)


@register("BlockGrad", "stop_gradient")
def block_grad(data):
    """Identity with no gradient."""
    return lax.stop_gradient(data)


def _sce_shapes(attrs, data_shape):
    return {"label": tuple(data_shape[:1])}


@register("softmax_cross_entropy", param_shapes=param_shapes_from(_sce_shapes, _LABEL))
def softmax_cross_entropy(data, label):
    """sum_i -log softmax(data_i)[label_i], shape (1,)."""
    if data.ndim != 2 or label.shape != (data.shape[0],):
        raise MXNetError(f"softmax_cross_entropy: data must be (N, C) and label (N,), got "
                         f"{_fmt(data.shape)} and {_fmt(label.shape)}")
    li = jnp.clip(_int_label(label), 0, data.shape[1] - 1)
    logp = jnp.take_along_axis(jax.nn.log_softmax(data, axis=1), li[:, None], axis=1)
    # MXNet takes -log(max(p, 1e-8)): a sample costs at most 18.42 (-log 1e-8), so
    # [[1000, 0]] with label 1 is 18.42, not 1000; the gradient stays softmax - one_hot
    capped = jnp.maximum(lax.stop_gradient(logp), jnp.log(jnp.asarray(1e-8, logp.dtype)))
    logp = capped + (logp - lax.stop_gradient(logp))
    return (-jnp.sum(logp)).reshape((1,)).astype(data.dtype)
