"""Shared code of the time-to-first-result workloads (``first_*.py``).

Each runs in fresh processes with no warm-up (benchmarks/child.py, ``FIRST_RESULT``), over
an empty compilation cache (cold) and, for ``WARM`` workloads, again over the cache that
the cold process filled (warm: a user's second run).  Import and the building of inputs are
outside the timed region; what is inside is each workload's docstring.  MXNet has no
compilation cache: its "warm" process is just a second fresh process.  No JAX twins.
Weights come from ``NamedInit`` (numpy, seeded by the parameter's name), so xnd and MXNet
start from the same values and their checksums compare.
"""
import time
import zlib

import numpy as np

IMPLS = ("xnd", "mxnet")
N, N_QUICK = 1, 1


def cold_warm(key):
    """``metrics`` of a WARM workload: ``key`` seconds of the cold and the warm process."""
    def metrics(seconds, n, out):
        return {"cold s": out["cold"][key], "warm s": out["warm"][key]}
    return metrics


def named_init(mx):
    """An Initializer: weights He-scaled normal and biases 0.01 from numpy, seeded by name
    (BatchNorm's gamma/beta/statistics keep MXNet's 1/0 defaults)."""
    class NamedInit(mx.init.Initializer):
        def _init_weight(self, name, arr):
            rng = np.random.default_rng(zlib.crc32(str(name).encode()))
            fan_in = int(np.prod(arr.shape[1:])) or 1
            arr[:] = (rng.standard_normal(arr.shape) * np.sqrt(2.0 / fan_in)).astype("float32")

        def _init_bias(self, name, arr):
            arr[:] = 0.01
    return NamedInit()


class Timer:
    """``with Timer() as t: ...`` then ``t.s``: wall seconds, after ``mx.nd.waitall()``."""

    def __init__(self, mx):
        self.mx = mx

    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.mx.nd.waitall()
        self.s = time.perf_counter() - self.t0
