"""Record MXNet 1.9.1's four-context runs (tests/multidevice_cases.py) on cpu(0..3), and
the same cases on one context:

    /work/mxref/bin/python tests/make_multidevice_goldens.py

writes tests/goldens/multidevice/cases.{json,npz} (``four/...`` and ``one/...``)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mxnet as mx  # noqa: E402

import golden_files  # noqa: E402
from multidevice_cases import CASES, ctxs  # noqa: E402

if __name__ == "__main__":
    arrays = {}
    for name, fn in CASES.items():
        arrays.update({"four/" + k: v for k, v in fn(mx, ctxs(mx, 4)).items()})
        if name != "sync_batchnorm":
            arrays.update({"one/" + k: v for k, v in fn(mx, ctxs(mx, 1)).items()})
    d = os.path.join(HERE, "goldens", "multidevice")
    golden_files.write(os.path.join(d, "cases.json"), os.path.join(d, "cases.npz"),
                       {"mxnet": mx.__version__, "arrays": sorted(arrays)}, arrays)
