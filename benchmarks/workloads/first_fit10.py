"""Time to a first ``Module.fit``: a 10-layer symbol (10 x Convolution 16x3x3 pad 1 +
BatchNorm + relu, global average pooling, FullyConnected(10), SoftmaxOutput), batch 8,
3x32x32, an ``NDArrayIter`` of 2 batches, SGD (momentum 0.9), accuracy, ``_first.NamedInit``.
Timed, in one fresh process: the first ``fit`` (bind, init_params, init_optimizer, 2 batches:
``fit s``), then a second ``fit`` of the same module in the same process (``second fit s``);
cold cache, then both again in a second process over the filled cache (``warm fit s``).
Checksum: sum of |weights| after the first fit."""
import logging
import sys
import warnings

import numpy as np

from . import _first
from ._first import IMPLS, N, N_QUICK  # noqa: F401

FIRST_RESULT = WARM = True
QUICK = "--quick" in sys.argv
LAYERS, CH, BATCH, SIZE = (2, 4, 2, 8) if QUICK else (10, 16, 8, 32)
METRICS = {"fit s": "lower", "second fit s": "lower", "warm fit s": "lower"}
GOAL = "xnd <= 3x MXNet's first fit (cold), second fit in the same process <= 1.5x"
CHECKS = [("fit s", "mxnet", "<=", 3.0), ("second fit s", "mxnet", "<=", 1.5)]


def metrics(seconds, n, out):
    return {"fit s": out["cold"]["fit_s"], "second fit s": out["cold"]["second_s"],
            "warm fit s": out["warm"]["fit_s"]}


def run_mx(mx, n):
    h = mx.sym.Variable("data")
    for i in range(LAYERS):
        h = mx.sym.Convolution(h, num_filter=CH, kernel=(3, 3), pad=(1, 1), name=f"conv{i}")
        h = mx.sym.BatchNorm(h, name=f"bn{i}")
        h = mx.sym.Activation(h, act_type="relu", name=f"relu{i}")
    h = mx.sym.Pooling(h, global_pool=True, pool_type="avg", kernel=(1, 1), name="pool")
    h = mx.sym.FullyConnected(h, num_hidden=10, name="fc")
    net = mx.sym.SoftmaxOutput(h, name="softmax")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2 * BATCH, 3, SIZE, SIZE)).astype("float32")
    y = rng.integers(0, 10, 2 * BATCH).astype("float32")
    it = mx.io.NDArrayIter(x, y, batch_size=BATCH, label_name="softmax_label")
    logger = logging.getLogger("first_fit10")
    logger.setLevel(logging.ERROR)
    mod = mx.mod.Module(net, context=mx.cpu(), logger=logger)
    res = {}
    for key in ("fit_s", "second_s"):
        it.reset()
        with warnings.catch_warnings(), _first.Timer(mx) as t:
            warnings.simplefilter("ignore")
            mod.fit(it, num_epoch=1, eval_metric="acc", optimizer="sgd", kvstore="local",
                    optimizer_params={"learning_rate": 0.01, "momentum": 0.9},
                    initializer=_first.named_init(mx))
        res[key] = t.s
        if key == "fit_s":
            arg, _ = mod.get_params()
            res["check"] = float(sum(np.abs(arg[k].asnumpy().astype("float64")).sum() for k in arg))
    return res
