"""``mx.numpy_op_fallback`` (MXNet's ``mxnet/numpy_op_fallback.py``): numpy operators that MXNet
runs through official NumPy as Python custom operators (mx.operator): ``empty_like_fallback``,
``resize_fallback``, ``unravel_index_fallback`` and ``mvn_fallback`` (the multivariate normal
of mx.np.random).  ``register`` registers one and puts ``Custom(..., op_type=name)`` under its
name in mx.np's ``_internal`` module (and mx.sym's); none of them has a gradient."""
import ast
import functools

import numpy as _onp

from .. import symbol as _sym
from ..base import MXNetError
from . import numpy as _mx_np
from . import operator
from .ndarray import Custom as _nd_custom
from .numpy import _internal as _nd_npi
from .numpy.utils import _STR_2_DTYPE_
from .util import np_array, use_np


def register(op_name, imperative=True, symbolic=True):
    """Decorator of a CustomOpProp: registers it as custom operator `op_name` and saves
    ``Custom(op_type=op_name)`` as `op_name` in mx.np._internal (`imperative`) and
    mx.sym._internal (`symbolic`); a name already there is MXNet's ValueError."""
    def save(mod, custom):
        if hasattr(mod, op_name):
            raise ValueError(f"Duplicate name {op_name} found in module {mod}")
        setattr(mod, op_name, functools.partial(custom, op_type=op_name))

    def helper(prop_cls):
        with np_array():
            prop_cls = operator.register(op_name)(prop_cls)
        if imperative:
            save(_nd_npi, _nd_custom)
        if symbolic:
            save(_sym._internal, _sym.Custom)
        return prop_cls
    return helper


def _no_gradient(what):
    raise MXNetError(f"Operator {what} does not support gradient computation")


@use_np
class EmptyLike(operator.CustomOp):
    """np.empty_like through NumPy (the values are whatever NumPy's buffer holds)."""

    def __init__(self, dtype, order, subok, shape):
        super().__init__()
        self._dtype, self._order, self._subok, self._shape = dtype, order, subok, shape

    def forward(self, is_train, req, in_data, out_data, aux):
        out = _onp.empty_like(in_data[0].asnumpy(), dtype=self._dtype, order=self._order,
                              subok=self._subok)
        self.assign(out_data[0], req[0], _mx_np.array(out, ctx=in_data[0].ctx))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _no_gradient("empty_like")


@register("empty_like_fallback")
class EmptyLikeProp(operator.CustomOpProp):
    """Properties of empty_like_fallback: the prototype's shape; its dtype unless given."""

    def __init__(self, dtype, order, subok, shape):
        super().__init__(need_top_grad=True)
        self._dtype = None if dtype == "None" else dtype
        self._order, self._subok = order, ast.literal_eval(subok)
        self._shape = ast.literal_eval(shape)

    def list_arguments(self):
        return ["prototype"]

    def infer_shape(self, in_shape):
        return (in_shape[0],), (in_shape[0],), ()

    def infer_type(self, in_type):
        out = in_type[0] if self._dtype is None else _STR_2_DTYPE_[self._dtype]
        return (in_type[0],), (out,), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return EmptyLike(self._dtype, self._order, self._subok, self._shape)


@use_np
class Resize(operator.CustomOp):
    """np.resize through NumPy (the input repeated to fill the new shape)."""

    def __init__(self, new_shape):
        super().__init__()
        self._new_shape = new_shape

    def forward(self, is_train, req, in_data, out_data, aux):
        out = _onp.resize(in_data[0].asnumpy(), self._new_shape)
        self.assign(out_data[0], req[0], _mx_np.array(out, dtype=out.dtype, ctx=out_data[0].ctx))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _no_gradient("resize")


@register("resize_fallback")
class ResizeProp(operator.CustomOpProp):
    """Properties of resize_fallback: the output has ``new_shape``."""

    def __init__(self, new_shape):
        super().__init__(need_top_grad=True)
        self._new_shape = ast.literal_eval(new_shape)

    def list_arguments(self):
        return ["a"]

    def infer_shape(self, in_shape):
        shape = (self._new_shape,) if _onp.isscalar(self._new_shape) else self._new_shape
        return (in_shape[0],), (shape,), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return Resize(self._new_shape)


@use_np
class Unravel_index(operator.CustomOp):
    """np.unravel_index through NumPy: one row of coordinates per dimension of ``shape``."""

    def __init__(self, shape):
        super().__init__()
        self._shape = shape

    def forward(self, is_train, req, in_data, out_data, aux):
        out = _onp.unravel_index(in_data[0].asnumpy(), self._shape)
        self.assign(out_data[0], req[0],
                    _mx_np.array(out, dtype=out[0].dtype, ctx=out_data[0].ctx))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _no_gradient("Unravel_index")


@register("unravel_index_fallback")
class Unravel_indexProp(operator.CustomOpProp):
    """Properties of unravel_index_fallback: (len(shape),) + the indices' shape."""

    def __init__(self, shape):
        super().__init__(need_top_grad=True)
        self._shape = ast.literal_eval(shape)

    def list_arguments(self):
        return ["indices"]

    def infer_shape(self, in_shape):
        rows = (1,) if _onp.isscalar(self._shape) else (len(self._shape),)
        return (in_shape[0],), (rows + tuple(in_shape[0]),), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return Unravel_index(self._shape)


@use_np
class MultivariateNormal(operator.CustomOp):
    """Draws ``mean + L @ z`` with ``L`` the Cholesky factor of ``cov`` (float16 factored in
    float32) and ``z`` standard normal draws of the output's shape."""

    def __init__(self, size=None):
        super().__init__()
        self._size = size

    def forward(self, is_train, req, in_data, out_data, aux):
        loc, cov = in_data[0], in_data[1]
        if cov.dtype == _onp.float16:
            scale = _mx_np.linalg.cholesky(cov.astype(_onp.float32)).astype(_onp.float16)
        else:
            scale = _mx_np.linalg.cholesky(cov)
        noise = _mx_np.random.normal(size=out_data[0].shape, dtype=loc.dtype, ctx=loc.ctx)
        self.assign(out_data[0], req[0], loc + _mx_np.einsum("...jk,...j->...k", scale, noise))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _no_gradient("random.multivariate_normal")


@register("mvn_fallback")
class MultivariateNormalProp(operator.CustomOpProp):
    """Properties of mvn_fallback: mean (..., k) and cov (..., k, k) broadcast, ``size``
    in front; MXNet's ValueErrors for the shapes that do not fit."""

    def __init__(self, size=None):
        super().__init__(need_top_grad=True)
        self._size = ast.literal_eval(size) if size is not None else None

    def list_arguments(self):
        return ["mean", "cov"]

    def infer_shape(self, in_shape):
        loc, cov = in_shape[0], in_shape[1]
        if len(loc) < 1:
            raise ValueError("mean must be at least 1 dimensional")
        if len(cov) < 2:
            raise ValueError("cov must be at least 2 dimensional")
        if cov[-1] != cov[-2]:
            raise ValueError("the last two dimentions of the parameter cov have to be the same,"
                             f" whereas the shape of cov is {cov}")
        if cov[-1] != loc[-1]:
            raise ValueError(f"mean and cov must have same length.The shape of mean is "
                             f"{loc[-1:]} but the shape of cov is {cov[-2:]}")
        out = _onp.broadcast_shapes(tuple(loc), tuple(cov[:-1]))
        if self._size is not None:
            self._size = (self._size,) if _onp.isscalar(self._size) else self._size
            out = tuple(self._size) + out
        return in_shape, (out,), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return MultivariateNormal(self._size)


