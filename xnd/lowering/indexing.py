"""``x[key]`` and ``x[key] = v`` as operators, so autograd and the kernel cache see them.

A key is frozen into a hashable tuple: ints, ``('s', start, stop, step)`` for
slices, ``None`` for new axes, ``('a', i)`` for the i-th index array (passed
at run time). Index arrays of any dtype are truncated to integers, which is
MXNet's reading of ``a[a > 5]`` (the 0/1 mask used as row indices).
"""
import jax.numpy as jnp
from jax import lax

from .registry import register


def thaw(key, arrays):
    out = []
    for k in key:
        if isinstance(k, tuple) and k[0] == "s":
            out.append(slice(*k[1:]))
        elif isinstance(k, tuple) and k[0] == "a":
            a = arrays[k[1]]
            out.append(a if jnp.issubdtype(a.dtype, jnp.integer) else a.astype(jnp.int64))
        elif k == "...":
            out.append(Ellipsis)
        else:
            out.append(k)
    return tuple(out)


@register("_getitem")
def getitem(data, *indices, index=()):
    """Basic or advanced NumPy indexing; a 0-d result becomes shape (1,) as in MXNet."""
    out = data[thaw(index, indices)]
    return out.reshape((1,)) if out.ndim == 0 else out


@register("_setitem")
def setitem(data, value, *indices, index=()):
    """``data`` with ``data[key] = value`` (value cast to data's dtype, broadcast)."""
    k = thaw(index, indices)
    v = value.astype(data.dtype)
    target = data[k].shape
    if v.shape != target and v.size == jnp.zeros(target).size and v.ndim != len(target):
        v = v.reshape(target)  # (1,)-shaped results assigned to a scalar slot
    return data.at[k].set(v)


@register("_view_read")
def view_read(data, offset, *, shape=(), size=0):
    """A contiguous block of data's row-major buffer, as MXNet views see it."""
    flat = data.reshape(-1)
    if size == flat.shape[0]:
        return flat.reshape(shape)
    return lax.dynamic_slice(flat, (offset,), (size,)).reshape(shape)


@register("_view_write")
def view_write(data, value, offset, *, shape=()):
    """data with the contiguous block at ``offset`` replaced by ``value`` broadcast to ``shape``."""
    v = jnp.broadcast_to(value.astype(data.dtype), shape).reshape(-1)
    if v.shape[0] == data.size:
        return v.reshape(data.shape)
    return lax.dynamic_update_slice(data.reshape(-1), v, (offset,)).reshape(data.shape)
