"""Convolution, Deconvolution, Pooling, UpSampling, im2col/col2im (OPERATORS.md §4).

Everything shape-related is computed from static shapes here, before XLA sees
the graph: output sizes, padding, the 'full' pooling convention's extra
right padding and the average-pooling divisors (a constant array built with
NumPy). Layouts: channel-first (NCW/NCHW/NCDHW) as in MXNet; the
channel-last family (NWC/NHWC/NDHWC, weight ``(num_filter, *kernel, C/g)``),
which MXNet 1.9.1 runs on GPU only for (de)convolution, works on every device.
Float32 convolutions run at ``Precision.HIGHEST`` so GPUs do not silently use
TF32 (MXNet's numbers are full float32).
"""
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Int, Shape, bounded, choice, optional
from .nn_common import fmt, param_shapes_from
from .registry import register

_SPATIAL = "DHW"
Layout = optional(choice("NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC"))
CudnnTune = optional(choice("None", "fastest", "limited_workspace", "off"))

_fmt = fmt


def _nsp(op, data, kernel, layout=None, min_nd=1):
    """Number of spatial dims, checked against data.ndim, kernel and layout."""
    nd = data.ndim - 2
    if nd < min_nd or nd > 3:
        raise MXNetError(f"{op}: data must be 3-D, 4-D or 5-D (N, C, spatial...), got shape "
                         f"{_fmt(data.shape)}")
    if kernel and len(kernel) != nd:
        raise MXNetError(f"{op}: kernel {_fmt(kernel)} has {len(kernel)} dimension(s) but data "
                         f"{_fmt(data.shape)} has {nd} spatial dimension(s)")
    if layout is not None and len(layout) != data.ndim:
        raise MXNetError(f"{op}: layout {layout} does not match data of shape {_fmt(data.shape)}")
    return nd


def _tuple(op, name, v, nd, default):
    if not v:
        return (default,) * nd
    if len(v) != nd:
        raise MXNetError(f"{op}: {name} {_fmt(v)} must have {nd} entries like kernel")
    return tuple(v)


def _same_pad_check(op, pad):
    """pooling_convention='same' (MXNet 1.9.1) refuses a nonzero pad among its first three
    entries. (MXNet also fails when pad has fewer than three entries, the default included;
    xnd runs those: tests/test_nn_ops.py test_pooling_same_and_im2col_extensions.)"""
    if any(p != 0 for p in tuple(pad)[:3]):
        raise MXNetError(f"{op}: Check failed: param.pad[0] == 0 && param.pad[1] == 0 && "
                         "param.pad[2] == 0: Same pooling convention disables the use of "
                         "pad parameter.")


def _channel_last(layout):
    return layout is not None and layout.endswith("C")


def _to_ncx(x, layout):
    """Channel-last data -> channel-first (a transpose XLA folds into the conv)."""
    return jnp.moveaxis(x, -1, 1) if _channel_last(layout) else x


def _from_ncx(x, layout):
    return jnp.moveaxis(x, 1, -1) if _channel_last(layout) else x


def _dimension_numbers(nd, layout):
    sp = _SPATIAL[3 - nd:]
    if _channel_last(layout):
        return ("N" + sp + "C", "O" + sp + "I", "N" + sp + "C")
    return ("NC" + sp, "OI" + sp, "NC" + sp)


def _precision(x):
    return lax.Precision.HIGHEST if x.dtype in (jnp.float32, jnp.float64) else None


def _check_inputs(op, bias, no_bias):
    if no_bias and bias is not None:
        raise MXNetError(f"Operator {op} expects 2 inputs, but got 3 instead (no_bias=True)")
    if not no_bias and bias is None:
        raise MXNetError(f"Operator {op} expects 3 inputs, but got 2 instead "
                         f"(pass a bias or no_bias=True)")


def _add_bias(out, bias, nd, layout):
    if bias is None:
        return out
    if _channel_last(layout):
        return out + bias.astype(out.dtype)
    return out + bias.astype(out.dtype).reshape((-1,) + (1,) * nd)


def _conv_shapes(attrs, data_shape):
    """Input shapes MXNet infers from data for Convolution (symbol ``infer_shape``)."""
    k, f, g = tuple(attrs["kernel"]), attrs["num_filter"], attrs.get("num_group", 1)
    if _channel_last(attrs.get("layout")):
        out = {"weight": (f,) + k + (data_shape[-1] // g,)}
    else:
        out = {"weight": (f, data_shape[1] // g) + k}
    if not attrs.get("no_bias", False):
        out["bias"] = (f,)
    return out


@register("Convolution", "Convolution_v1",  # (MXNet's legacy op: the same attributes and math)
          param_shapes=param_shapes_from(_conv_shapes, ("data", "weight", "bias")))
def convolution(data, weight, bias=None, *, kernel: Shape, stride: Shape = (), dilate: Shape = (),
                pad: Shape = (), num_filter: Int, num_group: Int = 1, workspace: Int = 1024,
                no_bias: Bool = False, cudnn_tune: CudnnTune = None, cudnn_off: Bool = False,
                layout: Layout = None):
    """N-D convolution: out = floor((x + 2 pad - dilate (k-1) - 1) / stride) + 1 per spatial dim."""
    op = "Convolution"
    nd = _nsp(op, data, kernel, layout)
    stride, dilate, pad = (_tuple(op, n, v, nd, d) for n, v, d in
                           (("stride", stride, 1), ("dilate", dilate, 1), ("pad", pad, 0)))
    _check_inputs(op, bias, no_bias)
    cl = _channel_last(layout)
    chans = data.shape[-1] if cl else data.shape[1]
    sizes = data.shape[1:-1] if cl else data.shape[2:]
    if num_group < 1 or chans % num_group:
        raise MXNetError(f"{op}: input channels {chans} of data {_fmt(data.shape)} must be "
                         f"divisible by num_group={num_group}")
    if num_filter % num_group:
        raise MXNetError(f"{op}: num_filter={num_filter} must be divisible by "
                         f"num_group={num_group}")
    wshape = (num_filter, *kernel, chans // num_group) if cl else \
        (num_filter, chans // num_group, *kernel)
    if tuple(weight.shape) != wshape:
        raise MXNetError(f"{op}: weight has shape {_fmt(weight.shape)}, expected {_fmt(wshape)} "
                         f"for data {_fmt(data.shape)}, kernel={_fmt(kernel)}, "
                         f"num_filter={num_filter}, num_group={num_group}")
    if bias is not None and tuple(bias.shape) != (num_filter,):
        raise MXNetError(f"{op}: bias has shape {_fmt(bias.shape)}, expected ({num_filter},)")
    for i in range(nd):
        dk = dilate[i] * (kernel[i] - 1) + 1
        if dk > sizes[i] + 2 * pad[i]:
            raise MXNetError(f"{op}: kernel size {_fmt(kernel)} (dilated {dk}) exceeds input "
                             f"{_fmt(data.shape)} padded by {_fmt(pad)} in spatial dim {i}")
    if is_depthwise(num_group, chans):
        w = weight.astype(data.dtype)
        taps = (lambda t: w[(slice(None),) + t + (0,)]) if cl else \
            (lambda t: w[(slice(None), 0) + t])
        out = depthwise(data, taps, kernel, stride, pad, dilate, num_filter, cl)
    elif few_outputs(sizes, kernel, stride, pad, dilate):
        out = _from_ncx(conv_by_windows(
            _to_ncx(data, layout), _to_ncx(weight, layout).astype(data.dtype),
            stride, pad, dilate, num_group), layout)
    else:
        out = lax.conv_general_dilated(
            data, weight.astype(data.dtype), window_strides=stride,
            padding=[(p, p) for p in pad], rhs_dilation=dilate,
            dimension_numbers=_dimension_numbers(nd, layout), feature_group_count=num_group,
            precision=_precision(data))
    return _add_bias(out, bias, nd, layout)


# ---- kernels nearly as large as their input --------------------------------------------------
# XLA computes a convolution's input gradient as a convolution over the output gradient padded
# by the kernel size: for a 224x224 kernel on a 224x224 image (one output position) that is
# 224^2 times the forward's work, 150 s for MXNet's test_conv2d_16c.  With at most
# FEW_OUTPUTS output positions the convolution is instead a sum over its windows: one slice of
# the input per output position, contracted with the weight, whose gradient is the same
# slices added back (MXNet's col2im does that work).
FEW_OUTPUTS = 16


def _out_sizes(sizes, kernel, stride, pad, dilate):
    return [(n + 2 * p - d * (k - 1) - 1) // s + 1
            for n, k, s, p, d in zip(sizes, kernel, stride, pad, dilate)]


def few_outputs(sizes, kernel, stride, pad, dilate):
    outs = _out_sizes(sizes, kernel, stride, pad, dilate)
    return math.prod(outs) <= FEW_OUTPUTS and math.prod(kernel) > 4 * math.prod(outs)


def conv_by_windows(x, w, stride, pad, dilate, groups):
    """Channel-first convolution (N, C, *sizes) * (F, C/g, *kernel) as a contraction of each
    output position's input window with the weight."""
    kernel = w.shape[2:]
    outs = _out_sizes(x.shape[2:], kernel, stride, pad, dilate)
    x = jnp.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    windows = []
    for pos in np.ndindex(*outs):
        start = [0, 0] + [q * s for q, s in zip(pos, stride)]
        limit = [x.shape[0], x.shape[1]] + [b + d * (k - 1) + 1 for b, d, k in
                                             zip(start[2:], dilate, kernel)]
        windows.append(lax.slice(x, start, limit, [1, 1] + list(dilate)))
    n, c, f = x.shape[0], x.shape[1], w.shape[0]
    win = jnp.stack(windows, axis=2).reshape(n, groups, c // groups, len(windows), -1)
    wg = w.reshape(groups, f // groups, c // groups, -1)
    out = jnp.einsum("ngcpk,gfck->ngfp", win, wg, precision=_precision(x))
    return out.reshape(n, f, *outs)


convolution.infer_shapes = _conv_shapes


# ---- depthwise convolution -------------------------------------------------------------------
# XLA:CPU runs grouped convolutions (feature_group_count > 1) through a slow generic path:
# MobileNet's 3x3 depthwise layers took 30x longer than the same sum of k*k shifted slices
# times a per-channel weight, which XLA fuses into one vectorised loop (and whose gradients
# are slices and reductions too: 3-25x faster than XLA's for training).
def is_depthwise(num_group, in_channels):
    """A grouped convolution with one input channel per group (MobileNet's depthwise).  (A
    convolution of single-channel data fits the same formula, and alone runs 2-4x faster
    that way, but inside LeNet's whole training step it measured slower: not used.)"""
    return num_group > 1 and num_group == in_channels


def depthwise(data, tap, kernel, stride, pad, dilate, num_filter, channel_last):
    """Depthwise convolution of channel-first (or channel-last) ``data`` as a sum over the
    kernel taps: ``tap(t)`` gives the (num_filter,) weights of tap ``t`` (a kernel index
    tuple); output channel f reads input channel f // (num_filter / C)."""
    nd = data.ndim - 2
    ch = data.ndim - 1 if channel_last else 1
    sp = list(range(1, 1 + nd)) if channel_last else list(range(2, 2 + nd))
    mult = num_filter // data.shape[ch]
    x = jnp.repeat(data, mult, axis=ch) if mult > 1 else data
    if any(pad):
        widths = [(0, 0)] * data.ndim
        for a, p in zip(sp, pad):
            widths[a] = (p, p)
        x = jnp.pad(x, widths)
    outs = [(x.shape[a] - dilate[i] * (kernel[i] - 1) - 1) // stride[i] + 1
            for i, a in enumerate(sp)]
    bshape = [1] * data.ndim
    bshape[ch] = num_filter
    strides = [1] * data.ndim
    for i, a in enumerate(sp):
        strides[a] = stride[i]
    out = None
    for t in np.ndindex(*kernel):
        start, limit = [0] * data.ndim, list(x.shape)
        for i, a in enumerate(sp):
            start[a] = t[i] * dilate[i]
            limit[a] = start[a] + stride[i] * (outs[i] - 1) + 1
        v = lax.slice(x, start, limit, strides) * tap(tuple(int(k) for k in t)).reshape(bshape)
        out = v if out is None else out + v
    return out


# ---- channels-last lowering (used by the inference rewrites in xnd/symbol/rewrite.py) -------
# XLA:CPU (jax 0.10) runs every convolution as an NHWC/HWIO kernel (YNNPACK): a channel-first
# convolution is lowered to transpose(data) -> transpose(weight) -> conv -> transpose(out), per
# op and per call.  A chain of convolutions, pooling and elementwise ops kept channel-last, with
# weights stored spatial-first (HWIO) once per parameter version, pays none of those.
def channels_last_weight(weight, layout=None, stride=(), dilate=(), num_group=1, winograd=True):
    """A Convolution weight, (F, C/g, *k) or channel-last (F, *k, C/g), as the kernel that
    ``conv_channels_last`` takes: (*k, C/g, F), or (16, C, F) where Winograd applies (and
    ``winograd``: inference, where the transform runs once per parameter version)."""
    nd = weight.ndim - 2
    if _channel_last(layout):
        w = jnp.transpose(weight, tuple(range(1, 1 + nd)) + (nd + 1, 0))
    else:
        w = jnp.transpose(weight, tuple(range(2, 2 + nd)) + (1, 0))
    if winograd and use_winograd(w.shape[:nd], stride, dilate, num_group, w.shape[-2],
                                 w.shape[-1], w.dtype):
        return winograd_weight(w)
    return w


def conv_channels_last(data, weight, bias=None, *, stride=(), dilate=(), pad=(), num_group=1):
    """Convolution of channel-last data (N, *spatial, C) with a kernel from
    ``channels_last_weight``: (*k, C/g, F), or (16, C, F) for Winograd (2-D only); the
    numbers of ``convolution`` on the channel-first forms (float32 rounding).
    Attributes are the parsed ones of the Convolution node (shape checks were done by shape
    inference when the graph was bound)."""
    nd = data.ndim - 2
    stride, dilate, pad = (tuple(v) if v else (d,) * nd
                           for v, d in ((stride, 1), (dilate, 1), (pad, 0)))
    if nd == 2 and weight.ndim == 3:  # a winograd_weight
        out = conv_winograd(data, weight, pad)
        return out if bias is None else out + bias.astype(out.dtype)
    if is_depthwise(num_group, data.shape[-1]):
        w = weight.astype(data.dtype)
        out = depthwise(data, lambda t: w[t + (0,)], weight.shape[:nd], stride, pad, dilate,
                        weight.shape[-1], True)
        return out if bias is None else out + bias.astype(out.dtype)
    if use_pointwise_matmul(weight.shape[:nd], pad, num_group, data.shape[-1]):
        x = data
        if any(v != 1 for v in stride):
            x = lax.slice(x, (0,) * x.ndim, x.shape, (1,) + stride + (1,))
        out = jnp.matmul(x, weight.reshape(weight.shape[-2:]).astype(data.dtype),
                         precision=_precision(data))
        return out if bias is None else out + bias.astype(out.dtype)
    if few_outputs(data.shape[1:-1], weight.shape[:nd], stride, pad, dilate):
        w = jnp.moveaxis(jnp.moveaxis(weight, -1, 0), -1, 1).astype(data.dtype)
        out = jnp.moveaxis(conv_by_windows(jnp.moveaxis(data, -1, 1), w, stride, pad, dilate,
                                           num_group), 1, -1)
        return out if bias is None else out + bias.astype(out.dtype)
    sp = _SPATIAL[3 - nd:]
    out = lax.conv_general_dilated(
        data, weight.astype(data.dtype), window_strides=stride, padding=[(p, p) for p in pad],
        rhs_dilation=dilate, dimension_numbers=("N" + sp + "C", sp + "IO", "N" + sp + "C"),
        feature_group_count=num_group, precision=_precision(data))
    if bias is not None:
        out = out + bias.astype(out.dtype)
    return out


# Winograd F(2x2, 3x3) for 3x3 stride-1 convolutions: each 2x2 output tile from a 4x4 input
# tile with 16 products instead of 36 (2.25x fewer multiplies), as 16 matmuls (tiles x C_in) @
# (C_in x F) that XLA's dot kernels run well where its direct convolution of small spatial
# sizes does not.  The transforms have entries 0, +-1 and +-1/2 (exact in binary floating
# point); measured error ~1e-6 of the output's scale in float32.
_WINO_BT = ((1, 0, -1, 0), (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, 0, -1))
_WINO_G = ((1, 0, 0), (0.5, 0.5, 0.5), (0.5, -0.5, 0.5), (0, 0, 1))
_WINO_AT = ((1, 1, 1, 0), (0, 1, -1, -1))
WINOGRAD_MIN_CHANNELS = 16


def use_winograd(kernel, stride, dilate, num_group, in_channels, num_filter, dtype):
    """Whether ``conv_channels_last`` runs this convolution as Winograd F(2x2, 3x3)."""
    return (tuple(kernel) == (3, 3) and all(v == 1 for v in stride or (1,))
            and all(v == 1 for v in dilate or (1,)) and num_group == 1
            and min(in_channels, num_filter) >= WINOGRAD_MIN_CHANNELS
            and np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.float64)))


def winograd_weight(weight_hwio):
    """(3, 3, C, F) -> the transformed (16, C, F) kernel U = G w G^T."""
    g = jnp.asarray(_WINO_G, weight_hwio.dtype)
    u = jnp.einsum("ki,ijcf,lj->klcf", g, weight_hwio, g, precision=lax.Precision.HIGHEST)
    return u.reshape((16,) + weight_hwio.shape[2:])


def _lincomb(coefs, xs):
    out = None
    for c, x in zip(coefs, xs):
        if c == 0:
            continue
        t = x if c == 1 else -x if c == -1 else x * jnp.asarray(c, x.dtype)
        out = t if out is None else out + t
    return out


def conv_winograd(data, u, pad):
    """3x3 stride-1 convolution of NHWC ``data`` with a ``winograd_weight`` kernel."""
    n, h, w, c = data.shape
    f = u.shape[-1]
    oh, ow = h + 2 * pad[0] - 2, w + 2 * pad[1] - 2
    th, tw = -(-oh // 2), -(-ow // 2)
    x = jnp.pad(data, ((0, 0), (pad[0], 2 * th + 2 - h - pad[0]),
                       (pad[1], 2 * tw + 2 - w - pad[1]), (0, 0)))
    d = [[lax.slice(x, (0, i, j, 0), (n, i + 2 * th - 1, j + 2 * tw - 1, c), (1, 2, 2, 1))
          for j in range(4)] for i in range(4)]
    t = [[_lincomb(_WINO_BT[k], [d[i][j] for i in range(4)]) for j in range(4)] for k in range(4)]
    v = jnp.stack([_lincomb(_WINO_BT[m], t[k]) for k in range(4) for m in range(4)])
    prod = lax.dot_general(v.reshape(16, n * th * tw, c), u.astype(data.dtype),
                           (((2,), (1,)), ((0,), (0,))), precision=_precision(data))
    prod = prod.reshape(4, 4, n, th, tw, f)
    s = [[_lincomb(_WINO_AT[a], [prod[k, m] for k in range(4)]) for m in range(4)]
         for a in range(2)]
    y = jnp.stack([jnp.stack([_lincomb(_WINO_AT[b], s[a]) for b in range(2)], axis=3)
                   for a in range(2)], axis=2)          # (n, th, 2, tw, 2, f)
    return y.reshape(n, 2 * th, 2 * tw, f)[:, :oh, :ow, :]


POINTWISE_MIN_CHANNELS = 64


def use_pointwise_matmul(kernel, pad, num_group, in_channels):
    """A 1x1 (unpadded, ungrouped) channels-last convolution as one matmul over the channel
    axis: XLA:CPU's dot kernels beat its convolution kernel for these (MobileNet's pointwise
    layers: 1.2-1.9x at 64 channels and more; with fewer channels the dot is slower)."""
    return (all(k == 1 for k in kernel) and not any(pad) and num_group == 1
            and in_channels >= POINTWISE_MIN_CHANNELS)


def channels_last_layout(ndim):
    """The channel-last layout name for data of ``ndim`` dimensions (3, 4 or 5)."""
    return {3: "NWC", 4: "NHWC", 5: "NDHWC"}[ndim]


def deconv_pads(sizes, kernel, stride, dilate, pad, adj, target_shape):
    """MXNet's Deconvolution geometry: (pad, adj) per spatial dim, from target_shape if set."""
    if not target_shape or not any(target_shape):
        return tuple(pad), tuple(adj)
    pads, adjs = [], []
    for i, t in enumerate(target_shape):
        full = stride[i] * (sizes[i] - 1) + dilate[i] * (kernel[i] - 1) + 1
        if full < t:
            raise MXNetError(f"Deconvolution: too big target_shape {_fmt(target_shape)}: at most "
                             f"{full} in spatial dim {i}")
        total = full - t
        adjs.append(total % 2)
        pads.append((total + 1) // 2)
    return tuple(pads), tuple(adjs)


def _deconv_shapes(attrs, data_shape):
    """Input shapes MXNet infers from data for Deconvolution: weight (C_in, F/g, *kernel)."""
    k, f, g = tuple(attrs["kernel"]), attrs["num_filter"], attrs.get("num_group", 1)
    if _channel_last(attrs.get("layout")):
        out = {"weight": (data_shape[-1],) + k + (f // g,)}
    else:
        out = {"weight": (data_shape[1], f // g) + k}
    if not attrs.get("no_bias", True):
        out["bias"] = (f,)
    return out


@register("Deconvolution",
          param_shapes=param_shapes_from(_deconv_shapes, ("data", "weight", "bias")))
def deconvolution(data, weight, bias=None, *, kernel: Shape, stride: Shape = (), dilate: Shape = (),
                  pad: Shape = (), adj: Shape = (), target_shape: Shape = (), num_filter: Int,
                  num_group: Int = 1, workspace: Int = 512, no_bias: Bool = True,
                  cudnn_tune: CudnnTune = None, cudnn_off: Bool = False, layout: Layout = None):
    """Transposed convolution: out = (x-1) stride - 2 pad + dilate (k-1) + 1 + adj.

    weight is ``(C_in, num_filter/num_group, *kernel)``; ``no_bias`` defaults to True.
    """
    op = "Deconvolution"
    nd = _nsp(op, data, kernel, layout)
    stride, dilate, pad, adj = (_tuple(op, n, v, nd, d) for n, v, d in
                                (("stride", stride, 1), ("dilate", dilate, 1), ("pad", pad, 0),
                                 ("adj", adj, 0)))
    if target_shape:
        _tuple(op, "target_shape", target_shape, nd, 0)
    _check_inputs(op, bias, no_bias)
    x, w = _to_ncx(data, layout), weight
    if _channel_last(layout):  # weight (C_in, *kernel, F/g) -> (C_in, F/g, *kernel)
        w = jnp.moveaxis(w, -1, 1)
    chans, sizes = x.shape[1], x.shape[2:]
    if num_group < 1 or chans % num_group or num_filter % num_group:
        raise MXNetError(f"{op}: input channels {chans} and num_filter={num_filter} must be "
                         f"divisible by num_group={num_group} (data {_fmt(data.shape)})")
    wshape = (chans, num_filter // num_group, *kernel)
    if tuple(w.shape) != wshape:
        exp = (chans, *kernel, num_filter // num_group) if _channel_last(layout) else wshape
        raise MXNetError(f"{op}: weight has shape {_fmt(weight.shape)}, expected {_fmt(exp)} "
                         f"for data {_fmt(data.shape)}, kernel={_fmt(kernel)}, "
                         f"num_filter={num_filter}, num_group={num_group}")
    if bias is not None and tuple(bias.shape) != (num_filter,):
        raise MXNetError(f"{op}: bias has shape {_fmt(bias.shape)}, expected ({num_filter},)")
    pad, adj = deconv_pads(sizes, kernel, stride, dilate, pad, adj, target_shape)
    g = num_group
    # (C_in, F/g, k) -> (g, C_in/g, F/g, k) -> (g, F/g, C_in/g, k) -> (F, C_in/g, k), flipped
    w = w.reshape((g, chans // g, num_filter // g) + tuple(kernel))
    w = jnp.swapaxes(w, 1, 2).reshape((num_filter, chans // g) + tuple(kernel))
    w = jnp.flip(w, axis=tuple(range(2, 2 + nd))).astype(x.dtype)
    padding = []
    for i in range(nd):
        dk = dilate[i] * (kernel[i] - 1)
        padding.append((dk - pad[i], dk - pad[i] + adj[i]))
    out = lax.conv_general_dilated(
        x, w, window_strides=(1,) * nd, padding=padding, lhs_dilation=stride,
        rhs_dilation=dilate, dimension_numbers=_dimension_numbers(nd, None),
        feature_group_count=g, precision=_precision(x))
    for i in range(nd):
        if out.shape[2 + i] <= 0:
            raise MXNetError(f"{op}: output size {out.shape[2 + i]} <= 0 for data "
                             f"{_fmt(data.shape)}, kernel={_fmt(kernel)}, pad={_fmt(pad)}")
    out = _add_bias(out, bias, nd, None)
    return _from_ncx(out, layout)


deconvolution.infer_shapes = _deconv_shapes


# ---- Pooling ---------------------------------------------------------------------------------
def _pool_geometry(op, sizes, kernel, stride, pad, convention):
    """Per spatial dim: (out size, extra right padding) for valid/full/same."""
    outs, extra = [], []
    for n, k, s, p in zip(sizes, kernel, stride, pad):
        if k > n + 2 * p:
            raise MXNetError(f"{op}: kernel size ({k}) exceeds input ({n} padded to {n + 2 * p})")
        if convention == "valid":
            o = (n + 2 * p - k) // s + 1
        elif convention == "full":
            o = -(-(n + 2 * p - k) // s) + 1
        else:  # same
            o = -(-n // s)
        outs.append(o)
        extra.append(max((o - 1) * s + k - (n + 2 * p), 0))
    return outs, extra


def _avg_divisor(sizes, kernel, stride, pad, outs, include_pad):
    """Window sizes for average pooling (MXNet/Caffe rule), as a broadcastable constant."""
    div = np.ones((), np.float64)
    for n, k, s, p, o in zip(sizes, kernel, stride, pad, outs):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if include_pad:
            cnt = end - start
        else:
            cnt = np.minimum(end, n) - np.maximum(start, 0)
        div = np.multiply.outer(div, np.maximum(cnt, 1))
    return div


def _pool_outputs(attrs):
    """MXNet's (MKLDNN build's) internal outputs: max pooling over an explicit NC* kernel keeps a
    hidden workspace output; only the pooled result exists here, the count is the graph's."""
    if attrs.get("pool_type", "max") != "max":
        return 1
    if attrs.get("global_pool") and not attrs.get("kernel"):
        return 1
    return 2 if attrs.get("layout") in (None, "NCW", "NCHW", "NCDHW") else 1


def _tiled_max_pool(x, window, strides, padding):
    """Max pooling whose windows tile the input (kernel == stride, no padding: LeNet's and
    most CNNs' 2x2/2) as a reshape and a max, with MXNet's gradient: all of it to the first
    maximum of each window in row-major order (as the reduce_window/select_and_scatter form,
    whose backward XLA:CPU runs as a slow scatter).  None where it does not apply."""
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return None
    axes = [i for i, (w, s) in enumerate(zip(window, strides)) if w != 1 or s != 1]
    if not axes or any(window[i] != strides[i] or padding[i] != (0, 0) for i in axes) \
            or any(padding[i] != (0, 0) for i in range(x.ndim)):
        return None
    outs = [x.shape[i] // window[i] for i in axes]
    if any(o < 1 for o in outs):
        return None
    return _tiled_max(x, tuple(axes), tuple(window[i] for i in axes))


def _tile_view(x, axes, ks):
    """x cropped to whole windows, reshaped so each pooled axis a becomes (a // k, k)."""
    shape = []
    idx = tuple(slice(0, (x.shape[i] // ks[axes.index(i)]) * ks[axes.index(i)]) if i in axes
                else slice(None) for i in range(x.ndim))
    xc = x[idx]
    for i, n in enumerate(xc.shape):
        if i in axes:
            k = ks[axes.index(i)]
            shape += [n // k, k]
        else:
            shape.append(n)
    return xc, xc.reshape(shape)


def _tiled_max(x, axes, ks):
    @jax.custom_vjp
    def f(x):
        _, xr = _tile_view(x, axes, ks)
        red = tuple(a + j + 1 for j, a in enumerate(axes))
        return jnp.maximum(jnp.max(xr, axis=red), jnp.finfo(x.dtype).min)

    def fwd(x):
        y = f(x)
        return y, (x, y)

    def bwd(res, g):
        x, y = res
        xc, xr = _tile_view(x, axes, ks)
        # expand y and g to the window shape (N, .., o, 1, ..), mark the first maximum
        exp = list(xr.shape)
        for j, a in enumerate(axes):
            exp[a + j + 1] = 1
        ye, ge = y.reshape(exp), g.reshape(exp)
        eq = xr == ye
        # first maximum in row-major window order: position p wins if no earlier one matched
        kk = math.prod(ks)
        pos = None
        for j, a in enumerate(axes):
            shp = [1] * xr.ndim
            shp[a + j + 1] = ks[j]
            io = lax.broadcasted_iota(jnp.int32, shp, a + j + 1)
            stride = math.prod(ks[j + 1:])
            pos = io * stride if pos is None else pos + io * stride
        red = tuple(a + j + 1 for j, a in enumerate(axes))
        first = jnp.min(jnp.where(eq, pos, kk), axis=red, keepdims=True)
        dx = jnp.where(pos == first, ge, jnp.zeros((), g.dtype)).reshape(xc.shape)
        if xc.shape != x.shape:
            dx = jnp.pad(dx, [(0, n - m) for n, m in zip(x.shape, xc.shape)])
        return (dx.astype(x.dtype),)

    f.defvjp(fwd, bwd)
    return f(x)


@register("Pooling", "Pooling_v1", num_outputs=_pool_outputs,  # (Pooling_v1: a subset of
          num_visible=1)                                   # the attributes, the same math)
def pooling(data, *, kernel: Shape = (), pool_type: choice("avg", "lp", "max", "sum") = "max",
            global_pool: Bool = False, cudnn_off: Bool = False,
            pooling_convention: choice("full", "same", "valid") = "valid", stride: Shape = (),
            pad: Shape = (), p_value: optional(Int) = None,
            count_include_pad: optional(Bool) = None,
            layout: optional(choice("NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC")) = None):
    """Max/avg/sum/lp pooling; stride defaults to 1 (not to the kernel, unlike Gluon)."""
    op = "Pooling"
    nd = _nsp(op, data, () if global_pool else kernel, layout)
    x, cl = data, _channel_last(layout)
    sizes = x.shape[1:-1] if cl else x.shape[2:]
    if global_pool:
        kernel, stride, pad = tuple(sizes), (1,) * nd, (0,) * nd
        convention = "valid"
    else:
        if not kernel:
            raise MXNetError(f"{op}: kernel is required unless global_pool=True")
        if pooling_convention == "same":
            _same_pad_check(op, pad or (0,) * nd)
        # MXNet reads only the first nd entries of a longer stride or pad
        stride = _tuple(op, "stride", tuple(stride)[:nd], nd, 1)
        pad = _tuple(op, "pad", tuple(pad)[:nd], nd, 0)
        convention = pooling_convention
        if convention == "same" and (pool_type != "max" or nd != 1):
            raise MXNetError(f"{op}: pooling_convention='same' supports only 1-D max pooling "
                             f"(data {_fmt(data.shape)}, pool_type={pool_type!r})")
    outs, extra = _pool_geometry(op, sizes, kernel, stride, pad, convention)
    if convention == "same":
        pads = [(e // 2, e - e // 2) for e in extra]
    else:
        pads = [(p, p + e) for p, e in zip(pad, extra)]
    # the window runs over the spatial axes where they are: no transposes for channel-last
    if cl:
        window, strides = (1,) + tuple(kernel) + (1,), (1,) + tuple(stride) + (1,)
        padding = ((0, 0),) + tuple(pads) + ((0, 0),)
    else:
        window, strides = (1, 1) + tuple(kernel), (1, 1) + tuple(stride)
        padding = ((0, 0), (0, 0)) + tuple(pads)
    # Python-scalar identities (0, -inf) let JAX recognise the sum/max monoids and
    # differentiate reduce_window
    whole = all(p == (0, 0) and (k == n or (k == 1 and s == 1))
                for k, n, s, p in zip(window, x.shape, strides, padding))

    def wsum(v):
        if whole:   # one window over all of each pooled axis (global pooling): a plain sum,
            # whose gradient is a broadcast, not a padded window sum of the whole input
            return jnp.sum(v, axis=tuple(i for i, k in enumerate(window) if k > 1),
                           keepdims=True)
        return lax.reduce_window(v, 0, lax.add, window, strides, padding)

    if pool_type == "max":
        tiled = _tiled_max_pool(x, window, strides, padding)
        if tiled is not None:
            out = tiled
        elif jnp.issubdtype(x.dtype, jnp.floating):
            out = lax.reduce_window(x, -np.inf, lax.max, window, strides, padding)
            # MXNet starts from the lowest finite value: a window of padding only gives it
            out = jnp.maximum(out, jnp.finfo(x.dtype).min)
        else:
            out = lax.reduce_window(x, int(jnp.iinfo(x.dtype).min), lax.max, window, strides,
                                    padding)
    elif pool_type == "lp":
        if p_value is None:
            raise MXNetError(f"{op}: p_value is required for pool_type='lp'")
        if p_value == 1:
            out = wsum(x)
        elif p_value == 2:
            out = jnp.sqrt(wsum(x * x))
        else:
            s = wsum(x ** p_value)
            out = jnp.sign(s) * jnp.abs(s) ** (1.0 / p_value)
    else:
        out = wsum(x)
        if pool_type == "avg":
            include = True if count_include_pad is None else count_include_pad
            div = _avg_divisor(sizes, kernel, stride, pad, outs, include)
            out = out / jnp.asarray(div[..., None] if cl else div, dtype=x.dtype)
    return out.astype(data.dtype)


# ---- UpSampling ------------------------------------------------------------------------------
def _nearest(x, oh, ow):
    sh, sw = oh // x.shape[2], ow // x.shape[3]
    return jnp.repeat(jnp.repeat(x, sh, axis=2), sw, axis=3)


def _upsampling_shapes(attrs, data_shape):
    if attrs.get("sample_type") != "bilinear":
        return {}
    k = 2 * attrs["scale"] - attrs["scale"] % 2
    return {"weight": (data_shape[1], 1, k, k)}


@register("UpSampling", param_shapes=param_shapes_from(_upsampling_shapes, ("data", "weight")),
          input_init={"weight": '["bilinear", {}]'})
def upsampling(*data, scale: bounded(Int, 1), num_filter: Int = 0,
               sample_type: choice("bilinear", "nearest"),
               multi_input_mode: choice("concat", "sum") = "concat", num_args: Int = 1,
               workspace: Int = 512):
    """Nearest: every input is repeated up to (H0*scale, W0*scale) of the first input, then
    concatenated on channels (or summed). Bilinear: inputs (data, weight) and a depthwise
    Deconvolution with kernel 2*scale - scale%2, stride scale, pad ceil((scale-1)/2)."""
    op = "UpSampling"
    if sample_type == "bilinear":
        if len(data) != 2:
            raise MXNetError(f"{op}: bilinear sampling takes 2 inputs (data, weight), got "
                             f"{len(data)}")
        x, w = data
        k = 2 * scale - scale % 2
        p = int(math.ceil((scale - 1) / 2.0))
        c = x.shape[1]
        return deconvolution(x, w, kernel=(k, k), stride=(scale, scale), pad=(p, p),
                             num_filter=c, num_group=c, no_bias=True)
    for x in data:
        if x.ndim != 4:
            raise MXNetError(f"{op}: nearest upsampling takes 4-D (N, C, H, W) inputs, got "
                             f"{_fmt(x.shape)}")
    oh, ow = data[0].shape[2] * scale, data[0].shape[3] * scale
    for x in data:
        if oh % x.shape[2] or ow % x.shape[3]:
            raise MXNetError(f"{op}: input {_fmt(x.shape)} cannot be upsampled to ({oh}, {ow})")
    ups = [_nearest(x, oh, ow) for x in data]
    if len(ups) == 1:
        return ups[0]
    if multi_input_mode == "sum":
        out = ups[0]
        for u in ups[1:]:
            out = out + u
        return out
    return jnp.concatenate(ups, axis=1)


upsampling.infer_shapes = _upsampling_shapes


# ---- im2col / col2im -------------------------------------------------------------------------
def _im2col(data, kernel, stride, dilate, pad):
    patches = lax.conv_general_dilated_patches(
        data, filter_shape=kernel, window_strides=stride, padding=[(p, p) for p in pad],
        rhs_dilation=dilate, precision=lax.Precision.HIGHEST)
    return patches.reshape(patches.shape[:2] + (-1,))


def _geom(op, data, kernel, stride, dilate, pad):
    nd = len(kernel)
    return (_tuple(op, "stride", stride, nd, 1), _tuple(op, "dilate", dilate, nd, 1),
            _tuple(op, "pad", pad, nd, 0))


@register("im2col")
def im2col(data, *, kernel: Shape, stride: Shape = (), dilate: Shape = (), pad: Shape = ()):
    """(N, C, *spatial) -> (N, C*prod(kernel), L): sliding blocks, channel-major."""
    _nsp("im2col", data, kernel)
    stride, dilate, pad = _geom("im2col", data, kernel, stride, dilate, pad)
    return _im2col(data, tuple(kernel), stride, dilate, pad)


@register("col2im")
def col2im(data, *, output_size: Shape, kernel: Shape, stride: Shape = (), dilate: Shape = (),
           pad: Shape = ()):
    """The adjoint of im2col: sums the blocks of (N, C*prod(kernel), L) back into an image."""
    stride, dilate, pad = _geom("col2im", data, kernel, stride, dilate, pad)
    kprod = math.prod(kernel)
    if data.ndim != 3 or data.shape[1] % kprod:
        raise MXNetError(f"col2im: data {_fmt(data.shape)} must be (N, C*{kprod}, L)")
    img = jax.ShapeDtypeStruct((data.shape[0], data.shape[1] // kprod) + tuple(output_size),
                               data.dtype)
    f = jax.linear_transpose(lambda x: _im2col(x, tuple(kernel), stride, dilate, pad), img)
    return f(data)[0]
