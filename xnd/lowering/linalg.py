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
    """Matrix products over the leading batch axes: (B..., M, K) x (B..., K, N)."""
    _floats("batch_dot", lhs, rhs)
    a = jnp.swapaxes(lhs, -1, -2) if transpose_a else lhs
    b = jnp.swapaxes(rhs, -1, -2) if transpose_b else rhs
    if a.ndim < 3 or a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
        raise MXNetError(f"batch_dot: incompatible shapes {lhs.shape} and {rhs.shape} (N-D by "
                         f"N-D, N >= 3, with the same leading batch shape)")
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


def _t(x, flag):
    return jnp.swapaxes(x, -1, -2) if flag else x


def _rows_at(axis, *xs):
    """MXNet's ``axis``: the matrices' rows lie on ``axis``, their columns on the last axis;
    the arrays with the rows moved to -2 (where matmul wants them)."""
    return [x if axis in (-2, x.ndim - 2) else jnp.moveaxis(x, axis, -2) for x in xs]


def _rows_back(axis, out):
    return out if axis in (-2, out.ndim - 2) else jnp.moveaxis(out, -2, axis)


@register("_linalg_gemm2", "linalg_gemm2")
def linalg_gemm2(A, B, *, transpose_a: Bool = False, transpose_b: Bool = False, alpha: Float = 1.0,
                 axis: Int = -2):
    _floats("linalg_gemm2", A, B)
    A, B = _rows_at(axis, A, B)
    out = alpha * jnp.matmul(_t(A, transpose_a), _t(B, transpose_b), precision=lax.Precision.HIGHEST)
    return _rows_back(axis, out).astype(A.dtype)


@register("_linalg_gemm", "linalg_gemm")
def linalg_gemm(A, B, C, *, transpose_a: Bool = False, transpose_b: Bool = False, alpha: Float = 1.0,
                beta: Float = 1.0, axis: Int = -2):
    _floats("linalg_gemm", A, B, C)
    A, B, C = _rows_at(axis, A, B, C)
    out = alpha * jnp.matmul(_t(A, transpose_a), _t(B, transpose_b),
                             precision=lax.Precision.HIGHEST) + beta * C
    return _rows_back(axis, out).astype(A.dtype)


def _potrf_check(attrs, A):
    """Eager calls fail as MXNet's LAPACK call does when a matrix has no Cholesky factor
    (inside compiled graphs the factor is NaN instead)."""
    import numpy as np
    a = np.asarray(A)
    if a.ndim < 2 or not np.issubdtype(a.dtype, np.floating):
        return
    try:
        np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        raise MXNetError("linalg_potrf: potrf failed in lapack: the input matrix is either "
                         "not symmetric or not positive definite") from None


@register("_linalg_potrf", "linalg_potrf", kernel_check=_potrf_check)
def linalg_potrf(A, *, lower: Bool = True):
    """The Cholesky factor: L with A = L L^T, or with ``lower=False`` U = L^T (A = U^T U)."""
    _floats("linalg_potrf", A)
    return _t(jnp.linalg.cholesky(A), not lower)


@register("_linalg_potri", "linalg_potri")
def linalg_potri(A, *, lower: Bool = True):
    """B^-1 from B's Cholesky factor A: A^-T A^-1 for a lower A, A^-1 A^-T for an upper one."""
    _floats("linalg_potri", A)
    eye = jnp.broadcast_to(jnp.eye(A.shape[-1], dtype=A.dtype), A.shape)
    inv = solve_triangular(A, eye, lower=lower)
    return jnp.matmul(_t(inv, True), inv) if lower else jnp.matmul(inv, _t(inv, True))


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


@register("_linalg_syevd", "linalg_syevd", num_outputs=2, output_names=("U", "L"))
def linalg_syevd(A):
    """MXNet's symmetric eigendecomposition: U's rows are the eigenvectors, L the eigenvalues
    in ascending order (U A = diag(L) U), and each row of U has its largest-magnitude entry
    (the first, on a tie) positive."""
    _floats("linalg_syevd", A)
    lam, v = jnp.linalg.eigh(A)
    u = jnp.swapaxes(v, -1, -2)
    lead = jnp.take_along_axis(u, jnp.argmax(jnp.abs(u), axis=-1)[..., None], axis=-1)
    return jnp.where(lead < 0, -u, u), lam


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


def _one(r):
    return r.reshape((1,)) if r.ndim == 0 else r


@register("_linalg_gelqf", "linalg_gelqf", num_outputs=2, output_names=("Q", "L"))
def linalg_gelqf(A):
    """A = L Q with Q's rows orthonormal (m <= n), LAPACK's signs (gelqf is geqrf of A^T)."""
    _floats("linalg_gelqf", A)
    if A.shape[-2] > A.shape[-1]:
        raise MXNetError(f"linalg_gelqf: the matrices must not have more rows than columns, got "
                         f"{A.shape}")
    q, r = jnp.linalg.qr(_t(A, True))
    return _t(q, True), _t(r, True)


@register("_linalg_slogdet", "linalg_slogdet", num_outputs=2, output_names=("sign", "logdet"))
def linalg_slogdet(A):
    _floats("linalg_slogdet", A)
    sign, logdet = jnp.linalg.slogdet(A)
    return _one(sign.astype(A.dtype)), _one(logdet.astype(A.dtype))


@register("_linalg_extractdiag", "linalg_extractdiag")
def linalg_extractdiag(A, *, offset: Int = 0):
    return jnp.diagonal(A, offset=offset, axis1=-2, axis2=-1)


@register("_linalg_makediag", "linalg_makediag")
def linalg_makediag(A, *, offset: Int = 0):
    n = A.shape[-1] + abs(offset)
    idx = jnp.arange(A.shape[-1])
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out = jnp.zeros(A.shape[:-1] + (n, n), A.dtype)
    return out.at[..., rows, cols].set(A)


def _trian_index(n, offset, lower):
    """(rows, cols, transposed): MXNet packs a lower triangle row by row; an upper one
    (offset > 0, or offset 0 with lower=False) as the lower triangle of the transpose."""
    import numpy as np
    upper = offset > 0 or (offset == 0 and not lower)
    r, c = np.tril_indices(n, -offset if upper else offset)
    return r, c, upper


@register("_linalg_extracttrian", "linalg_extracttrian")
def linalg_extracttrian(A, *, offset: Int = 0, lower: Bool = True):
    r, c, upper = _trian_index(A.shape[-1], offset, lower)
    return (_t(A, True) if upper else A)[..., r, c]


@register("_linalg_maketrian", "linalg_maketrian")
def linalg_maketrian(A, *, offset: Int = 0, lower: Bool = True):
    m = A.shape[-1]
    k = int(round(((8 * m + 1) ** 0.5 - 1) / 2))
    if k * (k + 1) // 2 != m:
        raise MXNetError(f"linalg_maketrian: the last dimension ({m}) is not a triangular number")
    n = k + abs(offset)
    r, c, upper = _trian_index(n, offset, lower)
    out = jnp.zeros(A.shape[:-1] + (n, n), A.dtype).at[..., r, c].set(A)
    return _t(out, True) if upper else out
