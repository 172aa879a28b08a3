"""numpy's OpenBLAS as the host tier (``host_jaxpr``) uses it: one thread, but for large
products, which run on ``THREADS``.

A host evaluation runs BLAS on one thread (set around it by ``host_state`` and restored
after): OpenBLAS's second thread spins for tens of
milliseconds when the other core is busy (a 144x16 product measured 0.6 ms on one thread,
8 ms on two under load), which costs small products far more than it saves.  A product of
at least ``PARALLEL_FLOPS`` (ResNet-18's convolutions: 0.4-1.9 GFLOP each, 20-60 ms on one
core) runs on ``THREADS`` threads: its first training step's host products 1.28 -> 0.9 s on
2 cores, as MXNet's oneDNN uses every core.  The count is fixed, not the machine's core
count: OpenBLAS splits some products (a 2000x2000x2000 one, matrix-vector products) by
thread count, and a run's numbers must not depend on the machine's size or load
(``XND_HOST_BLAS_THREADS`` sets it; 1 keeps every product on one thread).
"""
import ctypes
import math
import os
import re

import numpy as np

THREADS = max(1, int(os.environ.get("XND_HOST_BLAS_THREADS", "2")))
PARALLEL_FLOPS = 5e7


def matmul(a, b):
    """``np.matmul(a, b)``, on ``THREADS`` BLAS threads when it is large."""
    if THREADS > 1 and a.ndim >= 2 and b.ndim >= 2 and _flops(a, b) >= PARALLEL_FLOPS:
        old = threads(THREADS)
        try:
            return np.matmul(a, b)
        finally:
            threads(old)
    return np.matmul(a, b)


def _flops(a, b):
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return 2 * math.prod(batch) * a.shape[-2] * a.shape[-1] * b.shape[-1]


def threads(n):
    """Sets numpy's OpenBLAS to ``n`` threads; returns the previous count (``n`` where numpy
    has another BLAS, which is left alone)."""
    if not _SETTER:
        _SETTER.append(_find_setter())
    f = _SETTER[0]
    return n if f is None else f(n)


_SETTER = []


def _find_setter():
    """numpy's OpenBLAS thread setter (``set(n)`` -> previous n), or None for another BLAS."""
    try:
        with open("/proc/self/maps") as f:
            paths = set(re.findall(r"(/\S*openblas\S*\.so\S*)", f.read()))
    except OSError:
        return None
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for suffix in ("64_", "", "_64_"):
            for prefix in ("scipy_openblas", "openblas"):
                get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                put = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    def set_threads(n, get=get, put=put):
                        old = get()
                        if n != old:
                            put(ctypes.c_int(n))
                        return old
                    return set_threads
    return None
