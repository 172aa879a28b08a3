"""Run with MXNet 1.9.1 (/work/mxref/bin/python): writes tests/goldens/unknown_dims/cases.json
(unknown_dims_cases.py: 0 dims in legacy shapes)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402
from unknown_dims_cases import run_all  # noqa: E402

mx = golden_files.real_mxnet()
d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "unknown_dims")
golden_files.write(os.path.join(d, "cases.json"), os.path.join(d, "cases.npz"), run_all(mx), {})
