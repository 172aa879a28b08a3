"""Matrix products and ``linalg_*`` operators.

``dot`` contracts the last axis of lhs with the first axis of rhs (after the
optional transposes, which reverse all axes for N-D); 1-D . 1-D gives shape
(1,). ``batch_dot`` multiplies matching batches of 3-D arrays. Float dtypes
only, as on MXNet's CPU build.
"""
import jax.numpy as jnp
from jax import lax
from jax.scipy.linalg import solve_triangular

from ..base import MXNetError
from .attrs import Bool, Float, Int
from .dtypes import same_dtype
from .registry import register


def _floats(op, *xs):
    same_dtype(op, *xs)
    if not jnp.issubdtype(xs[0].dtype, jnp.floating):
        raise MXNetError(f"{op}: only floating-point inputs are supported, got {xs[0].dtype}")


@register("dot")
def dot(lhs, rhs, *, transpose_a: Bool = False, transpose_b: Bool = False, forward_stype=None):
    _floats("dot", lhs, rhs)
    a = lhs.T if transpose_a else lhs
    b = rhs.T if transpose_b else rhs
    if a.shape[-1] != b.shape[0]:
        raise MXNetError(f"dot: shape mismatch: lhs {lhs.shape} (transpose_a={transpose_a}) and rhs "
                         f"{rhs.shape} (transpose_b={transpose_b}) do not contract")
    out = jnp.tensordot(a, b, axes=1, precision=lax.Precision.HIGHEST)
    return out.reshape((1,)) if out.ndim == 0 else out


@register("batch_dot")
def batch_dot(lhs, rhs, *, transpose_a: Bool = False, transpose_b: Bool = False, forward_stype=None):
    _floats("batch_dot", lhs, rhs)
    a = jnp.swapaxes(lhs, -1, -2) if transpose_a else lhs
    b = jnp.swapaxes(rhs, -1, -2) if transpose_b else rhs
    if a.ndim != 3 or b.ndim != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise MXNetError(f"batch_dot: incompatible shapes {lhs.shape} and {rhs.shape}")
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


def _t(x, flag):
    return jnp.swapaxes(x, -1, -2) if flag else x


@register("_linalg_gemm2", "linalg_gemm2")
def linalg_gemm2(A, B, *, transpose_a: Bool = False, transpose_b: Bool = False, alpha: Float = 1.0,
                 axis: Int = -2):
    _floats("linalg_gemm2", A, B)
    return (alpha * jnp.matmul(_t(A, transpose_a), _t(B, transpose_b),
                               precision=lax.Precision.HIGHEST)).astype(A.dtype)


@register("_linalg_gemm", "linalg_gemm")
def linalg_gemm(A, B, C, *, transpose_a: Bool = False, transpose_b: Bool = False, alpha: Float = 1.0,
                beta: Float = 1.0, axis: Int = -2):
    _floats("linalg_gemm", A, B, C)
    return (alpha * jnp.matmul(_t(A, transpose_a), _t(B, transpose_b),
                               precision=lax.Precision.HIGHEST) + beta * C).astype(A.dtype)


@register("_linalg_potrf", "linalg_potrf")
def linalg_potrf(A):
    """Lower Cholesky factor."""
    _floats("linalg_potrf", A)
    return jnp.linalg.cholesky(A)


@register("_linalg_potri", "linalg_potri")
def linalg_potri(A):
    """Inverse of B = A A^T from its Cholesky factor A."""
    _floats("linalg_potri", A)
    inv = solve_triangular(A, jnp.broadcast_to(jnp.eye(A.shape[-1], dtype=A.dtype), A.shape), lower=True)
    return jnp.matmul(_t(inv, True), inv)


@register("_linalg_trsm", "linalg_trsm")
def linalg_trsm(A, B, *, transpose: Bool = False, rightside: Bool = False, lower: Bool = True,
                alpha: Float = 1.0):
    _floats("linalg_trsm", A, B)
    if rightside:  # X op(A) = alpha B  <=>  op(A)^T X^T = alpha B^T
        xt = solve_triangular(A, _t(alpha * B, True), lower=lower, trans=0 if transpose else 1)
        return _t(xt, True)
    return solve_triangular(A, alpha * B, lower=lower, trans=1 if transpose else 0)


@register("_linalg_trmm", "linalg_trmm")
def linalg_trmm(A, B, *, transpose: Bool = False, rightside: Bool = False, lower: Bool = True,
                alpha: Float = 1.0):
    _floats("linalg_trmm", A, B)
    tri = jnp.tril(A) if lower else jnp.triu(A)
    tri = _t(tri, transpose)
    return alpha * (jnp.matmul(B, tri) if rightside else jnp.matmul(tri, B))


@register("_linalg_syrk", "linalg_syrk")
def linalg_syrk(A, *, transpose: Bool = False, alpha: Float = 1.0):
    _floats("linalg_syrk", A)
    return alpha * (jnp.matmul(_t(A, True), A) if transpose else jnp.matmul(A, _t(A, True)))


@register("_linalg_sumlogdiag", "linalg_sumlogdiag")
def linalg_sumlogdiag(A):
    _floats("linalg_sumlogdiag", A)
    r = jnp.sum(jnp.log(jnp.diagonal(A, axis1=-2, axis2=-1)), axis=-1)
    return r.reshape((1,)) if r.ndim == 0 else r


@register("_linalg_inverse", "linalg_inverse")
def linalg_inverse(A):
    _floats("linalg_inverse", A)
    return jnp.linalg.inv(A)


@register("_linalg_det", "linalg_det")
def linalg_det(A):
    _floats("linalg_det", A)
    r = jnp.linalg.det(A)
    return r.reshape((1,)) if r.ndim == 0 else r


@register("khatri_rao")
def khatri_rao(*args, num_args: Int = None):
    out = args[0]
    for a in args[1:]:
        out = (out[:, None, :] * a[None, :, :]).reshape(-1, a.shape[1])
    return out
