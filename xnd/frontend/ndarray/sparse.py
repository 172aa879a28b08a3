"""mx.nd.sparse: MXNet's sparse NDArray namespace.

The arrays and constructors are xnd/sparse's (CSRNDArray, RowSparseNDArray, csr_matrix,
row_sparse_array, zeros, empty, array, cast_storage, retain). The operator names
(``sparse.dot``, ``sparse.elemwise_add``, ``sparse.square``, ...) are the registry's
operators: called with sparse arrays they go through the storage-type table
(xnd/sparse/dispatch.py), which decides the storage of the result.
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
       )


def _install(nd):
    """Called by mx.nd's __init__ once its operators exist: they become this namespace's."""
    global _nd
    _nd = nd
    for name in OPS:
        if hasattr(nd, name):
            globals().setdefault(name, getattr(nd, name))


from ...sparse import (BaseSparseNDArray, CSRNDArray, RowSparseNDArray,  # noqa: E402,F401
                       array, csr_matrix, empty, row_sparse_array, zeros)
from ...sparse import cast_storage as _cast  # noqa: E402
from ...sparse.arrays import retain  # noqa: E402,F401


def _binary(name, dense_name):
    def fn(lhs, rhs):
        """MXNet's sparse-aware arithmetic: same-shape arrays elementwise (the storage table
        decides the result's storage), a scalar or a broadcastable array otherwise."""
        if isinstance(lhs, NDArray) and isinstance(rhs, NDArray) and lhs.shape == rhs.shape:
            return getattr(_nd, "elemwise_" + name)(lhs, rhs)
        return getattr(_nd, dense_name)(lhs, rhs)
    fn.__name__ = dense_name
    return fn


def cast_storage(data=None, stype=None, out=None, name=None, **kwargs):
    """``data`` in storage type ``stype`` ('default', 'row_sparse', 'csr')."""
    res = _cast(data, stype)
    if out is None:
        return res
    res.copyto(out)
    return out


add, subtract = _binary("add", "add"), _binary("sub", "subtract")
multiply, divide = _binary("mul", "multiply"), _binary("div", "divide")


gs_retain = retain
