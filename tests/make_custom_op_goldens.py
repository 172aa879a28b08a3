"""Record what MXNet 1.9.1 computes for the custom-operator scenarios of custom_op_cases.py.

    /work/mxref/bin/python tests/make_custom_op_goldens.py

Writes tests/goldens/custom_op/custom_op.{json,npz}: every array the scenarios return, and
the exception type of each bad call.
"""
import os
import sys
import tempfile

import numpy as np

import golden_files
import custom_op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "goldens", "custom_op")


def main():
    import mxnet as mx
    with tempfile.TemporaryDirectory() as tmp:
        res = custom_op_cases.run(mx, tmp)
    arrays = {k: v for k, v in res.items() if v.dtype.kind != "U"}
    meta = {"names": {k: v.tolist() for k, v in res.items() if v.dtype.kind == "U"},
            "errors": custom_op_cases.errors(mx), "mxnet": mx.__version__}
    golden_files.write(os.path.join(OUT, "custom_op.json"), os.path.join(OUT, "custom_op.npz"),
                       meta, arrays)


if __name__ == "__main__":
    sys.exit(main())
