"""Record MXNet 1.9.1's cross-device SyncBatchNorm (tests/sync_batchnorm_cases.py) on
cpu(0) and cpu(1):

    /work/mxref/bin/python tests/make_sync_batchnorm_goldens.py

writes tests/goldens/sync_batchnorm/cases.{json,npz}. (MXNet deadlocks when both parts
are on the same context, so the goldens use two.)"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mxnet as mx  # noqa: E402

import golden_files  # noqa: E402
from sync_batchnorm_cases import CASES  # noqa: E402

if __name__ == "__main__":
    arrays = {}
    for name, fn in CASES.items():
        arrays.update(fn(mx))
    d = os.path.join(HERE, "goldens", "sync_batchnorm")
    golden_files.write(os.path.join(d, "cases.json"), os.path.join(d, "cases.npz"),
                       {"mxnet": mx.__version__, "arrays": sorted(arrays)}, arrays)
