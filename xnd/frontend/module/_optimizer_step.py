"""Module's optimizer (the optimizer part of MXNet 1.9.1's python/mxnet/module/module.py):
``init_optimizer``, ``update`` -- the fused training step or the updater --, and the
optimizer states, as the ``OptimizerStep`` base of Module.

``update`` after a deferred ``backward`` runs ONE jitted call for forward, backward and the
optimizer update (``_Programs.step``) when the optimizer and updater are xnd's own and the
kvstore is xnd's single-process store; otherwise forward+backward runs first and the
updater (or MXNet's kvstore helpers of ``mx.model``) updates parameter by parameter.
``_step_layout``/``_states_for`` describe the step for ``_fit_scan`` too.
"""
import warnings

import jax

from ..._compat_jax import committed
from ... import serialization as _serialization
from ...ndarray import NDArray
from .. import kvstore as _kvs
from .. import model as _model
from .. import optimizer as _opt
from .base_module import _NEED_OPT, _assert
from .executor_group import _donatable, _fresh, _own, _vals, _write_step


def _plain_kvstore(kv):
    """xnd's own single-process store: the module reduces over devices itself."""
    return type(kv) is _kvs.KVStore


def _dist_kvstore(kv):
    """A store of a multi-process job: gradients are summed over the workers before the
    (local, identical on every worker) update."""
    return kv is not None and isinstance(kv, _kvs.DistKVStore)


class OptimizerStep:
    """init_optimizer, update and the optimizer states of a Module (a base of Module: it
    uses the Module's bound arrays and deferred work)."""

    # ---- optimizer -------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Install an optimizer (name or instance); ``rescale_grad`` defaults to
        1/batch_size."""
        if self._skip_init_optimizer(force_init, "optimizer already initialized, ignoring..."):
            return
        if self._params_dirty:
            self._sync_params_from_devices()
        kvstore, update_on_kvstore, rescale_grad, idx2name = self._optimizer_defaults(kvstore)
        if isinstance(optimizer, str):
            optimizer_params = dict(optimizer_params)
            if "rescale_grad" not in optimizer_params:
                optimizer_params["rescale_grad"] = rescale_grad
            optimizer = _opt.create(optimizer, sym=self.symbol, param_idx2name=idx2name,
                                   **optimizer_params)
        else:
            _assert(isinstance(optimizer, _opt.Optimizer))
            if optimizer.rescale_grad != rescale_grad:
                warnings.warn(
                    "Optimizer created manually outside Module but rescale_grad "
                    "is not normalized to 1.0/batch_size/num_workers (%s vs. %s). " % (
                        optimizer.rescale_grad, rescale_grad) + "Is this intended?", stacklevel=2)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        self._optimizer, self._kvstore = optimizer, kvstore
        self._update_on_kvstore = update_on_kvstore
        self._updater = self._states_cache = None
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            dist = _dist_kvstore(kvstore)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
                # one set of states: the store's updater is the one the fused step uses
                self._updater = getattr(kvstore, "_updater", None)
                if _plain_kvstore(kvstore) or dist:
                    if dist:   # the store's values are worker 0's: one collective
                        names = self._param_names
                        vals = kvstore._broadcast([self._arg_params[n]._val() for n in names])
                        for n, v in zip(names, vals):
                            self._arg_params[n]._write(v)
                    # MXNet broadcasts arg_params from the store to the devices here; the
                    # bound parameters play the store's copy from now on
                    self._set_exec_params(self._arg_params, None)
            if not _plain_kvstore(kvstore) and not dist:
                _model._initialize_kvstore(
                    kvstore=kvstore, param_arrays=self._exec_group.param_arrays,
                    arg_params=self._arg_params, param_names=self._param_names,
                    update_on_kvstore=update_on_kvstore)
        if self._updater is None:
            self._updater = _opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def _optimizer_defaults(self, kvstore):
        """``(kvstore, update_on_kvstore, rescale_grad, idx2name)`` as MXNet's init_optimizer
        derives them: the store, 1/(batch_size * workers of a dist_sync store) and the
        updater's index -> parameter name table (``i * num_device + k`` without a store)."""
        kvstore, update_on_kvstore = _model._create_kvstore(kvstore, len(self._context),
                                                            self._arg_params)
        batch_size = self._batch_size
        if kvstore and "dist" in kvstore.type and "_sync" in kvstore.type:
            batch_size *= kvstore.num_workers
        ndev = len(self._context)
        if update_on_kvstore:
            idx2name = dict(enumerate(self._param_names))
        else:
            idx2name = {i * ndev + k: n for k in range(ndev)
                        for i, n in enumerate(self._param_names)}
        return kvstore, update_on_kvstore, 1.0 / batch_size, idx2name

    def borrow_optimizer(self, shared_module):
        """Use ``shared_module``'s optimizer, kvstore and updater (the same states)."""
        _assert(shared_module.optimizer_initialized)
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        self._states_cache = None
        self.optimizer_initialized = True

    def update(self):
        _assert(self.binded and self.params_initialized and self.optimizer_initialized,
                _NEED_OPT)
        self._params_dirty = True
        if self._pending == "bwd" and self._fused_ok():
            self._fused_step()
            return
        if self._pending == "bwd":
            self._materialize("all")
        self._plain_update()

    def _plain_update(self):
        self._settle_gamma()
        exe = self._exec
        d, gd = exe.arg_dict, dict(zip(exe._arg_names, exe._grads))
        params = [[d[n]] for n in self._param_names]
        grads = [[gd[n]] for n in self._param_names]
        if _dist_kvstore(self._kvstore):
            # multi-process: sum each gradient over the workers (one collective for all),
            # then every worker runs the same update below (MXNet's servers' update)
            hs = [g[0] for g in grads if g[0] is not None]
            for h, v in zip(hs, self._kvstore._allreduce([h._val() for h in hs])):
                _own(h, v)
        elif self._kvstore is not None and not _plain_kvstore(self._kvstore):
            if self._update_on_kvstore:
                _model._update_params_on_kvstore(params, grads, self._kvstore, self._param_names)
            else:
                _model._update_params(params, grads, updater=self._updater, num_device=1,
                               kvstore=self._kvstore, param_names=self._param_names)
            return
        keys, ws, gs = [], [], []
        ndev = len(self._context)
        for i, (name, w, g) in enumerate(zip(self._param_names, params, grads)):
            if g[0] is None:
                continue
            # MXNet's updater keys: the name with a store; else i * num_device + device
            keys.append(name if self._update_on_kvstore else i * ndev)
            ws.append(w[0])
            gs.append(g[0])
        if keys:
            self._prepare_states(keys, ws)
            self._updater(keys, gs, ws)

    def _update_keys(self):
        exe = self._exec
        pos = {n: i for i, n in enumerate(exe._arg_names)}
        keys, pidx = [], []
        ndev = len(self._context)
        for i, name in enumerate(self._param_names):
            j = pos[name]
            if exe._reqs[j] != "null":
                keys.append(name if self._update_on_kvstore else i * ndev)
                pidx.append(j)
        return keys, pidx

    def _fused_ok(self):
        opt, upd = self._optimizer, self._updater
        cls = type(opt)
        if not cls._fusable() or type(upd) is not _opt.Updater or upd.optimizer is not opt:
            return False
        if any(g is not None and g.stype != "default" for g in self._exec._grads):
            return False   # sparse gradients: the updater's lazy update, parameter by parameter
        return self._kvstore is None or _plain_kvstore(self._kvstore)

    def _prepare_states(self, keys, weights):
        """Create missing optimizer states and place loaded ones next to the parameters."""
        upd, opt = self._updater, self._optimizer
        states = upd.states
        target = self._devs.replicated
        for k, w in zip(keys, weights):
            if k not in states:
                states[k] = opt.create_state_multi_precision(k, w)
                upd.states_synced[k] = True
                # committed to the module's devices like the step's outputs: a compiled step
                # called first with uncommitted states would compile a second time
                fix = True
            else:
                fix = not upd.states_synced.get(k, True) or self._devs.n > 1
            if fix:
                for leaf in jax.tree_util.tree_leaves(states[k]):
                    if isinstance(leaf, NDArray) and (leaf._val().sharding != target
                                                      or not committed(leaf._val())):
                        _own(leaf, _fresh(leaf._val(), target))
                        leaf._ctx = self._devs.ctx
                upd.states_synced[k] = True

    def _states_for(self, keys, weights):
        """(state pytrees of NDArrays, their flat leaves, treedef): cached per states dict."""
        upd = self._updater
        c = self._states_cache
        if c is not None and c[0] is upd.states and c[1] == keys and len(upd.states) == c[2]:
            return c[3], c[4], c[5]
        self._prepare_states(keys, weights)
        trees = [upd.states[k] for k in keys]
        leaves, treedef = jax.tree_util.tree_flatten(trees)
        self._states_cache = (upd.states, list(keys), len(upd.states), trees, leaves, treedef)
        return trees, leaves, treedef

    def _step_layout(self):
        """(updater keys, argument positions of the updated parameters, their positions among
        the differentiated arguments, positions of the other arguments, gradient handles,
        positions in the parameters that read as 1): how the fused step sees this binding
        (cached on the executor)."""
        exe = self._exec
        cache = getattr(exe, "_step_info", None)
        if cache is None or cache[0] is not self._update_on_kvstore:
            keys, pidx = self._update_keys()
            diff_pos = [i for i, m in enumerate(exe._mask) if m]
            upd = tuple(diff_pos.index(j) for j in pidx)
            pset = set(pidx)
            others_idx = [i for i in range(len(exe._args)) if i not in pset]
            grads = [g for g in exe._grads if g is not None]
            # with a kvstore the store's copy is updated: MXNet's 1s only reach the devices
            ones = () if self._update_on_kvstore else tuple(
                k for k, i in enumerate(pidx) if i in exe._fixg)
            cache = exe._step_info = (self._update_on_kvstore, keys, tuple(pidx), upd,
                                      others_idx, grads, ones)
        return cache[1:]

    def _fused_step(self):
        exe, opt = self._exec, self._optimizer
        keys, pidx, upd, others_idx, grads, ones = self._step_layout()
        if not keys:
            self._materialize("all")
            return
        args = exe._args
        params = [args[i] for i in pidx]
        trees, leaves, treedef = self._states_for(keys, params)
        opt._set_current_context(self._devs.ctx.device_id)
        lrs, wds, extras = opt.step_scalars(keys, packed=True)
        heads = self._heads or [None] * len(exe._outs)
        head_mask = tuple(h is not None for h in heads)
        add_mask = exe._add_mask
        donated = params + exe._aux + leaves + [g for g, a in zip(grads, add_mask) if a]
        donate = _donatable(donated)
        if self._gamma_stale and any(i not in pidx for i in exe._fixg):
            self._settle_gamma()        # a fixed (not updated) gamma: write its 1s now
        fn = exe._progs.step(exe._mask, head_mask, add_mask, pidx, upd, ones, opt, donate)
        state_vals = jax.tree_util.tree_unflatten(treedef, [h._val() for h in leaves])
        acc = [g._val() if a else None for g, a in zip(grads, add_mask)]
        outs, new_aux, new_grads, new_params, new_states = fn(
            [h._val() for h in params], [args[i]._val() for i in others_idx], _vals(exe._aux),
            state_vals, acc, self._key, [h for h in heads if h is not None], lrs, wds, extras)
        _write_step(exe, outs, new_aux, (grads, new_grads), (params, new_params),
                    (leaves, jax.tree_util.tree_leaves(new_states)))
        self._pending = None
        self._heads = None
        self._gamma_stale = False
        if type(opt)._after_apply is not _opt.Optimizer._after_apply:
            opt._after_apply(keys, params, [grads[j] for j in upd])

    # ---- optimizer states --------------------------------------------------------------------
    def save_optimizer_states(self, fname):
        """Write the optimizer states (xnd's safe format, see mx.optimizer.Updater)."""
        _assert(self.optimizer_initialized)
        if self._update_on_kvstore and not _plain_kvstore(self._kvstore):
            self._kvstore.save_optimizer_states(fname)
            return
        _serialization.atomic_write(fname, self._updater.get_states())

    def load_optimizer_states(self, fname):
        _assert(self.optimizer_initialized)
        if self._update_on_kvstore and not _plain_kvstore(self._kvstore):
            self._kvstore.load_optimizer_states(fname)
            return
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())
        self._states_cache = None
