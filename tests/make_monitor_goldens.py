"""Record MXNet 1.9.1's mx.mon.Monitor rows for a small Module (forward+backward+update and
inference forwards; interval, pattern, sort, stat_func, monitor_all).

    /work/mxref/bin/python tests/make_monitor_goldens.py

Writes ``tests/goldens/module/monitor.json``: per scenario the list of [step, name, text].
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402

mx = golden_files.real_mxnet()

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "module")
sys.path.insert(0, OUT)
from monitor_cases import run  # noqa: E402


def main():
    golden_files.write(os.path.join(OUT, "monitor.json"), os.path.join(OUT, "monitor.npz"),
                       run(mx), {})


if __name__ == "__main__":
    main()
