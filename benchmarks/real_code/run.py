"""Runs the real-code workloads (README.md) on xnd and on MXNet 1.9.1, each run a fresh process,
interleaved, cold and warm, and prints a markdown table of process CPU seconds per stage, wall
seconds and the longest call, with xnd/MXNet ratios against issue 40's goals.

    python benchmarks/real_code/run.py [--repeats 3] [--only NAME,...] [--json OUT]

For each workload and repeat, in this order: MXNet, xnd with an empty compilation cache (a new
temporary directory as XND_COMPILATION_CACHE: "cold"), MXNet again, xnd again with the same
directory ("warm"). Figures are medians over the repeats. xnd runs as ``python -m xnd run
SCRIPT`` in --xnd-python's environment, MXNet as ``python SCRIPT`` in --mxnet-python's; both need
the libraries (tests/thirdparty/make_venv.sh, its --libs form for the MXNet environment).

Goals (issue 40): per stage, CPU seconds xnd/MXNet cold <= 3x and warm <= 1.5x; no call after
a run's first longer than max(0.25 s, 3x MXNet's longest).
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
XND_PYTHON = os.environ.get("XND_REAL_CODE_PYTHON", "/work/venvs/thirdparty/bin/python")
MXNET_PYTHON = os.environ.get("MXNET_REAL_CODE_PYTHON", "/work/mxref/bin/python")
GOAL_COLD, GOAL_WARM, GOAL_CALL_S, GOAL_CALL_X = 3.0, 1.5, 0.25, 3.0


def workloads():
    """(name, script, args): the pattern scripts found here, then the library workloads."""
    found = [(os.path.basename(p)[:-3], os.path.basename(p), [])
             for p in sorted(glob.glob(os.path.join(HERE, "pattern_*.py")))]
    return found + [
        ("gluonts_sff", "gluonts_sff.py", []),
        ("gluonts_deepar", "gluonts_deepar.py", []),
        ("gluonts_deepar_hybrid", "gluonts_deepar.py", ["--hybridize"]),
        ("gluonnlp_bert_small", "gluonnlp_bert.py", ["--model", "small"]),
        ("gluonnlp_bert_base", "gluonnlp_bert.py", ["--model", "base"]),
        ("keras_mxnet_mlp", "keras_mxnet_mlp.py", []),
    ]


def run_once(engine, script, args, cache, timeout, pythons):
    """One fresh process; its JSON line as a dict, or {"error": ...}."""
    env = dict(os.environ)
    if engine == "xnd":
        cmd = [pythons["xnd"], "-m", "xnd", "run", os.path.join(HERE, script)] + args
        env["XND_COMPILATION_CACHE"] = cache
    else:
        cmd = [pythons["mxnet"], os.path.join(HERE, script)] + args
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=HERE, env=env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    process_wall = time.perf_counter() - t0
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{"):
            try:
                out = json.loads(line)
            except ValueError:
                continue
            out["process_wall_s"] = round(process_wall, 3)
            return out
    tail = [ln for ln in (p.stderr or p.stdout).strip().splitlines() if ln.strip()]
    return {"error": f"rc {p.returncode}: {tail[-1] if tail else 'no output'}"}


def median_of(runs, get):
    vals = [v for v in (get(r) for r in runs if "error" not in r) if v is not None]
    return statistics.median(vals) if vals else None


def summarize(runs):
    """{engine/mode: {"stages": {stage: {cpu_s, wall_s}}, "longest": s, "steady": s}} of medians."""
    out = {}
    for key, rs in runs.items():
        ok = [r for r in rs if "error" not in r]
        stages = sorted({s for r in ok for s in r["stages"]})
        out[key] = {
            "stages": {s: {m: median_of(ok, lambda r, s=s, m=m: r["stages"].get(s, {}).get(m))
                           for m in ("cpu_s", "wall_s")} for s in stages},
            "longest": median_of(ok, lambda r: r["longest_call_s"]),
            "steady": median_of(ok, lambda r: r.get("steady_call_cpu_s")),
            "checksum": median_of(ok, lambda r: r.get("checksum")),
            "errors": sorted({r["error"] for r in rs if "error" in r}),
            "runs": len(ok)}
    return out


def _f(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def _ratio(a, b):
    return None if a is None or not b else a / b


def table(results):
    """Markdown: one row per workload and stage."""
    rows = ["| workload | stage | MXNet CPU s | xnd cold CPU s (x) | xnd warm CPU s (x) | "
            "longest call s: MXNet / xnd cold / warm | steady call CPU ms: MXNet / xnd | goals |",
            "|---|---|---|---|---|---|---|---|"]
    for name, s in results.items():
        mx_, cold, warm = s.get("mxnet", {}), s.get("xnd_cold", {}), s.get("xnd_warm", {})
        err = cold.get("errors") or warm.get("errors") or mx_.get("errors")
        if not cold.get("runs") or not mx_.get("runs"):
            rows.append(f"| {name} | - | - | - | - | - | - | fails: {'; '.join(err or ['?'])} |")
            continue
        call_limit = max(GOAL_CALL_S, GOAL_CALL_X * (mx_["longest"] or 0))
        for stage in mx_["stages"]:
            m = mx_["stages"][stage]["cpu_s"]
            c = cold["stages"].get(stage, {}).get("cpu_s")
            w = warm.get("stages", {}).get(stage, {}).get("cpu_s")
            rc, rw = _ratio(c, m), _ratio(w, m)
            met = [("cold" if rc is not None and rc <= GOAL_COLD else "COLD"),
                   ("warm" if rw is not None and rw <= GOAL_WARM else "WARM"),
                   ("call" if max(cold["longest"] or 0, warm.get("longest") or 0) <= call_limit
                    else "CALL")]
            rows.append(
                f"| {name} | {stage} | {_f(m, 3)} | {_f(c)} ({_f(rc, 1)}x) | "
                f"{_f(w)} ({_f(rw, 1)}x) | {_f(mx_['longest'], 3)} / {_f(cold['longest'])} / "
                f"{_f(warm.get('longest'))} | {_f((mx_['steady'] or 0) * 1e3, 1)} / "
                f"{_f((warm.get('steady') or 0) * 1e3, 1)} | {' '.join(met)} |")
    rows.append("")
    rows.append("goals: lower case met, UPPER CASE missed (cold <= 3x, warm <= 1.5x MXNet's CPU "
                "seconds; call: no call after the first longer than max(0.25 s, 3x MXNet's "
                "longest))")
    return "\n".join(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated workload names")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    ap.add_argument("--json", help="write every run and the medians here")
    ap.add_argument("--xnd-python", default=XND_PYTHON)
    ap.add_argument("--mxnet-python", default=MXNET_PYTHON)
    a = ap.parse_args(argv)
    pythons = {"xnd": a.xnd_python, "mxnet": a.mxnet_python}
    only = {n for n in a.only.split(",") if n}
    chosen = [w for w in workloads() if not only or w[0] in only]
    if only - {w[0] for w in chosen}:
        sys.exit(f"unknown workloads: {sorted(only - {w[0] for w in chosen})}")
    raw, results = {}, {}
    for name, script, args in chosen:
        runs = {"mxnet": [], "xnd_cold": [], "xnd_warm": []}
        for r in range(a.repeats):
            cache = tempfile.mkdtemp(prefix="xnd-real-code-cache-")
            try:
                for key, engine in (("mxnet", "mxnet"), ("xnd_cold", "xnd"),
                                    ("mxnet", "mxnet"), ("xnd_warm", "xnd")):
                    out = run_once(engine, script, args, cache, a.timeout, pythons)
                    runs[key].append(out)
                    print(f"{name} [{r + 1}/{a.repeats}] {key}: "
                          f"{out.get('error') or json.dumps(out['stages'])}",
                          file=sys.stderr, flush=True)
            finally:
                shutil.rmtree(cache, ignore_errors=True)
        raw[name] = runs
        results[name] = summarize(runs)
    print(table(results))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"runs": raw, "medians": results}, f, indent=1)


if __name__ == "__main__":
    main()
