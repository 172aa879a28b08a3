"""Run with MXNet 1.9.1 (/work/mxref/bin/python): writes tests/goldens/library_names/cases.json
(the names GluonNLP and GluonTS import from mxnet, library_names_cases.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402
from library_names_cases import run_all  # noqa: E402

mx = golden_files.real_mxnet()
d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "library_names")
golden_files.write(os.path.join(d, "cases.json"), os.path.join(d, "cases.npz"), run_all(mx), {})
