"""``mx.contrib.tensorboard``: ``LogMetricsCallback`` writes a fit's metrics as
TensorBoard scalars."""
import logging

__all__ = ["LogMetricsCallback"]


def _summary_writer(logging_dir):
    """A SummaryWriter from mxboard (MXNet's choice) or else tensorboardX (the same API)."""
    for module in ("mxboard", "tensorboardX"):
        try:
            return __import__(module, fromlist=["SummaryWriter"]).SummaryWriter(logging_dir)
        except ImportError:
            continue
    logging.error("You can install mxboard via `pip install mxboard`.")
    raise ImportError("mx.contrib.tensorboard.LogMetricsCallback needs a TensorBoard writer: "
                      "pip install mxboard (or tensorboardX)")


class LogMetricsCallback:
    """Batch/eval-end callback: each ``name, value`` of ``param.eval_metric`` becomes a scalar
    (``prefix-name`` when `prefix` is given) at step ``param.epoch`` in `logging_dir`."""

    def __init__(self, logging_dir, prefix=None):
        self.prefix = prefix
        self.summary_writer = _summary_writer(logging_dir)

    def __call__(self, param):
        if param.eval_metric is None:
            return
        for name, value in param.eval_metric.get_name_value():
            if self.prefix is not None:
                name = "%s-%s" % (self.prefix, name)
            self.summary_writer.add_scalar(name, value, global_step=param.epoch)
