"""The operators of MXNet's sparse storage that have a graph form (``mx.sym``): their
values on dense arrays. On sparse arrays, ``ndarray.invoke`` hands them to xnd/sparse
(the storage table and kernels on stored entries)."""
import jax.numpy as jnp

from ..base import MXNetError
from .attrs import Float, choice
from .registry import register


@register("cast_storage")
def cast_storage(data, *, stype: choice("default", "row_sparse", "csr")):
    """A change of storage: the values are the input's."""
    if stype == "csr" and data.ndim != 2:
        raise MXNetError(f"cast_storage: csr needs a 2-D array, got shape {data.shape}")
    return data + jnp.zeros((), data.dtype)


@register("_sparse_retain")
def sparse_retain(data, indices):
    """The rows ``indices`` of ``data``; every other row zero."""
    rows = jnp.zeros((data.shape[0],), bool).at[indices.astype(jnp.int64)].set(True)
    return jnp.where(rows.reshape((-1,) + (1,) * (data.ndim - 1)), data, 0).astype(data.dtype)


# scatter ops: applied at the stored entries of a sparse input only; on a dense array every
# entry is stored, so they are the plain operations
@register("_scatter_elemwise_div")
def scatter_elemwise_div(lhs, rhs):
    if lhs.shape != rhs.shape:
        raise MXNetError(f"_scatter_elemwise_div: shapes differ: {lhs.shape} and {rhs.shape}")
    return lhs / rhs


@register("_scatter_plus_scalar")
def scatter_plus_scalar(data, *, scalar: Float = 1.0):
    return data + jnp.asarray(scalar, data.dtype)


@register("_scatter_minus_scalar")
def scatter_minus_scalar(data, *, scalar: Float = 1.0):
    return data - jnp.asarray(scalar, data.dtype)
