"""Read the toolkit goldens written by tests/make_toolkit_goldens.py (real MXNet 1.9.1).

Test files load this module by path (``tests/goldens/toolkit/loader.py``).
"""
import functools
import json
import os

import numpy as np

GOLDEN_DIR = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(GOLDEN_DIR)), "fixtures")


@functools.lru_cache(maxsize=None)
def gold():
    with open(os.path.join(GOLDEN_DIR, "toolkit.json")) as f:
        data = json.load(f)
    with np.load(os.path.join(GOLDEN_DIR, "toolkit.npz"), allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    return data, arrays


def section(name):
    return gold()[0][name]


def arr(ref):
    return gold()[1][ref["nd"]]


def dec(x):
    """A golden JSON value -> Python (arrays as numpy, tuple/list kept)."""
    if isinstance(x, dict) and "nd" in x:
        return arr(x)
    if isinstance(x, dict) and "seq" in x:
        seq = [dec(v) for v in x["seq"]]
        return tuple(seq) if x["kind"] == "tuple" else seq
    if isinstance(x, list):
        return [dec(v) for v in x]
    return x
