"""``Module.fit`` over an ``NDArrayIter``: whole runs of batches as one compiled loop (xnd's
own; MXNet's fit runs python/mxnet/module/base_module.py's batch loop).

MXNet's ``fit`` runs, per batch, the iterator's ``next``, ``forward_backward``, ``update``,
``update_metric`` and ``prepare``.  When nothing can observe the module between two of
those batches -- no monitor, the iterator, module, metric and optimizer are xnd's own
classes, and the batch-end callbacks (if any) are Speedometers or ProgressBars, which read
only the metric and the batch number -- xnd runs consecutive batches as ONE jitted
``lax.scan`` of the fused training step (the same pure function ``Module.update``
compiles): each iteration slices its batch out of the iterator's arrays, runs forward,
backward and the optimizer update, and counts the batch's correct predictions.  The
per-step host bookkeeping -- update counts, learning rates from the scheduler, the random
keys -- is done first, in MXNet's order, and passed in as arrays.  A run is
``SCAN_STEPS`` batches, or a Speedometer's ``frequent`` (so each speed it prints is one
run's).  Without callbacks the counts go into the metric's device sum; with callbacks,
after each run the metric gets each batch's count and the callbacks their call, batch by
batch as in MXNet's loop.

Afterwards the module, iterator and metric are where the batch-by-batch loop leaves them:
parameters, optimizer states, auxiliary states, the last batch's inputs, outputs and
gradients, the iterator's cursor, the metric's sums.  Batches that do not fill a run (an
epoch's remainder, the padded last batch, roll-over leftovers) go through the ordinary
loop.  Numbers equal the batch-by-batch loop's up to XLA's float reassociation inside a
loop body (tests: ``tests/test_fit_scan.py``).

Why: on a small network the per-batch Python of MXNet's loop costs as much as the step's
arithmetic, and on a 2-core machine it also competes with XLA's threads for the cores
(``benchmarks/workloads/mlp_module.py``: 1.27x the JAX twin with the loop, 0.74x without;
an MLP with BatchNorm and Dropout, 1.6x).  Networks with convolutions keep the batch loop:
XLA:CPU ran LeNet's convolutions 4x slower inside a loop body.  ``XND_FIT_SCAN=0`` turns
the loop off.
"""
import os

import jax
import jax.numpy as jnp
import numpy as np

from ...lowering import xla_options
from .. import metric as _metric
from .. import optimizer as _opt
from .. import random as _random
from ..callback import ProgressBar, Speedometer
from ..io import NDArrayIter, _slice_kernel
from .base_module import _NEED_OPT, _assert
from .executor_group import _donatable, _vals, _write_step
from ._programs import TRACES, _opt_key, _zero_key

SCAN_STEPS = 50          # batches per compiled run (one compile per run length and shapes)
ENABLED = os.environ.get("XND_FIT_SCAN", "1") != "0"


MIN_STEPS = 4            # a Speedometer reporting more often than this: the batch loop


def _steps(batch_end_callback):
    """Batches per run for these batch-end callbacks, or None when one may read more than
    the metric and the batch number."""
    if batch_end_callback is None:
        return SCAN_STEPS
    cbs = batch_end_callback if isinstance(batch_end_callback, list) else [batch_end_callback]
    if not all(type(cb) in (Speedometer, ProgressBar) for cb in cbs):
        return None
    every = [cb.frequent for cb in cbs if type(cb) is Speedometer]
    steps = min(every) if every else SCAN_STEPS
    return steps if steps >= MIN_STEPS else None


def plan(module, train_data, eval_metric, batch_end_callback=None):
    """A ``_Run`` for this epoch of ``module.fit`` when the compiled loop applies, else None
    (the caller has already excluded monitors, sparse_row_id_fn and module types that change
    Module's batch methods)."""
    if not ENABLED or type(train_data) is not NDArrayIter:
        return None
    steps = _steps(batch_end_callback)
    if steps is None:
        return None
    _assert(module.binded and module.params_initialized and module.optimizer_initialized,
            _NEED_OPT)
    exe = module._exec
    # XLA:CPU runs convolutions inside a loop body far slower than as programs of their own
    # (the bundled LeNet: 72 ms an epoch in the loop, 18 ms batch by batch)
    if exe._progs.graph.convolutional:
        return None
    if (module._devs.n != 1 or module._update_on_kvstore or not module._fused_ok()
            or any(exe._add_mask) or module._pending is not None
            or type(module._optimizer)._after_apply is not _opt.Optimizer._after_apply
            or any(i not in module._step_layout()[1] for i in exe._fixg)):
        return None
    # every output a loss (backward() without head gradients), one accuracy metric
    if not all(node.op is not None and node.op.is_loss(node.params())
               for node, _ in module._symbol._outputs):
        return None
    if type(eval_metric) is not _metric.Accuracy or eval_metric.output_names is not None \
            or eval_metric.label_names is not None or len(exe._outs) != 1 \
            or len(exe._label_idx) != 1:
        return None
    it = train_data
    if it.layout.find("N") != 0 or it.cursor != -it.batch_size:
        return None
    names = [k for k, _ in it.data] + [k for k, _ in it.label]
    if names != [d.name for d in module._data_shapes] + [d.name for d in module._label_shapes]:
        return None
    idx = list(exe._data_idx) + list(exe._label_idx)
    for (_, arr), i in zip(it.data + it.label, idx):
        h = exe._args[i]
        if (it.batch_size,) + tuple(arr.shape[1:]) != tuple(h.shape):
            return None
    pred, label = exe._outs[0], exe._args[exe._label_idx[0]]
    argmax = tuple(pred.shape) != tuple(label.shape)
    axis = eval_metric.axis
    if argmax and not -pred.ndim <= axis < pred.ndim:
        return None      # the ordinary loop raises MXNet's error
    n_pred = pred.size // pred.shape[axis] if argmax else pred.size
    if n_pred != label.size:
        return None
    return _Run(module, it, eval_metric, idx, axis % pred.ndim if argmax else None, n_pred,
                steps)


class _Run:
    def __init__(self, module, it, metric, idx, axis, n_pred, steps):
        self.module, self.it, self.metric = module, it, metric
        self.idx, self.axis, self.n_pred, self.steps = idx, axis, n_pred, steps

    def run(self, batch_end=None):
        """Run as many whole runs of plain batches as the epoch has, calling ``batch_end(n)``
        after batch n's metric update when given; returns the number of batches done."""
        it, n, done = self.it, self.steps, 0
        while it._plain_batch_at(it.cursor + it.batch_size * n):
            hits = self._chunk(n, per_batch=batch_end is not None)
            if batch_end is not None:
                for h in np.asarray(hits).tolist():
                    self.metric._add_host(h, self.n_pred)
                    batch_end(done)
                    done += 1
            else:
                done += n
        return done

    def _chunk(self, n, per_batch):
        """Run ``n`` batches; their correct counts go into the metric's device sum, or with
        ``per_batch`` come back (one per batch) for the caller to add."""
        mod, it = self.module, self.it
        exe, opt = mod._exec, mod._optimizer
        keys, pidx, upd, others_idx, grads, ones = mod._step_layout()
        args = exe._args
        params = [args[i] for i in pidx]
        _, leaves, treedef = mod._states_for(keys, params)

        # MXNet's host bookkeeping for each step, in its order
        opt._set_current_context(mod._devs.ctx.device_id)
        steps = [opt.step_scalars(keys, packed=True) for _ in range(n)]
        lrs = np.stack([s[0] for s in steps])
        wds = np.stack([s[1] for s in steps])
        extras = {k: np.stack([s[2][k] for s in steps]) for k in steps[0][2]}
        if exe._has_rng:
            rng = jnp.stack([_random.next_key() for _ in range(n)])
        else:
            rng = jnp.broadcast_to(_zero_key(), (n,) + _zero_key().shape)
        starts = np.arange(n, dtype=np.int64) * it.batch_size + it.cursor + it.batch_size

        donated = params + exe._aux + leaves
        donate = _donatable(donated)
        sources, starts = _on_device([a._val() for _, a in it.data + it.label], starts,
                                     n * it.batch_size, mod._devs.replicated)
        key = (tuple(exe._mask), pidx, upd, ones) + _opt_key(opt) + (
            donate, n, it.batch_size, tuple(self.idx), self.axis,
            tuple(others_idx.index(i) for i in self.idx))
        progs = exe._progs
        fn = progs._scans.get(key)
        if fn is None:
            fn = progs._scans[key] = _compile(progs, exe, pidx, upd, ones, opt, donate, others_idx,
                                              self.idx, it.batch_size, self.axis)
        state_vals = jax.tree_util.tree_unflatten(treedef, [h._val() for h in leaves])
        pending = self.metric.__dict__.get("_pending")
        total = None if pending is None or per_batch else pending[0]
        # the host-side inputs committed to the module's device, as the outputs fed back
        # are: mixing committed and uncommitted calls would compile the loop twice
        host = jax.device_put((_metric._zero64() if total is None else total, starts, rng, lrs, wds,
                               extras), mod._devs.replicated)
        outs, new_aux, new_grads, new_params, new_states, total, inputs, hits = fn(
            [h._val() for h in params], [args[i]._val() for i in others_idx], _vals(exe._aux),
            state_vals, host[0], sources, *host[1:])
        _write_step(exe, outs, new_aux, (grads, new_grads), (params, new_params),
                    (leaves, jax.tree_util.tree_leaves(new_states)),
                    ([args[i] for i in self.idx], inputs))  # the last batch stays loaded
        mod._key = rng[-1] if exe._has_rng else _zero_key()
        mod._params_dirty = True
        mod._gamma_stale = False
        it.cursor += n * it.batch_size
        if per_batch:
            return hits
        if pending is None:
            pending = self.metric.__dict__["_pending"] = [None, None]
        pending[0] = total
        self.metric._add_host_count(n * self.n_pred)
        return None


def _on_device(sources, starts, rows, sharding):
    """The iterator's arrays as the loop reads them: as they are when they live on the
    module's device, else just this run's rows copied there (a module on another device than
    its data, as on a GPU), with ``starts`` made relative to them."""
    device = next(iter(sharding.device_set))
    if all(v.devices() == {device} for v in sources):
        return sources, starts
    first = int(starts[0])
    rows = jax.device_put(_slice_kernel(sources, np.int64(first), rows, 0), sharding)
    return rows, starts - first


def _compile(progs, exe, pidx, upd, ones, opt, donate, others_idx, idx, batch, axis):
    """jit (params, others, aux, states, total, sources, starts, keys, lrs, wds, extras) ->
    (last outputs, aux, last grads, params, states, total, last inputs, correct count of each
    batch): ``len(starts)`` fused steps, each on the batch at its start row of ``sources``."""
    head_mask = tuple(False for _ in exe._outs)
    step = progs.pure_step(exe._mask, head_mask, pidx, upd, ones, opt)
    acc = [None] * sum(exe._mask)
    slots = [others_idx.index(i) for i in idx]
    dtypes = [exe._args[i]._data.dtype for i in idx]
    label_slot = len(idx) - 1

    def batch_of(sources, start):
        return [jax.lax.dynamic_slice_in_dim(s, start, batch, 0).astype(dt)
                for s, dt in zip(sources, dtypes)]

    def one(params, others, aux, states, sources, start, key, lrs, wds, extras):
        inputs = batch_of(sources, start)
        others = list(others)
        for k, v in zip(slots, inputs):
            others[k] = v
        r = step(params, others, aux, states, acc, key, [], lrs, wds, extras)
        outs = r[0]
        label = inputs[label_slot]
        hits = _metric._acc_argmax_impl(label, outs[0], axis) if axis is not None \
            else _metric._acc_same_impl(label, outs[0])
        return r, hits, inputs

    def fn(params, others, aux, states, total, sources, starts, keys, lrs, wds, extras):
        TRACES["scan"] += 1

        def body(carry, xs):
            params, aux, states, total, _, _, _ = carry
            start, key, lr, wd, ex = xs
            (outs, new_aux, grads, new_params, new_states), hits, inputs = one(
                params, others, aux, states, sources, start, key, lr, wd, ex)
            return (list(new_params), list(new_aux), list(new_states), total + hits, list(outs),
                    list(grads), inputs), hits

        first = jax.tree_util.tree_map(lambda a: a[0], (starts, keys, lrs, wds, extras))
        shapes = jax.eval_shape(lambda *a: one(*a), params, others, aux, states, sources, *first)
        (outs_s, _, grads_s, _, _), _, inputs_s = shapes
        zeros = jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype),
                                       (outs_s, grads_s, inputs_s))
        carry = (list(params), list(aux), list(states), total) + tuple(list(z) for z in zeros)
        carry, hits = jax.lax.scan(body, carry, (starts, keys, lrs, wds, extras))
        params, aux, states, total, outs, grads, inputs = carry
        return outs, aux, grads, params, states, total, inputs, hits

    # one call runs a whole run of batches: optimized from its first call (xnd/tiers' "fit" row)
    return xla_options.jit(fn, classic_fusion=progs.graph.convolutional, kind="fit",
                           donate_argnums=(0, 2, 3) if donate else ())
