"""Kernels that compute on the stored entries of sparse arrays (registered in
``dispatch.KERNELS``): MXNet's sparse ``dot`` forms, ``retain``, ``square_sum`` and the sums of
row_sparse arrays. A kernel returns None for a combination it does not serve, and the call
falls back to the dense values."""
import jax
import numpy as np

from ..base import MXNetError
from .arrays import INDEX, CSRNDArray, RowSparseNDArray, _core, retain
from .dispatch import D, WRITTEN, kernel
from .rows import op_update


def _dense_out(a, ctx):
    return _core._wrap(jax.device_put(a, ctx.jax_device()), ctx)


def _csr_dot(csr, rhs, transpose):
    """csr . rhs (dense numpy), or csr.T . rhs: a sum over the stored entries only."""
    data, idx, indptr = csr._comp["data"], csr._comp["indices"], csr._comp["indptr"]
    rows = np.repeat(np.arange(csr.shape[0], dtype=INDEX), np.diff(indptr))
    rhs2 = rhs.reshape(rhs.shape[0], -1)
    if not transpose:
        out = np.zeros((csr.shape[0], rhs2.shape[1]), np.result_type(data, rhs))
        np.add.at(out, rows, data[:, None] * rhs2[idx])
        return out.reshape((csr.shape[0],) + rhs.shape[1:])
    out = np.zeros((csr.shape[1], rhs2.shape[1]), np.result_type(data, rhs))
    np.add.at(out, idx, data[:, None] * rhs2[rows])
    return out.reshape((csr.shape[1],) + rhs.shape[1:])


@kernel("dot")
def dot(op, inputs, attrs, out=None):
    lhs, rhs = inputs
    ta, tb = attrs.get("transpose_a", False), attrs.get("transpose_b", False)
    ctx = lhs.context
    if lhs.stype == "csr" and rhs.stype in (D, "row_sparse") and not tb:
        k = lhs.shape[0] if ta else lhs.shape[1]
        if rhs.shape[0] != k:
            raise MXNetError("dot: shape mismatch: lhs %s (transpose_a=%s) and rhs %s"
                             % (lhs.shape, ta, rhs.shape))
        dense_rhs = rhs.asnumpy() if rhs.stype == D else rhs.todense_numpy()
        out = _csr_dot(lhs, dense_rhs, ta)
        if ta:   # MXNet: dot(csr.T, dense) is row_sparse
            return RowSparseNDArray.from_dense(out, ctx)
        return _dense_out(out, ctx)
    if lhs.stype == D and rhs.stype == "csr" and not ta:
        # dense . csr = (csr.T . dense.T).T; dense . csr.T = (csr . dense.T).T
        out = _csr_dot(rhs, lhs.asnumpy().T, not tb).T
        return CSRNDArray.from_dense(out, ctx)    # MXNet: dot(dense, csr) is csr
    return None


@kernel("_sparse_retain", "retain")
def _retain_kernel(op, inputs, attrs, out=None):
    return retain(*inputs)


# ---- the optimizers' lazy updates: only the rows a row_sparse gradient holds -------------
LAZY = ("sgd_update", "sgd_mom_update", "adam_update", "ftrl_update", "_sparse_adagrad_update")


def _rows(x, rows):
    """Rows ``rows`` of a dense or row_sparse array, as a dense numpy array."""
    if x.stype == "row_sparse":
        pos = np.searchsorted(x._comp["indices"], rows)
        have = x._comp["indices"]
        out = np.zeros((rows.size,) + x.shape[1:], x._dtype)
        ok = (pos < have.size) & (have[np.minimum(pos, max(have.size - 1, 0))] == rows) \
            if have.size else np.zeros(rows.size, bool)
        out[ok] = x._comp["data"][pos[ok]]
        return out
    return np.asarray(x._val())[rows]


def _set_rows(a, rows, values):
    return a.at[rows].set(values)


# one program per (table, bucket of row counts), the table's buffer donated: a lazy update
# writes its rows in place instead of copying the whole table through the host
_SET_ROWS = jax.jit(_set_rows, donate_argnums=0)


def _bucket(n):
    return 1 << max(0, int(n) - 1).bit_length()


def _put_rows(x, rows, values):
    """Write ``values`` into rows ``rows`` of ``x`` (dense or row_sparse), in place."""
    if x.stype == "row_sparse":   # the rows it held and the rows written stay stored
        full = x.todense_numpy()
        full[rows] = values
        keep = np.union1d(x._comp["indices"], rows)
        x._assign(RowSparseNDArray._make({"data": full[keep], "indices": keep}, x.shape,
                                         x._dtype, x.context))
        return
    if rows.size == 0:
        return
    pad = _bucket(rows.size) - rows.size     # repeats of the last row write the same value
    rows = np.concatenate([rows, np.repeat(rows[-1:], pad)])
    values = np.concatenate([values, np.repeat(values[-1:], pad, axis=0)])
    x._write(_SET_ROWS(x._val(), rows, values.astype(np.dtype(x.dtype))))


@kernel(*LAZY)
def lazy_update(op, inputs, attrs, out=None):
    """MXNet's lazy update: the dense update applied to the rows of a row_sparse gradient
    only (weight decay and momentum included), states updated in those rows alone."""
    grad = inputs[1]
    if grad.stype != "row_sparse" or not attrs.get("lazy_update", True):
        return None
    weight = inputs[0]
    rows = grad._comp["indices"]
    if rows.size == 0:
        return WRITTEN if out is weight else None
    dense = all(x.stype == D for i, x in enumerate(inputs) if i != 1)
    if dense and (out is None or out is weight):
        # on device: one compiled gather-update-scatter, in place (sparse/rows.py)
        res = op_update(op, attrs, weight, rows, grad._comp["data"], inputs[2:],
                        out is weight)
        return WRITTEN if out is weight else res
    sub = [_dense_out(grad._comp["data"], grad.context) if i == 1 else
           _dense_out(_rows(x, rows), x.context) for i, x in enumerate(inputs)]
    from .dispatch import _invoke_dense
    new_w = _invoke_dense(op, sub, dict(attrs), weight.context)
    for i in range(2, len(inputs)):          # the states the op wrote back into ``sub``
        _put_rows(inputs[i], rows, sub[i].asnumpy())
    target = weight if out is None else out
    if out is None:
        target = weight.copy()
    _put_rows(target, rows, new_w.asnumpy())
    return WRITTEN if out is not None else target




@kernel("_square_sum")
def square_sum(op, inputs, attrs, out=None):
    (x,) = inputs
    if x.stype != "row_sparse":
        return None
    axis, keepdims = attrs.get("axis"), attrs.get("keepdims", False)
    axis = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,) if axis is not None \
        else None
    sq = x._comp["data"] ** 2
    if axis in ((1,), (-1,)) and x.ndim == 2:
        rows = sq.sum(axis=1)
        if keepdims:   # MXNet: row_sparse (the stored rows' sums)
            return RowSparseNDArray._make({"data": rows[:, None], "indices": x._comp["indices"]},
                                          (x.shape[0], 1), x._dtype, x.context)
        out = np.zeros(x.shape[0], x._dtype)
        out[x._comp["indices"]] = rows
        return _dense_out(out, x.context)
    if axis in ((0,),) and x.ndim == 2:
        out = sq.sum(axis=0)
        return _dense_out(out[None] if keepdims else out, x.context)
    return None


@kernel("elemwise_add", "_plus", "_add", "add_n", "ElementWiseSum", "_sum")
def rsp_sum(op, inputs, attrs, out=None):
    """Sums of row_sparse arrays: the union of their rows."""
    if not inputs or any(x is None or x.stype != "row_sparse" for x in inputs):
        return None
    first = inputs[0]
    rows = np.unique(np.concatenate([x._comp["indices"] for x in inputs]))
    data = np.zeros((rows.size,) + first.shape[1:], first._dtype)
    for x in inputs:
        if x.shape != first.shape:
            raise MXNetError("%s: shapes differ: %s and %s" % (op.name, first.shape, x.shape))
        data[np.searchsorted(rows, x._comp["indices"])] += x._comp["data"]
    return RowSparseNDArray._make({"data": data, "indices": rows.astype(INDEX)}, first.shape,
                                  first._dtype, first.context)


@kernel("_contrib_getnnz")
def getnnz(op, inputs, attrs, out=None):
    (x,) = inputs
    if x.stype != "csr":
        return None
    axis, indptr = attrs.get("axis"), x._comp["indptr"]
    if axis is None:
        out = np.array(indptr[-1], dtype=INDEX)
    elif axis == 1:
        out = np.diff(indptr).astype(INDEX)
    else:
        out = np.bincount(x._comp["indices"], minlength=x.shape[1]).astype(INDEX)
    return _dense_out(out, x.context)


@kernel("cast_storage")
def cast_storage_kernel(op, inputs, attrs, out=None):
    from .arrays import cast_storage
    return cast_storage(inputs[0], attrs["stype"])


def _on_stored(x, fn):
    comp = dict(x._comp, data=fn(x._comp["data"]).astype(x._dtype))
    return type(x)._make(comp, x.shape, x._dtype, x.context)


@kernel("_scatter_plus_scalar", "_scatter_minus_scalar")
def scatter_scalar(op, inputs, attrs, out=None):
    (x,) = inputs
    if x.stype == D:
        return None
    s = float(attrs.get("scalar", 1.0)) * (1 if op.name == "_scatter_plus_scalar" else -1)
    return _on_stored(x, lambda d: d + s)


@kernel("_scatter_elemwise_div")
def scatter_div(op, inputs, attrs, out=None):
    lhs, rhs = inputs
    if lhs.stype != "row_sparse":
        return None
    r = rhs.asnumpy() if rhs.stype == D else rhs.todense_numpy()
    rows = lhs._comp["indices"]
    return _on_stored(lhs, lambda d: d / r[rows])
