"""Sparse operators on autograd's tape: gradients that are row_sparse from the start.

MXNet's ``Embedding(sparse_grad=True)``, ``_contrib_SparseEmbedding`` and ``dot(csr, w)``
give the weight a row_sparse gradient holding the rows the batch touched (every such row,
even one whose gradient sums to zero). Recorded as dense operators, the backward would make
a dense gradient of the whole table (1M rows) and the dot would make the csr batch dense.
Here, while recording, such a call is rewritten (rules in ``dispatch.TAPE``):

* the weight enters the tape as its touched rows only -- an entry for rows ``rows`` of the
  variable (``ExtNode.rows``), valued ``w[rows]`` -- and the operator runs on those rows with
  the indices renumbered into them; the backward's gradient of that entry *is* the
  row_sparse gradient's data (``combine`` turns it into the RowSparseNDArray);
* ``dot(csr, dense)`` runs on the csr components (a gather and a segment sum over the
  stored entries), never on a dense batch.

Shapes stay static: the touched rows and the stored entries are padded to a power of two
(pad rows gather zeros and are dropped; pad entries add to no output row), so batches with
other counts reuse the same compiled programs.
"""
import jax
import jax.numpy as jnp
import numpy as np

from ..base import MXNetError
from ..lowering.registry import Op
from .arrays import INDEX, RowSparseNDArray, _core
from .dispatch import tape_rule
from .rows import GATHER, bucket, index
from .rows import pad as _pad


def _device(a, ctx):
    return jax.device_put(a, ctx.jax_device())


# autograd's side, set by xnd/autograd/tape.py's install() (autograd sits above sparse):
# in_graph(x), rows_variable(x), rows_entry(r, x, rows), grad_req(x)
AUTOGRAD = {}


def eligible(w):
    """Whether ``w`` is a dense marked variable whose gradient is row_sparse (and that has
    no history of its own: then its gradient flows into that history instead)."""
    return w.stype == "default" and AUTOGRAD["rows_variable"](w)


def rows_input(w, rows):
    """Rows ``rows`` (ascending, unique) of variable ``w`` as a tape input of their own,
    padded to ``bucket(rows.size)`` rows."""
    r = _core._wrap(GATHER(w._val(), index(rows, w.shape[0], w._ctx)), w._ctx)
    AUTOGRAD["rows_entry"](r, w, rows.astype(INDEX))
    return r


def _inside(op, inputs, attrs, ctx):
    from .dispatch import _invoke_dense
    return _invoke_dense(op, inputs, attrs, ctx)


@tape_rule("Embedding", "_contrib_SparseEmbedding")
def embedding(op, inputs, attrs, ctx):
    """Embedding with a row_sparse weight gradient: the lookup in the unique ids' rows."""
    if op.name == "Embedding" and not attrs.get("sparse_grad"):
        return None
    data, weight = inputs
    if data is None or weight is None or data.stype != "default" or not eligible(weight):
        return None
    ctx = weight.context
    if tuple(weight.shape) != (attrs["input_dim"], attrs["output_dim"]):
        return None     # the operator's own error
    ids = np.asarray(data._val())
    ids = ids if np.issubdtype(ids.dtype, np.integer) else ids.astype(np.int64)
    uniq, inv = np.unique(np.clip(ids, 0, weight.shape[0] - 1), return_inverse=True)
    rows = rows_input(weight, uniq)
    inv_nd = _core._wrap(_device(inv.reshape(ids.shape).astype(np.int32), ctx), ctx)
    return _inside(op, [inv_nd, rows], dict(attrs, input_dim=rows.shape[0]), ctx)


def _csr_dot(data, cols, rows, rhs, *, num_out: int, transpose: bool):
    """csr . rhs (or csr.T . rhs) from the csr's stored entries: entry e adds
    ``data[e] * rhs[cols[e]]`` to output row ``rows[e]`` (transposed: roles swapped)."""
    at, seg = (rows, cols) if transpose else (cols, rows)
    vals = rhs[at]
    prod = data.reshape((-1,) + (1,) * (rhs.ndim - 1)).astype(vals.dtype) * vals
    return jax.ops.segment_sum(prod, seg, num_segments=num_out)


CSR_DOT = Op("_sparse_csr_dot", _csr_dot)


@tape_rule("dot")
def csr_dot(op, inputs, attrs, ctx):
    """dot(csr, dense) and dot(csr.T, dense) on the stored entries; the weight of
    dot(csr, w) enters as the rows the batch's columns touch (row_sparse gradient)."""
    lhs, rhs = inputs
    if lhs is None or rhs is None or lhs.stype != "csr" or rhs.stype != "default" \
            or attrs.get("transpose_b", False) or _in_graph(lhs):
        return None
    ta = bool(attrs.get("transpose_a", False))
    ctx = rhs.context
    m, k = lhs.shape
    if rhs.shape[0] != (m if ta else k):
        raise MXNetError("dot: shape mismatch: lhs %s (transpose_a=%s) and rhs %s"
                         % (lhs.shape, ta, rhs.shape))
    data, cols = lhs._comp["data"], lhs._comp["indices"]
    rowids = np.repeat(np.arange(m, dtype=np.int32), np.diff(lhs._comp["indptr"]))
    table = rhs
    if not ta and eligible(rhs):
        uniq, cols = np.unique(cols, return_inverse=True)
        table = rows_input(rhs, uniq)
    n = bucket(data.size)
    if ta:   # output rows: the csr's columns; pad entries go to row k (dropped)
        cols, rowids = _pad(cols.astype(np.int32), n, k), _pad(rowids, n, 0)
    else:    # output rows: the csr's rows; pad entries go to row m (dropped)
        cols, rowids = _pad(cols.astype(np.int32), n, 0), _pad(rowids, n, m)
    comp = [_core._wrap(_device(a, ctx), ctx) for a in (_pad(data, n, 0), cols, rowids)]
    return _inside(CSR_DOT, comp + [table], {"num_out": k if ta else m, "transpose": ta}, ctx)


def _in_graph(x):
    return AUTOGRAD["in_graph"](x)


# ---- the backward's side ----------------------------------------------------------------
_SPARSE_BACKWARD = {"Embedding": "_backward_Embedding",
                    "_contrib_SparseEmbedding": "_backward_SparseEmbedding",
                    "_sparse_csr_dot": "_backward_dot"}


def no_higher_order(ops):
    """MXNet's sparse backward operators have no gradient of their own: a gradient graph
    (``create_graph=True``) through one is refused, naming it as MXNet does."""
    for n in ops:
        if n.kind[0] == "op" and n.kind[1].name in _SPARSE_BACKWARD:
            name = _SPARSE_BACKWARD[n.kind[1].name]
            raise MXNetError("Operator %s is non-differentiable because it didn't register "
                             "FGradient attribute." % name)


def _rsp(t, rows, data):
    return RowSparseNDArray._make({"data": data, "indices": rows}, t.shape, data.dtype, t._ctx)


def _sum_rows(parts):
    """(rows, data) of the sum of row-sets ``parts`` [(rows, data)...]: the union of rows."""
    if len(parts) == 1:
        return parts[0]
    rows, inv = np.unique(np.concatenate([r for r, _ in parts]), return_inverse=True)
    data = np.zeros((rows.size,) + parts[0][1].shape[1:], parts[0][1].dtype)
    np.add.at(data, inv, np.concatenate([d for _, d in parts]))
    return rows, data


def combine(targets, rows, grads, into_grads):
    """One gradient per target from the backward's groups (``rows[i]`` None: a whole-array
    gradient; else the padded gradient of rows ``rows[i]``): a RowSparseNDArray when a
    target's gradient is rows only, a dense array otherwise. ``into_grads``: the result
    goes into ``.grad`` (grad_req 'add' adds to the row_sparse gradient there)."""
    grad_req = AUTOGRAD["grad_req"]
    order, parts = [], {}
    for t, r, g in zip(targets, rows, grads):
        if id(t) not in parts:
            parts[id(t)] = []
            order.append(t)
        parts[id(t)].append((r, g))
    res = []
    for t in order:
        ps = parts[id(t)]
        dense = [g for r, g in ps if r is None]
        sp = [(r, np.asarray(g)[:r.size]) for r, g in ps if r is not None]
        buf = t._grad if into_grads else None
        if not dense and (buf is None or buf.stype == "row_sparse"):
            if into_grads and grad_req(t) == "add":
                sp.append((buf._comp["indices"], buf._comp["data"].astype(sp[0][1].dtype)))
            res.append(_rsp(t, *_sum_rows(sp)))
            continue
        if dense:
            acc = dense[0]
        elif into_grads and grad_req(t) == "add" and buf is not None:
            acc = buf._val()    # (a dense buffer: its old value, which no group added)
        else:
            acc = jnp.zeros(t.shape, sp[0][1].dtype)
        for g in dense[1:]:
            acc = acc + g
        for r, d in sp:
            acc = acc.at[r].add(d.astype(acc.dtype))
        res.append(acc)
    return order, res
