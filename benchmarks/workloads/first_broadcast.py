"""200 eager ``broadcast_to`` calls on random shapes (as MXNet's profiler example and
``test_broadcast`` make): for each, ``nd.array`` of a numpy array of 1-4 random dims (sizes
1-5, some 1), ``nd.broadcast_to`` to a random target, ``asnumpy``.  Timed: the 200 calls in a
fresh process over an empty compilation cache.  Checksum: the sum of all results."""
import numpy as np

from . import _first
from ._first import IMPLS  # noqa: F401

FIRST_RESULT = True
N, N_QUICK = 200, 20
METRICS = {"cold s": "lower"}
GOAL = "xnd <= 5x MXNet's seconds"
CHECKS = [("cold s", "mxnet", "<=", 5.0)]


def metrics(seconds, n, out):
    return {"cold s": out["cold"]["s"]}


def run_mx(mx, n):
    rng = np.random.RandomState(0)
    cases = []
    for _ in range(n):
        target = tuple(int(d) for d in rng.randint(1, 6, size=rng.randint(1, 5)))
        src = tuple(t if rng.rand() < .5 else 1 for t in target)
        cases.append((rng.rand(*src).astype("float32"), target))
    total = 0.0
    with _first.Timer(mx) as t:
        for a, target in cases:
            total += float(mx.nd.broadcast_to(mx.nd.array(a), shape=target).asnumpy().sum())
    return {"s": t.s, "check": total}
