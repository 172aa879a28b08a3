"""Run with MXNet 1.9.1 (/work/mxref/bin/python): writes tests/goldens/optimizer_ops/ops.npz."""
import os
import sys

import mxnet as mx
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from optimizer_op_cases import run_all  # noqa: E402

assert mx.__version__ == "1.9.1", mx.__version__
res = run_all(mx.nd)
flat = {f"{k}.{i}": v for k, vs in res.items() for i, v in enumerate(vs)}
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "optimizer_ops", "ops.npz")
np.savez(out, **flat)
print("wrote", out, len(flat), "arrays")
