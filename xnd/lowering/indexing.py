"""``x[key]`` and ``x[key] = v`` as operators, so autograd and the kernel cache see them.

A key is frozen into a hashable tuple: ints, ``('s', start, stop, step)`` for
slices, ``None`` for new axes, ``('a', i)`` for the i-th index array (passed
at run time). Index arrays of any dtype are truncated to integers, which is
MXNet's reading of ``a[a > 5]`` (the 0/1 mask used as row indices).
"""
import numbers

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..semantics import is_np_shape
from .registry import register
from .shape import cast_passing_grad


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


def basic_plan(shape, frozen):
    """Bounds-check a frozen basic key (ints, slices, new axes, '...'); return ('view',
    offset, shape) when it selects one contiguous block of the row-major buffer (MXNet's rule
    for a view), else ('copy',)."""
    n_real = sum(1 for k in frozen if k is not None and k != "...")
    if n_real > len(shape):
        raise IndexError(f"too many indices for an array of shape {shape}: {n_real} given")
    expanded = []
    for k in frozen:
        if k == "...":
            expanded.extend([("s", None, None, None)] * (len(shape) - n_real))
        else:
            expanded.append(k)
    dims = [k for k in expanded if k is not None]
    dims += [("s", None, None, None)] * (len(shape) - len(dims))
    # one contiguous block iff, after the first dim that selects more than one element,
    # every later dim is selected whole
    out, starts, sizes, contiguous, spread = [], [], [], True, False
    for n, k in zip(shape, dims):
        if isinstance(k, int):
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis of size {n}")
            start, length = k % n, 1
        else:
            start, stop, step = slice(*k[1:]).indices(n)
            length = len(range(start, stop, step))
            out.append(length)
            if step != 1 and length > 1:
                contiguous = False
        starts.append(start)
        sizes.append(length)
        if spread and length != n:
            contiguous = False
        if length != 1:
            spread = True
    if not contiguous or 0 in sizes:
        return ("copy",)
    offset, stride = 0, 1
    for n, s in zip(reversed(shape), reversed(starts)):
        offset += s * stride
        stride *= n
    # new axes (None) insert 1s at their place among the kept dims
    result, it = [], iter(out)
    for k in expanded:
        if k is None:
            result.append(1)
        elif not isinstance(k, int):
            result.append(next(it))
    result.extend(it)
    # an integer key down to 0-d: (1,) in MXNet's legacy shape semantics, () under np_shape
    return ("view", offset, tuple(result) or ((), (1,))[not is_np_shape()])


def index_plan(shape, key, is_array, as_array):
    """('view', offset, shape, frozen, arrays) for a contiguous basic key, else ('copy', frozen,
    arrays). ``is_array(k)``: whether ``k`` is an NDArray index; ``as_array(a)``: a numpy index
    as an NDArray on the indexed array's device.

    MXNet's rule: basic indexing (ints, step-1 slices, ...) that selects one
    contiguous block of the row-major buffer is a view; anything else copies.
    """
    if not isinstance(key, tuple):
        key = (key,)

    def bound(v):
        return None if v is None else int(v) if is_array(v) else int(v.__index__())

    arrays, frozen, basic = [], [], True
    for k in key:
        if is_array(k):
            frozen.append(("a", len(arrays))); arrays.append(k); basic = False
        elif isinstance(k, (list, tuple, np.ndarray)):  # a tuple inside the key: a sequence
            arr = np.asarray(k)
            if arr.dtype == object:
                raise IndexError(f"unsupported index {k!r}")
            if arr.dtype == np.bool_:
                arr = arr.astype(np.int64)
            frozen.append(("a", len(arrays)))
            arrays.append(as_array(arr))
            basic = False
        elif isinstance(k, slice):
            frozen.append(("s", bound(k.start), bound(k.stop), bound(k.step)))
        elif k is Ellipsis:
            frozen.append("...")
        elif k is None:
            frozen.append(None)
        elif isinstance(k, (numbers.Integral, np.integer)):
            frozen.append(int(k))
        else:
            raise IndexError(f"NDArray does not support index of type {type(k).__name__}")
    frozen = tuple(frozen)
    if basic:
        return basic_plan(shape, frozen) + (frozen, arrays)
    return ("copy", frozen, arrays)


@register("_getitem")
def getitem(data, *indices, index=()):
    """Basic or advanced NumPy indexing; a 0-d result becomes shape (1,) as in MXNet."""
    out = data[thaw(index, indices)]
    return out.reshape((1,)) if out.ndim == 0 else out


@register("_setitem")
def setitem(data, value, *indices, index=()):
    """``data`` with ``data[key] = value`` (value cast to data's dtype, broadcast)."""
    k = thaw(index, indices)
    v = cast_passing_grad(value, data.dtype)
    if v.dtype != data.dtype:  # traced for a gradient: an integer array carries v's as a float
        data = data.astype(v.dtype)
    target = data[k].shape
    extra = v.ndim - len(target)
    if extra > 0 and all(d == 1 for d in v.shape[:extra]):
        v = v.reshape(v.shape[extra:])  # leading 1s do not count, as in NumPy's assignment
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
