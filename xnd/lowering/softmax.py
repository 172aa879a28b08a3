"""softmax / log_softmax / softmin along an axis, with temperature and optional lengths."""
import jax
import jax.numpy as jnp

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


def _softmax_family(name, f, sign=1.0):
    def op(data, length=None, *, axis: Int = -1, temperature: optional(float) = None,
           dtype: Dtype = None, use_length: Bool = False):
        x = data.astype(dtype) if dtype else data
        x = x * sign / (temperature or 1.0)
        x, mask = _masked(x, length if use_length else None, axis)
        out = f(x, axis=axis)
        return out if mask is None else jnp.where(mask, out, 0).astype(out.dtype)
    op.__name__ = name
    return op


register("softmax")(_softmax_family("softmax", jax.nn.softmax))
register("log_softmax")(_softmax_family("log_softmax", jax.nn.log_softmax))
register("softmin")(_softmax_family("softmin", jax.nn.softmax, -1.0))
