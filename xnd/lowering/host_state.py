"""The process-wide settings a host evaluation (``host_jaxpr.evaluate``) works under, set
around it and restored after: importing xnd changes none of them.

* numpy's OpenBLAS runs on one thread (``host_blas``: a second thread spins for tens of
  milliseconds when the other core is busy; large products switch to ``host_blas.THREADS``
  for their own duration);
* numpy does not advise transparent huge pages for the arrays it allocates: a host
  evaluation writes each fresh array once or twice, and the kernel zeroes a whole 2 MB page
  per fault (ResNet-18's first host forward took 2.2 s instead of 1.2 s).

Both are process-wide switches (OpenBLAS's thread count, numpy's madvise flag), so
evaluations take one re-entrant lock: the first to enter saves and sets them, the last to
leave restores them, and two threads' evaluations run one after the other (the host tier
serves a program's first calls; steady calls run XLA's programs, which take no lock).
numpy work of other threads meanwhile allocates without huge pages, as after
``np.core.multiarray._set_madvise_hugepage(False)``.

glibc's malloc tuning (keep freed memory for reuse: 144 -> 122 ms a host training step of a
10-layer network) cannot be read back or restored (setting the mmap threshold switches
glibc's dynamic threshold off for good), so it is opt-in: ``XND_HOST_MALLOC=1`` applies it
at the first host evaluation (docs/porting.md).
"""
import ctypes
import os
import sys
import threading

import numpy as np

from . import host_blas

_LOCK = threading.RLock()
_DEPTH = [0]
_SAVED = []
_MALLOC_TRIED = []
MALLOC_TUNED = False     # whether this process's malloc was tuned (XND_HOST_MALLOC=1)


def enter():
    """Start a host evaluation (blocks while another thread's runs)."""
    _LOCK.acquire()
    try:
        if _DEPTH[0] == 0:
            if not _MALLOC_TRIED and os.environ.get("XND_HOST_MALLOC") == "1":
                _MALLOC_TRIED.append(True)
                _keep_freed_memory()
            _SAVED[:] = [host_blas.threads(1), huge_pages(False)]
    except BaseException:
        _LOCK.release()
        raise
    _DEPTH[0] += 1


def leave():
    """End a host evaluation started by ``enter`` (on its thread)."""
    try:
        _DEPTH[0] -= 1
        if _DEPTH[0] == 0:
            threads, huge = _SAVED
            host_blas.threads(threads)
            huge_pages(huge)
    finally:
        _LOCK.release()


def run_outside(fn, *args):
    """``fn(*args)`` (a program's Python callback: user code) under the process's own
    settings and without the lock, which its own xnd calls (or another thread's host
    evaluation it waits for) may need; called inside a host evaluation, on its thread."""
    depth = _DEPTH[0]
    threads, huge = _SAVED
    host_blas.threads(threads)
    huge_pages(huge)
    _DEPTH[0] = 0
    for _ in range(depth):
        _LOCK.release()
    try:
        return fn(*args)
    finally:
        for _ in range(depth):
            _LOCK.acquire()
        _DEPTH[0] = depth
        _SAVED[:] = [host_blas.threads(1), huge_pages(False)]


def huge_pages(enabled):
    """Sets numpy's advice to Linux that its arrays of 4 MB or more be backed by 2 MB pages
    (on by default since numpy 1.20); returns the previous setting, None where numpy has no
    switch (or for ``enabled=None``)."""
    if not _HUGE:
        core = getattr(np, "_core", None) or getattr(np, "core", None)
        _HUGE.append(getattr(getattr(core, "multiarray", None), "_set_madvise_hugepage", None))
    return None if _HUGE[0] is None or enabled is None else _HUGE[0](enabled)


_HUGE = []
MALLOC_MMAP_MAX = 32 << 20      # arrays below this come from the heap, not fresh mappings
MALLOC_KEEP = 256 << 20         # freed heap memory kept for reuse before returning it


def _keep_freed_memory():
    """Tell glibc's malloc to keep freed memory for reuse.  A host evaluation allocates and
    frees an activation-sized array per equation; by default glibc maps arrays over 128 KB
    afresh or returns freed heap to the kernel, and every page is faulted in again on its
    first write: 43,000 page faults in two 10-layer training steps, a sixth of their time.
    MXNet's CPU storage pools its memory likewise.  Returns whether malloc was tuned."""
    global MALLOC_TUNED
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):       # musl and other C libraries: left alone
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    MALLOC_TUNED = bool(mallopt(m_mmap_threshold, MALLOC_MMAP_MAX)) and \
        bool(mallopt(m_trim_threshold, MALLOC_KEEP))
    return MALLOC_TUNED
