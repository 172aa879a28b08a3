"""mx.model: checkpoint files and the helpers Module's training loop shares.

``save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)`` writes
``prefix-symbol.json`` and ``prefix-%04d.params`` (a dict container with
``arg:``/``aux:`` keys, arguments first) exactly as MXNet 1.9.1 does, each
file atomically (temp file + rename); ``load_checkpoint`` reads them back, and
files written by MXNet load unchanged.

This file sits below ``mx.module`` (whose loops use its kvstore helpers and
BatchEndParam); the deprecated ``FeedForward`` trains with Module and
BucketingModule, which the module package installs in ``UPPER`` at its import.
"""
import logging
from collections import namedtuple

from ..context import cpu
from . import ndarray as nd
# names MXNet's module holds by importing them (its users import them from here)
from ..context import Context  # noqa: E402,F401
from .initializer import Uniform  # noqa: E402,F401
from .io import DataDesc  # noqa: E402,F401
from .optimizer import get_updater  # noqa: E402,F401
from . import io  # noqa: E402,F401
from . import kvstore as kvs  # noqa: E402,F401
from . import metric  # noqa: E402,F401
from . import optimizer as opt  # noqa: E402,F401
from .. import symbol as sym  # noqa: E402,F401

__all__ = ["BatchEndParam", "save_checkpoint", "load_params", "load_checkpoint", "FeedForward"]

BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Write ``prefix-symbol.json`` (unless ``symbol`` is None) and ``prefix-%04d.params``."""
    if symbol is not None:
        symbol.save("%s-symbol.json" % prefix, remove_amp_cast=remove_amp_cast)
    param_name = "%s-%04d.params" % (prefix, epoch)
    nd.save(param_name, _params_dict(arg_params, aux_params))
    logging.info('Saved checkpoint to "%s"', param_name)


def load_params(prefix, epoch):
    """``(arg_params, aux_params)`` from ``prefix-%04d.params``."""
    fname = "%s-%04d.params" % (prefix, epoch)
    save_dict = nd.load(fname)
    arg_params, aux_params = {}, {}
    if not save_dict:
        logging.warning("Params file '%s' is empty", fname)
        return (arg_params, aux_params)
    if not isinstance(save_dict, dict):
        raise ValueError("%s holds an unnamed list of arrays, not a checkpoint with "
                         "'arg:'/'aux:' names" % fname)
    return _split_params(save_dict)


def _params_dict(arg_params, aux_params):
    """The dict a .params file holds: 'arg:<name>' then 'aux:<name>' keys, values on the cpu."""
    save_dict = {("arg:%s" % k): v.as_in_context(cpu()) for k, v in arg_params.items()}
    save_dict.update({("aux:%s" % k): v.as_in_context(cpu()) for k, v in aux_params.items()})
    return save_dict


def _split_params(save_dict, strict_fname=None):
    """``(arg_params, aux_params)`` from a .params dict's 'arg:'/'aux:' keys; another prefix
    is skipped (load_params) or, given ``strict_fname``, raises Module.load_params' error."""
    arg_params, aux_params = {}, {}
    for k, v in save_dict.items():
        tp, name = k.split(":", 1)
        if tp == "arg":
            arg_params[name] = v
        elif tp == "aux":
            aux_params[name] = v
        elif strict_fname is not None:
            raise ValueError("Invalid param file " + strict_fname)
    return (arg_params, aux_params)


def load_checkpoint(prefix, epoch):
    """``(symbol, arg_params, aux_params)`` from ``prefix-symbol.json`` and
    ``prefix-%04d.params``."""
    from .. import symbol as sym
    symbol = sym.load("%s-symbol.json" % prefix)
    arg_params, aux_params = load_params(prefix, epoch)
    return (symbol, arg_params, aux_params)


# ---- helpers of MXNet's training loop (mx.model._create_kvstore & co, used by Module) ---------
def _create_kvstore(kvstore, num_device, arg_params):
    """``(kv, update_on_kvstore)`` for a kvstore spec, as MXNet decides: no store for one
    device without 'dist'; MXNET_UPDATE_ON_KVSTORE=0 turns updating on the store off."""
    import os

    import numpy as np

    from . import kvstore as kvs
    update_on_kvstore = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        if num_device == 1 and "dist" not in kvstore:
            kv = None
        else:
            kv = kvs.create(kvstore)
            if kvstore == "local":
                max_size = max(np.prod(p.shape) for p in arg_params.values())
                if max_size > 1024 * 1024 * 16:
                    update_on_kvstore = False
    else:
        raise TypeError("kvstore must be KVStore, str or None")
    if kv is None:
        update_on_kvstore = False
    else:
        update_on_kvstore &= kv.is_capable(kvs.KVStoreBase.OPTIMIZER)
    return (kv, update_on_kvstore)


def _initialize_kvstore(kvstore, param_arrays, arg_params, param_names, update_on_kvstore):
    for idx, param_on_devs in enumerate(param_arrays):
        name = param_names[idx]
        if not update_on_kvstore:
            kvstore.init(name, arg_params[name])
        else:
            kvstore.broadcast(name, arg_params[name], out=param_on_devs)


def _update_params_on_kvstore(param_arrays, grad_arrays, kvstore, param_names):
    for index, pair in enumerate(zip(param_arrays, grad_arrays)):
        arg_list, grad_list = pair
        if grad_list[0] is None:
            continue
        name = param_names[index]
        kvstore.pushpull(name, grad_list, out=arg_list, priority=-index)


def _update_params(param_arrays, grad_arrays, updater, num_device, kvstore=None,
                   param_names=None):
    updates = [[] for _ in range(num_device)]
    for i, pair in enumerate(zip(param_arrays, grad_arrays)):
        arg_list, grad_list = pair
        if grad_list[0] is None:
            continue
        index = i
        if kvstore:
            name = param_names[index]
            kvstore.pushpull(name, grad_list, priority=-index)
        for k, (w, g) in enumerate(zip(arg_list, grad_list)):
            updates[k].append((index * num_device + k, g, w))
    for dev_updates in updates:
        if dev_updates:
            i, g, w = zip(*dev_updates)
            updater(list(i), list(g), list(w))


# ---- the legacy estimator: mx.model.FeedForward -------------------------------------------------
def _check_arguments(symbol):
    """MXNet's duplicate-name check on a symbol's arguments and auxiliary states."""
    for kind, names in (("argument", symbol.list_arguments()),
                        ("auxiliary state", symbol.list_auxiliary_states())):
        seen = set()
        for name in names:
            if name in seen:
                raise ValueError('Find duplicated %s name "%s", please make the weight name '
                                 'non-duplicated(using name arguments), %ss are %s'
                                 % (kind, name, kind.split()[-1], str(names)))
            seen.add(name)


# What FeedForward uses from the layers above this file, which install it at their import
# (they build on this file): 'Module' and 'BucketingModule' (xnd.frontend.module) and
# 'LogValidationMetricsCallback' (xnd.frontend.callback).
UPPER = {}


class _LogValidationMetrics:
    """FeedForward.fit's default eval-end callback: callback.LogValidationMetricsCallback."""

    def __call__(self, param):
        UPPER["LogValidationMetricsCallback"]()(param)


def _call_all(callbacks, *args):
    if callbacks is None:
        return
    for cb in (callbacks if isinstance(callbacks, list) else [callbacks]):
        cb(*args)


def _default_uniform():
    from .initializer import Uniform
    return Uniform(0.01)



class LogValidationMetricsCallback:
    """An ``eval_end_callback`` that logs each validation metric at the end of an epoch
    (``Epoch[e] Validation-<name>=<value>``)."""

    def __call__(self, param):
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)

class FeedForward:
    """MXNet 1.9.1's deprecated single-data, single-output estimator, driven by xnd's Module.

    ``fit`` makes MXNet's choices: NumPy/NDArray input becomes an
    ``NDArrayIter(X, y, min(len(X), numpy_batch_size), shuffle=True,
    last_batch_handle='roll_over')``; parameters missing from ``arg_params`` get
    ``initializer``; a named optimizer is created with ``rescale_grad=1/batch_size`` and
    the constructor's extra keywords; ``epoch_size`` caps the batches of an epoch (the
    iterator is reset only when it runs out); ``arg_params``/``aux_params`` are updated in
    place at the end of each epoch that has an ``epoch_end_callback`` and at the last one.
    A ``sym_gen(bucket_key)`` callable in place of the symbol trains through a
    BucketingModule (each batch's ``bucket_key``, parameters shared) and predicts with the
    symbol of the training iterator's ``default_bucket_key``.
    ``predict``/``score`` run on the first context through one bound executor, which is
    kept while the input shapes stay the same: as in MXNet, its weights are the ones it was
    bound with, so a ``predict`` before ``fit`` makes later ones (same shapes) use the
    pre-fit weights."""

    def __init__(self, symbol, ctx=None, num_epoch=None, epoch_size=None, optimizer="sgd",
                 initializer=None, numpy_batch_size=128, arg_params=None, aux_params=None,
                 allow_extra_params=False, begin_epoch=0, **kwargs):
        import warnings

        from ..context import Context
        from ..symbol import Symbol
        warnings.warn("\033[91mmxnet.model.FeedForward has been deprecated. Please use "
                      "mxnet.mod.Module instead.\033[0m", DeprecationWarning, stacklevel=2)
        if isinstance(symbol, Symbol):
            self.symbol, self.sym_gen = symbol, None
        elif callable(symbol):
            self.symbol, self.sym_gen = None, symbol
        else:
            raise TypeError("FeedForward: symbol must be a Symbol or a callable "
                            "sym_gen(bucket_key), got %s" % type(symbol).__name__)
        self.arg_params = arg_params
        self.aux_params = aux_params
        self.allow_extra_params = allow_extra_params
        self.argument_checked = False
        if self.sym_gen is None:
            self._check_arguments()
        if ctx is None:
            ctx = [cpu()]
        elif isinstance(ctx, Context):
            ctx = [ctx]
        self.ctx = ctx
        self.num_epoch = num_epoch
        self.epoch_size = epoch_size
        self.kwargs = kwargs.copy()
        self.optimizer = optimizer
        self.initializer = _default_uniform() if initializer is None else initializer
        self.numpy_batch_size = numpy_batch_size
        self._pred_exec = None
        self.begin_epoch = begin_epoch

    def _check_arguments(self):
        if self.argument_checked:
            return
        self.argument_checked = True
        _check_arguments(self.symbol)
        if self.allow_extra_params:
            if self.arg_params:
                names = set(self.symbol.list_arguments())
                self.arg_params = {k: v for k, v in self.arg_params.items() if k in names}
            if self.aux_params:
                names = set(self.symbol.list_auxiliary_states())
                self.aux_params = {k: v for k, v in self.aux_params.items() if k in names}

    @staticmethod
    def _is_data_arg(name):
        return name.endswith("data") or name.endswith("label")

    def _init_params(self, inputs, overwrite=False):
        """Fresh parameter arrays of the inferred shapes and dtypes: copied from the given
        ``arg_params``/``aux_params`` (unless ``overwrite``), else from ``initializer``."""
        from .io import DataDesc
        inputs = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in inputs]
        shapes = {x.name: x.shape for x in inputs}
        arg_shapes, _, aux_shapes = self.symbol.infer_shape(**shapes)
        if arg_shapes is None:
            raise ValueError("FeedForward: cannot infer parameter shapes from %s" % shapes)
        arg_types, _, aux_types = self.symbol.infer_type(**{x.name: x.dtype for x in inputs})
        arg_names = self.symbol.list_arguments()
        param_names = [k for k in arg_names if k not in shapes]
        aux_names = self.symbol.list_auxiliary_states()
        arg_params = {k: nd.zeros(shape=s, dtype=t)
                      for k, s, t in zip(arg_names, arg_shapes, arg_types) if k in param_names}
        aux_params = {k: nd.zeros(shape=s, dtype=t)
                      for k, s, t in zip(aux_names, aux_shapes, aux_types)}
        for new, old in ((arg_params, self.arg_params), (aux_params, self.aux_params)):
            for k, v in new.items():
                if old and k in old and not overwrite:
                    v[:] = old[k][:]
                else:
                    self.initializer(k, v)
        self.arg_params = arg_params
        self.aux_params = aux_params
        return (arg_names, list(param_names), aux_names)

    def __getstate__(self):
        this = self.__dict__.copy()
        this["_pred_exec"] = None
        return this

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _init_iter(self, X, y, is_train):
        import numpy as np

        from . import io
        from ..ndarray import NDArray
        if isinstance(X, (np.ndarray, NDArray)):
            if y is None:
                if is_train:
                    raise ValueError("y must be specified when X is numpy.ndarray")
                y = np.zeros(X.shape[0])
            if not isinstance(y, (np.ndarray, NDArray)):
                raise TypeError("y must be ndarray when X is numpy.ndarray")
            if X.shape[0] != y.shape[0]:
                raise ValueError("The numbers of data points and labels not equal")
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.flatten()
            if y.ndim != 1:
                raise ValueError("Label must be 1D or 2D (with 2nd dimension being 1)")
            batch = min(X.shape[0], self.numpy_batch_size)
            if is_train:
                return io.NDArrayIter(X, y, batch, shuffle=True, last_batch_handle="roll_over")
            return io.NDArrayIter(X, y, batch, shuffle=False)
        if not isinstance(X, io.DataIter):
            raise TypeError("X must be DataIter, NDArray or numpy.ndarray")
        return X

    def _init_eval_iter(self, eval_data):
        import numpy as np

        from . import io
        if eval_data is None:
            return eval_data
        if isinstance(eval_data, (tuple, list)) and len(eval_data) == 2:
            if eval_data[0] is None:
                raise ValueError("Eval data is NONE")
            if eval_data[1] is None and isinstance(eval_data[0], io.DataIter):
                return eval_data[0]
            data, label = (np.array(v) if isinstance(v, list) else v for v in eval_data)
            return self._init_iter(data, label, is_train=True)
        if not isinstance(eval_data, io.DataIter):
            raise TypeError("Eval data must be DataIter, or NDArray/numpy.ndarray/list pair "
                            "(i.e. tuple/list of length 2)")
        return eval_data

    def _init_predictor(self, input_shapes, type_dict=None):
        shapes = {name: v.shape for name, v in self.arg_params.items()}
        shapes.update(dict(input_shapes))
        if self._pred_exec is not None:
            arg_shapes, _, _ = self.symbol.infer_shape(**shapes)
            if arg_shapes == [x.shape for x in self._pred_exec.arg_arrays]:
                return
        pred_exec = self.symbol.simple_bind(self.ctx[0], grad_req="null", type_dict=type_dict,
                                            **shapes)
        pred_exec.copy_params_from(self.arg_params, self.aux_params)
        self._pred_exec = pred_exec

    def _bind_predictor(self, X):
        if self.arg_params is None:
            raise ValueError("FeedForward: the model has no parameters; fit it or pass "
                             "arg_params")
        type_dict = {k: v.dtype for k, v in self.arg_params.items()}
        for x in X.provide_data:
            type_dict[x[0]] = getattr(x, "dtype", "float32")
        self._init_predictor([(x[0], tuple(x[1])) for x in X.provide_data], type_dict)
        return [self._pred_exec.arg_dict[x[0]] for x in X.provide_data]

    def predict(self, X, num_batch=None, return_data=False, reset=True):
        """Outputs (NumPy; a list when the net has several) over ``X``, pad rows dropped;
        ``return_data``: also the data and labels seen, ``(outputs, data, label)``."""
        import numpy as np
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        data_arrays = self._bind_predictor(X)
        batch_size = X.batch_size
        outs = None      # sized at the first forward: xnd's executor makes outputs then
        datas = [[] for _ in X.provide_data]
        labels = [[] for _ in X.provide_label]
        for i, batch in enumerate(X):
            for src, dst in zip(batch.data, data_arrays):
                src.copyto(dst)
            self._pred_exec.forward(is_train=False)
            real = batch_size - (batch.pad or 0)
            if outs is None:
                outs = [[] for _ in self._pred_exec.outputs]
            for lst, o in zip(outs, self._pred_exec.outputs):
                lst.append(o[0:real].asnumpy())
            if return_data:
                for lst, x in zip(datas, batch.data):
                    lst.append(x[0:real].asnumpy())
                for lst, x in zip(labels, batch.label):
                    lst.append(x[0:real].asnumpy())
            if num_batch is not None and i + 1 == num_batch:
                break
        if outs is None:
            raise ValueError("FeedForward.predict: the data iterator gave no batch")
        outputs = [np.concatenate(x) for x in outs]
        outputs = outputs[0] if len(outputs) == 1 else outputs
        if not return_data:
            return outputs
        data = [np.concatenate(x) for x in datas]
        label = [np.concatenate(x) for x in labels]
        return (outputs, data[0] if len(data) == 1 else data,
                label[0] if len(label) == 1 else label)

    def score(self, X, eval_metric="acc", num_batch=None, batch_end_callback=None, reset=True):
        """The value of ``eval_metric`` over ``X`` (its first metric's value)."""
        from . import metric
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        data_arrays = self._bind_predictor(X)
        for i, batch in enumerate(X):
            if num_batch is not None and i == num_batch:
                break
            for src, dst in zip(batch.data, data_arrays):
                src.copyto(dst)
            self._pred_exec.forward(is_train=False)
            eval_metric.update(batch.label, self._pred_exec.outputs)
            _call_all(batch_end_callback,
                      BatchEndParam(epoch=0, nbatch=i, eval_metric=eval_metric, locals=locals()))
        return eval_metric.get()[1]

    def _make_optimizer(self, data, kv, update_on_kvstore, param_names):
        from . import optimizer as opt
        idx2name = {}
        if update_on_kvstore:
            idx2name.update(enumerate(param_names))
        else:
            for i, n in enumerate(param_names):
                for k in range(len(self.ctx)):
                    idx2name[i * len(self.ctx) + k] = n
        self.kwargs["param_idx2name"] = idx2name
        if isinstance(self.optimizer, str):
            batch_size = data.batch_size
            if kv and "dist" in kv.type and "_async" not in kv.type:
                batch_size *= kv.num_workers
            return opt.create(self.optimizer, rescale_grad=(1.0 / batch_size), **self.kwargs)
        if isinstance(self.optimizer, opt.Optimizer):
            if not self.optimizer.idx2name:
                self.optimizer.idx2name = idx2name.copy()
            return self.optimizer
        raise TypeError("FeedForward: optimizer must be a name or an Optimizer, got %s"
                        % type(self.optimizer).__name__)

    def fit(self, X, y=None, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", logger=None, work_load_list=None,
            monitor=None, eval_end_callback=_LogValidationMetrics(),
            eval_batch_end_callback=None):
        """Train for epochs ``begin_epoch .. num_epoch - 1`` (MXNet's loop and log lines)."""
        import time

        from . import metric
        data = self._init_iter(X, y, is_train=True)
        eval_data = self._init_eval_iter(eval_data)
        if self.sym_gen:
            self.symbol = self.sym_gen(data.default_bucket_key)
            self._check_arguments()
        if self.num_epoch is None:
            raise ValueError("FeedForward.fit: num_epoch is None; pass num_epoch to the "
                             "constructor")
        self.kwargs["sym"] = self.symbol
        arg_names, param_names, aux_names = self._init_params(data.provide_data +
                                                              data.provide_label)
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        kv, update_on_kvstore = _create_kvstore(kvstore, len(self.ctx), self.arg_params)
        optimizer = self._make_optimizer(data, kv, update_on_kvstore, param_names)
        logger = logging if logger is None else logger
        inputs = set(arg_names) - set(param_names)
        data_names = [x[0] for x in data.provide_data if x[0] in inputs]
        label_names = [x[0] for x in data.provide_label if x[0] in inputs]
        if self.sym_gen:     # MXNet binds sym_gen(batch.bucket_key) per batch, params shared
            gen = self.sym_gen
            mod = UPPER["BucketingModule"](lambda key: (gen(key), data_names, label_names),
                                  default_bucket_key=data.default_bucket_key, logger=logger,
                                  context=self.ctx, work_load_list=work_load_list)
        else:
            mod = UPPER["Module"](self.symbol, context=self.ctx, logger=logger,
                         work_load_list=work_load_list, data_names=data_names,
                         label_names=label_names)
        mod.bind(data.provide_data, data.provide_label, for_training=True)
        if monitor is not None:
            mod.install_monitor(monitor)
        mod.set_params(self.arg_params, self.aux_params)
        mod.init_optimizer(kvstore=kv if kv is not None else None, optimizer=optimizer)
        data.reset()
        for epoch in range(self.begin_epoch, self.num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            while True:
                do_reset = True
                for batch in data:
                    if monitor is not None:
                        monitor.tic()
                    mod.forward_backward(batch)
                    mod.update()
                    if monitor is not None:
                        monitor.toc_print()
                    mod.update_metric(eval_metric, batch.label)
                    nbatch += 1
                    _call_all(batch_end_callback, BatchEndParam(
                        epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals()))
                    if self.epoch_size is not None and nbatch >= self.epoch_size:
                        do_reset = False
                        break
                if do_reset:
                    logger.info("Epoch[%d] Resetting Data Iterator", epoch)
                    data.reset()
                if self.epoch_size is None or nbatch >= self.epoch_size:
                    break
            logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            if epoch_end_callback or epoch + 1 == self.num_epoch:
                args, auxs = mod.get_params()
                for dst, src in ((self.arg_params, args), (self.aux_params, auxs)):
                    for k, v in src.items():
                        if k in dst:
                            v.copyto(dst[k])
            _call_all(epoch_end_callback, epoch, self.symbol, self.arg_params, self.aux_params)
            if eval_data:
                eval_metric.reset()
                eval_data.reset()
                total = 0
                for i, batch in enumerate(eval_data):
                    mod.forward(batch, is_train=False)
                    mod.update_metric(eval_metric, batch.label)
                    _call_all(eval_batch_end_callback, BatchEndParam(
                        epoch=epoch, nbatch=i, eval_metric=eval_metric, locals=locals()))
                    total += 1
                _call_all(eval_end_callback, BatchEndParam(
                    epoch=epoch, nbatch=total, eval_metric=eval_metric, locals=locals()))
                eval_data.reset()

    def save(self, prefix, epoch=None, remove_amp_cast=True):
        """``prefix-symbol.json`` and ``prefix-%04d.params`` (``epoch`` defaults to
        ``num_epoch``)."""
        if epoch is None:
            epoch = self.num_epoch
        if epoch is None:
            raise ValueError("FeedForward.save: no epoch given and num_epoch is None")
        save_checkpoint(prefix, epoch, self.symbol, self.arg_params, self.aux_params,
                        remove_amp_cast=remove_amp_cast)

    @staticmethod
    def load(prefix, epoch, ctx=None, **kwargs):
        """A FeedForward from a checkpoint, with ``begin_epoch=epoch``."""
        symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
        return FeedForward(symbol, ctx=ctx, arg_params=arg_params, aux_params=aux_params,
                           begin_epoch=epoch, **kwargs)

    @staticmethod
    def create(symbol, X, y=None, ctx=None, num_epoch=None, epoch_size=None, optimizer="sgd",
               initializer=None, eval_data=None, eval_metric="acc",
               epoch_end_callback=None, batch_end_callback=None, kvstore="local", logger=None,
               work_load_list=None, eval_end_callback=_LogValidationMetrics(),
               eval_batch_end_callback=None, **kwargs):
        """``FeedForward(...)`` then ``fit(X, y, ...)``; returns the trained model."""
        model = FeedForward(symbol, ctx=ctx, num_epoch=num_epoch, epoch_size=epoch_size,
                            optimizer=optimizer, initializer=initializer, **kwargs)
        model.fit(X, y, eval_data=eval_data, eval_metric=eval_metric,
                  epoch_end_callback=epoch_end_callback, batch_end_callback=batch_end_callback,
                  kvstore=kvstore, logger=logger, work_load_list=work_load_list,
                  eval_end_callback=eval_end_callback,
                  eval_batch_end_callback=eval_batch_end_callback)
        return model
