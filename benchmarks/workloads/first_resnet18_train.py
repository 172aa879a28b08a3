"""Time to the first training step: model-zoo resnet18_v1, batch 8, 3x224x224, hybridized
Gluon.  Outside the timed region: import, ``get_model``, ``initialize`` (``_first.NamedInit``:
the Dense layer's deferred shapes are filled inside the step, as in every Gluon script),
``hybridize``, the Trainer (SGD, momentum 0.9) and the inputs.  Timed: ``autograd.record()``
forward + SoftmaxCrossEntropyLoss, ``backward()``, ``trainer.step(8)``, ``waitall``, in a
fresh process over an empty compilation cache (cold) and over the cache the first one
filled (warm).  Checksum: the first step's summed loss."""
import sys

import numpy as np

from . import _first
from ._first import IMPLS, N, N_QUICK  # noqa: F401

FIRST_RESULT = WARM = True
QUICK = "--quick" in sys.argv
BATCH, SIZE = (1, 32) if QUICK else (8, 224)
METRICS = {"cold s": "lower", "warm s": "lower"}
GOAL = "xnd <= 3x MXNet's seconds cold (empty cache), <= 1.5x warm (second process)"
CHECKS = [("cold s", "mxnet", "<=", 3.0), ("warm s", "mxnet", "<=", 1.5)]
metrics = _first.cold_warm("step_s")


def build(mx):
    net = mx.gluon.model_zoo.vision.get_model("resnet18_v1")
    net.initialize(_first.named_init(mx), ctx=mx.cpu())
    net.hybridize()
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.standard_normal((BATCH, 3, SIZE, SIZE)).astype("float32"))
    y = mx.nd.array(rng.integers(0, 1000, BATCH).astype("float32"))
    return net, x, y


def run_mx(mx, n):
    net, x, y = build(mx)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01, "momentum": 0.9})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    with _first.Timer(mx) as t:
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(BATCH)
    return {"step_s": t.s, "check": float(loss.asnumpy().astype("float64").sum())}
