"""Record MXNet 1.9.1's sort/argsort/topk results for tests/sort_cases.py.

    /work/mxref/bin/python tests/make_sort_goldens.py    # -> tests/goldens/sort_order/
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sort_cases  # noqa: E402

import mxnet as mx  # noqa: E402

out = {}
for name, x, op, kw in sort_cases.cases():
    for j, r in enumerate(sort_cases.run(mx, name, x, op, kw)):
        out[f"{name}.{j}"] = r
np.savez_compressed(os.path.join(HERE, "goldens", "sort_order", "mxnet.npz"), **out)
print(len(out), "arrays")
