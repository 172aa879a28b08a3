"""Time to the first hybridized forward: model-zoo resnet18_v1, batch 8, 3x224x224, predict
mode.  Outside the timed region: import, ``get_model``, ``initialize`` (``_first.NamedInit``),
``hybridize``, the input.  Timed: ``net(x)`` and ``waitall`` (deferred initialization of the
Dense layer included), cold and warm as in first_resnet18_train.  Checksum: sum of |logits|."""
from . import _first
from ._first import IMPLS, N, N_QUICK  # noqa: F401
from .first_resnet18_train import build

FIRST_RESULT = WARM = True
METRICS = {"cold s": "lower", "warm s": "lower"}
GOAL = "xnd <= 3x MXNet's seconds cold (empty cache), <= 1.5x warm (second process)"
CHECKS = [("cold s", "mxnet", "<=", 3.0), ("warm s", "mxnet", "<=", 1.5)]
metrics = _first.cold_warm("forward_s")


def run_mx(mx, n):
    net, x, _ = build(mx)
    with _first.Timer(mx) as t:
        out = net(x)
    return {"forward_s": t.s, "check": float(abs(out.asnumpy().astype("float64")).sum())}
