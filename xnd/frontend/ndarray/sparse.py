"""mx.nd.sparse: the names of MXNet's sparse NDArray namespace, over dense storage.

xnd has no sparse storage types (docs/porting.md). What MXNet's sparse operators compute
does not depend on the storage, so the operator names here (``sparse.dot``,
``sparse.elemwise_add``, ``sparse.square``, ...) are the dense registry operators, with the
same numbers as MXNet on the same values. What only makes sense for sparse storage
(``csr_matrix``, ``row_sparse_array``, ``cast_storage`` to a sparse type, the sparse array
classes) raises MXNetError saying so. ``retain`` keeps the given rows of a dense array and
zeroes the rest, which is the value MXNet's row_sparse ``retain`` holds.
"""
import numpy as _np

from ...base import MXNetError
from ...ndarray import NDArray
# names MXNet's module holds by importing them (its users import them from here)
from ...base import (NotSupportedForSparseNDArray, c_array_buf, check_call,  # noqa: E402,F401
                     integer_types, numeric_types)
from ...context import Context, current_context  # noqa: E402,F401

_nd = None  # the mx.nd namespace; its __init__ (which imports this module) calls _install

# the operators of MXNet 1.9.1's mx.nd.sparse that xnd's registry holds
OPS = ("ElementWiseSum", "Embedding", "FullyConnected", "LinearRegressionOutput",
       "LogisticRegressionOutput", "MAERegressionOutput", "abs", "adagrad_update",
       "adam_update", "add_n", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh",
       "broadcast_add", "broadcast_div", "broadcast_minus", "broadcast_mul", "broadcast_plus",
       "broadcast_sub", "cbrt", "ceil", "clip", "concat", "cos", "cosh", "degrees", "dot",
       "elemwise_add", "elemwise_div", "elemwise_mul", "elemwise_sub", "exp", "expm1", "fix",
       "floor", "ftrl_update", "gamma", "gammaln", "log", "log10", "log1p", "log2",
       "make_loss", "mean", "negative", "norm", "radians", "relu", "rint", "round", "rsqrt",
       "sgd_mom_update", "sgd_update", "sigmoid", "sign", "sin", "sinh", "slice", "sqrt",
       "square", "stop_gradient", "sum", "tan", "tanh", "trunc", "where", "zeros_like",
       "add", "subtract", "multiply", "divide")


def _install(nd):
    """Called by mx.nd's __init__ once its operators exist: they become this namespace's."""
    global _nd
    _nd = nd
    for name in OPS:
        if hasattr(nd, name):
            globals().setdefault(name, getattr(nd, name))


def _no_sparse(what):
    return MXNetError(f"{what}: xnd has no sparse storage (csr/row_sparse); arrays are dense "
                      "and sparse operators compute on dense values (see docs/porting.md)")


def _check_stype(stype, what):
    if stype not in (None, "default"):
        raise _no_sparse(f"{what}(stype={stype!r})")


class BaseSparseNDArray(NDArray):
    """MXNet's sparse array base class; no xnd array is one, and none can be made."""

    def __new__(cls, *args, **kwargs):
        raise _no_sparse(cls.__name__)


class CSRNDArray(BaseSparseNDArray):
    """MXNet's compressed-sparse-row array (not available in xnd)."""


class RowSparseNDArray(BaseSparseNDArray):
    """MXNet's row-sparse array (not available in xnd)."""


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    raise _no_sparse("csr_matrix")


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    raise _no_sparse("row_sparse_array")


def cast_storage(data, stype, **kwargs):
    """Storage cast: to 'default' a copy of the (dense) array; to a sparse type MXNetError."""
    _check_stype(stype, "cast_storage")
    return data.copy()


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """zeros of the given storage type: dense for 'default', MXNetError for sparse types."""
    _check_stype(stype, "zeros")
    return _nd.zeros(shape, ctx=ctx, dtype=dtype, **kwargs)


def empty(stype, shape, ctx=None, dtype=None):
    _check_stype(stype, "empty")
    return _nd.empty(shape, ctx=ctx, dtype=dtype)


def array(source_array, ctx=None, dtype=None):
    """A dense NDArray from a dense source; scipy sparse matrices raise MXNetError."""
    if type(source_array).__module__.startswith("scipy.sparse"):
        raise _no_sparse("array(scipy.sparse matrix)")
    return _nd.array(source_array, ctx=ctx, dtype=dtype)


def retain(data, indices):
    """The rows of `data` listed in `indices`, the other rows zero (MXNet's row_sparse
    retain, on a dense array)."""
    if not isinstance(data, NDArray) or not isinstance(indices, NDArray):
        raise TypeError("retain: data and indices must be NDArrays")
    rows = _np.zeros((data.shape[0],) + (1,) * (data.ndim - 1), dtype=data.dtype)
    rows[indices.asnumpy().astype(_np.int64)] = 1
    return data * _nd.array(rows, ctx=data.context, dtype=data.dtype)


gs_retain = retain
