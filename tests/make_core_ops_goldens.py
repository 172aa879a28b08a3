"""Record MXNet 1.9.1's results for the core-operator cases of core_ops_cases.py.

    /work/mxref/bin/python tests/make_core_ops_goldens.py

Writes tests/goldens/core_ops/core_ops.{json,npz}: per case its outputs, updated states and
input gradients (npz keys '<case>/<what>'), their dtypes, and the error type of each bad call.
"""
import os
import sys

import core_ops_cases as C
import golden_files

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "goldens", "core_ops")


def main():
    import mxnet as mx
    arrays, dtypes = {}, {}
    for name, case in sorted(C.CASES.items()):
        for k, v in C.run_case(mx, case).items():
            arrays[f"{name}/{k}"] = v
            dtypes[f"{name}/{k}"] = [str(v.dtype), list(v.shape)]
    errors = {name: C.run_error(mx, case) for name, case in sorted(C.ERRORS.items())}
    golden_files.write(os.path.join(OUT, "core_ops.json"), os.path.join(OUT, "core_ops.npz"),
                       {"dtypes": dtypes, "errors": errors}, arrays)


if __name__ == "__main__":
    sys.exit(main())
