"""Event handlers for Estimator: the six event base classes and MXNet 1.9.1's handlers.

A handler subclasses the base class of each event it handles; Estimator calls
``handler.<event>(estimator, **kwargs)`` (batch events get batch, pred, label, loss)
in ascending ``priority``. A true return of batch_end/epoch_end stops training.
"""
import os
import time
import warnings

import numpy as np

from ....metric import CompositeEvalMetric, EvalMetric
from ....metric import Loss as metric_loss
from .utils import _check_list, _check_metrics

__all__ = ['TrainBegin', 'TrainEnd', 'EpochBegin', 'EpochEnd', 'BatchBegin', 'BatchEnd',
           'StoppingHandler', 'MetricHandler', 'ValidationHandler',
           'LoggingHandler', 'CheckpointHandler', 'EarlyStoppingHandler', 'GradientUpdateHandler']


class EventHandler(object):
    pass


def _check_event_handlers(handlers):
    return _check_list(handlers, EventHandler,
                       "handlers must be an EventHandler or a list of EventHandler, got: ")


def _event(name, method, result):
    """The base class of one event: its handler method does nothing and returns `result`
    (False for the events whose true result stops training)."""
    def handle(self, estimator, *args, **kwargs):
        return result
    handle.__name__, handle.__qualname__ = method, name + "." + method
    return type(name, (EventHandler,), {method: handle, "__module__": __name__})


TrainBegin = _event("TrainBegin", "train_begin", None)
TrainEnd = _event("TrainEnd", "train_end", None)
EpochBegin = _event("EpochBegin", "epoch_begin", None)
EpochEnd = _event("EpochEnd", "epoch_end", False)
BatchBegin = _event("BatchBegin", "batch_begin", None)
BatchEnd = _event("BatchEnd", "batch_end", False)


def _auto_compare(monitor, mode, who):
    """np.less or np.greater for a monitored metric.

    MXNet 1.9.1's 'auto' mode means to pick greater for accuracy/f1 and less
    otherwise, but its test is always true, so 'auto' is always greater: kept, since
    which checkpoint is "best" is what users see.
    """
    if mode not in ['auto', 'min', 'max']:
        warnings.warn('%s mode %s is unknown, '
                      'fallback to auto mode. CheckpointHandler will use'
                      'max mode for f1 and accuracy metric comparison and '
                      'use min mode other wise' % (who, mode), RuntimeWarning)
        mode = 'auto'
    if mode == 'min':
        return np.less
    if mode == 'max':
        return np.greater
    warnings.warn("`greater` operator will be used to determine if {} has improved. "
                  "Please specify `mode='min'` to use the `less` operator. "
                  "Specify `mode='max' to disable this warning.`".format(monitor.get()[0]))
    return np.greater


class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Stops training after ``max_epoch`` epochs or ``max_batch`` batches (taken from
    the estimator at train begin)."""

    def __init__(self, max_epoch=None, max_batch=None):
        self.max_epoch = max_epoch
        self.max_batch = max_batch
        self.current_batch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs):
        self.max_epoch = estimator.max_epoch
        self.max_batch = estimator.max_batch
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.current_batch == self.max_batch:
            self.stop_training = True
        return self.stop_training

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.current_epoch == self.max_epoch:
            self.stop_training = True
        return self.stop_training


class MetricHandler(EpochBegin, BatchEnd):
    """Resets ``metrics`` at epoch begin and updates them at batch end (a Loss metric
    with the batch's loss, any other with label and prediction)."""

    def __init__(self, metrics, priority=-1000):
        self.metrics = _check_metrics(metrics)
        self.priority = priority  # before the handlers that read the metrics

    def epoch_begin(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            metric.reset()

    def batch_end(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            if isinstance(metric, metric_loss):
                metric.update(0, kwargs['loss'])
            else:
                metric.update(kwargs['label'], kwargs['pred'])


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Calls ``eval_fn(val_data=, batch_axis=, event_handlers=)`` every
    ``epoch_period`` epochs and (when set) every ``batch_period`` batches."""

    def __init__(self, val_data, eval_fn, epoch_period=1, batch_period=None, priority=-1000,
                 event_handlers=None):
        self.val_data = val_data
        self.eval_fn = eval_fn
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.priority = priority  # validation metrics ready before logging reads them
        self.event_handlers = event_handlers

    def train_begin(self, estimator, *args, **kwargs):
        self.current_batch = 0
        self.current_epoch = 0

    def _evaluate(self, estimator):
        self.eval_fn(val_data=self.val_data, batch_axis=estimator.batch_axis,
                     event_handlers=self.event_handlers)

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.batch_period and self.current_batch % self.batch_period == 0:
            self._evaluate(estimator)

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.epoch_period and self.current_epoch % self.epoch_period == 0:
            self._evaluate(estimator)


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """Logs the optimizer and learning rate, then ``metrics`` every epoch
    (``log_interval='epoch'``) or also every k batches (``log_interval=k``) to
    ``estimator.logger``. Runs last (priority inf) so that it sees updated metrics."""

    def __init__(self, log_interval='epoch', metrics=None, priority=np.inf):
        super(LoggingHandler, self).__init__()
        if not isinstance(log_interval, int) and log_interval != 'epoch':
            raise ValueError("log_interval must be either an integer or string 'epoch'")
        self.metrics = _check_metrics(metrics)
        self.batch_index = 0
        self.current_epoch = 0
        self.processed_samples = 0
        self.priority = priority
        self.log_interval = log_interval
        self.log_interval_time = 0

    def _with_values(self, msg):
        for metric in self.metrics:
            name, value = metric.get()
            msg += '%s: %.4f, ' % (name, value)
        return msg.rstrip(', ')

    def train_begin(self, estimator, *args, **kwargs):
        self.train_start = time.time()
        trainer = estimator.trainer
        estimator.logger.info("Training begin: using optimizer %s "
                              "with current learning rate %.4f ",
                              trainer.optimizer.__class__.__name__, trainer.learning_rate)
        if estimator.max_epoch:
            estimator.logger.info("Train for %d epochs.", estimator.max_epoch)
        else:
            estimator.logger.info("Train for %d batches.", estimator.max_batch)
        self.current_epoch = 0
        self.batch_index = 0
        self.processed_samples = 0
        self.log_interval_time = 0

    def train_end(self, estimator, *args, **kwargs):
        train_time = time.time() - self.train_start
        msg = 'Train finished using total %ds with %d epochs. ' % (train_time, self.current_epoch)
        estimator.logger.info(self._with_values(msg))

    def batch_begin(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.batch_start = time.time()

    def batch_end(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.log_interval_time += time.time() - self.batch_start
            self.processed_samples += kwargs['batch'][0].shape[0]
            msg = '[Epoch %d][Batch %d][Samples %s] ' % (
                self.current_epoch, self.batch_index, self.processed_samples)
            if self.batch_index % self.log_interval == 0:
                msg += 'time/interval: %.3fs ' % self.log_interval_time
                self.log_interval_time = 0
                estimator.logger.info(self._with_values(msg))
        self.batch_index += 1

    def epoch_begin(self, estimator, *args, **kwargs):
        self.epoch_start = time.time()
        # Estimator prefixes training metric names with 'training '
        if any('training' in metric.name for metric in self.metrics):
            estimator.logger.info("[Epoch %d] Begin, current learning rate: %.4f",
                                  self.current_epoch, estimator.trainer.learning_rate)
        else:
            estimator.logger.info("Validation Begin")

    def epoch_end(self, estimator, *args, **kwargs):
        epoch_time = time.time() - self.epoch_start
        msg = '[Epoch %d] Finished in %.3fs, ' % (self.current_epoch, epoch_time)
        estimator.logger.info(self._with_values(msg))
        self.current_epoch += 1
        self.batch_index = 0


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Stops training when ``monitor`` (an EvalMetric, not composite) has not improved
    by ``min_delta`` for ``patience`` epochs; ``baseline`` is the first value to beat."""

    def __init__(self, monitor, min_delta=0, patience=0, mode='auto', baseline=None):
        super(EarlyStoppingHandler, self).__init__()
        if not isinstance(monitor, EvalMetric):
            raise ValueError(
                "Please provide one of the metric objects from estimator.train_metrics and "
                "estimator.val_metrics as monitor.")
        if isinstance(monitor, CompositeEvalMetric):
            raise ValueError("CompositeEvalMetric is not supported for EarlyStoppingHandler, "
                             "please specify a simple metric instead.")
        self.monitor = monitor
        self.baseline = baseline
        self.patience = patience
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        self.monitor_op = _auto_compare(monitor, mode, 'EarlyStopping')
        # the delta is subtracted from the value: negative when smaller is better
        self.min_delta = min_delta if self.monitor_op is np.greater else -min_delta

    def train_begin(self, estimator, *args, **kwargs):
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = np.inf if self.monitor_op is np.less else -np.inf

    def epoch_end(self, estimator, *args, **kwargs):
        monitor_name, monitor_value = self.monitor.get()
        if np.isnan(monitor_value):
            warnings.warn(RuntimeWarning(
                '%s is not updated, make sure you pass one of the metric objects from'
                'estimator.train_metrics and estimator.val_metrics as monitor.', monitor_name))
        elif self.monitor_op(monitor_value - self.min_delta, self.best):
            self.best = monitor_value
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = self.current_epoch
                self.stop_training = True
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator, *args, **kwargs):
        if self.stopped_epoch > 0:
            estimator.logger.info('[Epoch %d] EarlyStoppingHanlder: '
                                  'early stopping due to %s not improving',
                                  self.stopped_epoch, self.monitor.get()[0])


class GradientUpdateHandler(BatchEnd):
    """Calls ``estimator.trainer.step`` with the batch size (the sum of the first
    dimensions of the losses) at batch end, before every other handler."""

    def __init__(self, priority=-2000):
        self.priority = priority

    def batch_end(self, estimator, *args, **kwargs):
        loss = kwargs['loss']
        losses = loss if isinstance(loss, list) else [loss]
        estimator.trainer.step(sum(value.shape[0] for value in losses))



class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Saves parameters (``.params``) and trainer states (``.states``) to ``model_dir``
    every ``epoch_period`` epochs / ``batch_period`` batches as
    ``<model_prefix>-epoch<E>batch<B>``, the symbol after the first batch when the net
    is hybridized, and with ``save_best`` also ``<model_prefix>-best`` whenever
    ``monitor`` improves. Only the last ``max_checkpoints`` checkpoints are kept.
    ``resume_from_checkpoint`` loads the latest checkpoint at train begin and trains
    the remaining epochs or batches."""

    def __init__(self, model_dir, model_prefix='model', monitor=None, verbose=0,
                 save_best=False, mode='auto', epoch_period=1, batch_period=None,
                 max_checkpoints=5, resume_from_checkpoint=False):
        self.monitor = monitor
        self.verbose = verbose
        if not os.path.exists(model_dir):
            os.makedirs(model_dir)
        self.model_dir = model_dir
        self.model_prefix = model_prefix
        self.save_best = save_best
        if self.save_best and not isinstance(self.monitor, EvalMetric):
            raise ValueError("To save best model only, please provide one of the metric objects "
                             "from estimator.train_metrics and estimator.val_metrics as monitor.")
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.max_checkpoints = max_checkpoints
        self.resume_from_checkpoint = resume_from_checkpoint
        self.saved_checkpoints = []
        if self.save_best:
            self.monitor_op = _auto_compare(monitor, mode, 'ModelCheckpoint')
            self.best = np.inf if self.monitor_op is np.less else -np.inf

    def train_begin(self, estimator, *args, **kwargs):
        self.current_epoch = 0
        self.current_batch = 0
        if self.save_best:
            self.best = np.inf if self.monitor_op is np.less else -np.inf
        if self.resume_from_checkpoint:
            error_msg = "To use resume from checkpoint, you must only specify " \
                        "the same type of period you used for training." \
                        "For example, if you are training based on number of epochs," \
                        "you must save only based on epochs, and set batch_period to None."
            if estimator.max_batch:
                assert self.batch_period, error_msg
                assert not self.epoch_period, error_msg
            if estimator.max_epoch:
                assert self.epoch_period, error_msg
                assert not self.batch_period, error_msg
            self._resume_from_checkpoint(estimator)

    def batch_end(self, estimator, *args, **kwargs):
        if self.current_batch == 0:
            self._save_symbol(estimator)  # the graph exists once a batch has run
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator)
        self.current_batch += 1

    def epoch_end(self, estimator, *args, **kwargs):
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator)
        self.current_epoch += 1

    def _save_checkpoint(self, estimator):
        if self.resume_from_checkpoint:
            # numbers continue from the checkpoint resumed; at epoch end the batch
            # counter has already moved past the last batch
            epoch_no = self.current_epoch + self.trained_epoch + 1
            batch_no = self.current_batch + self.trained_batch + (0 if estimator.max_epoch else 1)
        else:
            epoch_no, batch_no = self.current_epoch, self.current_batch
        prefix = "%s-epoch%dbatch%d" % (self.model_prefix, epoch_no, batch_no)
        self._save_params_and_trainer(estimator, prefix)
        if self.verbose > 0:
            estimator.logger.info('[Epoch %d] CheckpointHandler: trained total %d batches, '
                                  'saving model at %s with prefix: %s',
                                  self.current_epoch, self.current_batch + 1, self.model_dir,
                                  prefix)
        if self.save_best:
            self._save_best(estimator)

    def _save_best(self, estimator):
        monitor_name, monitor_value = self.monitor.get()
        if np.isnan(monitor_value):
            warnings.warn(RuntimeWarning(
                'Skipping save best because %s is not updated, make sure you pass one of the '
                'metric objects estimator.train_metrics and estimator.val_metrics as monitor',
                monitor_name))
        elif self.monitor_op(monitor_value, self.best):
            prefix = self.model_prefix + '-best'
            self._save_params_and_trainer(estimator, prefix)
            self.best = monitor_value
            if self.verbose > 0:
                # MXNet 1.9.1 logs the new best as both values (best is already updated)
                estimator.logger.info('[Epoch %d] CheckpointHandler: '
                                      '%s improved from %0.5f to %0.5f, '
                                      'updating best model at %s with prefix: %s',
                                      self.current_epoch, monitor_name, self.best,
                                      monitor_value, self.model_dir, prefix)
        elif self.verbose > 0:
            estimator.logger.info('[Epoch %d] CheckpointHandler: '
                                  '%s did not improve from %0.5f, '
                                  'skipping updating best model',
                                  self.current_batch, monitor_name, self.best)

    def _save_symbol(self, estimator):
        symbol_file = os.path.join(self.model_dir, self.model_prefix + '-symbol.json')
        cached = getattr(estimator.net, '_cached_graph', None)
        if cached:
            cached[1].save(symbol_file)
        else:
            estimator.logger.info(
                "Model architecture(symbol file) is not saved, please use HybridBlock "
                "to construct your model, and call net.hybridize() before passing to "
                "Estimator in order to save model architecture as %s.", symbol_file)

    def _save_params_and_trainer(self, estimator, file_prefix):
        estimator.net.save_parameters(os.path.join(self.model_dir, file_prefix + '.params'))
        estimator.trainer.save_states(os.path.join(self.model_dir, file_prefix + '.states'))
        if 'best' not in file_prefix:  # the best checkpoint is not counted
            self.saved_checkpoints.append(file_prefix)
        if len(self.saved_checkpoints) > self.max_checkpoints:
            oldest = self.saved_checkpoints.pop(0)
            for fname in os.listdir(self.model_dir):
                if fname.startswith(oldest):
                    os.remove(os.path.join(self.model_dir, fname))

    def _resume_from_checkpoint(self, estimator):
        prefix = self.model_prefix + '-epoch'
        self.trained_epoch = self._find_max_iteration(
            dir=self.model_dir, prefix=prefix, start='epoch', end='batch',
            saved_checkpoints=self.saved_checkpoints)
        self.trained_batch = self._find_max_iteration(
            dir=self.model_dir, prefix=prefix + str(self.trained_epoch), start='batch',
            end='.params')
        if self.trained_epoch == -1:
            msg = "CheckpointHandler: No checkpoint found, training from scratch for "
            if estimator.max_batch:
                msg += "%d batches" % estimator.max_batch
            else:
                msg += "%d epochs" % estimator.max_epoch
            estimator.logger.info(msg)
            return
        msg = "CheckpointHandler: Checkpoint resumed from epoch %d batch %d, " \
              "continue to train for " % (self.trained_epoch, self.trained_batch)
        # the epoch and batch limits left; MXNet's two messages differ (the number shown,
        # a missing space), kept
        for unit, units, trained, shown, please in (
                ("epoch", "epochs", self.trained_epoch, estimator.max_epoch, "please specify "),
                ("batch", "batches", self.trained_batch, self.trained_batch, "please specify")):
            limit = getattr(estimator, "max_" + unit)
            if not limit:
                continue
            if trained >= limit - 1:
                raise ValueError("Found checkpoint with maximum number of %s %d reached, "
                                 "%sresume_from_checkpoint=False (default value) "
                                 "if you wan to train from scratch." % (unit, shown, please))
            setattr(estimator, "max_" + unit, limit - trained - 1)
            msg += "%d %s " % (limit - trained - 1, units)
        stem = os.path.join(self.model_dir, "%s-epoch%dbatch%d" % (
            self.model_prefix, self.trained_epoch, self.trained_batch))
        for path in (stem + '.params', stem + '.states'):
            assert os.path.exists(path), "Failed to load checkpoint, %s does not exist" % path
        estimator.net.load_parameters(stem + '.params', ctx=estimator.context)
        estimator.trainer.load_states(stem + '.states')
        estimator.logger.warning(msg)

    def _find_max_iteration(self, dir, prefix, start, end, saved_checkpoints=None):
        """Largest number between ``start`` and ``end`` in the names of the checkpoint
        files that begin with ``prefix`` (-1 if none); lists them in saved_checkpoints."""
        error_msg = "Error parsing checkpoint file, please check your " \
                    "checkpoints have the format: " \
                    "{model_name}-epoch{epoch_number}batch{batch_number}.params, " \
                    "there should also be a .states file for each .params file "
        max_iter = -1
        for fname in os.listdir(dir):
            if not (fname.startswith(prefix) and '.params' in fname):
                continue
            # MXNet 1.9.1 fills the list only when it already has entries (its test
            # is the list's truth): kept, it decides which files max_checkpoints removes
            if saved_checkpoints:
                saved_checkpoints.append(fname[:fname.find('.params')])
            try:
                max_iter = max(max_iter, int(fname[fname.find(start) + len(start):
                                                   fname.find(end)]))
            except ValueError:
                raise ValueError(error_msg)
        return max_iter
