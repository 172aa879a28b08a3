"""Run with MXNet 1.9.1 (/work/mxref/bin/python): writes tests/goldens/optimizer_index/cases.json
(optimizer_index_cases.py: the index a custom optimizer's update receives)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402
from optimizer_index_cases import run_all  # noqa: E402

mx = golden_files.real_mxnet()
d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "optimizer_index")
golden_files.write(os.path.join(d, "cases.json"), os.path.join(d, "cases.npz"), run_all(mx), {})
