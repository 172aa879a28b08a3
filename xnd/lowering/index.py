"""Index-driven ops: take, pick, one_hot, gather_nd, scatter_nd.

Float indices are truncated toward zero (MXNet casts them); ``mode='clip'``
clamps out-of-range indices, ``'wrap'`` wraps them, ``'raise'`` raises.
"""
import jax.numpy as jnp
import numpy as np

from ..base import MXNetError
from .attrs import Bool, Dtype, Float, Int, Shape, choice
from .dtypes import c_cast
from .registry import register

Mode = choice("clip", "wrap", "raise")


def _int_index(idx, dtype=np.int64):
    """Float indices converted as MXNet's kernels convert them (``dtypes.c_cast``: NaN, inf
    and 1e30 become the type's minimum, then clipped or wrapped); ``take`` converts to int64,
    ``pick`` to int32 (checked on MXNet 1.9.1: pick of inf with mode='wrap' on an axis of 7
    takes index 5 = INT32_MIN mod 7)."""
    return c_cast(idx, dtype).astype(np.int64) \
        if not jnp.issubdtype(idx.dtype, jnp.integer) else idx


def _fit(idx, n, mode, op):
    if mode == "wrap":
        return jnp.mod(idx, n)
    return jnp.clip(idx, 0, n - 1)


def _take_in_range(attrs, a, indices):
    """mode='raise': MXNet reports out-of-range indices when the result is read; xnd checks
    them on the host before running (a sync, paid only in this mode). A bad axis is the
    kernel's error, raised at the call."""
    if attrs["mode"] != "raise" or not -a.ndim <= attrs["axis"] < a.ndim:
        return
    n = a.shape[attrs["axis"] % a.ndim]
    idx = np.asarray(indices)
    if ((idx < 0) | (idx >= n)).any():
        raise MXNetError(f"take: indices {idx.ravel()[:8].tolist()} contain values out of bound "
                         f"for axis {attrs['axis']} of size {n} (mode='raise')")


def _take_axis(axis, ndim):
    if not -ndim <= axis < ndim:
        raise MXNetError(f"take: axis={axis} should be in the range of [-r, r-1] where r is the "
                         f"rank of input tensor ({ndim})")
    return axis % ndim


_take_in_range.applies = lambda attrs: attrs["mode"] == "raise"  # bound graphs check only these


@register("take", kernel_check=_take_in_range)
def take(a, indices, *, axis: Int = 0, mode: Mode = "clip"):
    """Output shape: a.shape with ``axis`` replaced by indices.shape."""
    axis = _take_axis(axis, a.ndim)
    idx = _fit(_int_index(indices), a.shape[axis], mode, "take")
    return jnp.take(a, idx, axis=axis)


@register("batch_take")
def batch_take(a, indices):
    idx = jnp.clip(_int_index(indices), 0, a.shape[1] - 1)
    return jnp.take_along_axis(a, idx[:, None], axis=1)[:, 0]


@register("pick")
def pick(data, index, *, axis: Int = -1, keepdims: Bool = False, mode: choice("clip", "wrap") = "clip"):
    """data[..., index, ...] along ``axis``; index has data's shape without that axis (or with
    it as 1). A 1-D data gives shape (1,) with an index of shape (1,), as in MXNet."""
    if not -data.ndim <= axis < data.ndim:
        raise MXNetError(f"pick: axis {axis} exceeds the input dimension of {data.ndim}")
    axis = axis % data.ndim
    want = data.shape[:axis] + data.shape[axis + 1:]
    kept = data.shape[:axis] + (1,) + data.shape[axis + 1:]
    if index.shape not in (want or (1,), kept):
        raise MXNetError(f"pick: Shape inconsistent, Provided = {list(index.shape)}, inferred "
                         f"shape={list(want or (1,))}")
    idx = _fit(_int_index(index, np.int32), data.shape[axis], mode, "pick").reshape(kept)
    out = jnp.take_along_axis(data, idx, axis=axis)
    return out if keepdims or data.ndim == 1 else jnp.squeeze(out, axis)


@register("one_hot")
def one_hot(indices, *, depth: Int, on_value: Float = 1.0, off_value: Float = 0.0,
            dtype: Dtype = "float32"):
    """Out-of-range indices give an all-``off_value`` row."""
    if depth < 0:
        raise MXNetError(f"one_hot: Check failed: *depth >= 0 ({depth} vs. 0) : Dimension "
                         f"size, depth, must be a non-negative integer")
    idx = _int_index(indices)
    hit = idx[..., None] == jnp.arange(depth)
    return jnp.where(hit, on_value, off_value).astype(dtype)


def _gather_nd_in_range(attrs, data, indices):
    """MXNet raises IndexError for a coordinate outside [-size, size) when the result is
    read; xnd checks the (eager) indices on the host before running."""
    idx = np.asarray(indices)
    if idx.ndim == 0 or idx.shape[0] > data.ndim:
        return                                   # the kernel reports the shape error
    for ax in range(idx.shape[0]):
        n, row = data.shape[ax], idx[ax].astype(np.int64)
        bad = (row < -n) | (row >= n)
        if bad.any():
            raise IndexError(f"gather_nd: index {int(row[bad].ravel()[0])} is out of bounds "
                             f"for axis {ax} with size {n}")


@register("gather_nd", kernel_check=_gather_nd_in_range)
def gather_nd(data, indices):
    """indices (M, ...): row i holds coordinates on axis i of data."""
    idx = _int_index(indices)
    return data[tuple(idx[i] for i in range(idx.shape[0]))]


@register("scatter_nd")
def scatter_nd(data, indices, *, shape: Shape):
    idx = _int_index(indices)
    out = jnp.zeros(shape, data.dtype)
    return out.at[tuple(idx[i] for i in range(idx.shape[0]))].set(data)
