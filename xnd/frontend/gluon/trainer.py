"""gluon.Trainer: applies an optimizer to a set of Parameters (MXNet 1.9.1 semantics).

``step(batch_size)`` rescales gradients by ``1/batch_size`` and updates every
parameter whose gradient was written by a backward pass since the last step,
as ONE jitted call per device (``Optimizer.jitted_step(donate=True)``): the
weight and optimizer-state buffers are donated, so the update runs in place.
The optimizer's own bookkeeping (update counts, schedules, lr/wd multipliers)
runs on the host in MXNet's order (``Optimizer.step_scalars``).

Data parallelism: parameters initialized on several contexts keep one copy per
context; ``allreduce_grads`` sums the gradients across the copies (what
``kvstore='device'`` does), after which each copy gets the same update.

Several processes: with ``kvstore='dist_sync'`` (or another 'dist_*' type, or such a
KVStore) in a job started by MXNet's launcher (see ``xnd.frontend.distributed``), the
first ``step`` takes worker 0's values of the initialized parameters (one collective), and
each step sums the gradients over the copies and then over the workers (one collective for
all parameters) before the same fused update runs on every worker: the values MXNet's
servers compute (``step(batch_size)`` scales the workers' summed gradient by
``1/batch_size``, as in MXNet). update_on_kvstore defaults to True for these types, with
MXNet's rules (``update()``/``allreduce_grads()`` refuse, 'dist_async' requires it);
unlike MXNet, whose servers keep the optimizer they were sent at the first step,
``set_learning_rate`` takes effect on every worker.
"""
import weakref

import jax

from ...base import MXNetError

from ...ndarray import _RECENT, NDArray, _exclusive, _flush_pending
from .parameter import Parameter, ParameterDict
from . import _sparse_trainer as _sparse
# names MXNet's module holds by importing them (its users import them from here)
from ..kvstore import KVStore  # noqa: E402,F401
from .. import optimizer as opt  # noqa: E402,F401

__all__ = ["Trainer"]


def _opt():
    from .. import optimizer
    return optimizer


def _model():
    from .. import model
    return model


def _leaves(state):
    return [a for a in jax.tree_util.tree_leaves(state) if isinstance(a, NDArray)]


def _own(arr):
    """Make ``arr``'s buffer exclusively its own, so that it can be donated."""
    if arr._base is not None:
        raise MXNetError("Trainer: a parameter or optimizer state is a view of another array")
    _flush_pending(arr._val())
    if not _exclusive(arr):
        import jax.numpy as jnp
        arr._data = jnp.array(arr._val(), copy=True)
        arr._shared = False
        arr._src = None


class Trainer:
    """Applies an Optimizer on a set of Parameters."""

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device",
                 compression_params=None, update_on_kvstore=None):
        param_list = []
        if isinstance(params, (dict, ParameterDict)):
            for key in sorted(list(params.keys())):
                param_list.append(params[key])
            params = param_list
        if not isinstance(params, (list, tuple)):
            raise ValueError(f"First argument must be a list or dict of Parameters, got "
                             f"{type(params)}.")
        self._params = []
        self._param2idx = {}
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise ValueError(f"First argument must be a list or dict of Parameters, got list "
                                 f"of {type(param)}.")
            if param._uuid in self._param2idx:
                continue  # shared parameters are stored once
            self._param2idx[param._uuid] = i
            self._params.append(param)
            param._set_trainer(self)
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        optimizer_params = optimizer_params if optimizer_params else {}
        self._init_optimizer(optimizer, optimizer_params)
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = None
        self._params_to_init = []
        self._reset_kvstore()

    def _check_contexts(self):
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()
            assert contexts is None or contexts == ctx, (
                f"All Parameters must be initialized on the same set of contexts, but Parameter "
                f"{param.name} is initialized on {ctx} while previous Parameters are initialized "
                f"on {contexts}.")
            contexts = ctx
        return contexts

    def _init_optimizer(self, optimizer, optimizer_params):
        opt = _opt()
        param_dict = {i: param for i, param in enumerate(self._params)}
        if isinstance(optimizer, opt.Optimizer):
            assert not optimizer_params, \
                "optimizer_params must be None if optimizer is an instance of Optimizer " \
                "instead of str"
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer) for _ in (self._contexts or [None])]

    def _reset_kvstore(self):
        if self._kvstore is not None and "dist" in self._kvstore.type:
            raise RuntimeError("Cannot reset distributed KVStore.")
        self._kv_initialized = False
        self._sparse_kv = False
        self._kvstore = None
        self._distributed = None
        self._update_on_kvstore = None
        self._params_to_init = [p for p in self._params]

    def _init_kvstore(self):
        """Choose the store and update_on_kvstore with MXNet's rules. On the store the
        computation is the same: gradients summed over the copies, one update each (xnd's own
        store shares the trainer's first updater, so its optimizer and states are the
        trainer's); a store of another class is driven through its broadcast/pushpull."""
        if _sparse.involved(self):
            return _sparse.init_kvstore(self)
        config = self._kvstore_params
        kv, upd = _model()._create_kvstore(config["kvstore"], len(self._contexts or [None]),
                                           {p.name: p for p in self._params})
        self._distributed = kv is not None and "dist" in kv.type
        if self._distributed and "async" in kv.type:
            upd = True
            if config["update_on_kvstore"] is False:
                raise ValueError("Please set update_on_kvstore=True when training in async "
                                 "mode.")
        if config["update_on_kvstore"] is not None:
            upd = config["update_on_kvstore"]
        # MXNet fails on None.is_capable for update_on_kvstore=True without a store; xnd
        # updates locally then
        if upd and kv is not None and not kv.is_capable("optimizer"):
            if config["update_on_kvstore"]:
                raise ValueError(f"Please set update_on_kvstore=False when training with "
                                 f"{type(kv)}")
            upd = False
        if kv is not None:
            if self._compression_params:
                kv.set_gradient_compression(self._compression_params)
            if upd:
                if self._own_store(kv):
                    kv._set_updater(self._updaters[0])
                else:
                    kv.set_optimizer(self._optimizer)
            self._kvstore, self._update_on_kvstore = kv, bool(upd)
        else:
            self._kvstore, self._update_on_kvstore = None, None
        self._kv_initialized = True

    @staticmethod
    def _own_store(kv):
        from ..kvstore import KVStore
        return isinstance(kv, KVStore)

    def _multi(self):
        """The store of a multi-process job (gradients summed over the workers), or None."""
        from ..kvstore import DistKVStore
        kv = self._kvstore
        return kv if isinstance(kv, DistKVStore) else None

    def _init_params(self):
        if self._sparse_kv:
            return _sparse.init_params(self)
        kv = self._multi()
        if kv is not None:
            # the store's values are worker 0's: one collective for the initialized ones
            ready = [p for p in self._params_to_init if p._data is not None]
            vals = kv._broadcast([p.list_data()[0]._val() for p in ready])
            for p, v in zip(ready, vals):
                for d in p.list_data():
                    d._write(jax.device_put(v, d.context.jax_device()))
        kv = self._kvstore
        if kv is not None and not self._own_store(kv):
            for p in self._params_to_init:
                if p._data is not None:
                    arrays = p.list_data()
                    kv.broadcast(self._param2idx[p._uuid], arrays[0], arrays)
        self._params_to_init = [p for p in self._params if p._data is None]

    @property
    def learning_rate(self):
        if not isinstance(self._optimizer, _opt().Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate can be "
                              "accessed.")
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        if isinstance(self._optimizer, _opt().Optimizer):
            return self._optimizer
        raise UserWarning("Optimizer has not been initialized yet")

    def set_learning_rate(self, lr):
        """Set a new learning rate (not when an lr_scheduler is in use)."""
        if not isinstance(self._optimizer, _opt().Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate is mutated.")
        self._optimizer.set_learning_rate(lr)

    def _row_sparse_pull(self, parameter, out, row_id, full_idx=False):
        _sparse.row_sparse_pull(self, parameter, out, row_id, full_idx)

    def _check_and_rescale_grad(self, scale):
        if self._update_on_kvstore and self._distributed and self._kv_initialized:
            if self._optimizer.rescale_grad != scale:
                raise UserWarning("Possible change in the `batch_size` from previous `step` "
                                  "detected. Optimizer gradient normalizing factor will not "
                                  "change w.r.t new batch_size when update_on_kvstore=True and "
                                  "when distributed kvstore is used.")
        self._optimizer.rescale_grad = scale

    def step(self, batch_size, ignore_stale_grad=False):
        """One update of all parameters, gradients scaled by ``1/batch_size``; call after
        ``backward()`` (outside ``record()``)."""
        rescale_grad = self._scale / batch_size
        self._check_and_rescale_grad(rescale_grad)
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sum the gradients of each parameter across its contexts (for ``update``)."""
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()
        if self._kvstore and self._update_on_kvstore:
            raise AssertionError("allreduce_grads() when parameters are updated on kvstore is "
                                 "not supported. Try setting `update_on_kvstore` to False when "
                                 "creating trainer.")
        self._allreduce_grads()

    def _allreduce_grads(self):
        if self._sparse_kv:
            return _sparse.allreduce_grads(self)
        kv = self._kvstore
        if kv is None:
            return  # no store: each copy is updated with its own gradient (as in MXNet)
        if not self._own_store(kv):
            for i, param in enumerate(self._params):
                if param.grad_req != "null":
                    grads = param.list_grad()
                    fresh = [param._fresh_grad(g) for g in grads]
                    if self._update_on_kvstore:
                        kv.pushpull(i, grads, out=param.list_data(), priority=-i)
                    else:
                        kv.pushpull(i, grads, priority=-i)
                    for g, was_fresh in zip(grads, fresh):
                        if not was_fresh:
                            param._mark_stale(g)
            return
        for param in self._params:
            if param.grad_req == "null" or param._grad is None or len(param._grad) < 2:
                continue
            grads = param.list_grad()
            ctx0 = grads[0].context
            total = grads[0]._val()
            for g in grads[1:]:
                total = total + jax.device_put(g._val(), ctx0.jax_device())
            fresh = [param._fresh_grad(g) for g in grads]
            for g, was_fresh in zip(grads, fresh):
                g._write(jax.device_put(total, g.context.jax_device()))
                if not was_fresh:
                    param._mark_stale(g)
        kv = self._multi()
        if kv is not None:
            # over the workers: every parameter with a gradient, in the same order everywhere
            params = [p for p in self._params if p.grad_req != "null" and p._grad is not None]
            sums = kv._allreduce([p.list_grad()[0]._val() for p in params])
            for param, total in zip(params, sums):
                for g in param.list_grad():
                    was_fresh = param._fresh_grad(g)
                    g._write(jax.device_put(total, g.context.jax_device()))
                    if not was_fresh:
                        param._mark_stale(g)

    def update(self, batch_size, ignore_stale_grad=False):
        """Only the parameter update of ``step`` (use after ``allreduce_grads``)."""
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()
        if self._kvstore and self._update_on_kvstore:
            raise AssertionError("update() when parameters are updated on kvstore is not "
                                 "supported. Try setting `update_on_kvstore` to False when "
                                 "creating trainer.")
        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad=False):
        n_ctx = len(self._updaters)
        updates = [[] for _ in range(n_ctx)]
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            datas, grads = param._check_and_get(param._data, list), param.list_grad()
            if not ignore_stale_grad:
                for d, g in zip(datas, grads):
                    if not param._fresh_grad(g):
                        raise UserWarning(
                            f"Gradient of Parameter `{param.name}` on context {d.context} has not "
                            f"been updated by backward since last `step`. This could mean a bug "
                            f"in your model that made it only use a subset of the Parameters "
                            f"(Blocks) for this iteration. If you are intentionally only using a "
                            f"subset, call step with ignore_stale_grad=True to suppress this "
                            f"warning and skip updating of Parameters with stale gradient")
            if self._kvstore and self._update_on_kvstore and (
                    self._sparse_kv or not self._own_store(self._kvstore)):
                continue  # the store's pushpull updated the weights
            for k, (d, g) in enumerate(zip(datas, grads)):
                if param._fresh_grad(g):
                    updates[k].append((i, param, d, g))
        for updater, upd in zip(self._updaters, updates):
            if not upd:
                continue
            if type(updater.optimizer)._fusable() and \
                    all(u[3].stype == "default" for u in upd):   # sparse: the lazy update
                self._fused_update(updater, upd)
                continue
            for (i, param, d, g) in upd:   # an optimizer with its own update(): MXNet's loop
                updater(i, g, d)
                param._mark_stale(g)

    def _fused_update(self, updater, upd):
        """One jitted, donating optimizer step over every (index, weight, grad) in ``upd``."""
        opt = updater.optimizer
        indices = [u[0] for u in upd]
        weights = [u[2] for u in upd]
        grads = [u[3] for u in upd]
        opt._set_current_context(weights[0].context.device_id)
        states = []
        for idx, w in zip(indices, weights):
            if idx not in updater.states:
                updater.states[idx] = opt.create_state_multi_precision(idx, w)
                updater.states_synced[idx] = True
            elif not updater.states_synced[idx]:
                updater.states[idx] = updater.sync_state_context(updater.states[idx], w.context)
                updater.states_synced[idx] = True
            states.append(updater.states[idx])
        lrs, wds, extras = opt.step_scalars(indices)
        seen = set()
        for a in weights + [leaf for s in states for leaf in _leaves(s)]:
            if id(a) in seen:
                raise MXNetError("Trainer: the same array appears twice in one update")
            seen.add(id(a))
            _own(a)
        fn = opt.jitted_step(donate=True, multi_precision=None)
        new_w, new_s = fn([w._val() for w in weights], [g._val() for g in grads],
                          [jax.tree_util.tree_map(lambda a: a._val(), s) for s in states],
                          lrs, wds, extras)
        for w, nw in zip(weights, new_w):
            w._data = nw
            w._shared = False
        if new_w:
            _RECENT.append(weakref.ref(new_w[-1]))  # nd.waitall() waits for the update
        for s, ns in zip(states, new_s):
            for a, v in zip(_leaves(s), jax.tree_util.tree_leaves(ns)):
                a._data = v
                a._shared = False
        opt._after_apply(indices, weights, grads)
        for (_, param, _, g) in upd:
            param._mark_stale(g)

    def save_states(self, fname):
        """Save the optimizer states (xnd's safe format; never a pickle)."""
        assert self._optimizer is not None
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()
        from ...serialization import atomic_write
        atomic_write(fname, self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname):
        """Load optimizer states written by ``save_states``."""
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()
        with open(fname, "rb") as f:
            states = f.read()
        for updater in self._updaters:
            updater.set_states(states)
            updater.optimizer = self._updaters[0].optimizer
        self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = {i: p for i, p in enumerate(self._params)}
