"""Record what real MXNet 1.9.1 does for every case in tests/sym_cases.py.

Run with the reference interpreter (it must import the real ``mxnet``):

    /work/mxref/bin/python tests/make_sym_goldens.py [-v]

Writes ``tests/goldens/sym/sym_cases.json`` (one entry per case) and
``tests/goldens/sym/sym_cases.npz`` (the array values), byte-for-byte
deterministic (sorted keys, fixed zip timestamps).  Every case runs inside a
fresh ``mx.name.NameManager()``.

Entry formats are those of tests/make_goldens.py (``array``, ``list``,
``scalar``, ``str``, ``error``) plus

* ``dict`` -- ``items``: ``[[key, entry], ...]`` sorted by key (str keys only).
"""

import contextlib
import io
import json
import logging
import os
import re
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(HERE, "goldens", "sym")
JSON_PATH = os.path.join(GOLDEN_DIR, "sym_cases.json")
NPZ_PATH = os.path.join(GOLDEN_DIR, "sym_cases.npz")

os.environ.setdefault("MXNET_SUBGRAPH_VERBOSE", "0")

import numpy as np  # noqa: E402

try:
    import mxnet as mx  # noqa: E402
except ImportError:  # pragma: no cover
    sys.exit("make_sym_goldens.py needs the real MXNet: run it with /work/mxref/bin/python")

if getattr(mx, "__version__", None) != "1.9.1":
    sys.exit("make_sym_goldens.py needs mxnet 1.9.1, got %r (is this xnd?)"
             % getattr(mx, "__version__", None))
if not os.path.basename(os.path.dirname(mx.__file__)) == "mxnet":
    sys.exit("refusing to run: 'mxnet' resolves to %s" % mx.__file__)

sys.path.insert(0, HERE)
import make_goldens as _mg  # noqa: E402  (shared helpers: messages, npz writer)
import sym_cases  # noqa: E402


def encode(obj, key, arrays):
    if isinstance(obj, dict):
        if not all(isinstance(k, str) for k in obj):
            raise _mg.Unsupported("dict with non-str keys")
        return {"kind": "dict",
                "items": [[k, encode(obj[k], "%s.%s" % (key, k), arrays)]
                          for k in sorted(obj)]}
    if isinstance(obj, (list, tuple)):
        return {"kind": "list", "container": type(obj).__name__,
                "items": [encode(e, "%s.%d" % (key, i), arrays)
                          for i, e in enumerate(obj)]}
    return _mg.encode(obj, key, arrays)


_STAMP = re.compile(r"\[\d\d:\d\d:\d\d\] ")


def encode_error(e):
    """make_goldens' error entry with the C++ log timestamps (``[12:34:56] ``) removed,
    so that regenerating gives identical bytes."""
    entry = _mg.encode_error(e)
    entry["message"] = _STAMP.sub("", entry["message"])
    return entry


def check_unique_names():
    import ast
    src = open(os.path.join(HERE, "sym_cases.py")).read()
    names = [n.name for n in ast.walk(ast.parse(src))
             if isinstance(n, ast.FunctionDef) and n.name.startswith("case_")]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        sys.exit("duplicate case names in sym_cases.py: %s" % dups)


def run_all():
    results = {}
    arrays = {}
    for name, fn in sym_cases.CASES.items():
        local = {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with mx.name.NameManager(), \
                        contextlib.redirect_stdout(io.StringIO()):
                    out = fn(mx, np)
                    entry = encode(out, name, local)
        except _mg.Unsupported:
            raise
        except Exception as e:  # noqa: BLE001 - we record whatever MXNet raises
            entry = encode_error(e)
            local = {}
        try:
            mx.nd.waitall()
        except Exception:  # noqa: BLE001 - clear pending async errors
            pass
        results[name] = entry
        arrays.update(local)
    return results, arrays


def main():
    logging.disable(logging.CRITICAL)
    check_unique_names()
    results, arrays = run_all()
    doc = {
        "generator": "tests/make_sym_goldens.py",
        "mxnet_version": mx.__version__,
        "numpy_version": np.__version__,
        "cases": results,
    }
    os.makedirs(GOLDEN_DIR, exist_ok=True)
    with open(JSON_PATH, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    _mg.write_npz(NPZ_PATH, arrays)
    n_err = sum(1 for e in results.values() if e["kind"] == "error")
    print("%d cases (%d errors, %d arrays) -> %s"
          % (len(results), n_err, len(arrays), os.path.relpath(JSON_PATH)))
    if "-v" in sys.argv[1:]:
        for name, e in results.items():
            if e["kind"] == "error":
                print("  %-50s %s: %s" % (name, e["cls"],
                                          e["message"][:90].replace("\n", " ")))


if __name__ == "__main__":
    main()
