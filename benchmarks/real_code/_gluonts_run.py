"""Shared by gluonts_sff.py and gluonts_deepar.py: GluonTS 0.13's own estimator, trainer and
predictor (``gluonts.mx``), unchanged, for 2 epochs on a synthetic dataset, timed per training
batch (a gluonts Callback marks each batch's end) and per prediction pass. Runs on MXNet 1.9.1
and on xnd alike; the samples are random, so the checksum is a sanity figure, not a comparison."""
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
warnings.filterwarnings("ignore")

import mxnet as mx  # noqa: E402
from gluonts.dataset.common import ListDataset  # noqa: E402
from gluonts.mx.trainer.callback import Callback  # noqa: E402

from _pattern_timing import Stages, cpu  # noqa: E402

import time  # noqa: E402

FREQ, PRED, CONTEXT = "H", 12, 24
EPOCHS, BATCHES = 2, 10


def dataset(n=16, length=200):
    rs = np.random.RandomState(0)
    t = np.arange(length, dtype=np.float32)
    return ListDataset([{"start": "2021-01-01 00:00",
                         "target": (20 + 5 * np.sin(2 * np.pi * t / 24 + i)
                                    + rs.normal(size=length)).astype(np.float32)}
                        for i in range(n)], freq=FREQ)


class _BatchTimer(Callback):
    """Records one call per training batch into ``stages`` (CPU and wall since the previous
    batch ended or the epoch started), and each epoch's totals."""

    def __init__(self, stages):
        self.stages = stages
        self.epoch_cpu = []
        self.per_epoch = []

    def _mark(self):
        self.c0, self.w0 = cpu(), time.perf_counter()

    def on_train_start(self, max_epochs):
        self._mark()

    def on_train_epoch_start(self, training_network):
        self._mark()
        self.per_epoch.append([])

    def on_train_batch_end(self, training_network):
        c, w = cpu() - self.c0, time.perf_counter() - self.w0
        self.stages.calls.append(("train", c, w))
        self.per_epoch[-1].append(c)
        self._mark()
        return True


def run(workload, make_estimator):
    """``make_estimator(trainer)`` -> a gluonts.mx estimator."""
    from gluonts.mx import Trainer
    mx.random.seed(0)
    np.random.seed(0)
    st = Stages(workload)
    timer = _BatchTimer(st)
    trainer = Trainer(epochs=EPOCHS, num_batches_per_epoch=BATCHES, learning_rate=1e-3,
                      callbacks=[timer], add_default_callbacks=False)
    estimator = make_estimator(trainer)
    data = dataset()
    c0, w0 = cpu(), time.perf_counter()
    predictor = estimator.train(data)
    st.totals["train"] = (cpu() - c0, time.perf_counter() - w0)
    checksum = 0.0
    for _ in range(2):  # a first and a second prediction pass over the series
        with st.call("predict"):
            forecasts = list(predictor.predict(data))
        checksum += float(sum(f.mean.sum() for f in forecasts))
    steady = timer.per_epoch[-1][1:] if timer.per_epoch else []
    st.report(checksum, steady)
