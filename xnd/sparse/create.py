"""Making sparse arrays: ``csr_matrix``, ``row_sparse_array``, ``zeros``, ``empty``, ``array``
(mx.nd.sparse's constructors), with MXNet 1.9.1's argument forms and default dtypes."""
import numpy as np

from .. import _transfer
from ..base import MXNetError
from ..lowering.dtypes import np_dtype
from .arrays import INDEX, CLASSES, CSRNDArray, RowSparseNDArray, _core, _ctx, cast_storage

_REAL = np.dtype(np.float32)     # mx_real_t


def _is_scipy(a):
    return type(a).__module__.startswith("scipy.sparse")


def _default_dtype(src, dtype):
    if dtype is not None:
        return np.dtype(np_dtype(dtype))
    if isinstance(src, (_core.NDArray, np.ndarray)) or _is_scipy(src):
        return np.dtype(src.dtype)
    return _REAL


def _host(a, dtype=None):
    if isinstance(a, _core.NDArray):
        a = a.asnumpy()
    try:
        return np.asarray(a, dtype=dtype)
    except (TypeError, ValueError):
        raise TypeError("values must be array like object") from None


def _check_shape(s1, s2):
    if s1 and s2 and tuple(s1) != tuple(s2):
        raise ValueError("Shape mismatch detected. " + str(tuple(s1)) + " v.s. " + str(tuple(s2)))


def _dense(arg1, shape, ctx, dtype, stype):
    dtype = _default_dtype(arg1, dtype)
    a = _host(arg1, dtype)
    _check_shape(a.shape, shape)
    return CLASSES[stype].from_dense(a, _ctx(ctx) if ctx is not None else (
        arg1.context if isinstance(arg1, _core.NDArray) else _ctx(None)), dtype)


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray from (data, indices, indptr), (data, (row, col)), a shape (M, N), a
    CSRNDArray, a scipy.sparse.csr_matrix, or a dense array."""
    if isinstance(arg1, tuple):
        if len(arg1) == 2 and isinstance(arg1[1], tuple) and len(arg1[1]) == 2:
            data, (row, col) = arg1
            import scipy.sparse as spsp
            coo = spsp.coo_matrix((_host(data), (_host(row), _host(col))), shape=shape)
            _check_shape(coo.shape, shape)
            return array(coo.tocsr(), ctx=ctx, dtype=dtype)
        if len(arg1) == 2:
            _check_shape(arg1, shape)
            return empty("csr", arg1, ctx=ctx, dtype=dtype)
        if len(arg1) == 3:
            return _csr_from_definition(*arg1, shape=shape, ctx=ctx, dtype=dtype)
        raise ValueError("Unexpected length of input tuple: " + str(len(arg1)))
    if isinstance(arg1, CSRNDArray) or _is_scipy(arg1) and arg1.format == "csr":
        _check_shape(arg1.shape, shape)
        return array(arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, RowSparseNDArray):
        raise ValueError("Unexpected input type: RowSparseNDArray")
    return _dense(arg1, shape, ctx, dtype, "csr")


def _csr_from_definition(data, indices, indptr, shape=None, ctx=None, dtype=None):
    dtype = _default_dtype(data, dtype)
    data, indices, indptr = _host(data, dtype), _host(indices, INDEX), _host(indptr, INDEX)
    if shape is None:
        if indices.shape[0] == 0:
            raise ValueError("invalid shape")
        shape = (len(indptr) - 1, int(indices.max()) + 1)
    if data.ndim != 1 or indptr.ndim != 1 or indices.ndim != 1 or indptr.shape[0] == 0 \
            or len(shape) != 2:
        raise ValueError("invalid shape")
    return CSRNDArray._make({"data": data, "indices": indices, "indptr": indptr}, shape,
                            dtype, _ctx(ctx))


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray from (data, indices), a shape, a RowSparseNDArray or a dense
    array."""
    if isinstance(arg1, tuple):
        if len(arg1) < 2:
            raise ValueError("Unexpected length of input tuple: " + str(len(arg1)))
        if len(arg1) > 2 or all(isinstance(a, (int, np.integer)) for a in arg1):
            _check_shape(arg1, shape)
            return empty("row_sparse", arg1, ctx=ctx, dtype=dtype)
        return _rsp_from_definition(arg1[0], arg1[1], shape=shape, ctx=ctx, dtype=dtype)
    if isinstance(arg1, RowSparseNDArray):
        _check_shape(arg1.shape, shape)
        return array(arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, CSRNDArray):
        raise ValueError("Unexpected input type: CSRNDArray")
    return _dense(arg1, shape, ctx, dtype, "row_sparse")


def _rsp_from_definition(data, indices, shape=None, ctx=None, dtype=None):
    dtype = _default_dtype(data, dtype)
    data, indices = _host(data, dtype), _host(indices, INDEX)
    if shape is None:
        if indices.shape[0] == 0:
            raise ValueError("invalid shape")
        shape = (int(indices[-1]) + 1,) + data.shape[1:]
    shape = tuple(shape)
    if data.ndim != len(shape) or indices.ndim != 1 or int(np.prod(shape[1:])) == 0:
        raise ValueError("invalid shape")
    return RowSparseNDArray._make({"data": data, "indices": indices}, shape, dtype, _ctx(ctx))


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage type ``stype`` (no stored entries)."""
    if stype == "default":
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        ctx = _ctx(ctx)
        return _core._wrap(_transfer.zeros(shape, np.dtype(np_dtype(dtype)) if dtype is not None
                                           else _REAL, ctx.jax_device()), ctx)
    if stype not in CLASSES:
        raise ValueError("zeros: unknown storage type %r (default, row_sparse, csr)" % (stype,))
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    dtype = np.dtype(np_dtype(dtype)) if dtype is not None else _REAL
    if stype == "csr":
        if len(shape) != 2:
            raise MXNetError("zeros('csr'): a csr array is 2-D, got shape %s" % (shape,))
        comp = {"data": np.zeros(0, dtype), "indices": np.zeros(0, INDEX),
                "indptr": np.zeros(shape[0] + 1, INDEX)}
    else:
        comp = {"data": np.zeros((0,) + shape[1:], dtype), "indices": np.zeros(0, INDEX)}
    return CLASSES[stype]._make(comp, shape, dtype, _ctx(ctx))


def empty(stype, shape, ctx=None, dtype=None):
    """A sparse array with no stored entries (MXNet's ``empty`` of a sparse type)."""
    if isinstance(shape, int):
        shape = (shape,)
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def array(source_array, ctx=None, dtype=None):
    """A sparse array from a CSRNDArray, RowSparseNDArray or scipy.sparse.csr_matrix (a copy,
    on ``ctx``, in ``dtype``)."""
    if isinstance(source_array, (CSRNDArray, RowSparseNDArray)):
        dtype = np.dtype(np_dtype(dtype)) if dtype is not None else np.dtype(source_array.dtype)
        out = source_array.astype(dtype)
        return out.copyto(ctx) if ctx is not None and ctx != out.context else out
    if _is_scipy(source_array):
        if source_array.format != "csr":
            raise ValueError("Unexpected input type: scipy.sparse %s matrix; convert it with "
                             ".tocsr()" % source_array.format)
        dtype = _default_dtype(source_array, dtype)
        csr = source_array.copy()
        csr.sum_duplicates()      # MXNet's canonical form: sorted, unique column indices
        return CSRNDArray._make({"data": csr.data.astype(dtype),
                                 "indices": csr.indices.astype(INDEX),
                                 "indptr": csr.indptr.astype(INDEX)}, csr.shape, dtype,
                                _ctx(ctx))
    raise ValueError("Unexpected source_array type: %s" % type(source_array))


__all__ = ["csr_matrix", "row_sparse_array", "zeros", "empty", "array", "cast_storage"]
