"""Interleaved benchmark runner: xnd vs MXNet 1.9.1 vs a jitted JAX twin.

usage: python benchmarks/run.py [--mxnet-python PATH] [--repeats N] [--only NAME[,NAME]]
                                [--impls xnd,mxnet,jax] [--quick] [--json FILE]

Every round runs each implementation once, each in a fresh process (benchmarks/child.py),
with the order rotated per round.  The table shows per-implementation medians and the
medians of the per-round ratios xnd/MXNet and xnd/JAX.  See benchmarks/README.md.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from workloads import NAMES  # noqa: E402

OPS = {"<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}


def run_child(python, impl, name, quick):
    cmd = [python, os.path.join(HERE, "child.py"), impl, name] + (["--quick"] if quick else [])
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE)
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    tail = "\n".join((p.stdout + p.stderr).strip().splitlines()[-8:])
    print(f"  !! {impl}/{name} failed (rc={p.returncode}):\n{tail}", file=sys.stderr)
    return None


def fmt(x):
    return "-" if x is None else f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


def median_ratio(rounds, metric, a, b):
    r = [x[a]["metrics"][metric] / x[b]["metrics"][metric] for x in rounds
         if x.get(a) and x.get(b) and x[b]["metrics"][metric]]
    return statistics.median(r) if r else None


def report(name, w, rounds, impls):
    cols = impls + [f"xnd/{o}" for o in ("mxnet", "jax") if "xnd" in impls and o in impls]
    print(f"\n== {name}   goal: {w.GOAL}")
    print(f"{'metric':<18}" + "".join(f"{c:>12}" for c in cols))
    for metric, better in w.METRICS.items():
        row = []
        for impl in impls:
            v = [x[impl]["metrics"][metric] for x in rounds if x.get(impl)]
            row.append(statistics.median(v) if v else None)
        if better != "absolute":                               # e.g. MiB growth: no ratio
            row += [median_ratio(rounds, metric, "xnd", c[4:]) for c in cols[len(impls):]]
        print(f"{metric + ' (' + better[0] + ')':<18}" + "".join(f"{fmt(v):>12}" for v in row))
    for metric, against, op, thr in w.CHECKS:
        if against is None:
            v = [x["xnd"]["metrics"][metric] for x in rounds if x.get("xnd")]
            val, what = (statistics.median(v) if v else None), f"xnd {metric}"
        else:
            val, what = median_ratio(rounds, metric, "xnd", against), f"xnd/{against} {metric}"
        verdict = "n/a" if val is None else "PASS" if OPS[op](val, thr) else "FAIL"
        print(f"  goal {what} {op} {thr}: {fmt(val)} -> {verdict}")
    for r, x in enumerate(rounds):
        ck = {i: x[i]["check"] for i in impls if x.get(i) and x[i]["check"] is not None}
        if any(not math.isclose(v, next(iter(ck.values())), rel_tol=1e-3) for v in ck.values()):
            print(f"  !! round {r + 1}: result checksums differ: {ck}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mxnet-python", help="python of a venv with mxnet 1.9.1 installed")
    ap.add_argument("--repeats", type=int, default=5, help="rounds (default 5)")
    ap.add_argument("--only", help="comma-separated workload names")
    ap.add_argument("--impls", help="comma-separated subset of xnd,mxnet,jax "
                    "(default: xnd,jax plus mxnet when --mxnet-python is given)")
    ap.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    ap.add_argument("--json", help="also write all raw child results to this file")
    a = ap.parse_args(argv)
    impls = a.impls.split(",") if a.impls else ["xnd"] + (["mxnet"] if a.mxnet_python else []) + ["jax"]
    if set(impls) - {"xnd", "mxnet", "jax"} or ("mxnet" in impls and not a.mxnet_python):
        ap.error("--impls takes xnd, mxnet, jax; mxnet needs --mxnet-python")
    names = a.only.split(",") if a.only else NAMES
    if set(names) - set(NAMES):
        ap.error(f"unknown workload(s) {sorted(set(names) - set(NAMES))}; known: {NAMES}")
    python = {"xnd": sys.executable, "jax": sys.executable, "mxnet": a.mxnet_python}
    failed, raw = False, {}
    for name in names:
        w = __import__(f"workloads.{name}", fromlist=["_"])
        w_impls = [i for i in impls if i in getattr(w, "IMPLS", impls)]   # e.g. no JAX twin
        if not w_impls:
            continue
        rounds = []
        for r in range(a.repeats):
            order = w_impls[r % len(w_impls):] + w_impls[:r % len(w_impls)]
            rounds.append({i: run_child(python[i], i, name, a.quick) for i in order})
            print(f"  {name} round {r + 1}/{a.repeats}: " + ", ".join(
                f"{i} {fmt(x['metrics'][next(iter(w.METRICS))]) if x else 'FAILED'}"
                for i, x in rounds[-1].items()), file=sys.stderr, flush=True)
        failed |= any(x is None for rd in rounds for x in rd.values())
        report(name, w, rounds, w_impls)
        raw[name] = rounds
    if a.json:
        with open(a.json, "w") as f:
            json.dump(raw, f, indent=1)
    print("\nratios: medians of per-round ratios.  (l)ower / (h)igher is better; (a)bsolute: "
          "lower is better, no ratio")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
