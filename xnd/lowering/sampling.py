"""Sampling and matching operators: ``BilinearSampler``, ``GridGenerator``,
``SpatialTransformer`` and ``Correlation`` (FlowNet), as MXNet 1.9.1 computes them.

Sampling grids are (N, 2, H, W) with x then y in [-1, 1]; -1 and 1 are the centres of the
first and last pixels; the four neighbours outside the map count as 0. Gradients, also to
the grid and to an affine transform, are the derivatives of these formulas, as MXNet's.
"""
import math

import jax.numpy as jnp
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Int, Shape, choice, optional
from .nn_common import fmt
from .registry import register


def bilinear_sample(data, grid):
    """data (N, C, H, W) sampled at grid (N, 2, OH, OW): (N, C, OH, OW)."""
    n, c, h, w = data.shape
    x = (grid[:, 0] + 1) * (w - 1) / 2
    y = (grid[:, 1] + 1) * (h - 1) / 2
    x0, y0 = jnp.floor(x), jnp.floor(y)
    wx, wy = 1 - (x - x0), 1 - (y - y0)     # weights of the top-left neighbour
    x0, y0 = x0.astype(jnp.int32), y0.astype(jnp.int32)
    flat = data.reshape(n, c, h * w)

    def tap(yi, xi, wgt):
        inside = (xi >= 0) & (xi <= w - 1) & (yi >= 0) & (yi <= h - 1)
        idx = jnp.clip(yi, 0, h - 1) * w + jnp.clip(xi, 0, w - 1)               # (N, OH, OW)
        v = jnp.take_along_axis(flat, idx.reshape(n, 1, -1), axis=2).reshape(
            (n, c) + idx.shape[1:])
        return v * jnp.where(inside, wgt, 0)[:, None]

    out = tap(y0, x0, wy * wx) + tap(y0, x0 + 1, wy * (1 - wx)) + \
        tap(y0 + 1, x0, (1 - wy) * wx) + tap(y0 + 1, x0 + 1, (1 - wy) * (1 - wx))
    return out.astype(data.dtype)


@register("BilinearSampler")
def bilinear_sampler(data, grid, *, cudnn_off: optional(Bool) = None):
    """Bilinear sampling of data (N, C, H, W) at grid (N, 2, OH, OW) (see module doc)."""
    op = "BilinearSampler"
    if data.ndim != 4 or grid.ndim != 4 or grid.shape[1] != 2 or grid.shape[0] != data.shape[0]:
        raise MXNetError(f"Operator {op}: expects data (N, C, H, W) and grid (N, 2, H', W'), "
                         f"got {fmt(data.shape)} and {fmt(grid.shape)}")
    return bilinear_sample(data, grid.astype(data.dtype))


def _affine_grid(theta, h, w):
    dt = theta.dtype
    xs = -1 + 2 * jnp.arange(w, dtype=dt) / max(w - 1, 1)
    ys = -1 + 2 * jnp.arange(h, dtype=dt) / max(h - 1, 1)
    gx, gy = jnp.meshgrid(xs, ys)
    dst = jnp.stack([gx.reshape(-1), gy.reshape(-1), jnp.ones((h * w,), dt)])     # (3, HW)
    out = jnp.einsum("nij,jk->nik", theta.reshape(-1, 2, 3), dst,
                     precision=lax.Precision.HIGHEST)
    return out.reshape(-1, 2, h, w)


@register("GridGenerator")
def grid_generator(data, *, transform_type: choice("affine", "warp"),
                   target_shape: Shape = (0, 0)):
    """Sampling grids: 'affine': data (N, 6) row-major 2x3 matrices applied to the target
    grid's normalised (x, y, 1); 'warp': data (N, 2, H, W) pixel flows added to each pixel's
    position, normalised to [-1, 1]."""
    op = "GridGenerator"
    if transform_type == "affine":
        if data.ndim != 2 or data.shape[1] != 6:
            raise MXNetError(f"Operator {op}: affine data must be (N, 6), got {fmt(data.shape)}")
        if len(target_shape) != 2 or min(target_shape) <= 0:
            raise MXNetError(f"Operator {op}: affine needs target_shape (H, W), got "
                             f"{target_shape}")
        return _affine_grid(data, *target_shape)
    if data.ndim != 4 or data.shape[1] != 2:
        raise MXNetError(f"Operator {op}: warp data must be (N, 2, H, W), got {fmt(data.shape)}")
    h, w = data.shape[2:]
    dt = data.dtype
    gx = (data[:, 0] + jnp.arange(w, dtype=dt)[None, None, :]) / ((w - 1) / 2.0) - 1
    gy = (data[:, 1] + jnp.arange(h, dtype=dt)[None, :, None]) / ((h - 1) / 2.0) - 1
    return jnp.stack([gx, gy], axis=1).astype(dt)


@register("SpatialTransformer")
def spatial_transformer(data, loc, *, target_shape: Shape = (0, 0),
                        transform_type: choice("affine"), sampler_type: choice("bilinear"),
                        cudnn_off: optional(Bool) = None):
    """BilinearSampler(data, GridGenerator(loc, 'affine', target_shape)): loc (N, 6)."""
    op = "SpatialTransformer"
    if data.ndim != 4 or loc.ndim != 2 or loc.shape != (data.shape[0], 6):
        raise MXNetError(f"Operator {op}: expects data (N, C, H, W) and loc (N, 6), got "
                         f"{fmt(data.shape)} and {fmt(loc.shape)}")
    if len(target_shape) != 2 or min(target_shape) <= 0:
        raise MXNetError(f"Operator {op}: target_shape must be (H, W), got {target_shape}")
    return bilinear_sample(data, _affine_grid(loc.astype(data.dtype), *target_shape))


@register("Correlation", num_outputs=1)
def correlation(data1, data2, *, kernel_size: Int = 1, max_displacement: Int = 1,
                stride1: Int = 1, stride2: Int = 1, pad_size: Int = 0, is_multiply: Bool = True):
    """FlowNet's correlation: for each displacement (dx, dy) in steps of stride2 up to
    max_displacement (channel (dy/s2 + r) * (2r + 1) + dx/s2 + r, r = max_displacement //
    stride2), the mean over channels and a kernel_size window of data1 * shifted data2 (or
    |data1 - shifted data2|), at every stride1-th position of the zero-padded maps."""
    op = "Correlation"
    if data1.ndim != 4 or data1.shape != data2.shape:
        raise MXNetError(f"Operator {op}: data1 {fmt(data1.shape)} and data2 "
                         f"{fmt(data2.shape)} must be equal 4-D (N, C, H, W)")
    if kernel_size % 2 == 0:
        raise MXNetError(f"Operator {op}: kernel size should be odd number, got {kernel_size}")
    n, c, h, w = data1.shape
    kr = (kernel_size - 1) // 2
    border = max_displacement + kr
    ph, pw = h + 2 * pad_size, w + 2 * pad_size
    oh = int(math.ceil((ph - 2 * border) / stride1))
    ow = int(math.ceil((pw - 2 * border) / stride1))
    if oh <= 0 or ow <= 0:
        raise MXNetError(f"Operator {op}: the maps {fmt(data1.shape)} padded by {pad_size} are "
                         f"too small for max_displacement={max_displacement} and "
                         f"kernel_size={kernel_size}")
    r = max_displacement // stride2
    pad = ((0, 0), (0, 0), (pad_size, pad_size), (pad_size, pad_size))
    a, b = jnp.pad(data1, pad), jnp.pad(data2, pad)
    span_h, span_w = (oh - 1) * stride1 + kernel_size, (ow - 1) * stride1 + kernel_size
    base = a[:, :, max_displacement:max_displacement + span_h,
             max_displacement:max_displacement + span_w]
    # b is padded further so that every displacement's window is in range
    extra = r * stride2
    b = jnp.pad(b, ((0, 0), (0, 0), (extra, extra), (extra, extra)))

    def one(dy, dx):  # static slices: one displacement, summed over channels and the window
        y0, x0 = max_displacement + dy + extra, max_displacement + dx + extra
        sh = b[:, :, y0:y0 + span_h, x0:x0 + span_w]
        prod = base * sh if is_multiply else jnp.abs(base - sh)
        tot = lax.reduce_window(jnp.sum(prod, axis=1), 0.0, lax.add,
                                (1, kernel_size, kernel_size), (1, stride1, stride1), "VALID")
        return tot / (kernel_size * kernel_size * c)

    offs = [(i - r) * stride2 for i in range(2 * r + 1)]
    out = jnp.stack([one(dy, dx) for dy in offs for dx in offs], axis=1)       # (N, D, OH, OW)
    return out.astype(data1.dtype)
