"""mx.callback: the epoch-end and batch-end callbacks of Module.fit / FeedForward.

Log lines are MXNet 1.9.1's, through the root ``logging`` logger, e.g.
``Epoch[0] Batch [0-50]\tSpeed: 40000.00 samples/sec\taccuracy=0.912500``.
"""
import logging
import math
import time

from . import model as _model
from .model import save_checkpoint

__all__ = ["module_checkpoint", "do_checkpoint", "log_train_metric", "Speedometer", "ProgressBar",
           "LogValidationMetricsCallback"]


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    """Epoch-end callback: ``mod.save_checkpoint(prefix, epoch + 1, ...)`` every ``period``
    epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
    return _callback


def do_checkpoint(prefix, period=1):
    """Epoch-end callback: ``mx.model.save_checkpoint(prefix, epoch + 1, sym, arg, aux)``
    every ``period`` epochs (files ``prefix-symbol.json``, ``prefix-%04d.params``)."""
    period = int(max(1, period))

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0:
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def log_train_metric(period, auto_reset=False):
    """Batch-end callback logging ``Iter[e] Batch[b] Train-<name>=<value>`` every ``period``
    batches (``auto_reset`` resets the metric's local statistics afterwards)."""
    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch, name,
                             value)
            if auto_reset:
                param.eval_metric.reset_local()
    return _callback


class Speedometer:
    """Batch-end callback logging the training speed (and metric) every ``frequent``
    batches; ``auto_reset`` resets the metric's local statistics after each log line."""

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size = batch_size
        self.frequent = frequent
        self.init = False
        self.tic = 0
        self.last_count = 0
        self.auto_reset = auto_reset

    def __call__(self, param):
        count = param.nbatch
        if self.last_count > count:     # a new epoch started
            self.init = False
        self.last_count = count
        if not self.init:
            self.init = True
            self.tic = time.time()
            return
        if count % self.frequent != 0:
            return
        try:
            speed = self.frequent * self.batch_size / (time.time() - self.tic)
        except ZeroDivisionError:
            speed = float("inf")
        metric = param.eval_metric
        if metric is not None:
            name_value = metric.get_name_value()
            fields = "\t%s=%f" * len(name_value)
            values = sum(name_value, ())
            if self.auto_reset:
                metric.reset_local()
                logging.info("Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec" + fields,
                             param.epoch, count - self.frequent, count, speed, *values)
            else:
                logging.info("Epoch[%d] Batch [0-%d]\tSpeed: %.2f samples/sec" + fields,
                             param.epoch, count, speed, *values)
        else:
            logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch, count, speed)
        self.tic = time.time()


class ProgressBar:
    """Batch-end callback logging a text progress bar of ``length`` characters."""

    def __init__(self, total, length=80):
        self.bar_len = length
        self.total = total

    def __call__(self, param):
        count = param.nbatch
        filled = int(round(self.bar_len * count / float(self.total)))
        percents = math.ceil(100.0 * count / float(self.total))
        logging.info("[%s] %s%s\r", "=" * filled + "-" * (self.bar_len - filled), percents, "%")


class LogValidationMetricsCallback:
    """Eval-end callback logging ``Epoch[e] Validation-<name>=<value>``."""

    def __call__(self, param):
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)


_model.UPPER["LogValidationMetricsCallback"] = LogValidationMetricsCallback  # FeedForward's default
