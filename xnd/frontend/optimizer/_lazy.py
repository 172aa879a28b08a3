"""MXNet's lazy updates for row_sparse gradients: SGD, Adam (``lazy_update=True``), AdaGrad
and Ftrl update only the rows the gradient holds -- weight decay, momentum and the other
states included -- where a dense update would touch every row. The rows are updated by the
optimizer's own rule (its fused step on the gathered rows), so the arithmetic is the
dense update's, row for row."""
import jax

from ...ndarray import NDArray, _wrap
from ...sparse import rows as _rows

LAZY = ("SGD", "Adam", "AdaGrad")
LAZY_SPARSE_WEIGHT = ("Ftrl",)     # MXNet's ftrl kernel is lazy for a row_sparse weight only


def applies(opt, grads, weights=()):
    """Whether ``opt``'s update of ``grads`` is lazy (MXNet: a row_sparse gradient and an
    optimizer with a sparse kernel and, where it has the switch, ``lazy_update``)."""
    if not any(getattr(g, "stype", "default") == "row_sparse" for g in grads):
        return False
    names = {c.__name__ for c in type(opt).__mro__}
    if names & set(LAZY_SPARSE_WEIGHT):
        return all(getattr(w, "stype", "default") == "row_sparse" for w in weights)
    return bool(names & set(LAZY)) and getattr(opt, "lazy_update", True)


def _gather(x, idx, rows):
    """Rows of ``x``: padded rows ``idx`` of a dense array on device; a row_sparse array's
    ``rows`` from its components."""
    if x.stype == "default":
        return _rows.gather(x, idx)
    from ...sparse.ops import _rows as host_rows
    sub = _rows.pad_rows(host_rows(x, rows), idx.shape[0])
    return _wrap(jax.device_put(sub, x.context.jax_device()), x.context)


def _scatter(x, idx, rows, sub):
    if x.stype == "default":
        _rows.scatter(x, idx, sub._val())
        return
    from ...sparse.ops import _put_rows
    _put_rows(x, rows, sub.asnumpy()[:rows.size])


def _tree(state, fn):
    """``state`` (None, an NDArray or nested tuples/lists of them) with ``fn`` applied to
    each array."""
    if state is None:
        return None
    if isinstance(state, NDArray):
        return fn(state)
    return type(state)(_tree(s, fn) for s in state)


def _pairs(state, sub):
    if isinstance(state, NDArray):
        return [(state, sub)]
    if state is None:
        return []
    return [p for s, t in zip(state, sub) for p in _pairs(s, t)]


def apply(opt, indices, weights, grads, states, multi_precision):
    """Each parameter's update on the rows its gradient holds (dense gradients: all rows)."""
    for i, w, g, s in zip(indices, weights, grads, states):
        if getattr(g, "stype", "default") != "row_sparse":
            opt._apply([i], [w], [g], [s], multi_precision)
            continue
        rows = g._comp["indices"]   # (none: the update still counts, on pad rows only)
        idx = _rows.index(rows, w.shape[0], w.context)   # (padded: one program per bucket)
        sub_w = _gather(w, idx, rows)
        sub_g = _wrap(jax.device_put(_rows.pad_rows(g._comp["data"], idx.shape[0]),
                                     g.context.jax_device()), g.context)
        sub_s = _tree(s, lambda a: _gather(a, idx, rows))
        opt._apply([i], [sub_w], [sub_g], [sub_s], multi_precision)
        _scatter(w, idx, rows, sub_w)
        for full, part in _pairs(s, sub_s):
            _scatter(full, idx, rows, part)
