"""Contrib array operators: ``_contrib_boolean_mask``, ``_contrib_index_copy``,
``_contrib_index_array``, ``_contrib_allclose``, ``_contrib_gradientmultiplier``,
``_contrib_round_ste``, ``_contrib_sign_ste``, ``_contrib_quadratic``, ``_contrib_fft`` / ``_contrib_ifft``, ``_contrib_count_sketch`` and
``_contrib_div_sqrt_dim``.

boolean_mask's output length depends on the mask's values, which a compiled XLA program
cannot have: ``mx.nd.contrib.boolean_mask`` reads the mask first and passes the count as
the ``size`` attribute (an xnd extension, docs/porting.md); without it the operator asks for
it. fft, ifft and count_sketch exist on GPU only in MXNet 1.9.1; xnd runs them everywhere.
"""
import jax
import jax.numpy as jnp

from ..base import MXNetError
from .attrs import Bool, Float, Int, OptShape, optional
from .elemwise import _round_half_away
from .nn_common import fmt
from .registry import register


@register("_contrib_boolean_mask")
def boolean_mask(data, index, *, axis: Int = 0, size: Int = -1):
    """The rows of data where the 1-D index is non-zero, in order; their gradient goes back
    to those rows (zero elsewhere, none for the index). MXNet 1.9.1 supports axis 0 only."""
    op = "_contrib_boolean_mask"
    if axis != 0:
        raise MXNetError(f"Operator {op}: axis={axis} is not supported (MXNet 1.9.1 masks "
                         f"along axis 0 only)")
    if index.ndim != 1:
        raise MXNetError(f"Operator {op}: index must be 1-D, got {fmt(index.shape)}")
    if not -data.ndim <= axis < data.ndim:
        raise MXNetError(f"Operator {op}: axis {axis} out of range for data {fmt(data.shape)}")
    ax = axis % data.ndim
    if data.shape[ax] != index.shape[0]:
        raise MXNetError(f"Operator {op}: index length {index.shape[0]} must equal data's "
                         f"dimension {ax} ({fmt(data.shape)})")
    if size < 0:
        raise MXNetError(f"Operator {op}: the output length depends on the index values; call "
                         f"mx.nd.contrib.boolean_mask (it reads them) or pass size=<count>")
    pos = jnp.nonzero(jax.lax.stop_gradient(index) != 0, size=size, fill_value=0)[0]
    return jnp.take(data, pos, axis=ax)


@register("_contrib_index_copy")
def index_copy(old_tensor, index_vector, new_tensor):
    """old_tensor with rows index_vector[i] replaced by new_tensor[i]; the gradient of
    old_tensor is zero on the replaced rows, new_tensor's is the output gradient's rows."""
    op = "_contrib_index_copy"
    if index_vector.ndim != 1:
        raise MXNetError(f"Operator {op}: index_vector must be 1-D, got "
                         f"{fmt(index_vector.shape)}")
    want = (index_vector.shape[0],) + tuple(old_tensor.shape[1:])
    if tuple(new_tensor.shape) != want:
        raise MXNetError(f"Operator {op}: new_tensor {fmt(new_tensor.shape)} must be "
                         f"{fmt(want)} for old_tensor {fmt(old_tensor.shape)} and "
                         f"{index_vector.shape[0]} indices")
    idx = jax.lax.stop_gradient(index_vector).astype(jnp.int32)
    return old_tensor.at[idx].set(new_tensor.astype(old_tensor.dtype))


@register("_contrib_index_array")
def index_array(data, *, axes: OptShape = None):
    """int64 array of shape data.shape + (len(axes),): each element's index along ``axes``
    (all axes when None)."""
    nd = data.ndim
    ax = tuple(range(nd)) if axes is None else tuple(a % nd for a in axes)
    for a in (axes or ()):
        if not -nd <= a < nd:
            raise MXNetError(f"Operator _contrib_index_array: axis {a} out of range for data "
                             f"{fmt(data.shape)}")
    if not ax:  # 0-d data (NumPy shape semantics): an empty index list, shape data.shape + (0,)
        return jnp.zeros(data.shape + (0,), jnp.int64)
    grids = jnp.indices(data.shape, dtype=jnp.int64)
    return jnp.stack([grids[a] for a in ax], axis=-1)


@register("_contrib_allclose")
def allclose(a, b, *, rtol: Float = 1e-5, atol: Float = 1e-8, equal_nan: Bool = True):
    """A 0-d uint8 array (0-d even in the legacy shape semantics, as MXNet's): 1 when
    |a - b| <= atol + rtol * |b| everywhere (NaNs equal with equal_nan)."""
    if a.shape != b.shape:
        raise MXNetError(f"Operator _contrib_allclose: shapes {fmt(a.shape)} and "
                         f"{fmt(b.shape)} differ")
    x, y = a.astype(jnp.float64), b.astype(jnp.float64)
    ok = jnp.abs(x - y) <= atol + rtol * jnp.abs(y)
    if equal_nan:
        ok = ok | (jnp.isnan(x) & jnp.isnan(y))
    return jnp.all(ok).astype(jnp.uint8)


@register("_contrib_gradientmultiplier")
def gradientmultiplier(data, *, scalar: Float = 1.0, is_int: Bool = True):
    """Identity forward; the backward multiplies the gradient by ``scalar`` (gradient
    reversal with a negative one)."""
    @jax.custom_vjp
    def f(x):
        return x

    f.defvjp(lambda x: (x, None), lambda _, g: (g * jnp.asarray(scalar, g.dtype),))
    return f(data)


def _straight_through(forward):
    """``forward`` with an identity gradient (a straight-through estimator)."""
    @jax.custom_vjp
    def f(x):
        return forward(x)

    f.defvjp(lambda x: (forward(x), None), lambda _, g: (g,))
    return f


@register("_contrib_round_ste")
def round_ste(data):
    """round (halves away from zero), whose gradient passes straight through."""
    return _straight_through(_round_half_away)(data)


@register("_contrib_sign_ste")
def sign_ste(data):
    """sign, whose gradient passes straight through."""
    return _straight_through(jnp.sign)(data)


@register("_contrib_quadratic")
def quadratic(data, *, a: Float = 0.0, b: Float = 0.0, c: Float = 0.0):
    """a * x^2 + b * x + c, elementwise."""
    dt = data.dtype
    return (jnp.asarray(a, dt) * data * data + jnp.asarray(b, dt) * data +
            jnp.asarray(c, dt)).astype(dt)


def _interleave(z, dt):
    return jnp.stack([z.real, z.imag], axis=-1).reshape(z.shape[:-1] + (-1,)).astype(dt)


@register("_contrib_fft")
def fft(data, *, compute_size: Int = 128):
    """DFT of each row along the last axis; output (..., 2d) with real and imaginary parts
    interleaved."""
    return _interleave(jnp.fft.fft(data.astype(jnp.float64 if data.dtype == jnp.float64
                                               else jnp.float32), axis=-1), data.dtype)


@register("_contrib_ifft")
def ifft(data, *, compute_size: Int = 128):
    """Inverse DFT (unnormalised, as MXNet's) of interleaved complex rows (..., 2d): the
    real part, (..., d)."""
    if data.shape[-1] % 2:
        raise MXNetError(f"Operator _contrib_ifft: the last dimension of {fmt(data.shape)} "
                         f"must hold (real, imag) pairs")
    d = data.shape[-1] // 2
    z = data.reshape(data.shape[:-1] + (d, 2))
    z = z[..., 0] + 1j * z[..., 1]
    return (jnp.fft.ifft(z, axis=-1).real * d).astype(data.dtype)


@register("_contrib_count_sketch")
def count_sketch(data, h, s, *, out_dim: Int, processing_batch_size: Int = 32):
    """out[n, h[i]] += s[i] * data[n, i] for data (N, in_dim) and h, s (1, in_dim)."""
    op = "_contrib_count_sketch"
    if data.ndim != 2 or h.size != data.shape[1] or s.size != data.shape[1]:
        raise MXNetError(f"Operator {op}: expects data (N, in_dim) and h, s (1, in_dim), got "
                         f"{fmt(data.shape)}, {fmt(h.shape)}, {fmt(s.shape)}")
    idx = jax.lax.stop_gradient(h).reshape(-1).astype(jnp.int32)
    sign = jax.lax.stop_gradient(s).reshape(-1).astype(data.dtype)
    out = jnp.zeros((data.shape[0], out_dim), data.dtype)
    return out.at[:, idx].add(data * sign[None, :])


@register("_contrib_div_sqrt_dim")
def div_sqrt_dim(data):
    """data / sqrt(data.shape[-1])."""
    return data / jnp.sqrt(jnp.asarray(data.shape[-1], data.dtype))


@register("_contrib_getnnz")
def getnnz(data, *, axis: optional(Int) = None):
    """The number of stored values of a csr array (all of them, or per row with axis=1, per
    column with axis=0), int64. A csr array's count comes from its indptr (xnd/sparse/ops.py,
    explicit zeros included); on a dense array the non-zero values are counted."""
    if data.ndim != 2:
        raise MXNetError(f"getnnz: data must be 2-D, got {fmt(data.shape)}")
    if axis not in (None, 0, 1):
        raise MXNetError(f"getnnz: axis must be None, 0 or 1, got {axis}")
    nz = (data != 0).astype(jnp.int64)
    return nz.sum() if axis is None else nz.sum(axis=axis)
