"""Normalisation layers: BatchNorm, LayerNorm, InstanceNorm, GroupNorm, L2Normalization, LRN
(OPERATORS.md §5).

BatchNorm and its moving statistics
-----------------------------------
The op is pure. It returns MXNet's three internal outputs ``(out, mean, invstd)``:
in training (``is_train`` and not ``use_global_stats``) the batch mean and the
batch *inverse std* ``1/sqrt(var + eps)`` (var biased); otherwise the moving mean
and ``1/sqrt(moving_var + eps)``. Only ``out`` is visible unless
``output_mean_var=True`` (then all three, the third being the inverse std even
though MXNet names it ``*_var``).

Whoever owns the moving statistics (the executor, autograd, Gluon) writes them
back with ``batchnorm_aux_update(attrs, inputs, outputs)`` — the registry's
``aux_update`` hook of BatchNorm, also reachable as ``registry.get("BatchNorm").fn.aux_update``
— which applies MXNet's rule::

    moving_mean = momentum * moving_mean + (1 - momentum) * batch_mean
    moving_var  = momentum * moving_var  + (1 - momentum) * batch_var   (biased)

MXNet applies it when the *backward* pass runs (a recorded forward alone leaves
the stats untouched; ``Executor.forward(is_train=True)`` + ``backward()`` updates
them), and recovers ``batch_var`` from the saved inverse std as
``1/invstd^2 - eps``; ``batchnorm_aux_update`` does the same.

MXNet also writes 1s into the ``gamma`` array itself when ``fix_gamma=True`` (on
every call, training or not); a pure op cannot, so that side effect is the
caller's to reproduce if it matters.
"""
import functools
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Float, Int, choice, optional
from .nn_common import fmt, param_shapes_from
from .registry import register

_fmt = fmt


def _param_dtype(data):
    return jnp.float32 if data.dtype == jnp.float16 else data.dtype


def _check_vec(op, name, v, n, data):
    if v is not None and tuple(v.shape) != (n,):
        raise MXNetError(f"{op}: {name} has shape {_fmt(v.shape)}, expected ({n},) for data "
                         f"{_fmt(data.shape)}")


def _bn_visible(attrs):
    return 3 if attrs.get("output_mean_var") else 1


def batchnorm_moving_update(moving_mean, moving_var, batch_mean, batch_var, momentum):
    """MXNet's rule: ``m = momentum*m + (1-momentum)*batch`` for the mean and the biased var."""
    m = jnp.asarray(momentum, moving_mean.dtype)
    one = jnp.asarray(1, moving_mean.dtype)
    return (m * moving_mean + (one - m) * batch_mean.astype(moving_mean.dtype),
            m * moving_var + (one - m) * batch_var.astype(moving_var.dtype))


def batchnorm_aux_update(attrs, inputs, outputs):
    """New ``(moving_mean, moving_var)`` after a training-mode BatchNorm call.

    ``attrs``: the parsed attributes (``is_train`` defaults to True: callers ask only when
    training); ``inputs``: the op's five inputs ``(data, gamma, beta, moving_mean,
    moving_var)`` or just the two aux values ``(moving_mean, moving_var)``; ``outputs``: its
    three internal outputs ``(out, mean, invstd)``. With ``use_global_stats`` (or
    ``is_train=False``) the stats come back unchanged. Pure (usable under jit).
    """
    moving_mean, moving_var = inputs[-2], inputs[-1]
    if not attrs.get("is_train", True) or attrs.get("use_global_stats"):
        return moving_mean, moving_var
    _, mean, invstd = outputs[:3]
    eps = attrs.get("eps", 1e-3)
    invstd = invstd.astype(moving_var.dtype)
    var = 1 / (invstd * invstd) - jnp.asarray(eps, moving_var.dtype)
    return batchnorm_moving_update(moving_mean, moving_var, mean, var, attrs.get("momentum", 0.9))


def _channel_shapes(names, axis_key=None, default_axis=1):
    def infer(attrs, data_shape):
        ax = attrs.get(axis_key, default_axis) if axis_key else default_axis
        return {n: (data_shape[ax % len(data_shape)],) for n in names}
    return infer


_BN_SHAPES = _channel_shapes(("gamma", "beta", "moving_mean", "moving_var"), "axis")
_LN_SHAPES = _channel_shapes(("gamma", "beta"), "axis", -1)
_IN_SHAPES = _channel_shapes(("gamma", "beta"))


def _gn_shapes(attrs, data_shape):
    return {n: (attrs.get("num_groups", 1),) for n in ("gamma", "beta")}


_GB = ("data", "gamma", "beta")


@register("BatchNorm", "BatchNorm_v1", num_visible=_bn_visible,
          aux=("moving_mean", "moving_var"), num_outputs=3,
          output_names=("output", "mean", "var"), aux_update=batchnorm_aux_update,
          param_shapes=param_shapes_from(_BN_SHAPES, _GB + ("moving_mean", "moving_var")),
          input_init={"moving_mean": '["zero", {}]', "moving_var": '["one", {}]'})
def batch_norm(data, gamma, beta, moving_mean, moving_var, *, eps: Float = 1e-3,
               momentum: Float = 0.9, fix_gamma: Bool = True, use_global_stats: Bool = False,
               output_mean_var: Bool = False, axis: Int = 1, cudnn_off: Bool = False,
               min_calib_range: optional(Float) = None, max_calib_range: optional(Float) = None,
               is_train=False):
    """Normalises over every axis but ``axis``; returns (out, mean, invstd) (see module doc).

    Gradients follow MXNet's (training-mode) backward: batch statistics in training; with
    ``use_global_stats`` a plain scale; in inference mode see ``_bn_predict``. gamma's
    gradient is 0 with ``fix_gamma``; the moving statistics get none."""
    op = "BatchNorm"
    if data.ndim < 1:
        raise MXNetError(f"{op}: data must have at least 1 dimension")
    if not -data.ndim <= axis < data.ndim:
        raise MXNetError(f"{op}: axis {axis} is out of range for data {_fmt(data.shape)}")
    ax = axis % data.ndim
    c = data.shape[ax]
    for name, v in (("gamma", gamma), ("beta", beta), ("moving_mean", moving_mean),
                    ("moving_var", moving_var)):
        _check_vec(op, name, v, c, data)
    pdt = _param_dtype(data)
    red = tuple(i for i in range(data.ndim) if i != ax)
    bshape = tuple(c if i == ax else 1 for i in range(data.ndim))
    x = data.astype(pdt)
    g = jnp.ones((c,), pdt) if fix_gamma else gamma.astype(pdt)
    b = beta.astype(pdt)
    if is_train and not use_global_stats:
        out, mean, invstd = _bn_train(x, g, b, eps, red, bshape, fix_gamma)
        return out.astype(data.dtype), mean, invstd
    mean = lax.stop_gradient(moving_mean.astype(pdt))
    invstd = lax.rsqrt(lax.stop_gradient(moving_var.astype(pdt)) + jnp.asarray(eps, pdt))
    if use_global_stats:
        out = (x - mean.reshape(bshape)) * (g * invstd).reshape(bshape) + b.reshape(bshape)
    else:
        out = _bn_predict(x, g, b, mean, invstd, red, bshape, fix_gamma)
    return out.astype(data.dtype), mean, invstd


def _bn_train(x, g, b, eps, red, bshape, fix_gamma):
    """Training-mode BatchNorm on batch statistics, with MXNet's backward: only the output's
    gradient is read (the mean and inverse std that ``output_mean_var`` shows pass none
    back), and the data gradient is MXNet's formula (``_bn_backward``).  The forward saves
    ``x - mean`` and the inverse std for it, where differentiating the forward saved two
    activation-sized arrays per layer and a longer backward.  (Its functions close over
    Python values only: a traced value of the caller's would leak from a staged trace.)"""
    stats = _bn_stats(eps, tuple(red), tuple(bshape))

    @jax.custom_vjp
    def f(x, g, b):
        return stats(x, g, b)[0]

    def fwd(x, g, b):
        outs, centered = stats(x, g, b)
        return outs, (centered, g, outs[2])

    def bwd(res, cts):
        centered, g, invstd = res
        return _bn_backward(cts[0], centered, g, invstd, red, bshape, fix_gamma)

    f.defvjp(fwd, bwd)
    return f(x, g, b)


@functools.lru_cache(maxsize=256)
def _bn_stats(eps, red, bshape):
    """The training forward ``(out, mean, invstd), x - mean`` as a jitted function: both the
    custom_vjp's primal and its forward rule call it, and JAX traces it once per shape."""
    def stats(x, g, b):
        mean = jnp.mean(x, axis=red)
        centered = x - mean.reshape(bshape)
        invstd = lax.rsqrt(jnp.mean(jnp.square(centered), axis=red) + jnp.asarray(eps, x.dtype))
        out = centered * (g * invstd).reshape(bshape) + b.reshape(bshape)
        return (out, mean, invstd), centered
    return jax.jit(stats)


def _bn_backward(dy, centered, g, invstd, red, bshape, fix_gamma):
    """MXNet's training-mode BatchNorm backward from ``centered = x - mean``:
    ``dx = g*invstd*(dy - mean(dy) - centered*invstd^2*mean(dy*centered))``, gamma's gradient
    ``invstd*sum(dy*centered)`` (0 with ``fix_gamma``) and beta's ``sum(dy)``."""
    n = 1
    for a in red:
        n *= dy.shape[a]
    sum_dy = jnp.sum(dy, axis=red)
    sum_dyc = jnp.sum(dy * centered, axis=red)
    k = (invstd * invstd * sum_dyc / n).reshape(bshape)
    dx = (g * invstd).reshape(bshape) * (dy - (sum_dy / n).reshape(bshape) - centered * k)
    dg = jnp.zeros_like(g) if fix_gamma else sum_dyc * invstd
    return dx, dg, sum_dy


def _bn_predict(x, g, b, mean, invstd, red, bshape, fix_gamma):
    """Inference-mode BatchNorm with MXNet's gradient: its backward runs in training mode
    (``backward(train_mode=True)`` is the default), so the data gradient is the batch-norm
    formula (``_bn_backward``) evaluated with the moving stats."""
    @jax.custom_vjp
    def f(x, g, b, mean, invstd):
        xhat = (x - mean.reshape(bshape)) * invstd.reshape(bshape)
        return xhat * g.reshape(bshape) + b.reshape(bshape)

    def fwd(x, g, b, mean, invstd):
        return f(x, g, b, mean, invstd), (x, g, mean, invstd)

    def bwd(res, dy):
        x, g, mean, invstd = res
        grads = _bn_backward(dy, x - mean.reshape(bshape), g, invstd, red, bshape, fix_gamma)
        return grads + (jnp.zeros_like(mean), jnp.zeros_like(invstd))

    f.defvjp(fwd, bwd)
    return f(x, g, b, mean, invstd)


batch_norm.aux_update = batchnorm_aux_update


batch_norm.infer_shapes = _BN_SHAPES


def _stats(x, axes):
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
    return mean, var


def _ln_visible(attrs):
    return 3 if attrs.get("output_mean_var") else 1


@register("LayerNorm", num_visible=_ln_visible, num_outputs=3,
          output_names=("output", "mean", "std"),
          param_shapes=param_shapes_from(_LN_SHAPES, _GB))
def layer_norm(data, gamma, beta, *, axis: Int = -1, eps: Float = 1e-5,
               output_mean_var: Bool = False):
    """Normalises along ``axis``; returns (out, mean, std) with the axis kept as size 1."""
    ax = axis + data.ndim if axis < 0 else axis
    if not 0 <= ax < data.ndim:
        raise MXNetError(f"LayerNorm: Channel axis out of range: axis={axis}")
    c = data.shape[ax]
    _check_vec("LayerNorm", "gamma", gamma, c, data)
    _check_vec("LayerNorm", "beta", beta, c, data)
    mean, var = _stats(data, (ax,))
    std = jnp.sqrt(var + jnp.asarray(eps, data.dtype))
    bshape = tuple(c if i == ax else 1 for i in range(data.ndim))
    out = (data - mean) / std * gamma.reshape(bshape) + beta.reshape(bshape)
    return out.astype(data.dtype), mean, std


layer_norm.infer_shapes = _LN_SHAPES


@register("InstanceNorm", num_visible=1, num_outputs=3, output_names=("output", "mean", "var"),
          param_shapes=param_shapes_from(_IN_SHAPES, _GB))
def instance_norm(data, gamma, beta, *, eps: Float = 1e-3):
    """Per (sample, channel) normalisation over the spatial axes (biased variance)."""
    if data.ndim < 3:
        raise MXNetError(f"InstanceNorm: data must be at least 3-D (N, C, spatial...), got "
                         f"{_fmt(data.shape)}")
    c = data.shape[1]
    _check_vec("InstanceNorm", "gamma", gamma, c, data)
    _check_vec("InstanceNorm", "beta", beta, c, data)
    mean, var = _stats(data, tuple(range(2, data.ndim)))
    bshape = (1, c) + (1,) * (data.ndim - 2)
    out = (data - mean) * lax.rsqrt(var + jnp.asarray(eps, data.dtype))
    return (out * gamma.reshape(bshape) + beta.reshape(bshape)).astype(data.dtype)


instance_norm.infer_shapes = _IN_SHAPES


def _gn_visible(attrs):
    return 3 if attrs.get("output_mean_var") else 1


@register("GroupNorm", num_visible=_gn_visible, num_outputs=3,
          output_names=("output", "mean", "std"),
          param_shapes=param_shapes_from(_gn_shapes, _GB))
def group_norm(data, gamma, beta, *, num_groups: Int = 1, eps: Float = 1e-5,
               output_mean_var: Bool = False):
    """Normalises each of ``num_groups`` channel groups of every sample. As in MXNet 1.9.1,
    gamma and beta have one value per *group* (shape ``(num_groups,)``). Returns
    (out, mean, std), the statistics shaped (N, num_groups)."""
    op = "GroupNorm"
    if data.ndim < 2 or data.shape[1] % num_groups:
        raise MXNetError(f"{op}: channels of data {_fmt(data.shape)} must be divisible by "
                         f"num_groups={num_groups}")
    _check_vec(op, "gamma", gamma, num_groups, data)
    _check_vec(op, "beta", beta, num_groups, data)
    n = data.shape[0]
    x = data.reshape((n, num_groups, -1))
    mean, var = _stats(x, (2,))
    std = jnp.sqrt(var + jnp.asarray(eps, data.dtype))
    out = (x - mean) / std * gamma.reshape((1, -1, 1)) + beta.reshape((1, -1, 1))
    return out.reshape(data.shape).astype(data.dtype), mean[..., 0], std[..., 0]


group_norm.infer_shapes = _gn_shapes


@register("L2Normalization", num_visible=1, num_outputs=2, output_names=("output", "norm"))
def l2_normalization(data, *, eps: Float = 1e-10,
                     mode: choice("channel", "instance", "spatial") = "instance"):
    """x / sqrt(sum(x^2) + eps) over all axes but 0 (instance), axis 1 (channel) or the
    spatial axes 2.. (spatial)."""
    if mode == "instance":
        axes = tuple(range(1, data.ndim))
    elif mode == "channel":
        axes = (1,)
    else:
        axes = tuple(range(2, data.ndim))
    # instance mode of 1-D data normalises each element by itself (MXNet 1.9.1: [3, -4, 0]
    # gives [1, -1, 0])
    if data.ndim < {"spatial": 3, "channel": 2, "instance": 1}[mode]:
        raise MXNetError(f"L2Normalization: data {_fmt(data.shape)} has too few dimensions for "
                         f"mode={mode!r}")
    norm = jnp.sqrt(jnp.sum(jnp.square(data), axis=axes, keepdims=True)
                    + jnp.asarray(eps, data.dtype))
    return (data / norm).astype(data.dtype)


@register("LRN", num_visible=1, num_outputs=2, output_names=("output", "tmp_norm"))
def lrn(data, *, alpha: Float = 1e-4, beta: Float = 0.75, knorm: Float = 2.0, nsize: Int):
    """Local response normalisation across channels:
    x / (knorm + alpha/nsize * sum of x^2 over the nsize channels centred on c)^beta; the
    hidden second output (MXNet's tmp_norm) is that denominator before the power."""
    if data.ndim != 4:
        raise MXNetError(f"LRN: data must be 4-D (N, C, H, W), got {_fmt(data.shape)}")
    # nsize=0 (MXNet's oneDNN LRN, the pip wheel's): the window is the channel itself and
    # the factor alpha/0 (inf, or NaN for alpha=0): 0 where x != 0, NaN where x == 0
    win = max(nsize, 1)
    half = win // 2
    sq = jnp.square(data)
    s = lax.reduce_window(sq, 0, lax.add, (1, win, 1, 1), (1, 1, 1, 1),
                          ((0, 0), (half, win - 1 - half), (0, 0), (0, 0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.float64(alpha) / np.float64(nsize)
    scale = jnp.asarray(knorm, data.dtype) + jnp.asarray(factor, data.dtype) * s
    out = (data * scale ** jnp.asarray(-beta, data.dtype)).astype(data.dtype)
    return out, scale.astype(data.dtype)
