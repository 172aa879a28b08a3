"""Goldens of tests/bn_module_cases.py on MXNet 1.9.1 (run with /work/mxref/bin/python):
each run in a child process, with oneDNN (the pip wheel's default) and without
(MXNET_MKLDNN_ENABLED=0), so that the test can compare xnd with MXNet at MXNet's own
run-to-run spread. Writes tests/goldens/bn_module/cases.{json,npz}."""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import golden_files  # noqa: E402

CHILD = ("import sys, json, numpy as np; sys.path.insert(0, %r); import mxnet as mx; "
         "import bn_module_cases as C; out = C.run(mx, sys.argv[1]); "
         "np.savez(sys.argv[2], **out)")


def child(how, onednn, path):
    env = dict(os.environ, MXNET_MKLDNN_ENABLED="1" if onednn else "0",
               MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0")
    subprocess.run([sys.executable, "-c", CHILD % HERE, how, path], check=True, env=env)
    with np.load(path) as z:
        return dict(z)


def main():
    golden_files.real_mxnet()
    tmp = os.path.join(HERE, "goldens", "bn_module", "_tmp.npz")
    os.makedirs(os.path.dirname(tmp), exist_ok=True)
    arrays, meta = {}, {}
    for how in ("steps", "fit"):
        runs = {"onednn": child(how, True, tmp), "plain": child(how, False, tmp)}
        for tag, out in runs.items():
            for k, v in out.items():
                arrays[f"{how}/{tag}/{k}"] = v
        a, b = runs["onednn"], runs["plain"]
        meta[how] = {k: float(np.abs(a[k] - b[k]).max()) for k in sorted(a)}
    os.remove(tmp)
    golden_files.write(os.path.join(HERE, "goldens", "bn_module", "cases.json"),
                       os.path.join(HERE, "goldens", "bn_module", "cases.npz"),
                       {"spread_onednn_vs_plain": meta}, arrays)
    print(json.dumps(meta, indent=1))


if __name__ == "__main__":
    main()
