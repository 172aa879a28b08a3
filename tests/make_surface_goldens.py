"""Record what real MXNet 1.9.1 does for the importable surface of issue 14 (mxnet.base,
mx.util's NumPy-semantics switches, mx.test_utils helpers, mx.nd.sparse names, symbol
details, autograd.get_symbol, _fresh_grad).

Run with the reference interpreter (it must import the real ``mxnet``):

    /work/mxref/bin/python tests/make_surface_goldens.py

Writes ``tests/goldens/surface/surface.json``: one entry per case, a JSON value (or
``{"error": type name}`` where MXNet raised). ``tests/test_surface.py`` runs the same case
functions (``tests/surface_cases.py``) on xnd and compares.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mxnet as mx  # noqa: E402

from surface_cases import CASES, run_case  # noqa: E402

if __name__ == "__main__":
    out = {name: run_case(mx, fn) for name, fn in CASES.items()}
    path = os.path.join(HERE, "goldens", "surface", "surface.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {path} ({len(out)} cases)", file=sys.stderr)
