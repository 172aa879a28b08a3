"""mx.module.module: Module, a module over one Symbol (MXNet 1.9.1's
python/mxnet/module/module.py).

What runs
---------
A bound Module holds one set of arrays per input shape (``_Exec``: arguments,
gradients, auxiliary states, outputs) and runs the symbol through pure JAX
functions of the graph (``xnd.symbol.executor.GraphFunction``):

* a training step -- forward, backward and the optimizer update -- is ONE
  jitted XLA call per batch shape, with the parameter, auxiliary-state,
  optimizer-state (and 'add'-gradient) buffers donated;
* MXNet's call sequence is kept by deferring work: ``forward(is_train=True)``
  only loads the batch (and draws the random key), ``backward`` only records
  the request, and ``update`` runs the fused step.  Anything that needs a
  deferred result first computes it the plain way: reading outputs before
  ``backward`` runs a training forward; reading outputs, gradients or
  auxiliary states after ``backward`` runs forward+backward (then ``update``
  is a separate jitted optimizer step).  Every call order MXNet allows gives
  MXNet's numbers; only the fused order is faster.
* ``fit`` over an ``NDArrayIter`` with nothing watching the batches (no monitor,
  batch callbacks only Speedometer/ProgressBar) trains many batches per compiled
  loop of that step (``xnd.frontend.module._fit_scan``), leaving everything as the batch loop
  would;
* batch arrays are never donated (they belong to the caller); a parameter,
  state or gradient buffer is donated only while no other handle or pending
  computation holds it (``xnd.ndarray._exclusive``); otherwise the step runs
  without donation.

Data parallelism
----------------
``context=[ctx0, ctx1, ...]`` splits each batch over those JAX devices the way
MXNet's executor group does (``work_load_list`` slices along each input's batch
axis, 'N' of its layout).  With an even split over distinct devices the batch
arguments are sharded over a 1-D mesh and the per-device forward/backward runs
under ``jax.shard_map`` (``_programs``) -- each device sees only its slice, exactly like
MXNet's per-device executors (so BatchNorm normalizes with per-device batch
statistics); gradients of parameters are summed over devices (``psum``: what
MXNet's kvstore reduce does) and the update runs once on the replicated
parameters.  An uneven split (or contexts that map to one JAX device) runs the
per-device slices one after another inside the same jitted call, with the same
numbers.  BatchNorm moving statistics: MXNet keeps one copy per device and
``get_params`` averages them; xnd averages them after every step (``pmean``).
The update is linear in the old statistics, so ``get_params`` (and everything
after ``fit``'s per-epoch ``get_params``/``set_params``) is identical; only an
inference forward in the middle of an epoch uses the averaged rather than the
device-local statistics.  Random operators draw a different stream per device.

Several processes (``kvstore='dist_sync'`` in a job started by MXNet's launcher, see
``xnd.frontend.distributed``): each worker runs forward+backward on its own batch (one
jitted call), the parameter gradients are summed over the workers (one collective call for
all of them) and every worker applies the same optimizer step to the same sum -- the
values MXNet's servers compute; ``rescale_grad`` is ``1/(batch_size*num_workers)`` as in
MXNet, and with update_on_kvstore (the default) ``init_optimizer`` starts every worker from
worker 0's parameters.

Quirks kept from MXNet 1.9.1: ``get_params`` returns the same two dicts every
time and refreshes them only after ``update``/``set_params(allow_missing=True)``
(so it is stale after a bare forward/backward); parameters are initialized in
sorted name order; ``predict`` on an NDArray runs ``forward`` with the bound
``for_training``; ``fit`` logs the global metric values at the end of an epoch;
a BatchNorm with ``fix_gamma=True`` (the default) overwrites its gamma argument
with 1s at every forward, so the optimizer updates gamma starting from 1 --
except with a kvstore (several contexts), where MXNet updates the store's copy.
``update_metric`` hands the metric labels moved next to the predictions (xnd's
metrics compute on the device; MXNet's copied both to numpy).
"""
import logging
import warnings
from collections import OrderedDict

import jax
import jax.numpy as jnp

from ... import context as _context
from ...base import MXNetError
from ...ndarray import NDArray
from ...symbol import executor as _executor
from ...symbol import rewrite as _rewrite
from .. import initializer as _init
from .. import ndarray as nd
from .. import random as _random
from ..io import DataDesc
from ..model import load_checkpoint
from . import executor_group as _eg
from . import _fit_scan
from .base_module import (_NEED_INIT, _NEED_INPUT_GRAD, BaseModule, _as_list, _assert,
                          _field, _input_names, _parse_data_desc)
from .executor_group import (DataParallelExecutorGroup, _batch_axis, _copy_into, _fresh,
                             _gather, _load_input, _own, _slice_nd, _split, _src_val, _vals,
                             _write_ones, _write_outs)
from ._optimizer_step import OptimizerStep
from ._programs import _Devices, _zero_key
# names MXNet's module holds by importing them (its users import them from here)
from ..initializer import InitDesc, Uniform  # noqa: E402,F401
from ..ndarray import zeros  # noqa: E402,F401
from .. import optimizer as opt  # noqa: E402,F401

__all__ = ["Module"]

# the fit loop hands an epoch to the compiled loop only while these are Module's own
_PLAIN_METHODS = ("forward", "backward", "update", "update_metric", "forward_backward",
                  "prepare")


class Module(OptimizerStep, BaseModule):
    """A module over one Symbol (mx.mod.Module)."""

    # unset until bind, init_params and init_optimizer set them
    _arg_params = _aux_params = _grad_req = _devs = _batch_size = _monitor = None
    _optimizer = _kvstore = _update_on_kvstore = _updater = _preload_opt_states = None
    _exec = _exec_group = _execs = _data_shapes = _label_shapes = None
    _params_dirty = False

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=_context.cpu(), work_load_list=None,
                 fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None):
        super().__init__(logger=logger)
        if isinstance(context, _context.Context):
            context = [context]
        self._context = list(context)
        if work_load_list is None:
            work_load_list = [1] * len(self._context)
        _assert(len(work_load_list) == len(self._context))
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._symbol = symbol
        data_names, label_names, state_names, fixed_param_names = _input_names(
            symbol, data_names, label_names, state_names, fixed_param_names)
        arg_names = symbol.list_arguments()
        input_names = data_names + label_names + state_names
        self._param_names = [x for x in arg_names if x not in input_names]
        self._fixed_param_names = fixed_param_names
        self._aux_names = symbol.list_auxiliary_states()
        self._data_names = data_names
        self._label_names = label_names
        self._state_names = state_names
        self._output_names = symbol.list_outputs()
        self._compression_params = compression_params
        self._reset_pending()

    def _reset_pending(self):
        self._pending = None     # None | "fwd" | "bwd": deferred training work on the batch
        self._outs_fresh = False  # outputs of the pending training forward are computed
        self._heads = None       # backward(out_grads) values for the pending backward
        self._key = None
        self._states_cache = None
        self._gamma_stale = False  # a forward ran: fix_gamma gammas must read 1 (MXNet's write)

    # ---- checkpoints -----------------------------------------------------------------------
    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module from ``prefix-symbol.json`` and ``prefix-%04d.params`` (parameters are set
        at bind; optimizer states from ``prefix-%04d.states`` at init_optimizer)."""
        sym, args, auxs = load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = "%s-%04d.states" % (prefix, epoch)
        return mod

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        """Write ``prefix-symbol.json``, ``prefix-%04d.params`` (and ``.states``)."""
        self._symbol.save("%s-symbol.json" % prefix, remove_amp_cast=remove_amp_cast)
        param_name = "%s-%04d.params" % (prefix, epoch)
        self.save_params(param_name)
        logging.info('Saved checkpoint to "%s"', param_name)
        if save_optimizer_states:
            state_name = "%s-%04d.states" % (prefix, epoch)
            self.save_optimizer_states(state_name)
            logging.info('Saved optimizer state to "%s"', state_name)

    def _reset_bind(self):
        self.binded = False
        self._exec = None
        self._exec_group = None
        self._execs = None
        self._data_shapes = None
        self._label_shapes = None
        self._reset_pending()

    # ---- names and shapes ------------------------------------------------------------------
    data_names = _field("_data_names")
    label_names = _field("_label_names")
    output_names = _field("_output_names")
    data_shapes = _field("_data_shapes", bound=True)
    label_shapes = _field("_label_shapes", bound=True)

    @property
    def output_shapes(self):
        _assert(self.binded)
        outs = self._exec._outs
        return [(name, tuple(o.shape)) for name, o in zip(self._output_names, outs)]

    # ---- parameters ------------------------------------------------------------------------
    def get_params(self):
        """``(arg_params, aux_params)``: the module's cpu copies (the same dicts every call),
        refreshed from the devices when an update made them stale."""
        _assert(self.params_initialized)
        if self._params_dirty:
            self._sync_params_from_devices()
        return (self._arg_params, self._aux_params)

    def init_params(self, initializer=_init.Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. "
                          "init_params call ignored.", stacklevel=2)
            return
        _assert(self.binded, "call bind before initializing the parameters")

        def _impl(name, arr, cache):
            if cache is not None:
                if name in cache:
                    cache_arr = cache[name]
                    if cache_arr is not arr:
                        _copy_into(cache_arr, arr, name)
                else:
                    if not allow_missing:
                        raise RuntimeError("%s is not presented" % name)
                    if initializer is not None:
                        initializer(name, arr)
            else:
                initializer(name, arr)

        attrs = self._symbol.attr_dict()
        for name, arr in sorted(self._arg_params.items()):
            _impl(_init.InitDesc(name, attrs.get(name, None)), arr, arg_params)
        for name, arr in sorted(self._aux_params.items()):
            _impl(_init.InitDesc(name, attrs.get(name, None)), arr, aux_params)
        self.params_initialized = True
        self._params_dirty = False
        self._set_exec_params(self._arg_params, self._aux_params, allow_extra=allow_extra)

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init,
                             allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. "
                          "set_params call ignored.", stacklevel=2)
            return
        self._set_exec_params(arg_params, aux_params, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def _set_exec_params(self, arg_params, aux_params, allow_extra=False):
        """Copy values into the bound arrays (MXNet's executor copy_params_from)."""
        exe = self._exec
        self._materialize("all")
        arg_pos = {n: i for i, n in enumerate(exe._arg_names)}
        aux_pos = {n: i for i, n in enumerate(exe._aux_names)}
        for name, src in (arg_params or {}).items():
            if name in arg_pos:
                i = arg_pos[name]
                h = exe._args[i]
                _own(h, _fresh(_src_val(src, h.dtype), exe.lay.arg_sharding(i)))
            elif not allow_extra:
                raise ValueError('Find name "%s" that is not in the arguments' % name)
        if aux_params is None:
            return
        for name, src in aux_params.items():
            if name in aux_pos:
                h = exe._aux[aux_pos[name]]
                _own(h, _fresh(_src_val(src, h.dtype), self._devs.replicated))
            elif not allow_extra:
                raise ValueError("Find name %s that is not in the auxiliary states" % name)

    def _sync_params_from_devices(self):
        self._materialize("all")
        self._settle_gamma()
        exe = self._exec
        cpu = _context.cpu()
        dev = cpu.jax_device()
        d = exe.arg_dict
        for name in self._param_names:
            dst = self._arg_params[name]
            dst._write(_fresh(d[name]._val().astype(dst.dtype), dev))
        for name, a in zip(self._aux_names, exe._aux):
            dst = self._aux_params[name]
            dst._write(_fresh(a._val().astype(dst.dtype), dev))
        self._params_dirty = False

    # ---- binding ---------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Allocate the arrays for these input shapes (``[(name, shape)]`` or DataDescs)."""
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        if not for_training:
            _assert(not inputs_need_grad)
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes)
        if shared_module is not None:
            _assert(isinstance(shared_module, Module) and shared_module.binded
                    and shared_module.params_initialized)
            shared_exec = shared_module._exec
            self._devs = shared_module._devs
        else:
            shared_exec = None
            self._devs = _Devices(self._context)
        if self._group2ctxs is not None:
            warnings.warn("Module(group2ctxs=...): xnd places the whole graph on each context "
                          "(no model parallelism); group2ctxs is ignored")
        self._reqs = _eg.grad_reqs(self, grad_req)
        self._exec = _eg.bind_exec(self, self._data_shapes, self._label_shapes, shared_exec)
        self._default_exec = self._exec
        self._execs = {self._shape_key(self._data_shapes, self._label_shapes): self._exec}
        self._exec_group = DataParallelExecutorGroup._of_module(self)
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
        elif self.params_initialized:
            self._set_exec_params(self._arg_params, self._aux_params)
        else:
            _assert(self._arg_params is None and self._aux_params is None)
            cpu = _context.cpu()
            d = self._exec.arg_dict
            stypes = _executor._storage(self._symbol, None)[0]   # declared row_sparse (MXNet)
            self._arg_params = {n: nd.zeros(d[n].shape, ctx=cpu, dtype=d[n].dtype,
                                            stype=stypes.get(n, "default"))
                                for n in self._param_names}
            self._aux_params = {n: nd.zeros(a.shape, ctx=cpu, dtype=a.dtype)
                                for n, a in zip(self._aux_names, self._exec._aux)}
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)
        self.binded = True

    @staticmethod
    def _shape_key(data_shapes, label_shapes):
        return (tuple((d.name, tuple(d.shape)) for d in data_shapes),
                tuple((d.name, tuple(d.shape)) for d in label_shapes or []))

    def reshape(self, data_shapes, label_shapes=None):
        """Re-bind for new input shapes, keeping parameters, gradients and optimizer states."""
        _assert(self.binded)
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes)
        key = self._shape_key(self._data_shapes, self._label_shapes)
        exe = self._execs.get(key)
        if exe is self._exec:
            return
        self._materialize("all")
        if exe is None:
            exe = _eg.bind_exec(self, self._data_shapes, self._label_shapes,
                                base=self._default_exec)
            self._execs[key] = exe
        else:
            self._batch_size = self._batch_of(self._data_shapes, self._label_shapes)
        self._exec = exe
        self._reset_pending_keep_states()

    def _reset_pending_keep_states(self):
        states = self._states_cache
        self._reset_pending()
        self._states_cache = states

    @staticmethod
    def _batch_of(data_shapes, label_shapes):
        for d in list(data_shapes) + list(label_shapes or []):
            ax = _batch_axis(getattr(d, "layout", None))
            if ax >= 0:
                return d.shape[ax]
        return None

    def _compiled_epoch(self, train_data, eval_metric, batch_end_callback):
        """_fit_scan's runner for this epoch when nothing can watch the batches go by."""
        cls = type(self)
        if any(getattr(cls, m) is not getattr(Module, m) for m in _PLAIN_METHODS):
            return None
        return _fit_scan.plan(self, train_data, eval_metric, batch_end_callback)

    # ---- computation -----------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        curr = tuple(tuple(d.shape) for d in self._data_shapes)
        if isinstance(data_batch, list):
            _assert(data_batch is not None, "Encountered empty data batch")
            new = []
            for i in range(len(data_batch[0].data)):
                shape = data_batch[0].data[i].shape
                for db in data_batch:
                    _assert(shape == db.data[i].shape,
                            "All data batches in a list need to have the same shape")
                new.append((len(data_batch) * shape[0],) + tuple(shape[1:]))
            new = tuple(new)
        else:
            new = tuple(tuple(d.shape) for d in data_batch.data)
        if curr != new:
            if getattr(data_batch, "provide_data", None):
                new_dshape = data_batch.provide_data
            else:
                new_dshape = [DataDesc(i.name, shape, i.dtype, i.layout)
                              for i, shape in zip(self._data_shapes, new)]
            if getattr(data_batch, "provide_label", None):
                new_lshape = data_batch.provide_label
            elif getattr(data_batch, "label", None):
                new_lshape = [DataDesc(i.name, j.shape, i.dtype, i.layout)
                              for i, j in zip(self._label_shapes, data_batch.label)]
            else:
                new_lshape = None
            self.reshape(new_dshape, new_lshape)
        if is_train is None:
            is_train = self.for_training
        if self._pending == "bwd":
            self._materialize("all")
        self._pending = None
        self._load_batch(data_batch)
        exe = self._exec
        if exe._has_rng:
            self._key = _random.next_key()
        elif self._key is None:
            self._key = _zero_key()
        if exe._monitor is not None:
            _executor.run_monitor(self._symbol, exe._monitor, exe._monitor_all, exe._arg_names,
                                  _vals(exe._args), exe._aux_names, _vals(exe._aux), self._key,
                                  is_train, self._devs.ctx)
        if is_train:
            self._pending = "fwd"
            self._outs_fresh = False
            self._heads = None
            self._gamma_stale = bool(exe._fixg) and not self._update_on_kvstore
        else:
            progs = exe._progs
            if progs.lay.mode == "single" and _rewrite.ENABLED:
                # the inference rewrites (xnd.symbol.rewrite), as Executor.forward uses them
                outs = exe.rewritten_forward(progs.graph, _vals(exe._args), _vals(exe._aux),
                                             self._key)
            else:
                outs = progs.forward(False)(_vals(exe._args), _vals(exe._aux), self._key)
            _write_outs(exe, outs)
            if exe._fixg and not self._update_on_kvstore:
                _write_ones(exe)
                self._gamma_stale = False

    def _load_batch(self, data_batch):
        exe = self._exec
        if isinstance(data_batch, list):
            data = [nd.concatenate([b.data[i] for b in data_batch])
                    for i in range(len(data_batch[0].data))]
            labels = [nd.concatenate([b.label[i] for b in data_batch])
                      for i in range(len(data_batch[0].label))] if data_batch[0].label else None
        else:  # any object with .data: MXNet reads .label only where it exists
            data, labels = data_batch.data, getattr(data_batch, "label", None)
        for i, src in zip(exe._data_idx, _as_list(data)):
            _load_input(exe, i, src)
        if self._label_shapes is not None and labels:
            for i, src in zip(exe._label_idx, _as_list(labels)):
                _load_input(exe, i, src)

    def backward(self, out_grads=None):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        _assert(self.for_training, "re-bind with for_training=True to run backward")
        if self._pending == "bwd":
            self._materialize("all")
        if self._pending is None:
            # backward on the loaded arrays without a training forward (MXNet allows it)
            if self._exec._has_rng or self._key is None:
                self._key = _random.next_key()
            self._outs_fresh = False
        exe = self._exec
        heads = None
        if out_grads is not None:
            og = _as_list(out_grads)
            heads = []
            for i, g in enumerate(og):
                if g is None:
                    heads.append(None)
                    continue
                o = exe._outs[i]
                v = _src_val(g, o.dtype)
                if tuple(v.shape) != tuple(o.shape):
                    raise MXNetError("backward: out_grads[%d] has shape %s, the output has %s"
                                     % (i, tuple(v.shape), tuple(o.shape)))
                heads.append(jax.device_put(v, exe.lay.out_sharding(i)))
            heads += [None] * (len(exe._outs) - len(heads))
        _executor.check_heads(self._symbol, exe._mask, heads or [None] * len(exe._outs),
                              exe._arg_names)
        if exe._monitor is not None:
            _executor.run_backward_monitor(self._symbol, exe._monitor, exe._arg_names,
                                           _vals(exe._args), exe._aux_names, _vals(exe._aux),
                                           self._key, heads or [], self._devs.ctx)
        self._heads = heads
        self._pending = "bwd"   # outputs computed for the pending forward stay valid

    def _settle_gamma(self):
        if self._gamma_stale:
            _write_ones(self._exec)
            self._gamma_stale = False

    def _materialize(self, what):
        """Run deferred training work the plain way so ``what`` ('outputs', 'grads', 'aux',
        'all') is current."""
        p = self._pending
        if p is None:
            return
        exe = self._exec
        self._settle_gamma()
        if what == "outputs" and self._outs_fresh:
            return
        if p == "fwd":
            if what == "outputs":
                outs = exe._progs.forward(True)(_vals(exe._args), _vals(exe._aux), self._key)
                _write_outs(exe, outs)
                self._outs_fresh = True
            return
        # "bwd": forward + backward now; outputs, aux and gradients are written
        heads = self._heads or [None] * len(exe._outs)
        head_mask = tuple(h is not None for h in heads)
        grads_h = [g for g in exe._grads if g is not None]
        acc_h = [g for g, a in zip(grads_h, exe._add_mask) if a]
        donate = bool(acc_h) and _eg._donatable(acc_h)
        fb = exe._progs.fwd_bwd(exe._mask, head_mask, exe._add_mask, donate)
        acc = [g._val() if a else None for g, a in zip(grads_h, exe._add_mask)]
        outs, new_aux, grads = fb(_vals(exe._args), _vals(exe._aux), self._key,
                                  [h for h in heads if h is not None], acc)
        _write_outs(exe, outs)
        for a, v in zip(exe._aux, new_aux):
            _own(a, v)
        for g, v in zip([g for g in exe._grads if g is not None], grads):
            _own(g, v)
        self._pending = None
        self._heads = None

    def get_outputs(self, merge_multi_context=True):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        self._materialize("outputs")
        outs = self._exec._outs
        if self._devs.n == 1:
            return list(outs) if merge_multi_context else [[o] for o in outs]
        if merge_multi_context:
            return [_gather(o, self._devs) for o in outs]
        return [_split(o, ax, self._exec.lay, self._devs)
                for o, ax in zip(outs, self._exec.lay.out_axes)]

    def get_input_grads(self, merge_multi_context=True):
        _assert(self.binded and self.params_initialized and self.inputs_need_grad,
                _NEED_INPUT_GRAD)
        self._materialize("grads")
        exe = self._exec
        d = dict(zip(exe._arg_names, exe._grads))
        grads = [d[x.name] for x in self._data_shapes if x.name in d]
        if self._devs.n == 1:
            return grads if merge_multi_context else [[g] for g in grads]
        axes = [exe.lay.arg_axes[exe._arg_names.index(x.name)] for x in self._data_shapes]
        if merge_multi_context:
            return [_gather(g, self._devs) for g in grads]
        return [_split(g, ax, exe.lay, self._devs) for g, ax in zip(grads, axes)]

    def get_states(self, merge_multi_context=True):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        _assert(not merge_multi_context,
                "merge_multi_context=True is not supported for get_states yet.")
        exe = self._exec
        d = exe.arg_dict
        if self._devs.n == 1:
            return [[d[n]] for n in self._state_names]
        # MXNet's [[state1_dev1, state1_dev2], ...]: a state that follows the batch is split
        # like the inputs (see executor_group._inferred_batch_axes)
        return [_split(d[n], exe.lay.arg_axes[exe._arg_names.index(n)], exe.lay, self._devs)
                for n in self._state_names]

    def set_states(self, states=None, value=None):
        """MXNet's set_states: ``states`` as [[state1_dev1, state1_dev2], ...] (what
        get_states and get_outputs(merge_multi_context=False) give), or one scalar ``value``
        for every state."""
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        self._materialize("all")
        exe = self._exec
        if states is not None:
            _assert(value is None, "Only one of states & value can be specified.")
            for name, src in zip(self._state_names, states):
                i = exe._arg_names.index(name)
                h = exe._args[i]
                if isinstance(src, (list, tuple)):
                    # one part per device: joined along the state's batch axis (a state
                    # that does not follow the batch is the same on every device)
                    ax = exe.lay.arg_axes[i]
                    dev = self._devs.devices[0]
                    parts = [jax.device_put(_src_val(p, h.dtype), dev) for p in src]
                    v = jnp.concatenate(parts, axis=ax) if ax >= 0 and len(parts) > 1 \
                        else parts[0]
                else:
                    v = _src_val(src, h.dtype)
                _own(h, _fresh(v, exe.lay.arg_sharding(i)))
        else:
            _assert(value is not None, "At least one of states & value must be specified.")
            for name in self._state_names:
                i = exe._arg_names.index(name)
                h = exe._args[i]
                _own(h, jax.device_put(jnp.full(h.shape, value, h.dtype), exe.lay.arg_sharding(i)))

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._materialize("outputs")
        exe = self._exec
        label_names = [d.name for d in self._label_shapes] if self._label_shapes is not None else []
        label_axes = [_batch_axis(getattr(d, "layout", None)) for d in self._label_shapes or []]
        if self._devs.n == 1:
            if pre_sliced:
                labels = labels[0]
            ctx = self._devs.ctx
            # the batch's labels usually sit on cpu(0); xnd's metrics compute next to the
            # predictions, so bring the labels over (MXNet's metrics copied both to numpy)
            labels = [l.as_in_context(ctx) if isinstance(l, NDArray) and l.context != ctx
                      else l for l in _as_list(labels)]
            eval_metric.update_dict(OrderedDict(zip(label_names, labels)),
                                    OrderedDict(zip(self._output_names, exe._outs)))
            return
        outs = [_gather(o, self._devs) for o in exe._outs]
        ctx = self._devs.ctx
        for d, (a, b) in enumerate(exe.lay.slices):
            if pre_sliced:
                lab = labels[d]
            else:
                lab = [_slice_nd(l, a, b, ax) for l, ax in zip(labels, label_axes)]
            lab = [l.as_in_context(ctx) if isinstance(l, NDArray) and l.context != ctx else l
                   for l in _as_list(lab)]
            preds = [_slice_nd(o, a, b, ax) for o, ax in zip(outs, exe.lay.out_axes)]
            eval_metric.update_dict(OrderedDict(zip(label_names, lab)),
                                    OrderedDict(zip(self._output_names, preds)))

    def install_monitor(self, mon):
        _assert(self.binded)
        self._monitor = mon
        mon.install(self._exec)

    def prepare(self, data_batch, sparse_row_id_fn=None):
        _assert(self.binded)
        if sparse_row_id_fn is not None:
            warnings.warn(UserWarning("Parameters are not updated in the KVStore. "
                                      "No need to call sparse_row_id_fn."))


_eg.MODULE_CLASS = Module   # DataParallelExecutorGroup(...) binds a Module of its own
