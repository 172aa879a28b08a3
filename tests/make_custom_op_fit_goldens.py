"""Run with MXNet 1.9.1 (/work/mxref/bin/python): writes tests/goldens/custom_op_fit/cases.*
(custom_op_fit_cases.py's Python softmax trained by Module.fit, scored, and a raising op)."""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import golden_files  # noqa: E402

golden_files.real_mxnet()
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "out.npz")
    subprocess.run([sys.executable, os.path.join(HERE, "custom_op_fit_cases.py"), path],
                   check=True, env=dict(os.environ, MXNET_CPU_WORKER_NTHREADS="2"))
    res = dict(np.load(path))
d = os.path.join(HERE, "goldens", "custom_op_fit")
golden_files.write(os.path.join(d, "cases.json"), os.path.join(d, "cases.npz"),
                   {"raises": str(res.pop("raises")), "raises_message": str(res.pop("raises_message", ""))}, res)
