"""Record Module training runs of real MXNet 1.9.1 (tests/goldens/module/scenarios.py).

    /work/mxref/bin/python tests/make_module_goldens.py

Writes ``tests/goldens/module/module.json`` (strings, numbers, array keys) and
``module.npz`` (arrays), plus the MXNet checkpoint ``ckpt_mx-symbol.json`` /
``ckpt_mx-0001.params`` that the checkpoint scenario loads. Deterministic: every
input comes from a fixed numpy seed; npz entries carry a fixed timestamp.
"""
import importlib.util
import io
import json
import os
import sys
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "goldens", "module")

try:
    import mxnet as mx
except ImportError:  # pragma: no cover
    sys.exit("make_module_goldens.py needs the real MXNet: run it with /work/mxref/bin/python")
if getattr(mx, "__version__", None) != "1.9.1" or \
        os.path.basename(os.path.dirname(mx.__file__)) != "mxnet":
    sys.exit("make_module_goldens.py needs the real mxnet 1.9.1, got %r" % mx.__file__)


def load_scenarios():
    spec = importlib.util.spec_from_file_location("module_scenarios",
                                                  os.path.join(OUT, "scenarios.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write_npz(path, arrays):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for key in sorted(arrays):
            b = io.BytesIO()
            np.lib.format.write_array(b, np.ascontiguousarray(arrays[key]), allow_pickle=False)
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, b.getvalue())
    with open(path, "wb") as f:
        f.write(buf.getvalue())


def main():
    sc = load_scenarios()
    mx.random.seed(0)
    sc.write_checkpoint(mx)
    gold, arrays = {}, {}
    for name in sc.SCENARIOS:
        mx.random.seed(0)
        res = sc.run(mx, name)
        mx.nd.waitall()
        entry = {}
        for k, v in res.items():
            if isinstance(v, np.ndarray):
                key = "%s::%s" % (name, k)
                arrays[key] = v
                entry[k] = {"nd": key}
            elif isinstance(v, (np.integer,)):
                entry[k] = int(v)
            elif isinstance(v, (np.floating,)):
                entry[k] = float(v)
            else:
                entry[k] = v
        gold[name] = entry
        print("%s: %d values" % (name, len(entry)))
    with open(os.path.join(OUT, "module.json"), "w") as f:
        json.dump(gold, f, indent=1, sort_keys=True)
        f.write("\n")
    write_npz(os.path.join(OUT, "module.npz"), arrays)


if __name__ == "__main__":
    main()
