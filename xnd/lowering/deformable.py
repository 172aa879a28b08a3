"""Deformable convolutions: ``_contrib_DeformableConvolution`` (v1) and
``_contrib_ModulatedDeformableConvolution`` (v2, with a mask), 2-D, as MXNet 1.9.1's CPU
kernels compute them.

Tap (i, j) of output position (y, x) reads the input at (y * stride - pad + i * dilate + dy,
x * stride - pad + j * dilate + dx) bilinearly, where (dy, dx) are offset channels 2k and
2k + 1 (k = i * kw + j) of the tap's deformable group; v2 multiplies the value by mask
channel k. The sampled columns then meet the weight as in a grouped convolution. The
kernels differ at the border, as MXNet's do: v1 samples only points inside [0, H) x [0, W)
(clamping the last row/column), v2 points inside (-1, H) x (-1, W) with zeros beyond the
map. Gradients (data, offset, mask, weight, bias) are the derivatives of these formulas.
"""
import jax.numpy as jnp
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Int, Shape, choice, optional
from .nn_common import fmt, param_shapes_from
from .registry import register

_HI = lax.Precision.HIGHEST


def _gather(img, hi, wi, w):
    """img (N, G, Cg, H*W) at integer (N, G, K, OH, OW) positions: (N, G, Cg, K, OH, OW)."""
    n, g, cg, _ = img.shape
    idx = (hi * w + wi).reshape(n, g, 1, -1)
    v = jnp.take_along_axis(img, jnp.broadcast_to(idx, (n, g, cg, idx.shape[-1])), axis=3)
    return v.reshape((n, g, cg) + hi.shape[2:])


def _sample_v1(img, h, w, size_h, size_w):
    inside = (h >= 0) & (w >= 0) & (h < size_h) & (w < size_w)
    hl, wl = jnp.floor(h), jnp.floor(w)
    h = jnp.where(hl >= size_h - 1, hl, h)
    w = jnp.where(wl >= size_w - 1, wl, w)
    hl_i = jnp.clip(hl, 0, size_h - 1).astype(jnp.int32)
    wl_i = jnp.clip(wl, 0, size_w - 1).astype(jnp.int32)
    hh_i, wh_i = jnp.minimum(hl_i + 1, size_h - 1), jnp.minimum(wl_i + 1, size_w - 1)
    lh, lw = h - hl, w - wl
    out = 0
    for hi, wi, wgt in ((hl_i, wl_i, (1 - lh) * (1 - lw)), (hl_i, wh_i, (1 - lh) * lw),
                        (hh_i, wl_i, lh * (1 - lw)), (hh_i, wh_i, lh * lw)):
        out = out + _gather(img, hi, wi, size_w) * jnp.where(inside, wgt, 0)[:, :, None]
    return out


def _sample_v2(img, h, w, size_h, size_w):
    inside = (h > -1) & (w > -1) & (h < size_h) & (w < size_w)
    hl, wl = jnp.floor(h), jnp.floor(w)
    lh, lw = h - hl, w - wl
    hl_i, wl_i = hl.astype(jnp.int32), wl.astype(jnp.int32)
    out = 0
    for hi, wi, wgt in ((hl_i, wl_i, (1 - lh) * (1 - lw)), (hl_i, wl_i + 1, (1 - lh) * lw),
                        (hl_i + 1, wl_i, lh * (1 - lw)), (hl_i + 1, wl_i + 1, lh * lw)):
        ok = inside & (hi >= 0) & (wi >= 0) & (hi <= size_h - 1) & (wi <= size_w - 1)
        v = _gather(img, jnp.clip(hi, 0, size_h - 1), jnp.clip(wi, 0, size_w - 1), size_w)
        out = out + v * jnp.where(ok, wgt, 0)[:, :, None]
    return out


def _deform_conv(op, data, offset, mask, weight, bias, kernel, stride, dilate, pad, num_filter,
                 num_group, num_deformable_group, no_bias, sample):
    if data.ndim != 4 or len(kernel) != 2:
        raise MXNetError(f"Operator {op}: only 2-D (N, C, H, W) data with a 2-D kernel is "
                         f"supported, got data {fmt(data.shape)} and kernel {kernel}")
    stride = stride or (1, 1)
    dilate = dilate or (1, 1)
    pad = pad or (0, 0)
    n, c, h, w = data.shape
    kh, kw = kernel
    gd, g = num_deformable_group, num_group
    oh = (h + 2 * pad[0] - (dilate[0] * (kh - 1) + 1)) // stride[0] + 1
    ow = (w + 2 * pad[1] - (dilate[1] * (kw - 1) + 1)) // stride[1] + 1
    k = kh * kw
    if c % g or c % gd or num_filter % g:
        raise MXNetError(f"Operator {op}: channels {c} and num_filter {num_filter} must divide "
                         f"by num_group={g}, channels by num_deformable_group={gd}")
    want = (n, 2 * gd * k, oh, ow)
    if tuple(offset.shape) != want:
        raise MXNetError(f"Operator {op}: offset has shape {fmt(offset.shape)}, expected "
                         f"{fmt(want)} for data {fmt(data.shape)}, kernel {kernel}")
    if mask is not None and tuple(mask.shape) != (n, gd * k, oh, ow):
        raise MXNetError(f"Operator {op}: mask has shape {fmt(mask.shape)}, expected "
                         f"{fmt((n, gd * k, oh, ow))}")
    if tuple(weight.shape) != (num_filter, c // g, kh, kw):
        raise MXNetError(f"Operator {op}: weight has shape {fmt(weight.shape)}, expected "
                         f"{fmt((num_filter, c // g, kh, kw))}")
    if no_bias != (bias is None):
        raise MXNetError(f"Operator {op}: expects {2 + (mask is not None) + (not no_bias) + 1} "
                         f"inputs (no_bias={no_bias})")
    dt = data.dtype
    off = offset.reshape(n, gd, k, 2, oh, ow).astype(dt)
    ki, kj = jnp.arange(kh), jnp.arange(kw)
    base_h = (jnp.arange(oh) * stride[0] - pad[0])[None, :, None] + \
        (jnp.repeat(ki, kw) * dilate[0])[:, None, None]                         # (K, OH, 1)
    base_w = (jnp.arange(ow) * stride[1] - pad[1])[None, None, :] + \
        (jnp.tile(kj, kh) * dilate[1])[:, None, None]                           # (K, 1, OW)
    ph = base_h.astype(dt)[None, None] + off[:, :, :, 0]                         # (N,Gd,K,OH,OW)
    pw = base_w.astype(dt)[None, None] + off[:, :, :, 1]
    img = data.reshape(n, gd, c // gd, h * w)
    cols = sample(img, ph, pw, h, w)                                            # (N,Gd,Cg,K,OH,OW)
    if mask is not None:
        cols = cols * mask.reshape(n, gd, 1, k, oh, ow).astype(dt)
    cols = cols.reshape(n, g, c // g, k, oh, ow)
    wt = weight.reshape(g, num_filter // g, c // g, k).astype(dt)
    out = jnp.einsum("gfck,ngckyx->ngfyx", wt, cols, precision=_HI).reshape(n, num_filter, oh, ow)
    if bias is not None:
        out = out + bias.astype(dt)[None, :, None, None]
    return out.astype(dt)


def _shapes(extra):
    def infer(attrs, data_shape):
        kh, kw = attrs["kernel"]
        c, f = data_shape[1], attrs["num_filter"]
        out = {"weight": (f, c // attrs.get("num_group", 1), kh, kw)}
        if not attrs.get("no_bias", False):
            out["bias"] = (f,)
        return out
    return param_shapes_from(infer, ("data",) + extra + ("weight", "bias"))


_LAYOUT = optional(choice("NCDHW", "NCHW", "NCW"))


@register("_contrib_DeformableConvolution", param_shapes=_shapes(("offset",)))
def deformable_convolution(data, offset, weight, bias=None, *, kernel: Shape,
                           stride: Shape = (), dilate: Shape = (), pad: Shape = (),
                           num_filter: Int, num_group: Int = 1, num_deformable_group: Int = 1,
                           workspace: Int = 1024, no_bias: Bool = False, layout: _LAYOUT = None):
    """Deformable convolution v1 (see module doc)."""
    return _deform_conv("_contrib_DeformableConvolution", data, offset, None, weight, bias,
                        kernel, stride, dilate, pad, num_filter, num_group,
                        num_deformable_group, no_bias, _sample_v1)


@register("_contrib_ModulatedDeformableConvolution", param_shapes=_shapes(("offset", "mask")))
def modulated_deformable_convolution(data, offset, mask, weight, bias=None, *, kernel: Shape,
                                     stride: Shape = (), dilate: Shape = (), pad: Shape = (),
                                     num_filter: Int, num_group: Int = 1,
                                     num_deformable_group: Int = 1, workspace: Int = 1024,
                                     no_bias: Bool = False, im2col_step: Int = 64,
                                     layout: _LAYOUT = None):
    """Modulated deformable convolution v2 (see module doc)."""
    return _deform_conv("_contrib_ModulatedDeformableConvolution", data, offset, mask, weight,
                        bias, kernel, stride, dilate, pad, num_filter, num_group,
                        num_deformable_group, no_bias, _sample_v2)
