"""Separable resampling of (N, C, H, W) maps: ``_contrib_BilinearResize2D`` and
``_contrib_AdaptiveAvgPooling2D``.

Both are out = R_h @ x @ R_w^T with small constant (out, in) matrices built in numpy at trace
time from MXNet 1.9.1's index rules, so forward and gradient are two matmuls.
"""
import math

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Int, Shape, choice, optional, Float
from .nn_common import fmt
from .registry import register

_HI = lax.Precision.HIGHEST


def _apply(data, rh, rw):
    dt = data.dtype
    return jnp.einsum("oh,nchw,pw->ncop", jnp.asarray(rh, dt), data, jnp.asarray(rw, dt),
                      precision=_HI).astype(dt)


def _bilinear_matrix(n_in, n_out, align_corners):
    """MXNet's (and PyTorch's) area_pixel source index with linear weights, in float32."""
    f = np.float32
    m = np.zeros((n_out, n_in), np.float64)
    if n_in == n_out:
        return np.eye(n_in)
    if n_out > 1:
        scale = f(n_in - 1) / f(n_out - 1) if align_corners else f(n_in) / f(n_out)
    else:
        scale = f(0)
    for o in range(n_out):
        if align_corners:
            src = f(scale * f(o))
        else:
            src = f(scale * (f(o) + f(0.5)) - f(0.5))
            src = max(src, f(0))
        i0 = int(src)
        step = 1 if i0 < n_in - 1 else 0
        lam = f(src - f(i0))
        m[o, i0] += f(1) - lam
        m[o, i0 + step] += lam
    return m


_MODES = ("like", "odd_scale", "size", "to_even_down", "to_even_up", "to_odd_down", "to_odd_up")


def _resize_shape(op, h, w, like, height, width, scale_height, scale_width, mode):
    if mode == "size":
        if scale_height is not None:
            if scale_width is None:
                raise MXNetError(f"Operator {op}: scale_height is given, so scale_width is "
                                 f"needed too")
            return int(scale_height * h), int(scale_width * w)
        return height, width
    if mode == "odd_scale":
        if scale_height is None or scale_width is None:
            raise MXNetError(f"Operator {op}: mode='odd_scale' needs scale_height and "
                             f"scale_width")
        return (int(h * scale_height) if h % 2 == 0 else int((h - 1) * scale_height) + 1,
                int(w * scale_width) if w % 2 == 0 else int((w - 1) * scale_width) + 1)
    if mode == "like":
        if like is None or like.ndim != 4:
            raise MXNetError(f"Operator {op}: mode='like' needs a 4-D second input 'like', got "
                             f"{None if like is None else fmt(like.shape)}")
        return like.shape[2], like.shape[3]
    even, up = mode.startswith("to_even"), mode.endswith("up")
    pick = (lambda v: v if (v % 2 == 0) == even else (v + 1 if up else v - 1))
    return pick(h), pick(w)


@register("_contrib_BilinearResize2D")
def bilinear_resize_2d(data, like=None, *, height: Int = 1, width: Int = 1,
                       scale_height: optional(Float) = None, scale_width: optional(Float) = None,
                       mode: choice(*_MODES) = "size", align_corners: Bool = True):
    """Bilinear resize of (N, C, H, W) to: (height, width), or int(scale * size) when scales
    are given (mode 'size'); the like input's (H, W) ('like'); even/odd sizes one up or down
    ('to_even_down' ...); 'odd_scale': size * scale for even sizes, (size - 1) * scale + 1
    for odd ones. Source index scale * o with align_corners, else scale * (o + 0.5) - 0.5
    clamped at 0. The like input gets a zero gradient."""
    op = "_contrib_BilinearResize2D"
    if data.ndim != 4:
        raise MXNetError(f"Operator {op}: data must be 4-D (N, C, H, W), got {fmt(data.shape)}")
    if mode == "like" and like is None:
        raise MXNetError(f"Operator {op}: mode='like' needs the second input 'like'")
    h, w = data.shape[2:]
    oh, ow = _resize_shape(op, h, w, like, height, width, scale_height, scale_width, mode)
    if oh <= 0 or ow <= 0:
        raise MXNetError(f"Operator {op}: output size ({oh}, {ow}) must be positive (data "
                         f"{fmt(data.shape)}, mode={mode!r})")
    return _apply(data, _bilinear_matrix(h, oh, align_corners),
                  _bilinear_matrix(w, ow, align_corners))


def _adaptive_matrix(n_in, n_out):
    m = np.zeros((n_out, n_in), np.float64)
    for o in range(n_out):
        lo = int(math.floor(o * n_in / n_out))
        hi = int(math.ceil((o + 1) * n_in / n_out))
        m[o, lo:hi] = 1.0 / (hi - lo)
    return m


@register("_contrib_AdaptiveAvgPooling2D")
def adaptive_avg_pooling_2d(data, *, output_size: Shape = ()):
    """Average pooling of (N, C, H, W) to output_size (one value: square; none: 1x1); output
    cell o averages input rows floor(o * H / OH) .. ceil((o + 1) * H / OH) - 1."""
    op = "_contrib_AdaptiveAvgPooling2D"
    if data.ndim != 4:
        raise MXNetError(f"Operator {op}: data must be 4-D (N, C, H, W), got {fmt(data.shape)}")
    if len(output_size) > 2 or any(v <= 0 for v in output_size):
        raise MXNetError(f"Operator {op}: output_size must be 1 or 2 positive values, got "
                         f"{output_size}")
    oh, ow = (1, 1) if not output_size else (output_size * 2)[:2]
    h, w = data.shape[2:]
    return _apply(data, _adaptive_matrix(h, oh), _adaptive_matrix(w, ow))
