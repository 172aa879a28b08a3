"""Rows of dense device arrays, read and written by compiled programs: the lazy updates'
gather and scatter (an update touches the rows a row_sparse gradient holds, and nothing of
the rest of a 1M-row table crosses to the host).

Row counts are padded to a power of two (``bucket``) with the index one past the table's
last row: such a pad row reads zeros and its write is dropped. So each program is compiled
once per (table shape, dtype, bucket), and a new batch's count of rows reuses it; the
scatter donates the table's buffer where no one else holds it (an in-place write).
"""
import jax
import numpy as np

from .arrays import _core


def bucket(n):
    """The padded length for ``n`` entries: the next power of two (at least 1)."""
    return 1 << max(0, int(n) - 1).bit_length()


def pad(a, n, value):
    """``a`` (1-D) lengthened to ``n`` with ``value``."""
    return np.concatenate([a, np.full(n - a.size, value, a.dtype)]) if n > a.size else a


def pad_rows(data, n):
    """``data`` lengthened to ``n`` rows with zero rows."""
    if data.shape[0] >= n:
        return data
    return np.concatenate([data, np.zeros((n - data.shape[0],) + data.shape[1:], data.dtype)])


def index(rows, length, ctx):
    """Row indices ``rows`` padded to their bucket (pad: ``length``), on ``ctx``."""
    return jax.device_put(pad(np.asarray(rows).astype(np.int32), bucket(len(rows)), length),
                          ctx.jax_device())


GATHER = jax.jit(lambda a, i: a.at[i].get(mode="fill", fill_value=0))
_SET = jax.jit(lambda a, i, v: a.at[i].set(v.astype(a.dtype), mode="drop"))
_SET_DONATED = jax.jit(lambda a, i, v: a.at[i].set(v.astype(a.dtype), mode="drop"),
                       donate_argnums=0)


def gather(x, idx):
    """Rows ``idx`` (a padded device index) of dense NDArray ``x``, as an NDArray."""
    return _core._wrap(GATHER(x._val(), idx), x.context)


def exclusive(x):
    """Whether ``x``'s buffer may be donated (no other handle or pending result reads it)."""
    if x._data is None or not _core._exclusive(x):
        return False
    _core._flush_pending(x._data)
    return True


def scatter(x, idx, values):
    """Write ``values`` (device rows, padded as ``idx``) into rows ``idx`` of dense ``x``,
    in place."""
    fn = _SET_DONATED if exclusive(x) else _SET
    x._write(fn(x._val(), idx, values))


_FUSED = {}


def _fused(op, key, n_states, donate):
    """One program for an optimizer operator's lazy update: gather the weight's and the
    states' rows, run the operator on them, scatter the results back."""
    k = (op, key, n_states, donate)
    fn = _FUSED.get(k)
    if fn is not None:
        return fn
    static, names = dict(zip(op.static, key)), op.dynamic
    written = [op.inputs.index(n) - 2 for n in op.mutates]   # states from outputs 1..

    def run(w, states, idx, g, *dyn):
        def take(a):
            return a.at[idx].get(mode="fill", fill_value=0)
        res = op.fn(take(w), g, *[take(s) for s in states], **static, **dict(zip(names, dyn)))
        res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
        new = list(states)
        for p, r in zip(written, res[1:]):
            new[p] = states[p].at[idx].set(r.astype(states[p].dtype), mode="drop")
        return w.at[idx].set(res[0].astype(w.dtype), mode="drop"), tuple(new)
    fn = _FUSED[k] = jax.jit(run, donate_argnums=(0, 1) if donate else ())
    return fn


def op_update(op, attrs, weight, rows, gdata, states, in_place):
    """Optimizer operator ``op`` (sgd_update, adam_update ...) applied to rows ``rows`` of
    dense ``weight`` and dense ``states`` with the gradient's rows ``gdata`` (host): the
    states are written in place; the new weight is written into ``weight`` when
    ``in_place``, else returned as a new array."""
    ctx = weight.context
    idx = index(rows, weight.shape[0], ctx)
    g = jax.device_put(pad_rows(gdata, idx.shape[0]), ctx.jax_device())
    donate = in_place and exclusive(weight) and all(exclusive(s) for s in states)
    fn = _fused(op, op.static_key(attrs), len(states), donate)
    new_w, new_s = fn(weight._val(), tuple(s._val() for s in states), idx, g,
                      *[attrs[n] for n in op.dynamic])
    for s, v in zip(states, new_s):
        s._write(v)
    if in_place:
        weight._write(new_w)
        return weight
    return _core._wrap(new_w, ctx)
