"""Run one workload on one implementation in this (fresh) process; print one JSON line.

usage: python child.py {xnd|mxnet|jax} WORKLOAD [--quick]
"""
import importlib
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main(impl, name, quick=False):
    sys.path.insert(0, HERE)
    w = importlib.import_module(f"workloads.{name}")
    if impl == "jax":
        fn = w.run_jax
    else:
        if impl == "xnd":
            sys.path.insert(0, os.path.dirname(HERE))          # the repository root
        mx = importlib.import_module({"xnd": "xnd", "mxnet": "mxnet"}[impl])
        fn = lambda n: w.run_mx(mx, n)                         # noqa: E731
    n = w.N_QUICK if quick else w.N
    fn(getattr(w, "WARMUP", max(1, n // 10)))                  # compile / allocate / warm caches
    t0 = time.perf_counter()
    out = fn(n) or {}
    seconds = time.perf_counter() - t0
    print(json.dumps({"impl": impl, "workload": name, "n": n, "seconds": seconds,
                      "metrics": w.metrics(seconds, n, out), "check": out.get("check")}), flush=True)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--quick"]
    main(*args, quick="--quick" in sys.argv[1:])
