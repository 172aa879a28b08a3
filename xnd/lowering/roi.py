"""Region-of-interest pooling: ``ROIPooling``, ``_contrib_ROIAlign``, ``_contrib_PSROIPooling``
and ``_contrib_DeformablePSROIPooling``.

Each pooled bin is a weighted sum (or max) over a rectangle of the feature map that is a
product of a row window and a column window, so the ops build, per ROI, a (pooled, H) row
matrix and a (pooled, W) column matrix and contract them with the feature map (one matmul
chain instead of per-sample gathers; exact for any ROI size). The ROI's batch index picks
its image through a one-hot contraction over the batch.

rois are (R, 5) rows [batch_index, x1, y1, x2, y2] in image coordinates (MXNet 1.9.1 rejects
other widths); they get no gradient, as in MXNet.
"""

import jax.numpy as jnp
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Float, Int, Shape
from .nn_common import fmt
from .registry import register

_HI = lax.Precision.HIGHEST


def _check(op, data, rois, pooled_size=None):
    """data (N, C, H, W), rois (R, 5) and, for the 2-D pools, pooled_size (ph, pw)."""
    if data.ndim != 4:
        raise MXNetError(f"Operator {op}: data must be 4-D (N, C, H, W), got {fmt(data.shape)}")
    if rois.ndim != 2 or rois.shape[1] != 5:
        raise MXNetError(f"Operator {op}: rois must be (num_rois, 5) [batch_index, x1, y1, x2, "
                         f"y2], got {fmt(rois.shape)}")
    if pooled_size is not None and len(pooled_size) != 2:
        raise MXNetError(f"Operator {op}: pooled_size must have 2 values, got {pooled_size}")


def _pool(data, batch, rows, cols, channel_of=None):
    """out[r, c, i, j] = sum_{h,w} rows[r, i, h] * cols[r, j, w] * data[batch[r], ch, h, w]
    with ch = c, or channel_of[c, i, j] (position-sensitive pooling); batch < 0 or past the
    batch gives zeros."""
    n = data.shape[0]
    onehot = (batch[:, None] == jnp.arange(n)[None, :]).astype(data.dtype)       # (R, N)
    rb = jnp.einsum("rn,rih->rnih", onehot, rows.astype(data.dtype))
    t = jnp.einsum("rnih,nchw->rciw", rb, data, precision=_HI)
    out = jnp.einsum("rciw,rjw->rcij", t, cols.astype(data.dtype), precision=_HI)
    if channel_of is None:
        return out
    p, q = rows.shape[1], cols.shape[1]
    i, j = jnp.arange(p)[:, None], jnp.arange(q)[None, :]
    return out[:, channel_of, i, j]


def _box_mask(start, end, size):
    """(R, P, size): 1 where start <= index < end (integer windows)."""
    idx = jnp.arange(size)
    return (idx >= start[..., None]) & (idx < end[..., None])


# ---- ROIPooling ------------------------------------------------------------------------------
def _windows(start, length, pooled, size):
    bin_size = length.astype(jnp.float32) / pooled
    p = jnp.arange(pooled, dtype=jnp.float32)
    lo = jnp.floor(p[None] * bin_size[:, None]).astype(jnp.int32) + start[:, None]
    hi = jnp.ceil((p[None] + 1) * bin_size[:, None]).astype(jnp.int32) + start[:, None]
    return jnp.clip(lo, 0, size), jnp.clip(hi, 0, size)


def _round(x):  # C's round: halves away from zero
    return (jnp.sign(x) * jnp.floor(jnp.abs(x) + 0.5)).astype(jnp.int32)


@register("ROIPooling", "_npx_roi_pooling")
def roi_pooling(data, rois, *, pooled_size: Shape, spatial_scale: Float):
    """Max over each of pooled_size bins of the ROI (Fast R-CNN): corners rounded after
    scaling, size end - start + 1 (at least 1), bin b covering [floor(b*size/P),
    ceil((b+1)*size/P)) clipped to the map; an empty bin (or a bad batch index) gives 0.
    The gradient goes to the maximum (shared between equal maxima)."""
    op = "ROIPooling"
    _check(op, data, rois, pooled_size)
    n, c, h, w = data.shape
    ph, pw = pooled_size
    r = lax.stop_gradient(rois).astype(jnp.float32)
    batch = r[:, 0].astype(jnp.int32)
    x1, y1 = _round(r[:, 1] * spatial_scale), _round(r[:, 2] * spatial_scale)
    x2, y2 = _round(r[:, 3] * spatial_scale), _round(r[:, 4] * spatial_scale)
    hs, he = _windows(y1, jnp.maximum(y2 - y1 + 1, 1), ph, h)
    ws, we = _windows(x1, jnp.maximum(x2 - x1 + 1, 1), pw, w)
    mh, mw = _box_mask(hs, he, h), _box_mask(ws, we, w)                    # (R, P, H), (R, Q, W)
    valid = (batch >= 0) & (batch < n)
    img = data[jnp.clip(batch, 0, n - 1)]                                  # (R, C, H, W)
    neg = jnp.asarray(-jnp.inf, data.dtype)
    # max over columns of each column bin, then over rows of each row bin
    t = jnp.max(jnp.where(mw[:, None, None, :, :], img[:, :, :, None, :], neg), axis=-1)
    out = jnp.max(jnp.where(mh[:, None, :, None, :], jnp.swapaxes(t, 2, 3)[:, :, None], neg),
                  axis=-1)
    empty = ~(jnp.any(mh, -1)[:, :, None] & jnp.any(mw, -1)[:, None, :]) | ~valid[:, None, None]
    return jnp.where(empty[:, None], jnp.zeros((), data.dtype), out)


# ---- ROIAlign --------------------------------------------------------------------------------
def _sample_weight(y, size, cell):
    """The bilinear weight on ``cell`` of a sample at y on a grid of ``size`` cells, with
    Detectron's border rules: outside [-1, size] nothing, clamped at 0 and size - 1."""
    valid = (y >= -1.0) & (y <= size)
    y = jnp.maximum(y, 0.0)
    low = jnp.floor(y).astype(jnp.int32)
    edge = low >= size - 1
    low = jnp.where(edge, size - 1, low)
    high = jnp.where(edge, size - 1, low + 1)
    y = jnp.where(edge, low.astype(y.dtype), y)
    ly = y - low
    wgt = jnp.where(cell == low, 1 - ly, 0.0) + jnp.where(cell == high, ly, 0.0)
    return jnp.where(valid, wgt, 0.0)


def _align_matrix(start, length, pooled, size, sample_ratio):
    """(R, pooled, size): the mean over each bin's sample points of their bilinear weights.

    With sample_ratio <= 0 a ROI takes ceil(length / pooled) points per bin; only the
    points near a cell can weigh on it (at most 5 of them, as the spacing is then >= 0.5),
    so those are enumerated instead of a worst-case grid."""
    bin_size = length / pooled
    p = jnp.arange(pooled, dtype=length.dtype)
    if sample_ratio > 0:
        g = jnp.full_like(length, sample_ratio)
        k = jnp.arange(sample_ratio, dtype=length.dtype)
        d = bin_size / g
        y = start[:, None, None] + p[None, :, None] * bin_size[:, None, None] + \
            (k[None, None, :] + 0.5) * d[:, None, None]                            # (R, P, G)
        cell = jnp.arange(size)
        wgt = _sample_weight(y[..., None], size, cell)                              # (R,P,G,S)
        return jnp.sum(wgt, axis=2) / g[:, None, None]
    g = jnp.maximum(jnp.ceil(length / pooled), 1.0)
    d = bin_size / g
    y0 = start[:, None] + p[None, :] * bin_size[:, None] + 0.5 * d[:, None]          # (R, P)
    cell = jnp.arange(size, dtype=length.dtype)
    first = jnp.maximum(jnp.ceil((cell[None, None, :] - 1 - y0[..., None]) / d[:, None, None]), 0)
    total = jnp.zeros(y0.shape + (size,), length.dtype)
    for k in range(6):
        iy = first + k                                                             # (R, P, S)
        y = y0[..., None] + iy * d[:, None, None]
        own = _sample_weight(y, size, cell.astype(jnp.int32)[None, None, :])
        total = total + jnp.where(iy < g[:, None, None], own, 0.0)
    return total / g[:, None, None]


@register("_contrib_ROIAlign")
def roi_align(data, rois, *, pooled_size: Shape, spatial_scale: Float, sample_ratio: Int = -1,
              position_sensitive: Bool = False, aligned: Bool = False):
    """Average of bilinear samples in each bin (Mask R-CNN): ROI corners scaled (minus 0.5
    with aligned), size at least 1 unless aligned, sample_ratio points per bin side (or
    ceil(size / pooled)). position_sensitive: output channel c of bin (i, j) reads input
    channel (c * ph + i) * pw + j. A ROI with a negative batch index gives zeros."""
    op = "_contrib_ROIAlign"
    _check(op, data, rois, pooled_size)
    n, c, h, w = data.shape
    ph, pw = pooled_size
    if position_sensitive and c % (ph * pw):
        raise MXNetError(f"Operator {op}: position_sensitive needs channels {c} divisible by "
                         f"pooled_size {ph}x{pw}")
    r = lax.stop_gradient(rois).astype(jnp.float32)
    batch, box = r[:, 0].astype(jnp.int32), r[:, 1:]
    off = 0.5 if aligned else 0.0
    box = box * spatial_scale - off
    bw, bh = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
    if not aligned:
        bw, bh = jnp.maximum(bw, 1.0), jnp.maximum(bh, 1.0)
    rows = _align_matrix(box[:, 1], bh, ph, h, sample_ratio)
    cols = _align_matrix(box[:, 0], bw, pw, w, sample_ratio)
    chan = None
    if position_sensitive:
        co = c // (ph * pw)
        chan = (jnp.arange(co)[:, None, None] * ph + jnp.arange(ph)[None, :, None]) * pw + \
            jnp.arange(pw)[None, None, :]
    out = _pool(data, batch, rows, cols, chan)
    return jnp.where((batch >= 0)[:, None, None, None], out, jnp.zeros((), data.dtype))


# ---- PSROIPooling ----------------------------------------------------------------------------
@register("_contrib_PSROIPooling")
def psroi_pooling(data, rois, *, spatial_scale: Float, output_dim: Int, pooled_size: Int,
                  group_size: Int = 0):
    """Position-sensitive average pooling (R-FCN): corners rounded then scaled, the end
    corner + 1, size at least 0.1; bin (i, j) averages channel (c * G + gi) * G + gj of its
    window (gi = floor(i * G / pooled_size), G = group_size or pooled_size); empty bins 0."""
    op = "_contrib_PSROIPooling"
    _check(op, data, rois)
    g = group_size if group_size > 0 else pooled_size
    n, c, h, w = data.shape
    if c != output_dim * g * g:
        raise MXNetError(f"Operator {op}: data has {c} channels, expected output_dim * "
                         f"group_size^2 = {output_dim * g * g}")
    dt = data.dtype
    r = lax.stop_gradient(rois).astype(dt)
    batch = r[:, 0].astype(jnp.int32)
    rnd = lambda v: jnp.sign(v) * jnp.floor(jnp.abs(v) + 0.5)  # noqa: E731 (C's round)
    x1, y1 = rnd(r[:, 1]) * spatial_scale, rnd(r[:, 2]) * spatial_scale
    x2, y2 = (rnd(r[:, 3]) + 1.0) * spatial_scale, (rnd(r[:, 4]) + 1.0) * spatial_scale
    p = jnp.arange(pooled_size, dtype=dt)

    def win(start, length, size):
        bin_size = jnp.maximum(length, 0.1) / pooled_size
        lo = jnp.floor(p[None] * bin_size[:, None] + start[:, None]).astype(jnp.int32)
        hi = jnp.ceil((p[None] + 1) * bin_size[:, None] + start[:, None]).astype(jnp.int32)
        return _box_mask(jnp.clip(lo, 0, size), jnp.clip(hi, 0, size), size)

    mh, mw = win(y1, y2 - y1, h), win(x1, x2 - x1, w)
    area = jnp.sum(mh, -1)[:, :, None] * jnp.sum(mw, -1)[:, None, :]              # (R, P, P)
    gi = jnp.clip(jnp.floor(jnp.arange(pooled_size) * g / pooled_size).astype(jnp.int32), 0, g - 1)
    chan = (jnp.arange(output_dim)[:, None, None] * g + gi[None, :, None]) * g + gi[None, None, :]
    s = _pool(data, batch, mh, mw, chan)
    return jnp.where(area[:, None] > 0, s / jnp.maximum(area, 1)[:, None].astype(dt),
                     jnp.zeros((), dt))


# ---- DeformablePSROIPooling ------------------------------------------------------------------
def _dpsroi_visible(attrs):
    return 1


@register("_contrib_DeformablePSROIPooling", num_outputs=2, num_visible=_dpsroi_visible,
          output_names=("output", "top_count"))
def deformable_psroi_pooling(data, rois, trans=None, *, spatial_scale: Float, output_dim: Int,
                             group_size: Int, pooled_size: Int, part_size: Int = 0,
                             sample_per_part: Int = 1, trans_std: Float = 0.0,
                             no_trans: Bool = False):
    """Deformable position-sensitive pooling (Deformable R-FCN): bin (i, j) of class-channel
    c averages sample_per_part^2 bilinear samples of channel (c * G + gi) * G + gj, its start
    shifted by trans (N_rois, 2 * classes, part_size, part_size) * trans_std * the ROI size;
    the ROI corners are rounded, scaled and moved by -0.5. Samples beyond half a pixel
    outside the map are left out of the mean; inside it they are clamped to the map (and
    trans gets the interpolation's slope there, as in MXNet). Returns (out, top_count)."""
    op = "_contrib_DeformablePSROIPooling"
    _check(op, data, rois)
    if not no_trans and trans is None:
        raise MXNetError(f"Operator {op}: expects 3 inputs [data, rois, trans] "
                         f"(no_trans=False)")
    n, c, h, w = data.shape
    g, p = group_size, pooled_size
    part = part_size if part_size > 0 else p
    if c != output_dim * g * g:
        raise MXNetError(f"Operator {op}: data has {c} channels, expected output_dim * "
                         f"group_size^2 = {output_dim * g * g}")
    dt = data.dtype
    r = lax.stop_gradient(rois).astype(dt)
    nr = r.shape[0]
    batch = r[:, 0].astype(jnp.int32)
    rnd = lambda v: jnp.sign(v) * jnp.floor(jnp.abs(v) + 0.5)  # noqa: E731 (C's round)
    x1, y1 = rnd(r[:, 1]) * spatial_scale - 0.5, rnd(r[:, 2]) * spatial_scale - 0.5
    x2, y2 = (rnd(r[:, 3]) + 1.0) * spatial_scale - 0.5, (rnd(r[:, 4]) + 1.0) * spatial_scale - 0.5
    rw, rh = jnp.maximum(x2 - x1, 0.1), jnp.maximum(y2 - y1, 0.1)
    bw, bh = rw / p, rh / p
    pi = jnp.arange(p)
    part_i = jnp.floor(pi.astype(dt) / p * part).astype(jnp.int32)
    if no_trans or trans is None:
        tx = ty = jnp.zeros((nr, output_dim, p, p), dt)
    else:
        if trans.ndim != 4 or trans.shape[0] != nr or trans.shape[2:] != (part, part) or \
                trans.shape[1] % 2:
            raise MXNetError(f"Operator {op}: trans {fmt(trans.shape)} must be ({nr}, "
                             f"2 * num_classes, {part}, {part})")
        classes = trans.shape[1] // 2
        cls = jnp.arange(output_dim) // (output_dim // classes)
        t = trans.reshape(nr, classes, 2, part, part).astype(dt) * trans_std
        sel = t[:, cls][:, :, :, part_i][:, :, :, :, part_i]                       # (R,D,2,P,P)
        tx, ty = sel[:, :, 0], sel[:, :, 1]
    ws = pi[None, None, None, :] * bw[:, None, None, None] + x1[:, None, None, None] + \
        tx * rw[:, None, None, None]                                                # (R,D,P,P)
    hs = pi[None, None, :, None] * bh[:, None, None, None] + y1[:, None, None, None] + \
        ty * rh[:, None, None, None]
    k = jnp.arange(sample_per_part, dtype=dt)
    sw = ws[..., None, None] + k[None, :] * (bw / sample_per_part)[:, None, None, None, None, None]
    sh = hs[..., None, None] + k[:, None] * (bh / sample_per_part)[:, None, None, None, None, None]
    sw, sh = jnp.broadcast_arrays(sw, sh)                                          # (R,D,P,P,S,S)
    ok = (sw >= -0.5) & (sw <= w - 0.5) & (sh >= -0.5) & (sh <= h - 0.5)
    # clamp to the map; the slope still reaches trans (MXNet's backward ignores the clamp)
    xc = sw + lax.stop_gradient(jnp.clip(sw, 0, w - 1) - sw)
    yc = sh + lax.stop_gradient(jnp.clip(sh, 0, h - 1) - sh)
    xl, yl = jnp.floor(lax.stop_gradient(xc)), jnp.floor(lax.stop_gradient(yc))
    xh, yh = jnp.ceil(lax.stop_gradient(xc)), jnp.ceil(lax.stop_gradient(yc))
    dx, dy = xc - xl, yc - yl
    gi = jnp.clip(jnp.floor(pi * g / p).astype(jnp.int32), 0, g - 1)
    chan = (jnp.arange(output_dim)[:, None, None] * g + gi[None, :, None]) * g + gi[None, None, :]
    img = data[jnp.clip(batch, 0, n - 1)].reshape(nr, c, h * w)
    base = (chan * (h * w))[None, :, :, :, None, None]                              # (1,D,P,P,1,1)

    def at(yy, xx):
        idx = base + yy.astype(jnp.int32) * w + xx.astype(jnp.int32)
        return jnp.take_along_axis(img.reshape(nr, -1), idx.reshape(nr, -1), axis=1).reshape(idx.shape)

    val = (1 - dx) * (1 - dy) * at(yl, xl) + (1 - dx) * dy * at(yh, xl) + \
        dx * (1 - dy) * at(yl, xh) + dx * dy * at(yh, xh)
    val = jnp.where(ok, val, 0)
    count = jnp.sum(ok, axis=(-2, -1)).astype(dt)
    out = jnp.where(count > 0, jnp.sum(val, axis=(-2, -1)) / jnp.maximum(count, 1), 0)
    return out.astype(dt), count
