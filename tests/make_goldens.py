"""Record what real MXNet 1.9.1 does for every case in tests/nd_cases.py.

Run with the reference interpreter (it must import the real ``mxnet``):

    /work/mxref/bin/python tests/make_goldens.py

Writes ``tests/goldens/nd_cases.json`` (one entry per case) and
``tests/goldens/nd_cases.npz`` (the array values).  The output is
byte-for-byte deterministic: keys are sorted and the npz zip entries carry a
fixed timestamp.

JSON entry formats (``kind``):

* ``array``  -- ``cls`` ("NDArray" or "ndarray"), ``dtype`` (numpy name),
  ``shape`` (list), ``npz`` (key into the npz; null for object arrays, which
  carry ``repr`` instead);
* ``list``   -- ``container`` ("list"/"tuple"), ``items`` (entries);
* ``scalar`` -- ``type`` ("int", "float", "bool", "NoneType" or
  "numpy.<dtype>"), ``value``;
* ``str``    -- ``text``;
* ``error``  -- ``cls`` (class name), ``module``, ``mxnet_error`` (subclass of
  mxnet.base.MXNetError), ``builtin`` (first built-in exception class in the
  MRO), ``message`` (first 200 chars, C++ traceback header stripped).
"""

import ast
import io
import json
import os
import sys
import warnings
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(HERE, "goldens")
JSON_PATH = os.path.join(GOLDEN_DIR, "nd_cases.json")
NPZ_PATH = os.path.join(GOLDEN_DIR, "nd_cases.npz")

import builtins  # noqa: E402

import numpy as np  # noqa: E402

try:
    import mxnet as mx  # noqa: E402
except ImportError:  # pragma: no cover
    sys.exit("make_goldens.py needs the real MXNet: run it with /work/mxref/bin/python")

if getattr(mx, "__version__", None) != "1.9.1":
    sys.exit("make_goldens.py needs mxnet 1.9.1, got %r (is this xnd?)"
             % getattr(mx, "__version__", None))
if not os.path.basename(os.path.dirname(mx.__file__)) == "mxnet":
    sys.exit("refusing to run: 'mxnet' resolves to %s" % mx.__file__)

sys.path.insert(0, HERE)
import nd_cases  # noqa: E402


class Unsupported(Exception):
    pass


def scalar_type_name(x):
    if x is None:
        return "NoneType"
    if isinstance(x, np.generic):
        return "numpy." + np.dtype(type(x)).name
    return type(x).__name__


def scalar_value(x):
    if x is None:
        return None
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float):
        return x  # json writes NaN/Infinity
    return x


def encode(obj, key, arrays):
    if isinstance(obj, mx.nd.NDArray):
        v = obj.asnumpy()
        arrays[key] = v
        return {"kind": "array", "cls": "NDArray", "dtype": v.dtype.name,
                "shape": list(v.shape), "npz": key}
    if isinstance(obj, np.ndarray):
        entry = {"kind": "array", "cls": "ndarray", "dtype": obj.dtype.name,
                 "shape": list(obj.shape)}
        if obj.dtype == object:
            entry["npz"] = None
            entry["repr"] = repr(obj)[:200]
        else:
            arrays[key] = obj.copy()
            entry["npz"] = key
        return entry
    if isinstance(obj, str):
        return {"kind": "str", "text": obj}
    if obj is None or isinstance(obj, (bool, int, float, np.generic)):
        return {"kind": "scalar", "type": scalar_type_name(obj),
                "value": scalar_value(obj)}
    if isinstance(obj, (list, tuple)):
        return {"kind": "list", "container": type(obj).__name__,
                "items": [encode(e, "%s.%d" % (key, i), arrays)
                          for i, e in enumerate(obj)]}
    raise Unsupported("case returned unsupported type %r" % type(obj))


def clean_message(msg):
    """Drop the C++ 'Traceback ... File "src/..", line N' header and the
    'MXNetError: ' prefix; keep the first 200 characters of the rest."""
    lines = msg.strip().splitlines()
    if lines and lines[0].startswith("Traceback (most recent call last)"):
        lines = [ln for ln in lines[1:] if not ln.startswith("  File ")]
    msg = "\n".join(lines).strip()
    marker = "MXNetError: "
    if marker in msg:
        msg = msg[msg.rindex(marker) + len(marker):]
    return msg.strip()[:200]


def first_builtin(cls):
    for c in cls.__mro__:
        if getattr(builtins, c.__name__, None) is c:
            return c.__name__
    return "BaseException"


def encode_error(e):
    return {"kind": "error", "cls": type(e).__name__,
            "module": type(e).__module__,
            "mxnet_error": isinstance(e, mx.base.MXNetError),
            "builtin": first_builtin(type(e)),
            "message": clean_message(str(e))}


def check_unique_names():
    src = open(os.path.join(HERE, "nd_cases.py")).read()
    names = [n.name for n in ast.walk(ast.parse(src))
             if isinstance(n, ast.FunctionDef) and n.name.startswith("case_")]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        sys.exit("duplicate case names in nd_cases.py: %s" % dups)


def run_all():
    results = {}
    arrays = {}
    for name, fn in nd_cases.CASES.items():
        local = {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = fn(mx, mx.nd, np)
                entry = encode(out, name, local)
        except Unsupported:
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


def write_npz(path, arrays):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for key in sorted(arrays):
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            data = io.BytesIO()
            np.lib.format.write_array(data, np.asarray(arrays[key]),
                                      allow_pickle=False)
            zf.writestr(info, data.getvalue())
    with open(path, "wb") as f:
        f.write(buf.getvalue())


def main():
    check_unique_names()
    results, arrays = run_all()
    doc = {
        "generator": "tests/make_goldens.py",
        "mxnet_version": mx.__version__,
        "numpy_version": np.__version__,
        "cases": results,
    }
    os.makedirs(GOLDEN_DIR, exist_ok=True)
    with open(JSON_PATH, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    write_npz(NPZ_PATH, arrays)
    n_err = sum(1 for e in results.values() if e["kind"] == "error")
    print("%d cases (%d errors, %d arrays) -> %s"
          % (len(results), n_err, len(arrays), os.path.relpath(JSON_PATH)))
    if "-v" in sys.argv[1:]:
        for name, e in results.items():
            if e["kind"] == "error":
                print("  %-50s %s: %s" % (name, e["cls"], e["message"][:90].replace("\n", " ")))


if __name__ == "__main__":
    main()
