"""Record MXNet 1.9.1's mx.gluon.contrib layers (tests/gluon_contrib_cases.py):

    /work/mxref/bin/python tests/make_gluon_contrib_goldens.py

writes tests/goldens/gluon_contrib/gluon_contrib.json."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mxnet as mx  # noqa: E402

from gluon_contrib_cases import CASES  # noqa: E402

if __name__ == "__main__":
    out = {name: fn(mx) for name, fn in CASES.items()}
    os.makedirs(os.path.join(HERE, "goldens", "gluon_contrib"), exist_ok=True)
    path = os.path.join(HERE, "goldens", "gluon_contrib", "gluon_contrib.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {path}", file=sys.stderr)
