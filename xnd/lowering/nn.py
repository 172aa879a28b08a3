"""Layer operators: FullyConnected, activations, Dropout, Embedding, the Sequence* ops,
Pad, depth_to_space/space_to_depth and the legacy Crop (OPERATORS.md §4, 7, 9, 15).

Random ops (Dropout, rrelu) take ``key`` from xnd's global stream and read the
autograd training flag through ``is_train``; in predict mode they are
deterministic.
"""
import jax
import jax.numpy as jnp
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Dtype, Float, Int, Shape, bounded, choice, optional
from .dtypes import same_dtype
from .elemwise import expm1
from .nn_common import fmt, param_shapes_from
from .random import prng
from .registry import register

_fmt = fmt


def _hi(x):
    return lax.Precision.HIGHEST if x.dtype in (jnp.float32, jnp.float64) else None


def _fc_shapes(attrs, data_shape):
    """Input shapes MXNet infers from data for FullyConnected (symbol ``infer_shape``)."""
    n_in = 1
    for d in (data_shape[1:] if attrs.get("flatten", True) else data_shape[-1:]):
        n_in *= d
    out = {"weight": (attrs["num_hidden"], n_in)}
    if not attrs.get("no_bias", False):
        out["bias"] = (attrs["num_hidden"],)
    return out


@register("FullyConnected", param_shapes=param_shapes_from(_fc_shapes, ("data", "weight", "bias")))
def fully_connected(data, weight, bias=None, *, num_hidden: Int, no_bias: Bool = False,
                    flatten: Bool = True):
    """y = x W^T + b; flatten=True collapses (N, d1, d2, ...) to (N, d1*d2*...) first,
    flatten=False applies the layer to the last axis."""
    op = "FullyConnected"
    same_dtype(op, data, weight, *([] if bias is None else [bias]))
    if no_bias and bias is not None:
        raise MXNetError(f"Operator {op} expects 2 inputs, but got 3 instead (no_bias=True)")
    if not no_bias and bias is None:
        raise MXNetError(f"Operator {op} expects 3 inputs, but got 2 instead "
                         f"(pass a bias or no_bias=True)")
    if flatten:
        x = data.reshape((data.shape[0], -1)) if data.ndim else data.reshape((1, 1))
    else:
        x = data
    n_in = x.shape[-1] if x.ndim else 1
    if tuple(weight.shape) != (num_hidden, n_in):
        raise MXNetError(f"{op}: weight has shape {_fmt(weight.shape)}, expected "
                         f"({num_hidden},{n_in}) for data {_fmt(data.shape)}, "
                         f"num_hidden={num_hidden}, flatten={flatten}")
    if bias is not None and tuple(bias.shape) not in ((num_hidden,), (num_hidden, 1)):
        raise MXNetError(f"{op}: bias has shape {_fmt(bias.shape)}, expected ({num_hidden},)")
    out = jnp.matmul(x, weight.astype(x.dtype).T, precision=_hi(x))
    # MXNet also takes a (num_hidden, 1) bias (its shape check compares sizes)
    return out if bias is None else out + bias.reshape(num_hidden).astype(out.dtype)


fully_connected.infer_shapes = _fc_shapes


@jax.custom_jvp
def _relu(x):
    """Activation's relu: ``x > 0 ? x : 0`` (a NaN gives 0), and MXNet's backward
    ``ograd * relu_grad(out)``: a product, so a NaN or infinite gradient where ``x <= 0``
    gives NaN (a select gave 0).  The forward saves one mask for the backward, not the
    mask and a zeros array the size of ``x`` (``jnp.where``'s tangent kept both)."""
    return jnp.where(x > 0, x, jnp.zeros((), x.dtype))


_relu.defjvp(lambda p, t: (_relu(p[0]), t[0] * (p[0] > 0).astype(t[0].dtype)))


def _softrelu(x):
    return jnp.where(x > 20, x, jnp.log1p(jnp.exp(jnp.minimum(x, 20))))


_ACT = {
    "relu": _relu,
    "sigmoid": jax.nn.sigmoid,
    "tanh": jnp.tanh,
    "softrelu": _softrelu,
    "softsign": lambda x: x / (1 + jnp.abs(x)),
}


@register("Activation")
def activation(data, *, act_type: choice("relu", "sigmoid", "softrelu", "softsign", "tanh")):
    """relu, sigmoid, tanh, softrelu (log(1 + exp(x))), softsign (x / (1 + |x|))."""
    return _ACT[act_type](data).astype(data.dtype)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


@jax.custom_vjp
def _selu(x):
    zero = jnp.zeros((), x.dtype)
    neg = jnp.asarray(_SELU_ALPHA, x.dtype) * expm1(jnp.minimum(x, zero))
    return jnp.asarray(_SELU_LAMBDA, x.dtype) * jnp.where(x > 0, x, neg)


def _selu_fwd(x):
    y = _selu(x)
    return y, (x, y)


def _selu_bwd(res, dy):
    # MXNet 1.9.1's selu gradient for x <= 0 is lambda * (y + alpha) (y the output), not the
    # derivative lambda * alpha * exp(x) = y + lambda * alpha; reproduced as observed.
    x, y = res
    lam, al = jnp.asarray(_SELU_LAMBDA, x.dtype), jnp.asarray(_SELU_ALPHA, x.dtype)
    return (dy * jnp.where(x > 0, lam, lam * (y + al)),)


_selu.defvjp(_selu_fwd, _selu_bwd)


def _leaky_visible(attrs):
    return 2 if attrs.get("act_type") == "rrelu" else 1


def _leaky_shapes(attrs, data_shape):
    if attrs.get("act_type") != "prelu":
        return {}
    return {"gamma": (data_shape[1] if len(data_shape) > 1 else 1,)}


@register("LeakyReLU", num_visible=_leaky_visible, num_outputs=_leaky_visible,
          output_names=("output", "mask"),
          param_shapes=param_shapes_from(_leaky_shapes, ("data", "gamma")),
          input_init={"gamma": '["Constant", {"value": 0.25}]'})
def leaky_relu(data, gamma=None, *,
               act_type: choice("elu", "gelu", "leaky", "prelu", "rrelu", "selu") = "leaky",
               slope: Float = 0.25, lower_bound: Float = 0.125, upper_bound: Float = 0.334,
               is_train=False, key):
    """leaky: x or slope*x; prelu: learnt slope ``gamma`` per channel (axis 1); elu (alpha =
    slope), selu, gelu (erf form); rrelu: a random slope in [lower_bound, upper_bound] per
    element when training, their mean otherwise, and a second visible output (the slopes)."""
    x = data
    zero = jnp.zeros((), x.dtype)
    if act_type == "leaky":
        # (x <= 0, not x > 0: a NaN takes the identity's gradient, 1, as in MXNet)
        return jnp.where(x <= 0, x * jnp.asarray(slope, x.dtype), x)
    if act_type == "prelu":
        if gamma is None:
            raise MXNetError("LeakyReLU: act_type='prelu' needs the gamma input")
        g = gamma.astype(x.dtype)
        if g.size == 1:
            g = g.reshape(-1)[0]
        elif g.ndim == 1 and x.ndim >= 2 and g.size == x.shape[1]:  # one slope per channel
            g = g.reshape((1, -1) + (1,) * (x.ndim - 2))
        else:  # MXNet broadcasts any other gamma aligned at the first axis
            gs = tuple(g.shape) + (1,) * (x.ndim - g.ndim)
            if len(gs) != x.ndim or any(a not in (1, b) for a, b in zip(gs, x.shape)):
                raise MXNetError(f"LeakyReLU: Cannot broadcast gamma to data. gamma: "
                                 f"{_fmt(gamma.shape)}, data: {_fmt(x.shape)}")
            g = g.reshape(gs)
        return jnp.where(x > 0, x, g * x)
    if act_type == "elu":
        # (the clamp by where, not minimum: minimum splits the gradient at 0 in halves)
        neg = jnp.where(x <= 0, x, zero)
        return jnp.where(x <= 0, jnp.asarray(slope, x.dtype) * expm1(neg), x)
    if act_type == "selu":
        return _selu(x)
    if act_type == "gelu":
        return (0.5 * x * (1 + lax.erf(x / jnp.sqrt(jnp.asarray(2.0, x.dtype))))).astype(x.dtype)
    # rrelu
    if is_train:
        s = jax.random.uniform(prng(key), x.shape, jnp.float32, lower_bound, upper_bound)
        s = s.astype(x.dtype)
    else:
        s = jnp.full(x.shape, (lower_bound + upper_bound) / 2.0, x.dtype)
    return jnp.where(x > 0, x, s * x), s


leaky_relu.infer_shapes = _leaky_shapes


@register("Dropout", num_visible=1, num_outputs=2, output_names=("output", "mask"))
def dropout(data, *, p: bounded(Float, 0, 1) = 0.5,
            mode: choice("always", "training") = "training", axes: Shape = (), cudnn_off: optional(Bool) = False, is_train=False, key):
    """Identity unless training (or mode='always'); then kept values are scaled by 1/(1-p).

    Returns (out, mask) as MXNet's two internal outputs; mask holds 0 or 1/(1-p) and, with
    ``axes``, one draw is shared along those axes. p = 1 drops everything with the scale
    1/0: MXNet's output, mask and gradient are then NaN (0 * inf).
    """
    if (mode == "training" and not is_train) or p <= 0:
        return data, jnp.ones(data.shape, data.dtype)
    if p >= 1:
        nan = jnp.full(data.shape, jnp.nan, data.dtype)
        return data * nan, nan
    shape = list(data.shape)
    for a in axes:
        shape[a % data.ndim] = 1
    keep = jax.random.uniform(prng(key), tuple(shape), jnp.float32) < (1.0 - p)
    mask = jnp.where(keep, jnp.asarray(1.0 / (1.0 - p), data.dtype), jnp.zeros((), data.dtype))
    return data * mask, jnp.broadcast_to(mask, data.shape)


@register("SoftmaxActivation")
def softmax_activation(data, *, mode: choice("channel", "instance") = "instance"):
    """instance: softmax over the last axis; channel: over axis 1 (NCHW).

    MXNet's backward always reduces over axis 1, so for instance mode on data of 3 or more
    dimensions its gradient is p * (dy - sum(dy * p, axis=1)); reproduced here.
    """
    if mode == "channel" or data.ndim <= 2:
        return jax.nn.softmax(data, axis=1 if mode == "channel" else -1).astype(data.dtype)

    @jax.custom_vjp
    def f(x):
        return jax.nn.softmax(x, axis=-1).astype(x.dtype)

    def fwd(x):
        out = f(x)
        return out, out

    def bwd(out, dy):
        return (out * (dy - jnp.sum(dy * out, axis=1, keepdims=True)),)

    f.defvjp(fwd, bwd)
    return f(data)


def _embedding_shapes(attrs, data_shape):
    return {"weight": (attrs["input_dim"], attrs["output_dim"])}


@register("Embedding", param_shapes=param_shapes_from(_embedding_shapes, ("data", "weight")))
def embedding(data, weight, *, input_dim: Int, output_dim: Int, dtype: Dtype = "float32",
              sparse_grad: Bool = False):
    """Rows of ``weight``; float indices are truncated, out-of-range ones clipped."""
    if tuple(weight.shape) != (input_dim, output_dim):
        raise MXNetError(f"Embedding: weight has shape {_fmt(weight.shape)}, expected "
                         f"({input_dim},{output_dim})")
    idx = data if jnp.issubdtype(data.dtype, jnp.integer) else data.astype(jnp.int64)
    return jnp.take(weight, jnp.clip(idx, 0, input_dim - 1), axis=0)


embedding.infer_shapes = _embedding_shapes


@register("_contrib_SparseEmbedding",
          param_shapes=param_shapes_from(_embedding_shapes, ("data", "weight")))
def sparse_embedding(data, weight, *, input_dim: Int, output_dim: Int, dtype: Dtype = "float32",
                     deterministic: Bool = False):
    """contrib.SparseEmbedding: Embedding whose weight gradient MXNet keeps row_sparse; xnd's
    gradients are dense, so the values are Embedding's."""
    return embedding(data, weight, input_dim=input_dim, output_dim=output_dim, dtype=dtype)


sparse_embedding.infer_shapes = _embedding_shapes


# ---- Sequence ops ----------------------------------------------------------------------------
def _seq_axes(op, data, axis, allowed=(0, 1)):
    if axis not in allowed:
        raise MXNetError(f"{op}: axis must be one of {allowed}, got {axis}")
    if data.ndim < 2:
        raise MXNetError(f"{op}: data must have at least 2 dimensions, got {_fmt(data.shape)}")
    return axis, 1 - axis  # (time axis, batch axis)


def _lengths(op, seq_len, n):
    if seq_len is None:
        raise MXNetError(f"{op}: use_sequence_length=True needs the sequence_length input")
    if seq_len.shape != (n,):
        raise MXNetError(f"{op}: sequence_length must have shape ({n},), got {_fmt(seq_len.shape)}")
    return seq_len.astype(jnp.int64) if not jnp.issubdtype(seq_len.dtype, jnp.integer) else seq_len


def _time_index(data, t_ax):
    """The step index, shaped to broadcast against data."""
    shape = [1] * data.ndim
    shape[t_ax] = data.shape[t_ax]
    return jnp.arange(data.shape[t_ax]).reshape(shape)


def _per_batch(lengths, data, b_ax):
    shape = [1] * data.ndim
    shape[b_ax] = data.shape[b_ax]
    return lengths.reshape(shape)


def _seq_shapes(attrs, data_shape):
    if not attrs.get("use_sequence_length") or len(data_shape) < 2:
        return {}
    return {"sequence_length": (data_shape[1 - attrs.get("axis", 0)],)}


_SEQ_HOOK = param_shapes_from(_seq_shapes, ("data", "sequence_length"))


@register("SequenceMask", param_shapes=_SEQ_HOOK)
def sequence_mask(data, sequence_length=None, *, use_sequence_length: Bool = False,
                  value: Float = 0.0, axis: Int = 0):
    """Steps at or beyond each sequence's length are set to ``value``. The axis and rank
    are checked also without lengths (MXNet raises for axis=-1 or 1-D data either way)."""
    t_ax, b_ax = _seq_axes("SequenceMask", data, axis)
    if not use_sequence_length:
        return data
    ln = _per_batch(_lengths("SequenceMask", sequence_length, data.shape[b_ax]), data, b_ax)
    return jnp.where(_time_index(data, t_ax) < ln, data, jnp.asarray(value, data.dtype))


@register("SequenceLast", param_shapes=_SEQ_HOOK)
def sequence_last(data, sequence_length=None, *, use_sequence_length: Bool = False, axis: Int = 0):
    """The last valid step of each sequence: (T, N, ...) -> (N, ...)."""
    t_ax, b_ax = _seq_axes("SequenceLast", data, axis)
    if not use_sequence_length:
        return jnp.take(data, data.shape[t_ax] - 1, axis=t_ax)
    ln = _lengths("SequenceLast", sequence_length, data.shape[b_ax])
    idx = jnp.clip(ln - 1, 0, data.shape[t_ax] - 1)
    idx = _per_batch(idx, data, b_ax)
    idx = jnp.broadcast_to(idx, tuple(1 if i == t_ax else d for i, d in enumerate(data.shape)))
    return jnp.squeeze(jnp.take_along_axis(data, idx, axis=t_ax), t_ax)


@register("SequenceReverse", param_shapes=_SEQ_HOOK)
def sequence_reverse(data, sequence_length=None, *, use_sequence_length: Bool = False,
                     axis: Int = 0):
    """Reverses the first length steps of each sequence (time axis 0); later steps stay."""
    t_ax, b_ax = _seq_axes("SequenceReverse", data, axis, allowed=(0,))
    if not use_sequence_length:
        return jnp.flip(data, axis=t_ax)
    ln = _per_batch(_lengths("SequenceReverse", sequence_length, data.shape[b_ax]), data, b_ax)
    t = _time_index(data, t_ax)
    src = jnp.where(t < ln, ln - 1 - t, t)
    src = jnp.broadcast_to(src, data.shape[:2] + (1,) * (data.ndim - 2))
    return jnp.take_along_axis(data, src, axis=t_ax)


for _f in (sequence_mask, sequence_last, sequence_reverse):
    _f.infer_shapes = _seq_shapes


# ---- Pad, depth/space, Crop ------------------------------------------------------------------
@register("Pad", "pad")
def pad(data, *, mode: choice("constant", "edge", "reflect"), pad_width: Shape,
        constant_value: Float = 0.0):
    """4-D/5-D only; pad_width has (before, after) per axis and must be 0 on N and C."""
    op = "Pad"
    if data.ndim not in (4, 5):
        raise MXNetError(f"{op}: only 4-D or 5-D input is supported, got {_fmt(data.shape)}")
    if len(pad_width) != 2 * data.ndim:
        raise MXNetError(f"{op}: pad_width {_fmt(pad_width)} must have {2 * data.ndim} entries "
                         f"(2 per axis) for data {_fmt(data.shape)}")
    if any(pad_width[:4]):
        raise MXNetError(f"{op}: padding on the N and C axes is not supported, got pad_width "
                         f"{_fmt(pad_width)}")
    widths = [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(data.ndim)]
    if mode == "constant":
        return jnp.pad(data, widths, mode="constant",
                       constant_values=jnp.asarray(constant_value, data.dtype))
    if mode == "reflect":
        for (b, a), n in zip(widths, data.shape):
            if b >= n or a >= n:
                raise MXNetError(f"{op}: reflect padding {_fmt(pad_width)} must be smaller than "
                                 f"the padded axis of {_fmt(data.shape)}")
    return jnp.pad(data, widths, mode=mode)


@register("depth_to_space")
def depth_to_space(data, *, block_size: Int):
    """(N, C, H, W) -> (N, C/b^2, H*b, W*b); channel c' of block (i, j) is (i*b + j)*C/b^2 + c'."""
    b = block_size
    n, c, h, w = data.shape
    if data.ndim != 4 or c % (b * b):
        raise MXNetError(f"depth_to_space: data {_fmt(data.shape)} must be 4-D with channels "
                         f"divisible by block_size^2 = {b * b}")
    x = data.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return x.reshape(n, c // (b * b), h * b, w * b)


@register("space_to_depth")
def space_to_depth(data, *, block_size: Int):
    """(N, C, H, W) -> (N, C*b^2, H/b, W/b), the inverse of depth_to_space."""
    b = block_size
    n, c, h, w = data.shape
    if data.ndim != 4 or h % b or w % b:
        raise MXNetError(f"space_to_depth: data {_fmt(data.shape)} must be 4-D with H and W "
                         f"divisible by block_size = {b}")
    x = data.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return x.reshape(n, c * b * b, h // b, w // b)


@register("Crop")
def crop(*data, num_args: Int = 1, offset: Shape = (0, 0), h_w: Shape = (0, 0),
         center_crop: Bool = False):
    """Legacy spatial crop of NCHW data to ``h_w`` (or to the second input's H, W) at
    ``offset`` (y, x), or centred."""
    x = data[0]
    if x.ndim != 4:
        raise MXNetError(f"Crop: data must be 4-D (N, C, H, W), got {_fmt(x.shape)}")
    h, w = (data[1].shape[2], data[1].shape[3]) if len(data) > 1 else tuple(h_w)
    H, W = x.shape[2], x.shape[3]
    if center_crop:
        oy, ox = (H - h) // 2, (W - w) // 2
    else:
        oy, ox = offset
    if h > H or w > W or oy < 0 or ox < 0 or oy + h > H or ox + w > W:
        raise MXNetError(f"Crop: cannot crop ({h},{w}) at offset ({oy},{ox}) from {_fmt(x.shape)}")
    return x[:, :, oy:oy + h, ox:ox + w]
