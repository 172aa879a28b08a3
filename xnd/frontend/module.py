"""mx.mod: BaseModule, Module, BucketingModule, SequentialModule (MXNet 1.9.1's API).

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
  loop of that step (``xnd.frontend.fit_scan``), leaving everything as the batch loop
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
under ``jax.shard_map`` -- each device sees only its slice, exactly like
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
import collections
import logging
import sys
import time
import warnings
import weakref
from collections import OrderedDict

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec, SingleDeviceSharding

from .. import context as _context
from .._compat_jax import committed, fresh_copy, shard_map
from .. import ndarray as _ndarray
from ..base import MXNetError
from ..lowering import xla_options
from ..symbol import executor as _executor
from ..symbol import rewrite as _rewrite
from ..ndarray import NDArray, _exclusive, _wrap
from . import fit_scan as _fit_scan
from .executor_group import DataParallelExecutorGroup
from . import initializer as _init
from . import nd

__all__ = ["BaseModule", "Module", "BucketingModule", "SequentialModule", "PythonModule",
           "PythonLossModule"]

_AXIS = "dev"
# traces of the compiled functions by kind ('step', 'fwd_bwd', 'forward'): tests count compiles
TRACES = collections.Counter()


_NEED_INIT = "the module is not ready: call bind() and init_params() first"
_NEED_OPT = ("the module has no optimizer: call bind(), init_params() and init_optimizer() "
             "before update()")
_NEED_INPUT_GRAD = "input gradients need bind(..., inputs_need_grad=True)"


class ModuleError(MXNetError, AssertionError):
    """A Module precondition failed (MXNet raises AssertionError at these points)."""


def _assert(cond, msg=""):
    if not cond:
        raise ModuleError(msg)


def _as_list(obj):
    if obj is None:
        return []
    return list(obj) if isinstance(obj, (list, tuple)) else [obj]


def _check_input_names(symbol, names, typename, throw):
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [a for a in args if not a.endswith(("_weight", "_bias", "_gamma", "_beta"))]
        msg = ("\033[91mYou created Module with Module(..., %s_names=%s) but input with name "
               "'%s' is not found in symbol.list_arguments(). Did you mean one of:\n\t%s\033[0m"
               % (typename, str(names), name, "\n\t".join(candidates)))
        if throw:
            raise ValueError(msg)
        warnings.warn(msg)


def _check_names_match(data_names, data_shapes, name, throw):
    actual = [x[0] for x in data_shapes]
    if sorted(data_names) != sorted(actual):
        msg = "Data provided by %s_shapes don't match names specified by %s_names (%s vs. %s)" % (
            name, name, str(data_shapes), str(data_names))
        if throw:
            raise ValueError(msg)
        warnings.warn(msg)


def _desc(x):
    from .io import DataDesc
    if isinstance(x, DataDesc):
        return x
    name, shape = x[0], x[1]
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return DataDesc(name, shape, *x[2:])


def _parse_data_desc(data_names, label_names, data_shapes, label_shapes):
    data_shapes = [_desc(x) for x in data_shapes]
    _check_names_match(data_names, data_shapes, "data", True)
    if label_shapes is not None:
        label_shapes = [_desc(x) for x in label_shapes]
        _check_names_match(label_names, label_shapes, "label", False)
    else:
        _check_names_match(label_names, [], "label", False)
    return data_shapes, label_shapes


def _batch_axis(layout):
    if layout is None:
        return 0
    return layout.find("N")


def _split_input_slice(batch_size, work_load_list):
    total = sum(work_load_list)
    nums = [round(w * batch_size / total) for w in work_load_list]
    if sum(nums) < batch_size:
        nums[-1] += batch_size - sum(nums)
    slices, end = [], 0
    for num in nums:
        begin = int(min(end, batch_size))
        end = int(min(begin + num, batch_size))
        if begin >= end:
            raise ValueError("Too many slices. Some splits are empty.")
        slices.append(slice(begin, end))
    return slices


# ---- handles ---------------------------------------------------------------------------------
def _own(h, v):
    """``h`` now holds ``v``, a buffer no other handle holds (so it may be donated later)."""
    h._data = v
    h._shared = False
    h._ag = None
    h._src = None


def _fresh(v, sharding):
    """A copy of jax array ``v`` with ``sharding`` that shares no buffer with ``v``."""
    return fresh_copy(v, sharding)


def _zeros(shape, dtype, sharding, ctx):
    return _wrap(jax.device_put(jnp.zeros(tuple(shape), dtype), sharding), ctx)


def _abstract(module, what):
    raise NotImplementedError(
        f"{type(module).__name__} does not define {what}: BaseModule is abstract (as in "
        f"MXNet); use Module, BucketingModule, SequentialModule or a PythonModule subclass")


def _abstract_method(name):
    def method(self, *args, **kwargs):
        _abstract(self, name + "()")
    method.__name__ = name
    return method


def _abstract_property(name):
    return property(lambda self: _abstract(self, name))


class BaseModule:
    """The training and evaluation loops shared by every module type (mx.mod.BaseModule)."""

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    # ---- high-level API -------------------------------------------------------------------
    def forward_backward(self, data_batch):
        """``forward(data_batch, is_train=True)`` then ``backward()``."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        """Run inference on ``eval_data`` and return ``eval_metric.get_name_value()``."""
        from . import metric as _metric
        from .model import BatchEndParam
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        eval_metric.reset()
        actual_num_batch = 0
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            if isinstance(eval_batch, list):
                self.update_metric(eval_metric, [eb.label for eb in eval_batch], pre_sliced=True)
            else:
                self.update_metric(eval_metric, eval_batch.label)
            if batch_end_callback is not None:
                params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                       locals=locals())
                for callback in _as_list(batch_end_callback):
                    callback(params)
            actual_num_batch += 1
        if score_end_callback:
            params = BatchEndParam(epoch=epoch, nbatch=actual_num_batch, eval_metric=eval_metric,
                                   locals=locals())
            for callback in _as_list(score_end_callback):
                callback(params)
        return eval_metric.get_name_value()

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yield ``(outputs, nbatch, batch)`` per batch; the last batch's pad is cut off."""
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        if reset:
            eval_data.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad
            outputs = [out[0:out.shape[0] - pad] for out in self.get_outputs()]
            yield (outputs, nbatch, eval_batch)

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True,
                always_output_list=False, sparse_row_id_fn=None):
        """Outputs over ``eval_data`` (a DataIter, NDArray or numpy array)."""
        from .io import DataBatch, DataIter
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        if isinstance(eval_data, (NDArray, np.ndarray)):
            if isinstance(eval_data, np.ndarray):
                eval_data = nd.array(eval_data)
            self.forward(DataBatch([eval_data]))
            return self.get_outputs()[0]
        if not isinstance(eval_data, DataIter):
            raise ValueError("eval_data must be of type NDArray or DataIter")
        if reset:
            eval_data.reset()
        output_list = []
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad
            outputs = [out[0:out.shape[0] - pad].copy() for out in self.get_outputs()]
            output_list.append(outputs)
        if len(output_list) == 0:
            return output_list
        if merge_batches:
            num_outputs = len(output_list[0])
            for out in output_list:
                _assert(len(out) == num_outputs,
                        "Cannot merge batches, as num of outputs is not the same in mini-batches. "
                        "Maybe bucketing is used?")
            merged = [nd.concatenate([out[i] for out in output_list]) for i in range(num_outputs)]
            if num_outputs == 1 and not always_output_list:
                return merged[0]
            return merged
        return output_list

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=_init.Uniform(0.01), arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None):
        """MXNet's training loop, with its log lines ('Epoch[0] Train-accuracy=...',
        'Epoch[0] Time cost=...', 'Epoch[0] Validation-accuracy=...')."""
        from . import metric as _metric
        from .model import BatchEndParam
        _assert(num_epoch is not None, "please specify number of epochs")
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
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
            run = _fit_scan.plan(self, train_data, eval_metric, batch_end_callback) \
                if isinstance(self, Module) and monitor is None and sparse_row_id_fn is None \
                else None
            if run is not None:
                fit_locals = locals()

                def batch_end(n):
                    params = BatchEndParam(epoch=epoch, nbatch=n, eval_metric=eval_metric,
                                           locals=fit_locals)
                    for callback in _as_list(batch_end_callback):
                        callback(params)
                nbatch = run.run(batch_end if batch_end_callback is not None else None)
            try:
                next_data_batch = next(data_iter)
            except StopIteration:
                if not nbatch:
                    raise
                end_of_batch = True     # the compiled loop did the whole epoch
                eval_name_vals = eval_metric.get_global_name_value()
            while not end_of_batch:
                data_batch = next_data_batch
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(data_batch)
                self.update()
                if isinstance(data_batch, list):
                    self.update_metric(eval_metric, [db.label for db in data_batch],
                                       pre_sliced=True)
                else:
                    self.update_metric(eval_metric, data_batch.label)
                try:
                    next_data_batch = next(data_iter)
                    self.prepare(next_data_batch, sparse_row_id_fn=sparse_row_id_fn)
                except StopIteration:
                    end_of_batch = True
                if monitor is not None:
                    monitor.toc_print()
                if end_of_batch:
                    eval_name_vals = eval_metric.get_global_name_value()
                if batch_end_callback is not None:
                    params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                           locals=locals())
                    for callback in _as_list(batch_end_callback):
                        callback(params)
                nbatch += 1
            for name, val in eval_name_vals:
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
            toc = time.time()
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, (toc - tic))
            arg_params_, aux_params_ = self.get_params()
            self.set_params(arg_params_, aux_params_)
            if epoch_end_callback is not None:
                for callback in _as_list(epoch_end_callback):
                    callback(epoch, self.symbol, arg_params_, aux_params_)
            if eval_data is not None:
                res = self.score(eval_data, validation_metric, score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
            train_data.reset()

    # ---- what every module type defines (abstract here, as in MXNet's BaseModule) -------------
    data_names = _abstract_property("data_names")
    output_names = _abstract_property("output_names")
    data_shapes = _abstract_property("data_shapes")
    label_shapes = _abstract_property("label_shapes")
    output_shapes = _abstract_property("output_shapes")

    @property
    def symbol(self):
        return self._symbol

    # ---- parameters ------------------------------------------------------------------------
    get_params = _abstract_method("get_params")
    init_params = _abstract_method("init_params")

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init,
                         allow_extra=allow_extra)

    def save_params(self, fname):
        """Save ``get_params()`` as MXNet's .params file ('arg:'/'aux:' keys)."""
        arg_params, aux_params = self.get_params()
        cpu = _context.cpu()
        save_dict = {("arg:%s" % k): v.as_in_context(cpu) for k, v in arg_params.items()}
        save_dict.update({("aux:%s" % k): v.as_in_context(cpu) for k, v in aux_params.items()})
        nd.save(fname, save_dict)

    def load_params(self, fname):
        save_dict = nd.load(fname)
        arg_params, aux_params = {}, {}
        for k, value in save_dict.items():
            arg_type, name = k.split(":", 1)
            if arg_type == "arg":
                arg_params[name] = value
            elif arg_type == "aux":
                aux_params[name] = value
            else:
                raise ValueError("Invalid param file " + fname)
        self.set_params(arg_params, aux_params)

    def get_states(self, merge_multi_context=True):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        _assert(not merge_multi_context)
        return []

    def set_states(self, states=None, value=None):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        _assert(not states and not value)

    install_monitor = _abstract_method("install_monitor")

    def prepare(self, data_batch, sparse_row_id_fn=None):
        if sparse_row_id_fn is not None:
            warnings.warn(UserWarning("sparse_row_id_fn is not invoked for BaseModule."))

    # ---- computation -----------------------------------------------------------------------
    forward = _abstract_method("forward")
    backward = _abstract_method("backward")
    get_outputs = _abstract_method("get_outputs")
    get_input_grads = _abstract_method("get_input_grads")
    update = _abstract_method("update")
    update_metric = _abstract_method("update_metric")
    bind = _abstract_method("bind")
    init_optimizer = _abstract_method("init_optimizer")


# ---- devices and compiled programs ---------------------------------------------------------------
class _Devices:
    """The JAX devices of a module's contexts and where parameters live on them."""

    def __init__(self, contexts):
        self.contexts = contexts
        self.devices = [c.jax_device() for c in contexts]
        self.n = len(contexts)
        self.distinct = len(set(self.devices)) == self.n
        if self.n > 1 and self.distinct:
            self.mesh = Mesh(np.array(self.devices, dtype=object), (_AXIS,))
            self.replicated = NamedSharding(self.mesh, PartitionSpec())
        else:
            self.mesh = None
            self.replicated = SingleDeviceSharding(self.devices[0])
        self.ctx = contexts[0]


class _Layout:
    """One binding's split of the batch over the devices (hashable: a compile-cache key)."""

    def __init__(self, devs, slices, arg_axes, out_axes):
        self.devs = devs
        self.slices = tuple((s.start, s.stop) for s in slices)
        self.arg_axes = tuple(arg_axes)
        self.out_axes = tuple(out_axes)
        sizes = {b - a for a, b in self.slices}
        if devs.n == 1:
            self.mode = "single"
        elif devs.mesh is not None and len(sizes) == 1:
            self.mode = "spmd"
        else:
            self.mode = "loop"
        self.key = (self.mode, devs.mesh, self.slices if self.mode == "loop" else None,
                    self.arg_axes, self.out_axes)

    def spec(self, axis):
        if axis < 0:
            return PartitionSpec()
        return PartitionSpec(*([None] * axis + [_AXIS]))

    def arg_sharding(self, i):
        """Where batch argument i lives (parameters and other inputs: replicated)."""
        ax = self.arg_axes[i]
        if self.mode == "spmd" and ax >= 0:
            return NamedSharding(self.devs.mesh, self.spec(ax))
        return self.devs.replicated

    def out_sharding(self, i):
        ax = self.out_axes[i]
        if self.mode == "spmd" and ax >= 0:
            return NamedSharding(self.devs.mesh, self.spec(ax))
        return self.devs.replicated


def _dev_key(key, d):
    """The random key of device ``d`` (device 0 keeps the step's key)."""
    d = jnp.asarray(d).astype(jnp.uint32)
    return key + jnp.stack([jnp.zeros_like(d), d * jnp.uint32(0x9E3779B9)]).astype(key.dtype)


def _take(x, sl, axis):
    if axis < 0:
        return x
    return jax.lax.slice_in_dim(x, sl[0], sl[1], axis=axis)


def _join(parts, axis):
    if axis < 0:
        return parts[0]
    return jnp.concatenate(parts, axis=axis)


def _mean(parts):
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return (total / len(parts)).astype(parts[0].dtype)


def _sum(parts):
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return total


_PROGRAMS = {}


class _Programs:
    """The compiled functions of one graph on one layout: forward, forward+backward and the
    fused training step (cached; jax.jit adds one compile per new input shape)."""

    def __init__(self, graph, lay):
        self.graph, self.lay = graph, lay
        self._fwd = {}
        self._fb = {}
        self._steps = {}
        self._scans = {}        # xnd.frontend.fit_scan's compiled loops

    @staticmethod
    def get(graph, lay):
        key = (graph, lay.key)
        p = _PROGRAMS.get(key)
        if p is None:
            p = _PROGRAMS[key] = _Programs(graph, lay)
        return p

    # the per-device (local) computation, combined over devices as MXNet's group does
    def _global_fb(self, mask, head_mask):
        fb = self.graph.forward_backward(mask)
        lay = self.lay
        diff_axes = [ax for ax, m in zip(lay.arg_axes, mask) if m]

        def full_heads(heads):
            it = iter(heads)
            return [next(it) if m else None for m in head_mask]

        if lay.mode == "single":
            def run(args, aux, key, heads):
                return fb(args, aux, key, full_heads(heads))
            return run
        if lay.mode == "spmd":
            head_specs = [lay.spec(ax) for ax, m in zip(lay.out_axes, head_mask) if m]
            arg_specs = [lay.spec(ax) for ax in lay.arg_axes]
            out_specs = [lay.spec(ax) for ax in lay.out_axes]
            grad_specs = [lay.spec(ax) for ax in diff_axes]

            def local(args, aux, key, heads):
                k = _dev_key(key, jax.lax.axis_index(_AXIS))
                outs, new_aux, grads = fb(args, aux, k, full_heads(heads))
                grads = [g if ax >= 0 else jax.lax.psum(g, _AXIS)
                         for g, ax in zip(grads, diff_axes)]
                new_aux = [jax.lax.pmean(a, _AXIS) for a in new_aux]
                return outs, new_aux, grads

            def run(args, aux, key, heads):
                sm = shard_map(local, mesh=lay.devs.mesh,
                               in_specs=(arg_specs, PartitionSpec(), PartitionSpec(), head_specs),
                               out_specs=(out_specs, PartitionSpec(), grad_specs), check=False)
                return sm(list(args), list(aux), key, list(heads))
            return run

        def run(args, aux, key, heads):      # "loop": the slices one after another
            heads = full_heads(heads)
            parts = []
            for d, sl in enumerate(lay.slices):
                a = [_take(x, sl, ax) for x, ax in zip(args, lay.arg_axes)]
                h = [None if x is None else _take(x, sl, ax) for x, ax in zip(heads, lay.out_axes)]
                parts.append(fb(a, aux, _dev_key(key, d), h))
            outs = [_join([p[0][i] for p in parts], ax) for i, ax in enumerate(lay.out_axes)]
            new_aux = [_mean([p[1][i] for p in parts]) for i in range(len(aux))]
            grads = [_join([p[2][i] for p in parts], ax) if ax >= 0
                     else _sum([p[2][i] for p in parts]) for i, ax in enumerate(diff_axes)]
            return outs, new_aux, grads
        return run

    def forward(self, is_train):
        """jit (args, aux, key) -> outputs."""
        f = self._fwd.get(is_train)
        if f is not None:
            return f
        lay, run = self.lay, self.graph._run
        if lay.mode == "single":
            def fn(args, aux, key):
                TRACES["forward"] += 1
                return run(args, aux, key, is_train)[0]
        elif lay.mode == "spmd":
            arg_specs = [lay.spec(ax) for ax in lay.arg_axes]
            out_specs = [lay.spec(ax) for ax in lay.out_axes]

            def local(args, aux, key):
                return run(args, aux, _dev_key(key, jax.lax.axis_index(_AXIS)), is_train)[0]

            def fn(args, aux, key):
                TRACES["forward"] += 1
                sm = shard_map(local, mesh=lay.devs.mesh,
                               in_specs=(arg_specs, PartitionSpec(), PartitionSpec()),
                               out_specs=out_specs, check=False)
                return sm(list(args), list(aux), key)
        else:
            def fn(args, aux, key):
                TRACES["forward"] += 1
                parts = []
                for d, sl in enumerate(lay.slices):
                    a = [_take(x, sl, ax) for x, ax in zip(args, lay.arg_axes)]
                    parts.append(run(a, aux, _dev_key(key, d), is_train)[0])
                return [_join([p[i] for p in parts], ax) for i, ax in enumerate(lay.out_axes)]
        f = self._fwd[is_train] = xla_options.jit(fn, classic_fusion=self.graph.convolutional)
        return f

    def fwd_bwd(self, mask, head_mask, add_mask, donate):
        """jit (args, aux, key, heads, acc) -> (outputs, new aux, grads); ``acc`` holds the
        current gradients of 'add' arguments (None elsewhere), added in; donated when
        ``donate``."""
        k = (mask, head_mask, add_mask, donate)
        f = self._fb.get(k)
        if f is not None:
            return f
        gfb = self._global_fb(mask, head_mask)

        def fn(args, aux, key, heads, acc):
            TRACES["fwd_bwd"] += 1
            outs, new_aux, grads = gfb(args, aux, key, heads)
            grads = [g if a is None else a + g.astype(a.dtype) for g, a in zip(grads, acc)]
            return outs, new_aux, grads
        f = self._fb[k] = xla_options.jit(fn, classic_fusion=self.graph.convolutional,
                                          donate_argnums=(4,) if donate else ())
        return f

    def step(self, mask, head_mask, add_mask, pidx, upd, ones, opt, donate):
        """The fused training step, jit (params, others, aux, states, acc, key, heads, lrs,
        wds, extras) -> (outputs, new aux, grads, new params, new states).

        ``pidx``: argument positions of the updated parameters (``params``), ``upd``: their
        positions among the differentiated arguments; everything else is in ``others``.
        ``ones``: positions in ``params`` that read as 1 (fix_gamma gammas, which MXNet
        overwrites with 1 at forward). Parameters, aux states, optimizer states and ``acc``
        are donated when ``donate``."""
        k = (mask, head_mask, add_mask, pidx, upd, ones) + _opt_key(opt) + (donate,)
        f = self._steps.get(k)
        if f is None:
            fn = self.pure_step(mask, head_mask, pidx, upd, ones, opt)

            def traced(*args):
                TRACES["step"] += 1
                return fn(*args)
            f = self._steps[k] = xla_options.jit(
                traced, classic_fusion=self.graph.convolutional,
                donate_argnums=(0, 2, 3, 4) if donate else ())
        return f

    def pure_step(self, mask, head_mask, pidx, upd, ones, opt):
        """The function ``step`` compiles (traceable: ``xnd.frontend.fit_scan`` runs it in a
        loop)."""
        gfb = self._global_fb(mask, head_mask)
        opt_step = opt.jitted_step()
        n_args = len(mask)
        pset = set(pidx)

        def fn(params, others, aux, states, acc, key, heads, lrs, wds, extras):
            params = [jnp.ones_like(v) if k in ones else v for k, v in enumerate(params)]
            p, o = iter(params), iter(others)
            args = [next(p) if i in pset else next(o) for i in range(n_args)]
            outs, new_aux, grads = gfb(args, aux, key, heads)
            grads = [g if a is None else a + g.astype(a.dtype) for g, a in zip(grads, acc)]
            new_params, new_states = opt_step(list(params), [grads[j] for j in upd], list(states),
                                              lrs, wds, extras)
            return outs, new_aux, grads, new_params, new_states
        return fn


def _opt_key(opt):
    """What a compiled step depends on in the optimizer: its static key, and its identity for
    a user-defined class (whose rule may read more than the key)."""
    builtin = type(opt).__module__ == _OPT_MODULE
    return (opt.static_key(), builtin or id(opt))


_OPT_MODULE = "xnd.frontend.optimizer"


class _Exec:
    """One binding's arrays (what MXNet's executor holds): arguments, gradients, auxiliary
    states and outputs, as NDArray handles in ``list_arguments()`` order. In a data-parallel
    module they are global arrays over the devices (labelled with the first context)."""

    def __init__(self, module, symbol, lay, args, grads, aux, outs, reqs):
        self._mod = weakref.ref(module)
        self._symbol = symbol
        self.lay = lay
        self._args, self._grads, self._aux, self._outs = args, grads, aux, outs
        self._reqs = reqs
        self._arg_names = symbol.list_arguments()
        self._aux_names = symbol.list_auxiliary_states()
        self._out_names = symbol.list_outputs()
        self._monitor, self._monitor_all = None, False

    def _sync(self, what):
        mod = self._mod()
        if mod is not None and mod._exec is self:
            mod._materialize(what)

    # MXNet's Executor surface (reads see the results of any deferred work)
    @property
    def arg_arrays(self):
        return list(self._args)

    @property
    def grad_arrays(self):
        self._sync("grads")
        return list(self._grads)

    @property
    def aux_arrays(self):
        self._sync("aux")
        return list(self._aux)

    @property
    def outputs(self):
        self._sync("outputs")
        return list(self._outs)

    @property
    def arg_dict(self):
        return dict(zip(self._arg_names, self._args))

    @property
    def grad_dict(self):
        return dict(zip(self._arg_names, self.grad_arrays))

    @property
    def aux_dict(self):
        return dict(zip(self._aux_names, self.aux_arrays))

    @property
    def output_dict(self):
        return dict(zip(self._out_names, self.outputs))

    def set_monitor_callback(self, callback, monitor_all=False):
        self._monitor, self._monitor_all = callback, bool(monitor_all)

    def debug_str(self):
        return self._symbol.debug_str()


class Module(BaseModule):
    """A module over one Symbol (mx.mod.Module)."""

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
        data_names = list(data_names) if data_names is not None else []
        label_names = list(label_names) if label_names is not None else []
        state_names = list(state_names) if state_names is not None else []
        fixed_param_names = list(fixed_param_names) if fixed_param_names is not None else []
        _check_input_names(symbol, data_names, "data", True)
        _check_input_names(symbol, label_names, "label", False)
        _check_input_names(symbol, state_names, "state", True)
        _check_input_names(symbol, fixed_param_names, "fixed_param", True)
        arg_names = symbol.list_arguments()
        input_names = data_names + label_names + state_names
        self._param_names = [x for x in arg_names if x not in input_names]
        self._fixed_param_names = fixed_param_names
        self._aux_names = symbol.list_auxiliary_states()
        self._data_names = data_names
        self._label_names = label_names
        self._state_names = state_names
        self._output_names = symbol.list_outputs()
        self._arg_params = None
        self._aux_params = None
        self._params_dirty = False
        self._compression_params = compression_params
        self._optimizer = None
        self._kvstore = None
        self._update_on_kvstore = None
        self._updater = None
        self._preload_opt_states = None
        self._grad_req = None
        self._data_shapes = None
        self._label_shapes = None
        self._exec = None
        self._exec_group = None
        self._devs = None
        self._batch_size = None
        self._monitor = None
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
        from .model import load_checkpoint
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
        _assert(self.binded)
        return self._data_shapes

    @property
    def label_shapes(self):
        _assert(self.binded)
        return self._label_shapes

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
        self._reqs = self._make_reqs(grad_req)
        self._exec = self._bind_exec(self._data_shapes, self._label_shapes, shared_exec)
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
            self._arg_params = {n: nd.zeros(d[n].shape, ctx=cpu, dtype=d[n].dtype)
                                for n in self._param_names}
            self._aux_params = {n: nd.zeros(a.shape, ctx=cpu, dtype=a.dtype)
                                for n, a in zip(self._aux_names, self._exec._aux)}
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)
        self.binded = True

    def _make_reqs(self, grad_req):
        """MXNet's per-argument grad_req table (DataParallelExecutorGroup.__init__)."""
        arg_names = self._symbol.list_arguments()
        data_names = [x.name for x in self._data_shapes]
        if not self.for_training:
            grad_req = "null"
        if isinstance(grad_req, str):
            reqs = {}
            for k in arg_names:
                if k in self._param_names:
                    reqs[k] = "null" if k in self._fixed_param_names else grad_req
                elif k in data_names:
                    reqs[k] = grad_req if self.inputs_need_grad else "null"
                else:
                    reqs[k] = "null"
        elif isinstance(grad_req, (list, tuple)):
            _assert(len(grad_req) == len(arg_names))
            reqs = dict(zip(arg_names, grad_req))
        elif isinstance(grad_req, dict):
            reqs = {}
            for k in arg_names:
                if k in self._param_names:
                    reqs[k] = "null" if k in self._fixed_param_names else "write"
                elif k in data_names:
                    reqs[k] = "write" if self.inputs_need_grad else "null"
                else:
                    reqs[k] = "null"
            reqs.update(grad_req)
        else:
            raise ValueError("grad_req must be one of str, list, tuple, or dict.")
        out = []
        for k in arg_names:
            r = reqs.get(k, "null")
            if r not in ("write", "add", "null", "inplace"):
                raise ValueError("grad_req must be 'write', 'add' or 'null', got %r" % (r,))
            out.append("write" if r == "inplace" else r)
        return out

    @staticmethod
    def _shape_key(data_shapes, label_shapes):
        return (tuple((d.name, tuple(d.shape)) for d in data_shapes),
                tuple((d.name, tuple(d.shape)) for d in label_shapes or []))

    def _bind_exec(self, data_shapes, label_shapes, shared_exec=None, base=None):
        """Arrays for these shapes; parameters, gradients and aux states are shared with
        ``base`` (a reshape) or ``shared_exec`` (a bucket) where the shapes agree."""
        from ..symbol.executor import graph_function
        sym = self._symbol
        devs = self._devs
        descs = list(data_shapes) + list(label_shapes or [])
        # batch size and the per-device slices (MXNet's decide_slices)
        batch_size, slices = None, None
        axes = {}
        for group in (data_shapes, label_shapes or []):
            for d in group:
                ax = _batch_axis(getattr(d, "layout", None))
                axes[d.name] = ax
                if ax == -1:
                    continue
                size = d.shape[ax]
                if batch_size is not None:
                    _assert(size == batch_size, "all data must have the same batch size: "
                            "batch_size = %d, but %s has shape %s" % (batch_size, d.name, d.shape))
                else:
                    batch_size = size
                    slices = _split_input_slice(batch_size, self._work_load_list)
        self._batch_size = batch_size
        if slices is None:
            slices = [slice(0, 1)] * devs.n
        input_shapes = {d.name: tuple(d.shape) for d in descs}
        input_types = {d.name: d.dtype for d in data_shapes}
        attrs = sym.attr_dict()
        for name in sym.list_inputs():
            if name in input_types and name in attrs and "__dtype__" in attrs[name] \
                    and attrs[name]["__dtype__"] != "-1":
                from ..lowering.dtypes import DTYPES
                flags = list(DTYPES.values())
                flag = int(attrs[name]["__dtype__"])
                if 0 <= flag < len(flags):
                    input_types[name] = flags[flag]
        for d in label_shapes or []:
            input_types[d.name] = d.dtype
        try:
            arg_shapes, out_shapes, aux_shapes = sym.infer_shape(**input_shapes)
        except MXNetError as e:
            raise RuntimeError("simple_bind error. Arguments:\n%s\n%s" % (
                "\n".join("%s: %s" % (k, v) for k, v in input_shapes.items()), e)) from e
        if arg_shapes is None:
            raise RuntimeError("simple_bind error: cannot infer the shapes of all arguments "
                               "from %s" % input_shapes)
        arg_types, out_types, aux_types = sym.infer_type(**input_types)
        arg_names = sym.list_arguments()
        arg_axes = [axes.get(n, -1) for n in arg_names]
        out_axes = [_batch_axis(sym[i].attr("__layout__")) for i in range(len(out_shapes))]
        lay = _Layout(devs, slices, arg_axes, out_axes)
        ctx = devs.ctx
        reqs = self._reqs
        src = base if base is not None else shared_exec
        share = src is not None
        src_args = dict(zip(src._arg_names, src._args)) if share else {}
        src_grads = dict(zip(src._arg_names, src._grads)) if share else {}
        src_aux = dict(zip(src._aux_names, src._aux)) if share else {}
        args, grads = [], []
        for i, (name, shape, dt) in enumerate(zip(arg_names, arg_shapes, arg_types)):
            shape = tuple(shape)
            shared_ok = name in src_args and (base is not None or name in self._param_names)
            if shared_ok and src_args[name].shape == shape and name not in input_shapes:
                args.append(src_args[name])
                g = src_grads.get(name)
                if reqs[i] != "null" and g is None:
                    g = _zeros(shape, dt, lay.arg_sharding(i), ctx)
                grads.append(g if reqs[i] != "null" else None)
                continue
            if shared_exec is not None and name in self._param_names and name in src_args:
                raise MXNetError("bind: the shared module's %s has shape %s, this module needs %s"
                                 % (name, src_args[name].shape, shape))
            args.append(_zeros(shape, dt, lay.arg_sharding(i), ctx))
            grads.append(None if reqs[i] == "null" else _zeros(shape, dt, lay.arg_sharding(i), ctx))
        aux = []
        for name, shape, dt in zip(sym.list_auxiliary_states(), aux_shapes, aux_types):
            a = src_aux.get(name)
            aux.append(a if a is not None and a.shape == tuple(shape)
                       else _zeros(shape, dt, devs.replicated, ctx))
        outs = [_zeros(s, t, lay.out_sharding(i), ctx)
                for i, (s, t) in enumerate(zip(out_shapes, out_types))]
        exe = _Exec(self, sym, lay, args, grads, aux, outs, reqs)
        exe._graph = graph_function(sym)
        exe._progs = _Programs.get(exe._graph, lay)
        exe._has_rng = any(n.op is not None and n.op.rng for n in exe._graph.nodes)
        exe._mask = tuple(r != "null" for r in reqs)
        exe._add_mask = tuple(r == "add" for r in reqs if r != "null")
        exe._fixg = _fixed_gamma_args(exe._graph, arg_names)
        exe._data_idx = [arg_names.index(d.name) for d in data_shapes]
        exe._label_idx = [arg_names.index(d.name) for d in label_shapes or []]
        return exe

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
            exe = self._bind_exec(self._data_shapes, self._label_shapes, base=self._default_exec)
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

    # ---- optimizer -------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Install an optimizer (name or instance); ``rescale_grad`` defaults to
        1/batch_size."""
        from . import optimizer as opt
        from .model import _create_kvstore
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        if self._params_dirty:
            self._sync_params_from_devices()
        kvstore, update_on_kvstore = _create_kvstore(kvstore, len(self._context),
                                                     self._arg_params)
        batch_size = self._batch_size
        if kvstore and "dist" in kvstore.type and "_sync" in kvstore.type:
            batch_size *= kvstore.num_workers
        rescale_grad = 1.0 / batch_size
        idx2name = {}
        if update_on_kvstore:
            idx2name.update(enumerate(self._param_names))
        else:
            for k in range(len(self._context)):
                idx2name.update({i * len(self._context) + k: n
                                 for i, n in enumerate(self._param_names)})
        if isinstance(optimizer, str):
            optimizer_params = dict(optimizer_params)
            if "rescale_grad" not in optimizer_params:
                optimizer_params["rescale_grad"] = rescale_grad
            optimizer = opt.create(optimizer, sym=self.symbol, param_idx2name=idx2name,
                                   **optimizer_params)
        else:
            _assert(isinstance(optimizer, opt.Optimizer))
            if optimizer.rescale_grad != rescale_grad:
                warnings.warn(
                    "Optimizer created manually outside Module but rescale_grad "
                    "is not normalized to 1.0/batch_size/num_workers (%s vs. %s). " % (
                        optimizer.rescale_grad, rescale_grad) + "Is this intended?", stacklevel=2)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        self._optimizer = optimizer
        self._kvstore = kvstore
        self._update_on_kvstore = update_on_kvstore
        self._updater = None
        self._states_cache = None
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
                from .model import _initialize_kvstore
                _initialize_kvstore(kvstore=kvstore, param_arrays=self._exec_group.param_arrays,
                                    arg_params=self._arg_params, param_names=self._param_names,
                                    update_on_kvstore=update_on_kvstore)
        if self._updater is None:
            self._updater = opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def borrow_optimizer(self, shared_module):
        """Use ``shared_module``'s optimizer, kvstore and updater (the same states)."""
        _assert(shared_module.optimizer_initialized)
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        self._states_cache = None
        self.optimizer_initialized = True

    # ---- computation -----------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        from .io import DataDesc
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
            from . import random as _random
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
                state = getattr(exe, "_fold_state", None)
                if state is None:
                    state = exe._fold_state = _rewrite.new_state()
                outs = progs.graph.inference_plan().run(_vals(exe._args), _vals(exe._aux),
                                                        self._key, state)
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
        else:
            data, labels = data_batch.data, data_batch.label
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
            from . import random as _random
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
        donate = bool(acc_h) and all(_exclusive(g) for g in acc_h)
        if donate and _ndarray._PENDING:
            for g in acc_h:
                _ndarray._flush_pending(g._data)
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
        from .model import _update_params, _update_params_on_kvstore
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
                _update_params_on_kvstore(params, grads, self._kvstore, self._param_names)
            else:
                _update_params(params, grads, updater=self._updater, num_device=1,
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
        from .optimizer import Optimizer, Updater
        opt, upd = self._optimizer, self._updater
        cls = type(opt)
        if cls._rule is Optimizer._rule or cls.update is not Optimizer.update \
                or cls.update_multi_precision is not Optimizer.update_multi_precision \
                or cls._apply is not Optimizer._apply or type(upd) is not Updater \
                or upd.optimizer is not opt:
            return False
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
        donate = all(_exclusive(h) for h in donated)
        if donate and _ndarray._PENDING:
            for h in donated:
                _ndarray._flush_pending(h._data)
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
        if type(opt)._after_apply is not _base_after_apply():
            opt._after_apply(keys, params, [grads[j] for j in upd])

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
        d = self._exec.arg_dict
        return [[d[n]] for n in self._state_names]

    def set_states(self, states=None, value=None):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        self._materialize("all")
        exe = self._exec
        if states is not None:
            _assert(value is None, "Only one of states & value can be specified.")
            for name, src in zip(self._state_names, states):
                i = exe._arg_names.index(name)
                s = src[0] if isinstance(src, (list, tuple)) else src
                h = exe._args[i]
                _own(h, _fresh(_src_val(s, h.dtype), exe.lay.arg_sharding(i)))
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

    # ---- optimizer states --------------------------------------------------------------------
    def save_optimizer_states(self, fname):
        """Write the optimizer states (xnd's safe format, see mx.optimizer.Updater)."""
        _assert(self.optimizer_initialized)
        from ..serialization import atomic_write
        if self._update_on_kvstore and not _plain_kvstore(self._kvstore):
            self._kvstore.save_optimizer_states(fname)
            return
        atomic_write(fname, self._updater.get_states())

    def load_optimizer_states(self, fname):
        _assert(self.optimizer_initialized)
        if self._update_on_kvstore and not _plain_kvstore(self._kvstore):
            self._kvstore.load_optimizer_states(fname)
            return
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())
        self._states_cache = None

    def install_monitor(self, mon):
        _assert(self.binded)
        self._monitor = mon
        mon.install(self._exec)

    def prepare(self, data_batch, sparse_row_id_fn=None):
        _assert(self.binded)
        if sparse_row_id_fn is not None:
            warnings.warn(UserWarning("Parameters are not updated in the KVStore. "
                                      "No need to call sparse_row_id_fn."))


def _fixed_gamma_args(graph, arg_names):
    """Argument positions of the gammas of BatchNorm nodes with fix_gamma=True: MXNet writes
    1s into those arrays at every forward (the op itself ignores them)."""
    pos = {n: i for i, n in enumerate(arg_names)}
    out = set()
    for node in graph.nodes:
        if node.op is None or "gamma" not in (node.op.inputs or ()):
            continue
        try:
            fixed = node.params().get("fix_gamma", False)
        except Exception:  # pragma: no cover - attributes were validated at bind
            fixed = False
        if not fixed:
            continue
        for j, (src, _) in enumerate(node.inputs):
            if node.input_slot(j) == "gamma" and src.op is None and src.name in pos:
                out.add(pos[src.name])
    return tuple(sorted(out))


def _write_ones(exe):
    for i in exe._fixg:
        h = exe._args[i]
        _own(h, jnp.ones(h.shape, h._val().dtype, device=exe.lay.arg_sharding(i)))


_ZERO_KEY = []


def _zero_key():
    """The key of graphs without random operators (a device constant: no transfer)."""
    if not _ZERO_KEY:
        _ZERO_KEY.append(jnp.zeros(2, jnp.uint32))
    return _ZERO_KEY[0]


def _base_after_apply():
    from .optimizer import Optimizer
    return Optimizer._after_apply


def _plain_kvstore(kv):
    """xnd's own single-process store: the module reduces over devices itself."""
    from .kvstore import KVStore
    return type(kv) is KVStore


def _dist_kvstore(kv):
    """A store of a multi-process job: gradients are summed over the workers before the
    (local, identical on every worker) update."""
    if kv is None:
        return False
    from .kvstore import DistKVStore
    return isinstance(kv, DistKVStore)


def _vals(handles):
    return [h._val() for h in handles]


def _src_val(src, dtype):
    if isinstance(src, NDArray):
        v = src._val()
    else:
        v = jnp.asarray(np.asarray(src))
    return v if v.dtype == dtype else v.astype(dtype)


def _copy_into(src, dst, name):
    """``src.copyto(dst)`` for init_params (a cpu copy the module owns)."""
    v = _src_val(src, dst.dtype)
    if tuple(v.shape) != tuple(dst.shape):
        raise MXNetError("Check failed: assign(&dattr, vec.at(i)): Incompatible attr in node  at "
                         "0-th output: expected %s, got %s (parameter %s)"
                         % (list(dst.shape), list(v.shape), name))
    dst._write(_fresh(v, dst.context.jax_device()))


def _load_input(exe, i, src):
    """Load one batch array into argument i (never donating the caller's buffer)."""
    h = exe._args[i]
    if isinstance(src, NDArray):
        v = src._val()
    else:
        v = jnp.asarray(np.asarray(src))
    if tuple(v.shape) != h.shape:
        raise MXNetError("Check failed: assign(&dattr, vec.at(i)): Incompatible attr in node  at "
                         "0-th output: expected %s, got %s (input %s)"
                         % (list(v.shape), list(h.shape), exe._arg_names[i]))
    copied = False
    if v.dtype != h._data.dtype:
        v = v.astype(h._data.dtype)
        copied = True
    target = exe.lay.arg_sharding(i)
    if v.sharding != target:
        v = jax.device_put(v, target)
        copied = True
    h._data = v
    h._ag = None
    if copied:
        h._shared = False
    else:                       # the caller's buffer: neither side may donate it now
        h._shared = True
        if isinstance(src, NDArray) and src._base is None:
            src._shared = True


def _write_outs(exe, outs):
    if outs:
        _ndarray._RECENT.append(weakref.ref(outs[-1]))   # nd.waitall() waits for it
    hs = exe._outs
    if len(hs) == len(outs) and all(h.shape == tuple(v.shape) and h._data is not None
                                    and h._data.dtype == v.dtype for h, v in zip(hs, outs)):
        for h, v in zip(hs, outs):
            h._write(v)
    else:
        exe._outs = [_wrap(v, exe.lay.devs.ctx) for v in outs]


def _write_step(exe, outs, new_aux, *pairs):
    """Store a training step's results: outputs and aux states into the executor, and each
    ``(handles, values)`` pair (gradients, parameters, optimizer-state leaves) handle by
    handle; ``nd.waitall`` waits for the new parameters."""
    _write_outs(exe, outs)
    for h, v in zip(exe._aux, new_aux):
        _own(h, v)
    for handles, values in pairs:
        for h, v in zip(handles, values):
            _own(h, v)
    params = pairs[1][1] if len(pairs) > 1 else ()
    if params:
        _ndarray._RECENT.append(weakref.ref(params[0]))


def _gather(o, devs):
    """A global array as one array on the first context (MXNet's merge_multi_context)."""
    return _wrap(jax.device_put(o._val(), devs.devices[0]), devs.ctx)


def _split(o, axis, lay, devs):
    v = o._val()
    out = []
    for d, (a, b) in enumerate(lay.slices):
        part = _take(v, (a, b), axis) if axis >= 0 else v
        out.append(_wrap(jax.device_put(part, devs.devices[d]), devs.contexts[d]))
    return out


def _slice_nd(x, a, b, axis):
    if axis < 0 or (a == 0 and b == x.shape[axis]):
        return x
    if axis == 0:
        return x[a:b]
    return nd.slice_axis(x, axis=axis, begin=a, end=b)


from . import bucketing_module, python_module, sequential_module  # noqa: E402
from .bucketing_module import BucketingModule  # noqa: E402
from .python_module import PythonLossModule, PythonModule  # noqa: E402
from .sequential_module import SequentialModule  # noqa: E402

base_module = module = sys.modules[__name__]  # mx.mod.base_module.BaseModule, mx.mod.module.Module
