"""Record what MXNet 1.9.1 gives for tests/surface_modules_cases.py (issue 41's modules).

    /work/mxref/bin/python tests/make_surface_modules_goldens.py

Writes ``tests/goldens/surface/modules.json``; tests/test_surface_modules.py compares xnd."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from golden_files import real_mxnet  # noqa: E402
from surface_modules_cases import CASES, run_case  # noqa: E402

if __name__ == "__main__":
    mx = real_mxnet()
    out = {name: run_case(mx, fn) for name, fn in CASES.items()}
    path = os.path.join(HERE, "goldens", "surface", "modules.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {path} ({len(out)} cases)", file=sys.stderr)
