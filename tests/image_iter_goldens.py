"""What the image-iterator golden generators (make_image_aug_goldens.py,
make_image_detection_goldens.py) record of an iterator run, and the tests replay: its
provide_data/provide_label, every batch's pad per epoch and every batch's (data, label)."""
import random

import numpy as np


def iter_run(cls, kw, epochs, seed, extra=lambda it: {}):
    """(meta, [(data, label) per batch]) of `epochs` epochs of cls(**kw), Python's and numpy's
    random generators seeded with `seed` first; extra(iterator) adds entries to meta."""
    random.seed(seed)
    np.random.seed(seed)
    it = cls(**kw)
    meta = {"provide_data": [[x[0], list(x[1])] for x in it.provide_data],
            "provide_label": [[x[0], list(x[1])] for x in it.provide_label], "batches": [],
            **extra(it)}
    arrays = []
    for _ in range(epochs):
        pads = []
        for batch in it:
            pads.append(batch.pad)
            arrays.append((batch.data[0].asnumpy(), batch.label[0].asnumpy()))
        meta["batches"].append(pads)
        it.reset()
    return meta, arrays


def record(run_one, cases, meta, arrays):
    """Runs run_one(kw, epochs) for each (name, kw, epochs) of `cases` into meta[name] and the
    arrays iter_<name>_<batch>_data / _label."""
    for name, kw, epochs in cases:
        m, batches = run_one(kw, epochs)
        meta[name] = m
        for j, (data, label) in enumerate(batches):
            arrays[f"iter_{name}_{j}_data"] = data
            arrays[f"iter_{name}_{j}_label"] = label
