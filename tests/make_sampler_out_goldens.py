"""Run with MXNet 1.9.1 (/work/mxref/bin/python): writes tests/goldens/sampler_out/cases.json
(samplers given out=, sampler_out_cases.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402
from sampler_out_cases import run_all  # noqa: E402

mx = golden_files.real_mxnet()
d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "sampler_out")
golden_files.write(os.path.join(d, "cases.json"), os.path.join(d, "cases.npz"), run_all(mx), {})
