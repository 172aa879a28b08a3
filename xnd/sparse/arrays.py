"""CSRNDArray and RowSparseNDArray: MXNet's sparse storage types on the NDArray handle.

A sparse array holds its components -- ``data`` and ``indices`` (and ``indptr`` for csr) --
as numpy arrays on the host, exactly as long as they are (nnz entries / stored rows). The
dense value that a dense operator needs (MXNet's "storage fallback") is made on first use
and kept until the array is written (``_val``); nothing else ever makes it, so a
RowSparseNDArray of a 1M-row gradient with a few rows costs what those rows cost. Why the
host: the number of stored entries changes every batch, and an XLA program is compiled per
shape -- a program per nnz would be compiled over and over (docs/architecture.md).
"""
import importlib
import math
import pickle
import warnings

import jax
import numpy as np

from ..base import MXNetError, NotSupportedForSparseNDArray
from ..context import Context, current_context
from ..lowering import registry as _registry
from ..lowering.dtypes import np_dtype

# the core module (as an attribute of xnd, ``ndarray`` is the mx.nd namespace)
_core = importlib.import_module("xnd.ndarray")

INDEX = np.dtype(np.int64)       # MXNet's aux types: int64 indices and indptr
STYPES = ("default", "row_sparse", "csr")
ARM = None      # xnd.sparse._arm: turns on ndarray.invoke's sparse hook at the first array


def _ctx(ctx):
    return current_context() if ctx is None else ctx


class BaseSparseNDArray(_core.NDArray):
    """The base class of MXNet's sparse arrays (``stype`` 'csr' or 'row_sparse')."""

    # ``_data`` stays None: NDArray's eager fast paths read ``_data`` directly and would
    # bypass the storage table; the dense fallback value is cached in ``_dense``
    __slots__ = ("_comp", "_dense_shape", "_dtype", "_dense")
    _AUX = ()

    # ---- the handle ---------------------------------------------------------------------
    @classmethod
    def _make(cls, comp, shape, dtype, ctx):
        if _core._SPARSE[0] is None:
            ARM()
        x = _core._new(cls)
        x._comp = {k: np.ascontiguousarray(v) for k, v in comp.items()}
        x._dense_shape, x._dtype = tuple(int(s) for s in shape), np.dtype(dtype)
        x._data, x._ctx, x._base, x._grad, x._ag, x._shared = None, ctx, None, None, None, False
        x._dense = None
        x._src, x._offset, x._shape, x._fresh = None, 0, None, False
        return x

    def _assign(self, other):
        """Take ``other``'s components (same class), as an in-place write does."""
        self._comp = {k: v.astype(INDEX if k != "data" else self._dtype, copy=True)
                      for k, v in other._comp.items()}
        self._dense = None

    def _val(self):
        """The dense value (MXNet's storage fallback); made once per written state."""
        if self._dense is None:
            self._dense = jax.device_put(self.todense_numpy(), self._ctx.jax_device())
        return self._dense

    def _set_val(self, value):
        """A dense write (an operator's ``out=``): kept in this array's storage type."""
        self._assign(type(self).from_dense(np.asarray(value), self._ctx))
        self._dense = value

    @property
    def shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._dtype.type

    @property
    def size(self):
        raise MXNetError("size of a %s is ambiguous (the dense size is %d, it stores %d "
                         "values); use .shape or .data.size" % (
                             type(self).__name__, math.prod(self.shape), self._comp["data"].size))

    @property
    def _num_aux(self):
        return len(self._AUX)

    @property
    def _aux_types(self):
        return [self._comp[k].dtype.type for k in self._AUX]

    def _aux_type(self, i):
        return self._aux_types[i]

    def _component(self, name):
        arr = self._comp[name]
        return _core._wrap(jax.device_put(arr, self._ctx.jax_device()), self._ctx)

    @property
    def data(self):
        """A copy of the stored values, as a dense NDArray."""
        return self._component("data")

    @property
    def indices(self):
        return self._component("indices")

    def _aux_data(self, i):
        return self._component(self._AUX[i])

    # ---- what MXNet's sparse arrays refuse ----------------------------------------------
    def reshape(self, *shape, **kwargs):
        raise NotSupportedForSparseNDArray(self.reshape, None, shape)

    def _at(self, idx):
        raise NotSupportedForSparseNDArray(self._at, "[idx]", idx)

    def _slice(self, start, stop):
        raise NotSupportedForSparseNDArray(self._slice, None, start, stop)

    # ---- printing, conversion, copies ---------------------------------------------------
    def __repr__(self):
        return "\n<%s %s @%s>" % (type(self).__name__, "x".join(str(s) for s in self.shape),
                                  self.context)

    __str__ = __repr__

    def asnumpy(self):
        return self.todense_numpy()

    def tostype(self, stype):
        return cast_storage(self, stype)

    def astype(self, dtype, copy=True):
        dtype = np.dtype(np_dtype(dtype))
        if not copy and dtype == self._dtype:
            return self
        comp = dict(self._comp, data=self._comp["data"].astype(dtype))
        return type(self)._make(comp, self.shape, dtype, self._ctx)

    def copy(self):
        return type(self)._make(self._comp, self.shape, self._dtype, self._ctx)

    def copyto(self, other):
        if isinstance(other, Context):
            return type(self)._make(self._comp, self.shape, self._dtype, other)
        if not isinstance(other, _core.NDArray):
            raise TypeError("copyto does not support type " + str(type(other)))
        if other is self:
            warnings.warn("You are attempting to copy an array to itself", RuntimeWarning)
            return False
        if tuple(other.shape) != self.shape:
            raise MXNetError("copyto: shape mismatch, %s to %s" % (self.shape, other.shape))
        if other.stype not in ("default", self.stype):
            raise TypeError("copyto does not support destination NDArray stype " + other.stype)
        if other.stype == "default":
            other._write(jax.device_put(self.todense_numpy().astype(np.dtype(other.dtype)),
                                        other.context.jax_device()))
        else:
            other._assign(self.astype(other.dtype))
        return other

    def as_in_context(self, context):
        return self if context == self._ctx else self.copyto(context)

    def __reduce__(self):
        return _unpickle, (type(self).__name__, self._comp, self.shape, self._dtype.str)

    def __getstate__(self):
        return {"comp": self._comp, "shape": self.shape, "dtype": self._dtype.str}

    def __setstate__(self, state):
        fresh = type(self)._make(state["comp"], state["shape"], state["dtype"], current_context())
        for k in ("_comp", "_dense_shape", "_dtype", "_data", "_dense", "_ctx", "_base", "_grad", "_ag",
                  "_shared", "_src", "_offset", "_shape", "_fresh"):
            setattr(self, k, getattr(fresh, k))

    def wait_to_read(self):
        return None

    def detach(self):
        """The same storage, cut from the autograd graph (shares the components)."""
        x = type(self)._make({}, self.shape, self._dtype, self._ctx)
        x._comp = self._comp
        return x

    def attach_grad(self, grad_req="write", stype=None):
        """A gradient buffer in ``stype``, by default this array's own storage type."""
        super().attach_grad(grad_req, stype or self.stype)

    # arithmetic: mx.nd.sparse's (same shapes elementwise, through the storage table;
    # a scalar or a broadcast as NDArray's)
    def _elementwise(self, other, name, fallback):
        if isinstance(other, _core.NDArray) and tuple(other.shape) == self.shape:
            op = _registry.get(name)
            return _core.invoke(op, [self, other], op.parse_attrs({}))
        return fallback(self, other)

    def __add__(self, other):
        return self._elementwise(other, "elemwise_add", _core.NDArray.__add__)

    def __sub__(self, other):
        return self._elementwise(other, "elemwise_sub", _core.NDArray.__sub__)

    def __mul__(self, other):
        return self._elementwise(other, "elemwise_mul", _core.NDArray.__mul__)

    def __truediv__(self, other):
        return self._elementwise(other, "elemwise_div", _core.NDArray.__truediv__)

    # in-place arithmetic: the result in this array's storage type (MXNet's copyto)
    def __iadd__(self, other):
        return self._inplace(self + other)

    def __isub__(self, other):
        return self._inplace(self - other)

    def __imul__(self, other):
        return self._inplace(self * other)

    def __itruediv__(self, other):
        return self._inplace(self / other)

    def _inplace(self, result):
        if result.stype != self.stype:
            result = cast_storage(result, self.stype)
        self._assign(result.astype(self.dtype))
        return self

    def check_format(self, full_check=True):
        """Raise MXNetError when the components do not describe a valid array."""
        _check_format(self, full_check)


class CSRNDArray(BaseSparseNDArray):
    """A 2-D array in compressed sparse row format: ``data``, column ``indices`` and the
    row pointer ``indptr``."""

    __slots__ = ()
    _AUX = ("indptr", "indices")

    @property
    def stype(self):
        return "csr"

    @property
    def indptr(self):
        return self._component("indptr")

    def todense_numpy(self):
        rows, cols = self.shape
        out = np.zeros(self.shape, self._dtype)
        indptr, idx, data = self._comp["indptr"], self._comp["indices"], self._comp["data"]
        r = np.repeat(np.arange(rows), np.diff(indptr))
        np.add.at(out, (r, idx), data)
        return out

    @classmethod
    def from_dense(cls, a, ctx, dtype=None):
        a = np.asarray(a)
        if a.ndim != 2:
            raise ValueError("cast_storage: csr needs a 2-D array, got shape %s" % (a.shape,))
        dtype = np.dtype(dtype or a.dtype)
        nz = a != 0
        r, c = np.nonzero(nz)
        indptr = np.concatenate([[0], np.cumsum(nz.sum(axis=1))]).astype(INDEX)
        return cls._make({"data": a[r, c].astype(dtype), "indices": c.astype(INDEX),
                          "indptr": indptr}, a.shape, dtype, ctx)

    def asscipy(self):
        import scipy.sparse as spsp
        return spsp.csr_matrix((self._comp["data"], self._comp["indices"],
                                self._comp["indptr"]), shape=self.shape, dtype=self._dtype)

    def tostype(self, stype):
        if stype == "row_sparse":
            raise ValueError("cast_storage from csr to row_sparse is not supported")
        return cast_storage(self, stype)

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            begin = self.shape[0] - 1 if key == -1 else int(key)
            return slice_rows(self, begin, begin + 1)
        if isinstance(key, slice):
            if key.step is not None:
                raise ValueError("CSRNDArray only supports continuous slicing on axis 0")
            if key.start is None and key.stop is None:
                return self
            return slice_rows(self, key.start or 0,
                              self.shape[0] if key.stop is None else key.stop)
        if isinstance(key, tuple):
            raise ValueError("Multi-dimension indexing is not supported")
        raise ValueError("Undefined behaviour for {}".format(key))

    def __setitem__(self, key, value):
        _setitem(self, key, value, scalars=False)


class RowSparseNDArray(BaseSparseNDArray):
    """An array of which only some rows are stored: ``data`` (those rows) and their row
    ``indices`` (ascending)."""

    __slots__ = ()
    _AUX = ("indices",)

    @property
    def stype(self):
        return "row_sparse"

    def todense_numpy(self):
        out = np.zeros(self.shape, self._dtype)
        if self._comp["indices"].size:
            out[self._comp["indices"]] = self._comp["data"]
        return out

    @classmethod
    def from_dense(cls, a, ctx, dtype=None):
        a = np.asarray(a)
        if a.ndim == 0:
            raise MXNetError("cast_storage: row_sparse needs at least one dimension")
        dtype = np.dtype(dtype or a.dtype)
        rows = np.nonzero(a.reshape(a.shape[0], -1).any(axis=1))[0] if a.size else \
            np.zeros(0, INDEX)
        return cls._make({"data": a[rows].astype(dtype), "indices": rows.astype(INDEX)},
                         a.shape, dtype, ctx)

    def tostype(self, stype):
        if stype == "csr":
            raise ValueError("cast_storage from row_sparse to csr is not supported")
        return cast_storage(self, stype)

    def retain(self, indices):
        return retain(self, indices)

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            raise Exception("__getitem__ with int key is not implemented for RowSparseNDArray "
                            "yet")
        if isinstance(key, slice):
            if key.step is not None or key.start is not None or key.stop is not None:
                raise Exception("RowSparseNDArray only supports [:] for __getitem__")
            return self
        if isinstance(key, tuple):
            raise ValueError("Multi-dimension indexing is not supported")
        raise ValueError("Undefined behaviour for {}".format(key))

    def __setitem__(self, key, value):
        _setitem(self, key, value, scalars=True)


CLASSES = {"csr": CSRNDArray, "row_sparse": RowSparseNDArray}


def _unpickle(name, comp, shape, dtype):
    cls = {"CSRNDArray": CSRNDArray, "RowSparseNDArray": RowSparseNDArray}[name]
    return cls._make(comp, shape, dtype, current_context())


def _setitem(x, key, value, scalars):
    what = type(x).__name__
    if not isinstance(key, slice):
        raise TypeError("%s only supports [:] for assignment" % what) if scalars else \
            Exception("%s only supports [:] for assignment" % what)
    if key.step is not None or key.start is not None or key.stop is not None:
        raise ValueError("Assignment with slice for %s is not implemented yet." % what)
    if isinstance(value, _core.NDArray):
        if value is not x:
            value.copyto(x)
    elif isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        if not scalars:
            raise ValueError("Assigning numeric types to CSRNDArray is not implemented yet.")
        full = np.full(x.shape, value, x._dtype)
        x._assign(RowSparseNDArray._make({"data": full, "indices": np.arange(
            x.shape[0], dtype=INDEX)}, x.shape, x._dtype, x._ctx))
    elif isinstance(value, (np.ndarray, np.generic)):
        warnings.warn("Assigning non-NDArray object to %s is not efficient" % what,
                      RuntimeWarning)
        x._assign(type(x).from_dense(np.broadcast_to(np.asarray(value, x._dtype), x.shape),
                                     x._ctx, x._dtype))
    else:
        raise TypeError("type %s not supported" % type(value))


def retain(data=None, indices=None, out=None, name=None, **kwargs):
    """A RowSparseNDArray of the rows ``indices`` of ``data`` (stored as zeros where ``data``
    has none, as MXNet's); the other rows dropped."""
    if kwargs:
        raise MXNetError("retain: unknown arguments %s (it takes data, indices)"
                         % sorted(kwargs))
    if data is None or indices is None:
        raise MXNetError("retain: data and indices are required")
    if data.stype != "row_sparse":
        raise MXNetError("retain: data must be a RowSparseNDArray, got stype %r" % data.stype)
    want = np.unique(np.asarray(indices.asnumpy() if isinstance(indices, _core.NDArray)
                                else indices).astype(INDEX))
    if want.size and (want[0] < 0 or want[-1] >= data.shape[0]):
        raise MXNetError("retain: indices must be in 0..%d, got %s" % (data.shape[0] - 1, want))
    have = data._comp["indices"]
    vals = np.zeros((want.size,) + data.shape[1:], data._dtype)
    pos = np.searchsorted(have, want)
    hit = (pos < have.size) & (have[np.minimum(pos, max(have.size - 1, 0))] == want) \
        if have.size else np.zeros(want.size, bool)
    vals[hit] = data._comp["data"][pos[hit]]
    res = RowSparseNDArray._make({"data": vals, "indices": want}, data.shape, data._dtype,
                                 data.context)
    if out is not None:
        out._assign(res)
        return out
    return res


def slice_rows(x, begin, end):
    """Rows begin..end of a CSRNDArray (MXNet's ``slice`` on axis 0 of a csr array)."""
    rows = x.shape[0]
    begin = begin + rows if begin < 0 else begin
    end = end + rows if end < 0 else end
    if not 0 <= begin < end <= rows:
        raise MXNetError("slice: begin=%d, end=%d out of range for %d rows" % (begin, end, rows))
    indptr = x._comp["indptr"]
    lo, hi = indptr[begin], indptr[end]
    return CSRNDArray._make({"data": x._comp["data"][lo:hi],
                             "indices": x._comp["indices"][lo:hi],
                             "indptr": indptr[begin:end + 1] - lo},
                            (end - begin, x.shape[1]), x._dtype, x._ctx)


def cast_storage(x, stype):
    """``x`` in storage type ``stype`` ('default', 'csr', 'row_sparse'): a new array."""
    if stype not in STYPES:
        raise MXNetError("cast_storage: unknown storage type %r (default, row_sparse, csr)"
                         % (stype,))
    src = x.stype
    if stype == "default":
        return x.copy() if src == "default" else _core._wrap(
            jax.device_put(x.todense_numpy(), x.context.jax_device()), x.context)
    if src == stype:
        return x.copy()
    if src != "default":
        raise ValueError("cast_storage from %s to %s is not supported" % (src, stype))
    return CLASSES[stype].from_dense(x.asnumpy(), x.context)


def _check_format(x, full):
    c, shape = x._comp, x.shape
    name = type(x).__name__
    if x.stype == "csr":
        indptr, idx = c["indptr"], c["indices"]
        if indptr.shape != (shape[0] + 1,) or idx.shape != c["data"].shape:
            raise MXNetError("%s check_format: indptr must have %d entries and indices as many "
                             "as data" % (name, shape[0] + 1))
        if indptr[0] != 0 or indptr[-1] != idx.size:
            raise MXNetError("%s check_format: indptr must start at 0 and end at nnz" % name)
        if full and (np.any(np.diff(indptr) < 0) or np.any(idx < 0) or np.any(idx >= shape[1])
                     or any(np.any(np.diff(idx[indptr[r]:indptr[r + 1]]) <= 0)
                            for r in range(shape[0]))):
            raise MXNetError("%s check_format: indptr must not decrease and each row's column "
                             "indices must be ascending and in range" % name)
    else:
        idx = c["indices"]
        if c["data"].shape != (idx.size,) + shape[1:]:
            raise MXNetError("%s check_format: data must be (%d,) + %s" % (name, idx.size,
                                                                             shape[1:]))
        if full and (np.any(np.diff(idx) <= 0) or np.any(idx < 0) or np.any(idx >= shape[0])):
            raise MXNetError("%s check_format: indices must be ascending and in range" % name)
