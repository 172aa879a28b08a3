"""mx.module.base_module: BaseModule, the training and evaluation loops every module type
shares (MXNet 1.9.1's python/mxnet/module/base_module.py), and the checks of names and
input descriptions the module types share.

``fit`` is MXNet's batch loop with its log lines; a module type may hand whole runs of an
epoch to a compiled loop (``_compiled_epoch``: Module's ``_fit_scan``) and may add work at
an epoch's start and end (``_fit_epoch_begin``/``_fit_epoch_end``: SVRGModule's
full-gradient pass).
"""
import logging
import operator
import time
import warnings

import numpy as np

from ...base import MXNetError
from ...ndarray import NDArray
from .. import initializer as _init
from .. import metric as _metric
from .. import ndarray as nd
from ..io import DataBatch, DataDesc, DataIter
from ..model import BatchEndParam, _params_dict, _split_params
# names MXNet's module holds by importing them (its users import them from here)
from ...context import cpu  # noqa: E402,F401
from ..initializer import Uniform  # noqa: E402,F401
from .. import metric  # noqa: E402,F401
from .. import ndarray  # noqa: E402,F401

__all__ = ["BaseModule"]

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


def _input_names(symbol, data_names, label_names, state_names, fixed_param_names):
    """The four name lists (None: empty), checked against ``symbol``'s arguments as MXNet's
    modules check them: data, state and fixed parameter names must exist, labels may not."""
    lists = [list(n) if n is not None else []
             for n in (data_names, label_names, state_names, fixed_param_names)]
    for names, kind, throw in zip(lists, ("data", "label", "state", "fixed_param"),
                                  (True, False, True, True)):
        _check_input_names(symbol, names, kind, throw)
    return lists


def _check_names_match(data_names, data_shapes, name, throw):
    actual = [x[0] for x in data_shapes]
    if sorted(data_names) != sorted(actual):
        msg = "Data provided by %s_shapes don't match names specified by %s_names (%s vs. %s)" % (
            name, name, str(data_shapes), str(data_names))
        if throw:
            raise ValueError(msg)
        warnings.warn(msg)


def _desc(x):
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


def _fields(**paths):
    """A class decorator adding read-only properties ``name=_field(path)``."""
    def add(cls):
        for name, path in paths.items():
            setattr(cls, name, _field(path))
        return cls
    return add


def _field(attr, bound=False):
    """A read-only property giving ``self.<attr>`` (a dotted path; ``bound``: only once the
    module is bound, else MXNet's AssertionError)."""
    read = operator.attrgetter(attr)

    def get(self):
        if bound:
            _assert(self.binded)
        return read(self)
    return property(get)


def _call_back(callbacks, epoch, nbatch, eval_metric, local_vars):
    """Call each batch-end (or score-end) callback with MXNet's BatchEndParam."""
    params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                           locals=local_vars)
    for callback in _as_list(callbacks):
        callback(params)


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


def _abstract_api(properties, methods):
    """A class decorator: these properties and methods raise until a subclass defines them."""
    def add(cls):
        for name in properties:
            setattr(cls, name, _abstract_property(name))
        for name in methods:
            setattr(cls, name, _abstract_method(name))
        return cls
    return add


# what every module type defines (abstract in BaseModule, as in MXNet)
@_abstract_api(
    properties=("data_names", "output_names", "data_shapes", "label_shapes", "output_shapes"),
    methods=("get_params", "init_params", "install_monitor", "forward", "backward",
             "get_outputs", "get_input_grads", "update", "update_metric", "bind",
             "init_optimizer"))
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
                _call_back(batch_end_callback, epoch, nbatch, eval_metric, locals())
            actual_num_batch += 1
        if score_end_callback:
            _call_back(score_end_callback, epoch, actual_num_batch, eval_metric, locals())
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
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        if isinstance(eval_data, (NDArray, np.ndarray)):
            if isinstance(eval_data, np.ndarray):
                eval_data = nd.array(eval_data)
            self.forward(DataBatch([eval_data]))
            return self.get_outputs()[0]
        if not isinstance(eval_data, DataIter):
            raise ValueError("eval_data must be of type NDArray or DataIter")
        output_list = [[out.copy() for out in outputs] for outputs, _, _ in
                       self.iter_predict(eval_data, num_batch, reset, sparse_row_id_fn)]
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
            self._fit_epoch_begin(epoch, train_data)
            nbatch = 0
            data_iter = iter(train_data)
            end_of_batch = False
            run = self._compiled_epoch(train_data, eval_metric, batch_end_callback) \
                if monitor is None and sparse_row_id_fn is None else None
            if run is not None:
                fit_locals = locals()

                def batch_end(n):
                    _call_back(batch_end_callback, epoch, n, eval_metric, fit_locals)
                nbatch = run.run(batch_end if batch_end_callback is not None else None)
            try:
                next_data_batch = next(data_iter)
            except StopIteration:
                if not nbatch:
                    raise
                end_of_batch = True     # the compiled loop did the whole epoch
                eval_name_vals = self._fit_train_values(eval_metric)
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
                    eval_name_vals = self._fit_train_values(eval_metric)
                if batch_end_callback is not None:
                    _call_back(batch_end_callback, epoch, nbatch, eval_metric, locals())
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
            self._fit_epoch_end(train_data)

    # ---- what a module type may change in fit ----------------------------------------------
    def _compiled_epoch(self, train_data, eval_metric, batch_end_callback):
        """A runner of whole runs of this epoch's batches as one compiled loop (``run(batch_end)
        -> batches done``), or None: the batch loop does the epoch."""
        return None

    def _fit_epoch_begin(self, epoch, train_data):
        """Work before an epoch's first batch (MXNet's fit: none)."""

    def _fit_epoch_end(self, train_data):
        """After an epoch: MXNet's fit resets the training iterator."""
        train_data.reset()

    @staticmethod
    def _fit_train_values(eval_metric):
        """The 'Train-' values logged at an epoch's end: MXNet's fit logs the global ones."""
        return eval_metric.get_global_name_value()

    def _skip_init_optimizer(self, force_init, note="optimizer already initialized, ignoring."):
        """init_optimizer's preconditions; True (after MXNet's warning) when an optimizer is
        installed already and ``force_init`` is off."""
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        if self.optimizer_initialized and not force_init:
            self.logger.warning(note)
            return True
        return False

    @property
    def symbol(self):
        return self._symbol

    # ---- parameters ------------------------------------------------------------------------
    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init,
                         allow_extra=allow_extra)

    def save_params(self, fname):
        """Save ``get_params()`` as MXNet's .params file ('arg:'/'aux:' keys)."""
        nd.save(fname, _params_dict(*self.get_params()))

    def load_params(self, fname):
        self.set_params(*_split_params(nd.load(fname), fname))

    def get_states(self, merge_multi_context=True):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        _assert(not merge_multi_context)
        return []

    def set_states(self, states=None, value=None):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        _assert(not states and not value)

    def prepare(self, data_batch, sparse_row_id_fn=None):
        if sparse_row_id_fn is not None:
            warnings.warn(UserWarning("sparse_row_id_fn is not invoked for BaseModule."))
