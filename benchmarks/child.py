"""Run one workload on one implementation in this (fresh) process; print one JSON line.

usage: python child.py {xnd|mxnet|jax} WORKLOAD [--quick] [--once]

A time-to-first-result workload (``FIRST_RESULT = True``) is not warmed up: this process
runs it in fresh processes (``--once``) over a new, empty compilation cache directory
(``XND_COMPILATION_CACHE``), first cold, then, when the workload sets ``WARM = True``, warm
(a second process over the cache the first one filled); ``metrics`` gets
``{"cold": out, "warm": out or None}``.
"""
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TIERED_CALLS = int(os.environ.get("XND_TIERED_CALLS", "4"))   # xnd/tiers' default
EAGER_HOST_CALLS = 8        # xnd/lowering/host_eval.py's HOST_CALLS: eager ops' uncompiled calls


def _once(impl, name, quick, cache):
    cmd = [sys.executable, os.path.abspath(__file__), impl, name, "--once"] + (["--quick"] if quick else [])
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, XND_COMPILATION_CACHE=cache))
    lines = [x for x in p.stdout.splitlines() if x.startswith("{")]
    if p.returncode or not lines:
        sys.exit(f"{impl}/{name} --once failed (rc={p.returncode}):\n{(p.stdout + p.stderr)[-3000:]}")
    return json.loads(lines[-1])


def first_result(impl, name, w, quick):
    n = w.N_QUICK if quick else w.N
    with tempfile.TemporaryDirectory(prefix="xnd-bench-cache-") as cache:
        cold = _once(impl, name, quick, cache)
        warm = _once(impl, name, quick, cache) if getattr(w, "WARM", False) else None
    out = {"cold": cold, "warm": warm}
    print(json.dumps({"impl": impl, "workload": name, "n": n, "seconds": cold.get("seconds", 0.0),
                      "metrics": w.metrics(None, n, out), "check": cold.get("check")}), flush=True)


def _in_context(mx, kind, run, n):
    """``run(n)`` with ``mx.Context(kind, 0)`` as the default context."""
    with mx.Context(kind, 0):
        return run(n)


def main(impl, name, quick=False, once=False):
    sys.path.insert(0, HERE)
    w = importlib.import_module(f"workloads.{name}")
    if getattr(w, "FIRST_RESULT", False) and not once:
        return first_result(impl, name, w, quick)
    if impl == "jax":
        fn = w.run_jax
    else:
        if impl == "xnd":
            sys.path.insert(0, os.path.dirname(HERE))          # the repository root
        mx = importlib.import_module({"xnd": "xnd", "mxnet": "mxnet"}[impl])
        fn = lambda n: w.run_mx(mx, n)                         # noqa: E731
        kind = os.environ.get("XND_BENCH_CONTEXT")             # gpu: benchmarks/gpu_suite.py
        if kind:
            fn = lambda n, run=fn: _in_context(mx, kind, run, n)   # noqa: E731
    n = w.N_QUICK if quick else w.N
    if once:                                                   # time to first result: no warm-up
        print(json.dumps(fn(n) or {}), flush=True)
        return
    # compile / allocate / warm caches; enough calls that xnd's programs have left their
    # first tiers (xnd/tiers) and its eager ops their host calls (host_eval.py)
    fn(max(getattr(w, "WARMUP", max(1, n // 10)), TIERED_CALLS + 1, EAGER_HOST_CALLS + 1))
    t0 = time.perf_counter()
    out = fn(n) or {}
    seconds = time.perf_counter() - t0
    print(json.dumps({"impl": impl, "workload": name, "n": n, "seconds": seconds,
                      "metrics": w.metrics(seconds, n, out), "check": out.get("check")}), flush=True)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a not in ("--quick", "--once")]
    main(*args, quick="--quick" in sys.argv[1:], once="--once" in sys.argv[1:])
