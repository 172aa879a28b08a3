"""Goldens for tests/test_dataloader_workers.py: gluon.data.DataLoader with 2 worker processes
in MXNet 1.9.1. Run with the reference MXNet:

    /work/mxref/bin/python tests/make_dataloader_goldens.py

writes tests/goldens/dataloader/dataloader.json.

This module is also what the xnd tests pickle into their DataLoader workers: the transforms
below are module-level functions that import numpy only (mx.nd only in ``nd_affine``), so a
worker that loads them does not import xnd/JAX. Keep mxnet/xnd imports out of module level.
"""
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "goldens", "dataloader", "dataloader.json")

X = np.arange(30, dtype=np.float32).reshape(10, 3)
Y = np.arange(10, dtype=np.int64)
ORDER = [7, 2, 9, 0, 4, 1, 8, 3, 6, 5]  # a fixed sampler


# ---- transforms and batchify functions (picklable: module level) ----------------------------
def scale_first(x):
    return x * 2 + 1


def nd_affine(x):
    """A transform on NDArrays that calls mx.nd ops (imports mxnet in a worker)."""
    try:
        import mxnet as mx
    except ImportError:
        import xnd as mx
    return mx.nd.relu(x - 4) * 0.5


def numpy_stack(items):
    """A batchify_fn that returns numpy (MXNet leaves it numpy in the main process)."""
    return np.stack([np.asarray(i[0]) for i in items])


def boom(x):
    if float(np.asarray(x).sum()) > 40:
        raise ValueError(f"boom: sample sum {float(np.asarray(x).sum())}")
    return x


def slow_first(x):
    if float(np.asarray(x)[0]) == 0:  # sample 0 only
        time.sleep(6)
    return x


def worker_modules(x):
    """Which heavy modules the worker process has imported."""
    return np.array([m in sys.modules for m in ("jax", "xnd", "mxnet")])


def ragged(x):
    return np.zeros(int(np.asarray(x)[0]) % 3 + 1, np.float32)


# ---- the cases ----------------------------------------------------------------------------
def cases(mx):
    """name -> (loader kwargs, epochs, make the dataset)."""
    D = mx.gluon.data

    def array_ds():
        return D.ArrayDataset(X, Y).transform_first(scale_first)

    return {
        "array_keep": (dict(batch_size=4), 1, array_ds),
        "array_discard": (dict(batch_size=4, last_batch="discard"), 1, array_ds),
        "array_rollover": (dict(batch_size=4, last_batch="rollover"), 3, array_ds),
        "fixed_sampler": (dict(batch_size=3, sampler=ORDER), 1, array_ds),
        "shuffle_seed3": (dict(batch_size=3, shuffle=True), 2, array_ds),
        "plain_array": (dict(batch_size=4), 1, lambda: D.ArrayDataset(X, Y)),
        "nd_arrays": (dict(batch_size=4), 1,
                      lambda: D.ArrayDataset(mx.nd.array(X), mx.nd.array(Y, dtype="int32"))),
        "nd_transform": (dict(batch_size=4), 1,
                         lambda: D.ArrayDataset(mx.nd.array(X), Y).transform_first(nd_affine)),
        "simple_tuples": (dict(batch_size=2), 1, lambda: D.SimpleDataset(
            [(i, i / 2, np.full(2, i, np.uint8)) for i in range(5)])),
        "python_scalars": (dict(batch_size=3), 1,
                           lambda: D.ArrayDataset(list(range(5)), [0.5 * i for i in range(5)])),
        "numpy_batchify": (dict(batch_size=4, batchify_fn=numpy_stack), 1,
                           lambda: D.ArrayDataset(X, Y)),
        "pin_memory": (dict(batch_size=5, pin_memory=True), 1, lambda: D.ArrayDataset(X, Y)),
    }


def describe(batch):
    """JSON description of one batch: [type, dtype, shape, values, context] per array."""
    items = batch if isinstance(batch, (list, tuple)) else [batch]
    out = []
    for a in items:
        arr = a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a)
        ctx = str(a.context) if hasattr(a, "context") else None
        out.append([type(a).__name__, np.dtype(arr.dtype).name, list(arr.shape),
                    arr.tolist(), ctx])
    return out


def run_case(mx, name, num_workers, **extra):
    kwargs, epochs, make = cases(mx)[name]
    if name == "shuffle_seed3":
        np.random.seed(3)
    loader = mx.gluon.data.DataLoader(make(), num_workers=num_workers, **kwargs, **extra)
    return {"len": len(loader),
            "epochs": [[describe(b) for b in loader] for _ in range(epochs)]}


def main():
    import mxnet as mx
    assert mx.__version__ == "1.9.1", mx.__version__
    gold = {name: run_case(mx, name, 2) for name in cases(mx)}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(gold, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {OUT}: {len(gold)} cases")


if __name__ == "__main__":
    main()
