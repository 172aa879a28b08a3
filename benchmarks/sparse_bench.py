"""Sparse training steps, xnd against MXNet 1.9.1, each workload in a fresh process (issue 42):

* ``linear``: a linear model over LibSVM-style CSR batches, 1M features at 0.01% density
  (100 stored values per row): ``sparse.dot(csr, w)``, a squared loss, backward to a
  row_sparse gradient, and ``sgd_update(lazy_update=True)`` of the dense weight;
* ``embedding``: ``gluon.nn.Embedding(1M, 64, sparse_grad=True)`` with a Trainer (SGD) on
  batches of random ids.

Per workload: the median step time after warm-up, the resident memory after setup and the
peak growth during the steps (``ru_maxrss``): the goal is a step time <= MXNet's and a
growth that does not depend on the rows a batch does not touch (no dense 1M-row gradient).

Usage: python benchmarks/sparse_bench.py [--mxnet /work/mxref/bin/python] [--steps 20]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

FEATURES, BATCH, NNZ, DIM = 1_000_000, 256, 100, 64


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _linear(mx, rng, np):
    from mxnet import autograd
    w = mx.nd.zeros((FEATURES, 1))
    w.attach_grad(stype="row_sparse")
    y = mx.nd.array(rng.randint(0, 2, (BATCH, 1)))

    def step():
        idx = np.sort(rng.randint(0, FEATURES, (BATCH, NNZ)), axis=1).ravel()
        x = mx.nd.sparse.csr_matrix((rng.uniform(0, 1, BATCH * NNZ).astype("f"), idx,
                                     np.arange(0, BATCH * NNZ + 1, NNZ)), shape=(BATCH, FEATURES))
        with autograd.record():
            loss = mx.nd.square(mx.nd.sparse.dot(x, w) - y)
        loss.backward()
        mx.nd.sgd_update(w, w.grad, lr=0.1, lazy_update=True, out=w)
        w.wait_to_read()
    return step


def _embedding(mx, rng, np):
    from mxnet import autograd, gluon
    emb = gluon.nn.Embedding(FEATURES, DIM, sparse_grad=True)
    emb.initialize(mx.init.Uniform(0.1))
    tr = gluon.Trainer(emb.collect_params(), "sgd", {"learning_rate": 0.1})

    def step():
        ids = mx.nd.array(rng.randint(0, FEATURES, (BATCH,)))
        with autograd.record():
            loss = emb(ids).square().sum()
        loss.backward()
        tr.step(BATCH)
        emb.weight.data().wait_to_read()
    return step


def child(workload, steps, warmup=3):
    import numpy as np
    import mxnet as mx
    rng = np.random.RandomState(0)
    step = (_linear if workload == "linear" else _embedding)(mx, rng, np)
    for _ in range(warmup):
        step()
    base_rss, base_peak = _rss_mb(), _peak_mb()
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    times.sort()
    return {"step_ms": 1000 * times[len(times) // 2], "rss_after_setup_mb": base_rss,
            "peak_growth_mb": max(0.0, _peak_mb() - max(base_rss, base_peak)),
            "peak_mb": _peak_mb(), "impl": os.path.basename(os.path.dirname(mx.__file__))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mxnet", default="/work/mxref/bin/python")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--child", choices=["linear", "embedding"])
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.child, a.steps)))
        return
    rows = []
    for workload in ("linear", "embedding"):
        for name, py in (("xnd", sys.executable), ("mxnet-1.9.1", a.mxnet)):
            p = subprocess.run([py, os.path.abspath(__file__), "--child", workload,
                                "--steps", str(a.steps)], capture_output=True, text=True)
            if p.returncode:
                res = {"error": p.stderr.strip().splitlines()[-1] if p.stderr else p.returncode}
            else:
                res = json.loads(p.stdout.strip().splitlines()[-1])
            rows.append(dict(res, workload=workload, name=name))
            print(json.dumps(rows[-1]), flush=True)
    print("\n| workload | impl | step (ms) | RSS after setup (MB) | peak growth in steps (MB) |")
    print("|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print("| %s | %s | error: %s | | |" % (r["workload"], r["name"], r["error"]))
        else:
            print("| %s | %s | %.1f | %.0f | %.1f |" % (r["workload"], r["name"], r["step_ms"],
                                                       r["rss_after_setup_mb"],
                                                       r["peak_growth_mb"]))


if __name__ == "__main__":
    main()
