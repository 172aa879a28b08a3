"""Goldens for tests/test_np_shape.py: MXNet 1.9.1's legacy and NumPy shape semantics on
NDArrays (0-d and zero-size arrays: which calls raise, which shapes come out, what save/load
accept in each mode). Run: /work/mxref/bin/python tests/make_np_shape_goldens.py
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from golden_files import real_mxnet, write

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "goldens", "np_shape")


def cases(mx):
    """name -> (np_shape active, function of nothing returning an NDArray)."""
    nd = mx.nd
    x = lambda: nd.array(np.arange(6, dtype=np.float32).reshape(3, 2))
    return {
        "zeros_0d": (False, lambda: nd.zeros(shape=())),
        "ones_zero_size": (False, lambda: nd.ones(shape=(0, 1, 3, 0))),
        "array_0d": (False, lambda: nd.array(np.ones(()))),
        "array_zero_size": (False, lambda: nd.array(np.ones((0, 2)))),
        "getitem_int_1d": (False, lambda: nd.array([1.0, 2.0, 3.0])[1]),
        "sum_all": (False, lambda: x().sum()),
        "slice_empty": (False, lambda: nd.slice(x(), begin=(1,), end=(1,))),
        "basic_empty": (False, lambda: x()[1:1]),
        "repeat_zero": (False, lambda: nd.repeat(x(), repeats=0)),
        "tile_zero_rep": (False, lambda: nd.tile(x(), reps=(0, 1))),
        "tile_negative_rep": (False, lambda: nd.tile(x(), reps=(1, -3))),
        "boolean_mask_none": (False, lambda: nd.contrib.boolean_mask(x(), nd.zeros(3))),
        "np_ones_0d": (True, lambda: nd.ones(shape=())),
        "np_ones_zero_size": (True, lambda: nd.ones(shape=(0, 1, 0, 4))),
        "np_getitem_int_1d": (True, lambda: nd.array([1.0, 2.0, 3.0])[1]),
        "np_0d_plus_1": (True, lambda: nd.ones(shape=()) + 1),
        "np_0d_times_array": (True, lambda: nd.ones(shape=()) * 2 * x()),
        "np_sum_all": (True, lambda: x().sum()),
        "np_concat_zero_rows": (True, lambda: nd.Concat(nd.ones((0, 8, 2)), nd.ones((3, 8, 2)),
                                                         nd.ones((0, 8, 2)), dim=0)),
        "np_concat_zero_all": (True, lambda: nd.Concat(nd.ones((0, 3, 2)), nd.ones((0, 4, 2)),
                                                        dim=1)),
        "np_tile_zero_size": (True, lambda: nd.tile(nd.ones((2, 3, 0, 4)), reps=(2, 1))),
        "np_tile_zero_rep": (True, lambda: nd.tile(x(), reps=(0, 1))),
        "np_one_hot_empty": (True, lambda: nd.one_hot(nd.ones((2, 0, 9)), depth=3)),
        "np_index_array_0d": (True, lambda: nd.contrib.index_array(nd.ones(shape=()))),
        "np_index_array_zero_size": (True, lambda: nd.contrib.index_array(nd.ones((0, 2, 0)))),
        "np_transpose_zero_size": (True, lambda: nd.ones((0, 3)).T),
    }


SAVE_LOAD = [(False, False), (True, False), (False, True), (True, True)]
SAVE_SHAPES = [(2, 0, 1), (0,), (0, 4), (2, 1)]


def run_case(mx, active, fn):
    """(shape, values) or the exception's type name."""
    with mx.np_shape(active):
        try:
            r = fn()
            return {"shape": list(r.shape), "dtype": str(r.dtype.__name__ if hasattr(
                r.dtype, "__name__") else r.dtype)}, r.asnumpy()
        except Exception as e:  # noqa: BLE001 (the type is the golden)
            return {"error": type(e).__name__}, None


def save_load(mx, save_np, load_np):
    """Save some arrays (zero-size ones, and a 0-d one under np_shape) in one mode, load in
    another: the loaded shapes, or the error type."""
    with mx.np_shape(save_np):
        shapes = SAVE_SHAPES + ([()] if save_np else [])
        arrays = [mx.nd.array(np.full(s, 3, np.float32)) for s in shapes]
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "a.nd")
            mx.nd.save(f, arrays)
            with open(f, "rb") as fh:
                magic = int.from_bytes(fh.read()[24:28], "little")
            with mx.np_shape(load_np):
                try:
                    loaded = mx.nd.load(f)
                    return {"magic": magic, "shapes": [list(a.shape) for a in loaded]}
                except Exception as e:  # noqa: BLE001
                    return {"magic": magic, "error": type(e).__name__}


def _one_case(name, path):
    """Child process: run one case on a fresh MXNet (MXNet 1.9.1's engine carries a failed
    zero-size allocation into later calls, so the cases must not share a process)."""
    mx = real_mxnet()
    active, fn = cases(mx)[name]
    meta, val = run_case(mx, active, fn)
    np.savez(path, meta=json.dumps(meta), **({} if val is None else {"value": val}))


def main():
    if len(sys.argv) == 3:
        return _one_case(*sys.argv[1:])
    mx = real_mxnet()
    meta, arrays = {"cases": {}, "save_load": []}, {}
    with tempfile.TemporaryDirectory() as d:
        for name in cases(mx):
            path = os.path.join(d, name + ".npz")
            subprocess.run([sys.executable, os.path.abspath(__file__), name, path], check=True)
            with np.load(path) as z:
                meta["cases"][name] = json.loads(str(z["meta"]))
                if "value" in z:
                    arrays[name] = z["value"]
    meta["save_load"] = [save_load(mx, s, l) for s, l in SAVE_LOAD]
    write(os.path.join(OUT, "cases.json"), os.path.join(OUT, "cases.npz"), meta, arrays)


if __name__ == "__main__":
    main()
