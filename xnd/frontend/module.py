"""mx.mod: Module (and BaseModule's fit/score/predict loops), on the Symbol Executor.

Speed: a training step — forward, backward and the optimizer update — is one
jitted XLA call per batch shape, with parameter, auxiliary and optimizer-state
buffers donated. Module keeps MXNet's call sequence (``forward``, ``backward``,
``update``) by deferring work: ``forward(is_train=True)`` only loads the batch,
``backward`` only marks it, and ``update`` runs the fused step; reading
outputs or gradients before that runs the plain executor instead, so every
order of calls MXNet allows still gives MXNet's numbers.

A context list shards the batch over those JAX devices (data parallel): the
same jitted step runs SPMD with the parameters replicated, and XLA reduces the
gradients. BatchNorm statistics are then whole-batch rather than per device.
"""
import logging
import time

import jax
import numpy as np

from .. import context as _context
from ..base import MXNetError
from ..ndarray import NDArray, _exclusive, _wrap
from ..symbol import executor as _executor
from . import nd

_log = logging.getLogger("xnd.module")


def _as_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _desc_list(shapes):
    from .io import DataDesc
    out = []
    for s in shapes or []:
        if isinstance(s, DataDesc):
            out.append(s)
        else:
            out.append(DataDesc(s[0], tuple(s[1])))
    return out


class BaseModule:
    """The training/evaluation loops shared by every module type."""

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    def forward_backward(self, data_batch):
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        from . import metric as _metric
        from .model import BatchEndParam
        if not (self.binded and self.params_initialized):
            raise MXNetError("score: call bind and init_params first")
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        eval_metric.reset()
        actual = 0
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch)
            self.forward(batch, is_train=False)
            self.update_metric(eval_metric, batch.label, pre_sliced=False)
            for cb in _as_list(batch_end_callback):
                cb(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals()))
            actual = nbatch
        for cb in _as_list(score_end_callback):
            cb(BatchEndParam(epoch=epoch, nbatch=actual, eval_metric=eval_metric, locals=locals()))
        return eval_metric.get_name_value()

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        if reset:
            eval_data.reset()
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch)
            self.forward(batch, is_train=False)
            pad = batch.pad or 0
            outputs = [out[0:out.shape[0] - pad].copy() for out in self.get_outputs()]
            yield outputs, nbatch, batch

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True,
                always_output_list=False, sparse_row_id_fn=None):
        if isinstance(eval_data, (np.ndarray, NDArray)):
            from .io import NDArrayIter
            if isinstance(eval_data, np.ndarray):
                eval_data = nd.array(eval_data)
            self.forward(_Batch([eval_data]), is_train=False)
            return self.get_outputs()[0]
        outs = [o for o, _, _ in self.iter_predict(eval_data, num_batch, reset)]
        if not outs:
            return outs
        if merge_batches:
            merged = [nd.concat(*[o[i] for o in outs], dim=0) if len(outs) > 1 else outs[0][i]
                      for i in range(len(outs[0]))]
            if len(merged) == 1 and not always_output_list:
                return merged[0]
            return merged
        return outs

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=None, arg_params=None, aux_params=None,
            allow_missing=False, force_rebind=False, force_init=False, begin_epoch=0,
            num_epoch=None, validation_metric=None, monitor=None, sparse_row_id_fn=None):
        """MXNet's training loop, with its log lines ('Epoch[0] Train-accuracy=...')."""
        from . import initializer as _init, metric as _metric
        from .model import BatchEndParam
        if num_epoch is None:
            raise ValueError("please specify number of epochs")
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer or _init.Uniform(0.01), arg_params=arg_params,
                         aux_params=aux_params, allow_missing=allow_missing, force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            data_iter = iter(train_data)
            end_of_batch = False
            next_batch = next(data_iter)
            while not end_of_batch:
                batch = next_batch
                self.forward_backward(batch)
                self.update()
                self.update_metric(eval_metric, batch.label)
                try:
                    next_batch = next(data_iter)
                    self.prepare(next_batch)
                except StopIteration:
                    end_of_batch = True
                for cb in _as_list(batch_end_callback):
                    cb(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                     locals=locals()))
                nbatch += 1
            for name, val in eval_metric.get_name_value():
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            arg_params_, aux_params_ = self.get_params()
            self.set_params(arg_params_, aux_params_)
            for cb in _as_list(epoch_end_callback):
                cb(epoch, self.symbol, arg_params_, aux_params_)
            if eval_data is not None:
                res = self.score(eval_data, validation_metric, score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
            train_data.reset()

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Nothing to prefetch: batches are already device arrays."""

    def install_monitor(self, mon):
        self._monitor = mon

    @property
    def symbol(self):
        return self._symbol


class _Batch:
    def __init__(self, data, label=None):
        self.data, self.label, self.pad = data, label, 0


class Module(BaseModule):
    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",), logger=logging,
                 context=None, work_load_list=None, fixed_param_names=None, state_names=None,
                 group2ctxs=None, compression_params=None):
        super().__init__(logger)
        self._symbol = symbol
        self._context = _as_list(context) or [_context.current_context()]
        self._data_names = list(data_names or [])
        self._label_names = list(label_names or [])
        self._state_names = list(state_names or [])
        self._fixed_param_names = list(fixed_param_names or [])
        args = symbol.list_arguments()
        for n in self._data_names:
            if n not in args:
                raise ValueError(f"Input '{n}' is not in the symbol's arguments {args}")
        self._label_names = [n for n in self._label_names if n in args] if self._label_names else []
        for n in label_names or []:
            if n not in args:
                logging.warning("You created Module with Module(..., label_names=%s) but input "
                                "with name '%s' is not found in symbol.list_arguments(). Did you "
                                "mean one of:\n\t%s", list(label_names), n, "\n\t".join(args))
        inputs = set(self._data_names + self._label_names + self._state_names)
        self._param_names = [n for n in args if n not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        self._exec = None
        self._optimizer = self._updater = self._kvstore = None
        self._data_shapes = self._label_shapes = None
        self._pending = None   # None | "forward" | "backward": deferred training work
        self._opt_states = None
        self._step_fn = None
        self._step_key = None

    # ---- names and shapes ------------------------------------------------------------
    @property
    def data_names(self):
        return self._data_names

    @property
    def label_names(self):
        return self._label_names

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        return self._data_shapes

    @property
    def label_shapes(self):
        return self._label_shapes

    @property
    def output_shapes(self):
        shapes = {d.name: d.shape for d in self._data_shapes + (self._label_shapes or [])}
        _, out_shapes, _ = self._symbol.infer_shape(**shapes)
        return list(zip(self._output_names, out_shapes))

    # ---- binding -----------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        old_params = getattr(self, "_preload", None) if self._exec is None else (
            self.get_params() if self.params_initialized else None)
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        self._data_shapes = _desc_list(data_shapes)
        self._label_shapes = _desc_list(label_shapes) if label_shapes else None
        if self._label_shapes is None:
            self._label_shapes = []
        self._label_shapes = [d for d in self._label_shapes if d.name in self._label_names]
        shapes = {d.name: d.shape for d in self._data_shapes + self._label_shapes}
        types = {d.name: d.dtype for d in self._data_shapes + self._label_shapes
                 if getattr(d, "dtype", None) is not None}
        reqs = {}
        for n in self._symbol.list_arguments():
            if n in self._param_names:
                fixed = n in self._fixed_param_names
                reqs[n] = "null" if (not for_training or fixed) else (
                    grad_req if isinstance(grad_req, str) else grad_req.get(n, "write"))
            elif n in self._data_names:
                reqs[n] = "write" if inputs_need_grad else "null"
            else:
                reqs[n] = "null"
        self._exec = _executor.Executor.simple_bind(self._symbol, self._context[0], reqs, types,
                                                    shapes)
        if shared_module is not None and shared_module.params_initialized:
            arg, aux = shared_module.get_params()
            self._exec.copy_params_from(arg, aux, allow_extra_params=True)
            self.params_initialized = True
        self.binded = True
        self._step_fn = None
        if old_params is not None:
            self._exec.copy_params_from(*old_params, allow_extra_params=True)
            self.params_initialized = True

    def reshape(self, data_shapes, label_shapes=None):
        """New input shapes: re-bind the executor, keeping parameters and optimizer state."""
        if not self.binded:
            raise MXNetError("reshape: call bind first")
        self._data_shapes = _desc_list(data_shapes)
        self._label_shapes = [d for d in _desc_list(label_shapes) if d.name in self._label_names] \
            if label_shapes else []
        shapes = {d.name: d.shape for d in self._data_shapes + self._label_shapes}
        self._exec = self._exec.reshape(partial_shaping=True, allow_up_sizing=True, **shapes)

    # ---- parameters ----------------------------------------------------------------------
    def init_params(self, initializer=None, arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        from . import initializer as _init
        if self.params_initialized and not force_init:
            return
        if not self.binded:
            raise MXNetError("init_params: call bind before initializing the parameters")
        if initializer is None:
            initializer = _init.Uniform(0.01)
        attrs = self._symbol.attr_dict()

        def fill(name, arr, given):
            if given is not None and name in given:
                src = given[name]
                if tuple(src.shape) != arr.shape:
                    raise MXNetError(f"init_params: {name} has shape {tuple(src.shape)}, the "
                                     f"module expects {arr.shape}")
                arr._write(src._val().astype(arr.dtype) if isinstance(src, NDArray)
                           else jax.numpy.asarray(np.asarray(src, dtype=arr.dtype)))
            elif given is not None and not allow_missing:
                raise RuntimeError(f"{name} is not presented")
            else:
                initializer(_init.InitDesc(name, attrs.get(name, {})), arr)
        arg_dict, aux_dict = self._exec.arg_dict, self._exec.aux_dict
        for name in self._param_names:
            fill(name, arg_dict[name], arg_params)
        for name in self._aux_names:
            fill(name, aux_dict[name], aux_params)
        if not allow_extra:
            for given, known in ((arg_params, self._param_names), (aux_params, self._aux_names)):
                for k in (given or {}):
                    if k not in known and k not in self._data_names + self._label_names:
                        raise ValueError(f"Found name \"{k}\" that is not in the parameters or "
                                         f"auxiliary states of the module")
        self.params_initialized = True

    def get_params(self):
        """Copies of the current (arg_params, aux_params) on cpu(0)."""
        if not self.params_initialized and not self.binded:
            raise MXNetError("get_params: the module has no parameters yet")
        self._finish_pending()
        cpu = _context.cpu()
        arg = {n: self._exec.arg_dict[n].copyto(cpu) for n in self._param_names}
        aux = {n: a.copyto(cpu) for n, a in self._exec.aux_dict.items()}
        return arg, aux

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        if not self.binded:
            raise MXNetError("set_params: call bind first")
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)

    # ---- optimizer ------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        from . import optimizer as _opt
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        if not (self.binded and self.params_initialized):
            raise MXNetError("init_optimizer: call bind and init_params first")
        params = dict(optimizer_params)
        batch_size = self._data_shapes[0].shape[0]
        idx2name = dict(enumerate(self._param_names))
        if isinstance(optimizer, str):
            params.setdefault("rescale_grad", 1.0 / batch_size)
            optimizer = _opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name, **params)
        else:
            if optimizer.rescale_grad != 1.0 / batch_size:
                self.logger.warning("Optimizer created manually outside Module but rescale_grad is "
                                    "not normalized to 1.0/batch_size/num_workers (%s vs. %s). Is "
                                    "this intended?", optimizer.rescale_grad, 1.0 / batch_size)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        self._optimizer = optimizer
        self._updater = _opt.get_updater(optimizer)
        self._opt_states = None
        self._step_fn = None
        self.optimizer_initialized = True

    def borrow_optimizer(self, shared_module):
        self._optimizer = shared_module._optimizer
        self._updater = shared_module._updater
        self.optimizer_initialized = True

    # ---- computation ----------------------------------------------------------------------
    def _load_batch(self, data_batch):
        arg_dict = self._exec.arg_dict
        data = _as_list(data_batch.data)
        shapes_changed = any(tuple(d.shape) != arg_dict[n].shape
                             for n, d in zip(self._data_names, data))
        if shapes_changed:
            new = [(n, tuple(d.shape)) for n, d in zip(self._data_names, data)]
            labels = _as_list(getattr(data_batch, "label", None))
            new_l = [(n, tuple(l.shape)) for n, l in zip(self._label_names, labels)]
            self.reshape(new, new_l or None)
            arg_dict = self._exec.arg_dict
        for n, d in zip(self._data_names, data):
            _assign(arg_dict[n], d)
        labels = _as_list(getattr(data_batch, "label", None))
        for n, l in zip(self._label_names, labels):
            _assign(arg_dict[n], l)

    def forward(self, data_batch, is_train=None):
        if not (self.binded and self.params_initialized):
            raise MXNetError("forward: call bind and init_params first")
        if is_train is None:
            is_train = self.for_training
        self._finish_pending()
        self._load_batch(data_batch)
        if is_train:
            from . import random as _random
            self._exec._key = _random.next_key()
            self._pending = "forward"
        else:
            self._exec.forward(is_train=False)

    def backward(self, out_grads=None):
        if self._pending != "forward":
            if self._pending is None and self._exec._key is None:
                raise MXNetError("backward: call forward(is_train=True) first")
        if out_grads is not None:
            self._run_forward()
            self._exec.backward(out_grads)
            self._pending = None
            return
        self._pending = "backward"

    def update(self):
        if not self.optimizer_initialized:
            raise MXNetError("update: call init_optimizer first")
        if self._pending == "backward" and self._fused_ok():
            self._fused_step()
            self._pending = None
            return
        self._finish_pending()
        grads = self._exec.grad_dict
        for i, name in enumerate(self._param_names):
            if name in grads:
                self._updater(i, grads[name], self._exec.arg_dict[name])

    def _run_forward(self):
        if self._pending == "forward" or (self._pending == "backward" and not self._exec.outputs):
            key = self._exec._key
            self._exec.forward(is_train=True)
            self._exec._key = key

    def _finish_pending(self):
        """Run deferred training work the plain way (outputs, grads, aux updates)."""
        if self._pending == "forward":
            key = self._exec._key
            self._exec.forward(is_train=True)
            self._exec._key = key
        elif self._pending == "backward":
            self._exec.backward()
        self._pending = None

    def get_outputs(self, merge_multi_context=True):
        if self._pending == "forward":
            self._finish_pending()
        elif self._pending == "backward":
            self._finish_pending()
        return list(self._exec.outputs)

    def get_input_grads(self, merge_multi_context=True):
        if not self.inputs_need_grad:
            raise MXNetError("get_input_grads: bind with inputs_need_grad=True")
        self._finish_pending()
        return [self._exec.grad_dict[n] for n in self._data_names]

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        eval_metric.update(_as_list(labels), self.get_outputs())

    # ---- the fused step ---------------------------------------------------------------------
    def _fused_ok(self):
        from .optimizer import Optimizer
        rule = getattr(type(self._optimizer), "_rule", None)
        return rule is not None and rule is not Optimizer._rule and all(
            r in ("write", "null") for r in self._exec._reqs)

    def _fused_step(self):
        exe, opt = self._exec, self._optimizer
        names = exe._arg_names
        reqs = exe._reqs
        pidx = [i for i, n in enumerate(names) if n in self._param_names and reqs[i] == "write"]
        indices = [self._param_names.index(names[i]) for i in pidx]
        if self._opt_states is None:
            self._opt_states = {k: self._updater_state(k, exe.arg_arrays[i])
                                for k, i in zip(indices, pidx)}
        lrs, wds, extras = opt.step_scalars(indices, packed=True)
        if self._step_fn is None or self._step_key != opt.static_key():
            self._step_key = opt.static_key()
            self._step_fn = _make_step(exe._graph, tuple(r != "null" for r in reqs), tuple(pidx), opt)
        params = [exe.arg_arrays[i]._val() for i in pidx]
        others = [a._val() for i, a in enumerate(exe.arg_arrays) if i not in pidx]
        aux = [a._val() for a in exe.aux_arrays]
        states = [_state_values(self._opt_states[k]) for k in indices]
        donate = all(_exclusive(exe.arg_arrays[i]) for i in pidx) and all(
            _exclusive(a) for a in exe.aux_arrays)
        fn = self._step_fn[donate]
        outs, new_aux, grads, new_params, new_states = fn(params, others, aux, states, exe._key,
                                                          lrs, wds, extras)
        exe._set_outputs(outs)
        for a, v in zip(exe.aux_arrays, new_aux):
            a._write(v)
        it = iter(grads)
        for g, r in zip(exe.grad_arrays, reqs):
            if r != "null":
                g._write(next(it))
        for i, v in zip(pidx, new_params):
            exe.arg_arrays[i]._write(v)
        for k, s in zip(indices, new_states):
            _write_state(self._opt_states[k], s)

    def _updater_state(self, index, weight):
        states = self._updater.states
        if index not in states:
            states[index] = self._optimizer.create_state_multi_precision(index, weight)
            self._updater.states_synced[index] = True
        return states[index]

    # ---- checkpoints --------------------------------------------------------------------------
    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        from .model import save_checkpoint
        self._symbol.save(f"{prefix}-symbol.json")
        arg, aux = self.get_params()
        save_checkpoint(prefix, epoch, None, arg, aux)
        self.logger.info('Saved checkpoint to "%s-%04d.params"', prefix, epoch)
        if save_optimizer_states:
            self.save_optimizer_states(f"{prefix}-{epoch:04d}.states")
            self.logger.info('Saved optimizer state to "%s-%04d.states"', prefix, epoch)

    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        from .model import load_checkpoint
        sym, args, auxs = load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._preload = (args, auxs)
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = f"{prefix}-{epoch:04d}.states"
        return mod

    def save_optimizer_states(self, fname):
        if not self.optimizer_initialized:
            raise MXNetError("save_optimizer_states: optimizer is not initialized")
        self._finish_pending()
        from ..serialization import atomic_write
        atomic_write(fname, self._updater.get_states(dump_optimizer=False))

    def load_optimizer_states(self, fname):
        if not self.optimizer_initialized:
            raise MXNetError("load_optimizer_states: optimizer is not initialized")
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())
        self._opt_states = None


def _assign(dst, src):
    if isinstance(src, NDArray):
        v = src._val()
    else:
        v = jax.numpy.asarray(np.asarray(src))
    if tuple(v.shape) != dst.shape:
        raise MXNetError(f"batch shape {tuple(v.shape)} does not match the bound shape {dst.shape}")
    dst._write(v.astype(dst.dtype) if v.dtype != dst.dtype else v)


def _state_values(state):
    return jax.tree_util.tree_map(lambda s: s._val() if isinstance(s, NDArray) else s, state,
                                  is_leaf=lambda s: isinstance(s, NDArray))


def _write_state(state, values):
    leaves = jax.tree_util.tree_leaves(state, is_leaf=lambda s: isinstance(s, NDArray))
    new = jax.tree_util.tree_leaves(values)
    for s, v in zip([s for s in leaves if isinstance(s, NDArray)], new):
        s._write(v)


def _make_step(graph, diff_mask, pidx, opt):
    """{donate: jitted (params, others, aux, states, key, lrs, wds) ->
    (outs, new aux, grads, new params, new states)}; params, aux and states may be donated,
    never the batch (its buffers belong to the caller's arrays)."""
    fwd_bwd = graph.forward_backward(diff_mask)
    n_heads = len(graph.sym._outputs)
    diff_pos = [i for i, m in enumerate(diff_mask) if m]

    opt = __import__("copy").copy(opt)  # a snapshot: a retrace must not see later changes

    def step(params, others, aux, states, key, lrs, wds, extras):
        args, p, o = [], iter(params), iter(others)
        for i in range(len(diff_mask)):
            args.append(next(p) if i in pidx else next(o))
        outs, new_aux, grads = fwd_bwd(args, aux, key, [None] * n_heads)
        gmap = dict(zip(diff_pos, grads))
        new_params, new_states = opt.step(list(params), [gmap[i] for i in pidx], states, lrs, wds,
                                          extras)
        return outs, new_aux, grads, new_params, new_states
    return {True: jax.jit(step, donate_argnums=(0, 2, 3)), False: jax.jit(step)}


def _as_ctx(ctx):
    return ctx


assert _wrap
