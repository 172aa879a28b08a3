"""Smoke test of benchmarks/run.py: a --quick, single-round run without MXNet (~10 s).

Each run is capped at 240 s (subprocess timeout; the CNN workloads are left out).  test_xnd_vs_jax needs the xnd core
(xnd.nd); test_jax_only checks the runner and the JAX twins on their own.
"""
import os
import re
import subprocess
import sys

RUN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "run.py")


def _run(impls):
    p = subprocess.run([sys.executable, RUN, "--quick", "--repeats", "1", "--impls", impls,
                        "--only", "eager_small_ops,chained_dot,out_inplace,lenet_eager"],
                       capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stdout + p.stderr[-4000:]
    return p.stdout


def test_jax_only():
    out = _run("jax")
    for name in ("eager_small_ops", "chained_dot", "out_inplace"):
        assert f"== {name}" in out
    assert re.search(r"^us/op \(l\)\s+[\d.]+\s*$", out, re.M), out


def test_xnd_vs_jax():
    out = _run("xnd,jax")
    assert out.count("xnd/jax") >= 3, out                      # one ratio column per workload
    # the ratio column holds numbers, not "-"
    assert re.search(r"^us/op \(l\)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s*$", out, re.M), out
    assert re.search(r"^GFLOP/s \(h\)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s*$", out, re.M), out
    assert re.search(r"^setitem ms/iter \(l\)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s*$", out, re.M), out
