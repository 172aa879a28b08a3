"""Do two environments give the same numbers?  Runs every benchmark workload's xnd
implementation once per interpreter (``--quick`` sizes, each in a fresh process through
child.py) and compares the result checksums each workload prints (its "check" value).

usage: python benchmarks/compare_envs.py PYTHON_A PYTHON_B [--only NAME[,NAME]] [--rtol R]

Both interpreters must import this checkout's xnd (run from the repository root, or put it
on PYTHONPATH).  Exits 1 when a checksum differs by more than ``rtol`` (default 1e-4, the
suite's float32 training tolerance) or a workload fails in one of them.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import run_child  # noqa: E402
from workloads import NAMES  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("python_a")
    ap.add_argument("python_b")
    ap.add_argument("--only", help="comma-separated workload names")
    ap.add_argument("--rtol", type=float, default=1e-4)
    args = ap.parse_args(argv)
    names = args.only.split(",") if args.only else NAMES
    bad = 0
    print(f"{'workload':<24}{'A':>22}{'B':>22}{'rel. diff':>12}")
    for name in names:
        a = run_child(args.python_a, "xnd", name, quick=True)
        b = run_child(args.python_b, "xnd", name, quick=True)
        ca, cb = (r and r.get("check") for r in (a, b))
        if ca is None or cb is None:
            status = "no checksum" if a and b else "FAILED"
            bad += status == "FAILED"
            print(f"{name:<24}{str(ca):>22}{str(cb):>22}{status:>12}")
            continue
        rel = abs(ca - cb) / max(abs(ca), abs(cb), 1e-30)
        bad += rel > args.rtol
        print(f"{name:<24}{ca:>22.10g}{cb:>22.10g}{rel:>12.2e}" + ("  DIFFERS" if rel > args.rtol
                                                                 else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
