"""``import xnd`` changes no process-wide state but JAX's 64-bit mode, and a host evaluation
(xnd/lowering/host_state.py) restores what it sets: the collector's state (no gc.freeze
unless XND_GC_FREEZE=1), transparent huge pages (the process's prctl switch and numpy's
madvise flag), OpenBLAS's thread count, numpy's error handling, the environment, and
glibc's malloc, which is tuned only with XND_HOST_MALLOC=1 (it cannot be read back, so the
test checks that the tuning code did not run)."""
import json
import os
import subprocess
import sys

_PROBE = r'''
import ctypes, gc, json, os, re, sys
import jax             # (what importing JAX itself sets, TF_CPP_MIN_LOG_LEVEL..., is JAX's)
import numpy as np

def openblas_threads():
    with open("/proc/self/maps") as f:
        paths = set(re.findall(r"(/\S*openblas\S*\.so\S*)", f.read()))
    for path in sorted(paths):
        lib = ctypes.CDLL(path)
        for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                     "openblas_get_num_threads", "scipy_openblas_get_num_threads"):
            if hasattr(lib, name):
                return getattr(lib, name)()
    return None

def state():
    core = getattr(np, "_core", None) or getattr(np, "core")
    huge = core.multiarray._set_madvise_hugepage(True)
    core.multiarray._set_madvise_hugepage(huge)
    return {"freeze": gc.get_freeze_count(), "gc": [gc.isenabled(), list(gc.get_threshold())],
            "thp_disable": ctypes.CDLL(None).prctl(42, 0, 0, 0, 0),   # PR_GET_THP_DISABLE
            "numpy_huge_pages": huge, "openblas_threads": openblas_threads(),
            "numpy_errors": np.geterr(), "environ": dict(os.environ),
            "recursion": sys.getrecursionlimit(), "switch": sys.getswitchinterval()}

before = state()
import xnd
from xnd.lowering import host_state
imported = state()
tried = list(host_state._MALLOC_TRIED)
from xnd.lowering import host_jaxpr
calls, evaluate = [], host_jaxpr.evaluate
host_jaxpr.evaluate = lambda *a: calls.append(1) or evaluate(*a)
a = xnd.nd.array(np.arange(12.0).reshape(3, 4))
b = (xnd.nd.dot(a.T, a).sum() + xnd.nd.softmax(a)).asnumpy()  # new shapes: the host tier
after = state()
print(json.dumps({"before": before, "imported": imported, "after": after,
                  "malloc_tried_at_import": tried, "malloc_tuned": host_state.MALLOC_TUNED,
                  "host_evaluations": len(calls)}))
'''


def _probe(**env):
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env=dict(os.environ, **env), check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_import_and_host_evaluations_leave_process_state_alone():
    got = _probe()
    assert got["imported"] == got["before"]
    assert got["after"] == got["before"]
    assert got["malloc_tried_at_import"] == [] and got["malloc_tuned"] is False
    assert got["before"]["freeze"] == 0 and got["host_evaluations"] >= 2


def test_malloc_tuning_is_opt_in():
    got = _probe(XND_HOST_MALLOC="1")
    assert got["malloc_tried_at_import"] == []              # not at import: at the first
    assert got["malloc_tuned"] is True                       # host evaluation
    assert got["imported"] == got["before"]
