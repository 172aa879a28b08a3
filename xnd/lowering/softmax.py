"""softmax / log_softmax / softmin along an axis, with temperature and optional lengths."""
import jax
import jax.numpy as jnp
import numpy as np

from .attrs import Bool, Dtype, Int, optional
from .registry import register


def _masked(data, length, axis):
    if length is None:
        return data, None
    pos = jnp.arange(data.shape[axis]).reshape((-1,) + (1,) * (data.ndim - 1 - axis % data.ndim))
    shape = list(data.shape)
    shape[axis] = 1
    mask = pos < jnp.expand_dims(length.astype(jnp.int64), axis % data.ndim).reshape(
        [d if i != axis % data.ndim else 1 for i, d in enumerate(data.shape)][:length.ndim + 1]
        + [1] * (data.ndim - length.ndim - 1))
    return jnp.where(mask, data, -jnp.inf), mask


_HALF = (jnp.float16, jnp.bfloat16)


def _softmax_family(name, f, sign=1.0, onednn=False):
    def op(data, length=None, *, axis: Int = -1, temperature: optional(float) = None,
           dtype: Dtype = None, use_length: Bool = False):
        x = data.astype(dtype) if dtype else data
        out_dtype = x.dtype
        if x.dtype in _HALF:  # accumulated in float32, as MXNET_SAFE_ACCUMULATION=1 does
            x = x.astype(jnp.float32)
        x = x * sign / (temperature or 1.0)
        x, mask = _masked(x, length if use_length else None, axis)
        out = f(x, axis=axis).astype(out_dtype)
        if onednn and mask is None and not dtype and temperature in (None, 1.0) \
                and x.dtype == jnp.float32 and axis % x.ndim == x.ndim - 1:
            out = _onednn_nan(x, out, name == "log_softmax")
        return out if mask is None else jnp.where(mask, out, 0).astype(out.dtype)
    op.__name__ = name
    return op


_FLT_MAX = np.float32(np.finfo(np.float32).max)


def _onednn_nan(x, out, log):
    """MXNet 1.9.1 runs float32 softmax/log_softmax on the last axis through oneDNN, whose max
    skips NaN and whose exp saturates a NaN at FLT_MAX: an element whose x - max is NaN gives
    NaN, and the others of its row give 0 (log: x - max - log(sum)) instead of NaN.
    softmax([inf, 1]) is [nan, 0] and log_softmax([nan, 1]) is [nan, -88.72]."""
    if x.size == 0:  # (an empty row has no max; there is nothing to fix)
        return out
    m = jnp.nanmax(x, axis=-1, keepdims=True)
    d = x - m
    bad = jnp.isnan(d)
    row = jnp.any(bad, axis=-1, keepdims=True)
    if log:
        total = jnp.sum(jnp.where(bad, _FLT_MAX, jnp.exp(d)), axis=-1, keepdims=True)
        fixed = d - jnp.log(total)
    else:
        fixed = jnp.zeros((), x.dtype)  # exp(d) / (>= FLT_MAX) is subnormal, flushed to zero
    return jnp.where(bad, jnp.nan, jnp.where(row, fixed, out)).astype(out.dtype)


def _softmax(x, axis):
    """``jax.nn.softmax``, whose row is all NaN where its sum is, as MXNet's
    exp(x - max) / sum gives (softmax([inf, 1], temperature=2) is [nan, nan]): jaxlib 0.4.30's
    fused kernel divided the 0 by the NaN sum into 0."""
    out = jax.nn.softmax(x, axis=axis)
    return jnp.where(jnp.isnan(jnp.sum(out, axis=axis, keepdims=True)), jnp.nan, out)


register("softmax")(_softmax_family("softmax", _softmax, onednn=True))
register("log_softmax")(_softmax_family("log_softmax", jax.nn.log_softmax, onednn=True))
register("softmin")(_softmax_family("softmin", _softmax, -1.0))
