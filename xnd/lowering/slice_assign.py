"""Writes into a region of an array, as new arrays: MXNet's ``_slice_assign`` family and the
legacy 0-index element ops (``choose_element_0index``, ``fill_element_0index``)."""
import jax.numpy as jnp

from ..base import MXNetError
from .attrs import Float, OptShape
from .registry import register
from .shape import _slices


def _region(op, data, begin, end, step):
    if len(begin) > data.ndim or len(end) != len(begin):
        raise MXNetError(f"{op}: begin {begin} and end {end} must have the same length <= ndim "
                         f"of {data.shape}")
    return _slices(op, data.shape, begin, end, step)


@register("_slice_assign", "_crop_assign")
def slice_assign(lhs, rhs, *, begin: OptShape, end: OptShape, step: OptShape = ()):
    """``lhs`` with the region ``lhs[begin:end:step]`` replaced by ``rhs`` (of that shape)."""
    key = _region("_slice_assign", lhs, begin, end, step)
    want = lhs[key].shape
    if tuple(rhs.shape) != want:
        raise MXNetError(f"_slice_assign: Shape inconsistent, Provided = {list(rhs.shape)}, "
                         f"inferred shape={list(want)}")
    return lhs.at[key].set(rhs.astype(lhs.dtype))


@register("_slice_assign_scalar", "_crop_assign_scalar")
def slice_assign_scalar(data, *, scalar: Float = 0.0, begin: OptShape, end: OptShape,
                        step: OptShape = ()):
    """``data`` with the region ``data[begin:end:step]`` set to ``scalar``."""
    key = _region("_slice_assign_scalar", data, begin, end, step)
    return data.at[key].set(jnp.asarray(scalar).astype(data.dtype))


def _rows(op, lhs, index):
    if lhs.ndim != 2 or index.ndim != 1 or index.shape[0] != lhs.shape[0]:
        raise MXNetError(f"{op}: needs a 2-d array and one index per row, got {lhs.shape} and "
                         f"{index.shape}")
    return jnp.arange(lhs.shape[0]), index.astype(jnp.int32)


@register("choose_element_0index")
def choose_element_0index(lhs, rhs):
    """``lhs[i, rhs[i]]`` per row; indices out of range are clipped (pick's default)."""
    rows, idx = _rows("choose_element_0index", lhs, rhs)
    return lhs[rows, jnp.clip(idx, 0, lhs.shape[1] - 1)]


@register("fill_element_0index")
def fill_element_0index(lhs, mhs, rhs):
    """``lhs`` with ``lhs[i, rhs[i]] = mhs[i]`` per row; rows whose index is out of range keep
    their values."""
    rows, idx = _rows("fill_element_0index", lhs, rhs)
    valid = (idx >= 0) & (idx < lhs.shape[1])
    cols = jnp.where(valid, idx, 0)
    new = jnp.where(valid, mhs.astype(lhs.dtype), lhs[rows, cols])
    return lhs.at[rows, cols].set(new)
