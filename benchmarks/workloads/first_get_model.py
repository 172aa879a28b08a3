"""GluonCV-style model construction: ``gluon.model_zoo.vision.get_model`` + ``initialize``
(Xavier; the output Dense layer stays deferred until a first call, as in GluonCV) of
resnet50_v1 and mobilenet1.0.  Timed: both, in a fresh process over an empty cache."""
from . import _first
from ._first import IMPLS, N, N_QUICK  # noqa: F401

FIRST_RESULT = True
METRICS = {"cold s": "lower"}
GOAL = "xnd <= 2x MXNet's seconds"
CHECKS = [("cold s", "mxnet", "<=", 2.0)]


def metrics(seconds, n, out):
    return {"cold s": out["cold"]["s"]}


def run_mx(mx, n):
    with _first.Timer(mx) as t:
        for name in ("resnet50_v1", "mobilenet1.0"):
            net = mx.gluon.model_zoo.vision.get_model(name)
            net.initialize(mx.init.Xavier(), ctx=mx.cpu())
    return {"s": t.s, "check": None}
