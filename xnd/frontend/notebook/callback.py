"""``mx.notebook.callback`` (MXNet's module): training statistics for Jupyter.

``PandasLogger`` records, through ``Module.fit``'s callbacks, one pandas DataFrame row per
``frequent`` training batches (the metrics, batches and records per second, elapsed time,
batch and epoch numbers), one per evaluation and one per epoch (its duration);
``args_wrapper`` gathers the callbacks of several such loggers into ``fit``'s keyword
arguments.  ``pd`` is pandas, or MXNet's placeholder class when pandas is not installed.
MXNet's live bokeh charts (``LiveBokehChart`` and its two subclasses) are not here:
xnd/porting/surface_exceptions.py says so to ``xnd check``.
"""
import datetime
import time
from collections import defaultdict

try:
    import pandas as pd
except ImportError:
    class Pandas_Failed_To_Import:
        """Stands for pandas when it is not installed."""
    pd = Pandas_Failed_To_Import


class PandasLogger:
    """Training statistics in three DataFrames: ``train_df`` (every `frequent` batches),
    ``eval_df`` (each evaluation), ``epoch_df`` (each epoch's duration)."""

    def __init__(self, batch_size, frequent=50):
        self.batch_size, self.frequent = batch_size, frequent
        self._dataframes = {k: pd.DataFrame() for k in ("train", "eval", "epoch")}
        self.last_time = time.time()
        self.start_time = self.last_epoch_time = datetime.datetime.now()

    train_df = property(lambda self: self._dataframes["train"])
    eval_df = property(lambda self: self._dataframes["eval"])
    epoch_df = property(lambda self: self._dataframes["epoch"])
    all_dataframes = property(lambda self: self._dataframes)

    def elapsed(self):
        """Time since the logger was made."""
        return datetime.datetime.now() - self.start_time

    def append_metrics(self, metrics, df_name):
        """Append the dict `metrics` as a row of DataFrame `df_name` (new keys: new columns)."""
        frame = self._dataframes[df_name]
        for col in set(metrics) - set(frame.columns):
            frame[col] = None
        frame.loc[len(frame)] = metrics

    def train_cb(self, param):
        """``batch_end_callback``: a row every `frequent` batches."""
        if param.nbatch % self.frequent == 0:
            self._process_batch(param, "train")

    def eval_cb(self, param):
        """``eval_end_callback``: a row per evaluation."""
        self._process_batch(param, "eval")

    def _process_batch(self, param, name):
        now = time.time()
        metrics = {}
        if param.eval_metric is not None:
            metrics = dict(param.eval_metric.get_name_value())
            param.eval_metric.reset()
        try:
            speed = self.frequent / (now - self.last_time)
        except ZeroDivisionError:
            speed = float("inf")
        # (MXNet's labels: "batches_per_sec" is records per second and the reverse)
        metrics.update(batches_per_sec=speed * self.batch_size, records_per_sec=speed,
                       elapsed=self.elapsed(), minibatch_count=param.nbatch,
                       epoch=param.epoch)
        self.append_metrics(metrics, name)
        self.last_time = now

    def epoch_cb(self):
        """``epoch_end_callback``: the epoch's duration."""
        now = datetime.datetime.now()
        self.append_metrics({"elapsed": self.elapsed(), "epoch_time": now - self.last_epoch_time},
                            "epoch")
        self.last_epoch_time = now

    def callback_args(self):
        """``fit``'s keyword arguments that install the three callbacks."""
        return {"batch_end_callback": self.train_cb, "eval_end_callback": self.eval_cb,
                "epoch_end_callback": self.epoch_cb}


def args_wrapper(*args):
    """``fit``'s callback keyword arguments for several loggers: each keyword's callbacks in
    a list, in the order of `args`."""
    out = defaultdict(list)
    for logger in args:
        for k, v in logger.callback_args().items():
            out[k].append(v)
    return dict(out)
