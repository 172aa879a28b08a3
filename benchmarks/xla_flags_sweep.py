"""XLA:CPU flag sweep: each variant's speed relative to xnd's defaults, per workload.

usage: python benchmarks/xla_flags_sweep.py [--repeats N] [--only NAME[,NAME]] [--impl xnd|jax]

Every round runs the default and each variant once (fresh processes, order rotated per
round) with ``XLA_FLAGS`` set; the table shows the medians of the per-round ratios
variant/default of the workload's first metric (above 1: the variant is faster).
Used for docs/performance.md.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = {
    "default": "",
    "onednn": "--xla_cpu_use_onednn=true",
    "xnnpack": "--xla_cpu_use_xnnpack=true",
    "no-thunks": "--xla_cpu_use_thunk_runtime=false",
    "concurrency-scheduler": "--xla_cpu_enable_concurrency_optimized_scheduler=true",
    "no-fusion-emitters": "--xla_cpu_use_fusion_emitters=false",
    "XND_CHANNELS_LAST=0": "",
    "XND_XLA_CPU_OPTIONS=0": "",
}


def run(impl, name, flags, env_extra):
    env = dict(os.environ, XLA_FLAGS=flags, **env_extra)
    p = subprocess.run([sys.executable, os.path.join(HERE, "child.py"), impl, name],
                       capture_output=True, text=True, cwd=HERE, env=env)
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{"):
            return next(iter(json.loads(line)["metrics"].values()))
    print(f"  !! {name} {flags}: {(p.stdout + p.stderr).strip().splitlines()[-1:]}",
          file=sys.stderr)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default="lenet_train,resnet18_infer")
    ap.add_argument("--impl", default="xnd")
    ap.add_argument("--variants", help="comma-separated subset of: " + ", ".join(VARIANTS))
    a = ap.parse_args()
    names = ["default"] + [v for v in (a.variants.split(",") if a.variants else VARIANTS)
                           if v != "default"]
    for w in a.only.split(","):
        rows = {v: [] for v in names}
        for r in range(a.repeats):
            order = names[r % len(names):] + names[:r % len(names)]
            got = {}
            for v in order:
                extra = {v.split("=")[0]: "0"} if v.startswith("XND_") else {}
                got[v] = run(a.impl, w, VARIANTS[v], extra)
            for v in names:
                if got[v] and got["default"]:
                    rows[v].append(got[v] / got["default"])
            print(f"  {w} round {r + 1}: " + ", ".join(f"{v} {got[v] and round(got[v], 1)}"
                                                     for v in names), flush=True)
        print(f"\n== {w} ({a.impl}): variant / default, medians of per-round ratios")
        for v in names:
            print(f"  {v:<24} {statistics.median(rows[v]):.3f}" if rows[v] else f"  {v:<24} -")


if __name__ == "__main__":
    main()
