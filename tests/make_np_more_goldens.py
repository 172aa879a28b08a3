"""Goldens for tests/test_np_more.py: the mx.np / mx.npx names MXNet 1.9.1 has beyond the
operator table -- genfromtxt (how Dive into Deep Learning reads its optimisation data),
numpy's fallback functions (histogram2d, polyfit, roots, msort, trapz, ...: official
NumPy's, run on host copies, results as mx.np arrays of numpy's dtype), row_stack, the
NEP 32 financial functions (they raise), and npx's detection operators.

    /work/mxref/bin/python tests/make_np_more_goldens.py

writes tests/goldens/np_more/cases.{json,npz}; ``run(mx, workdir)`` is the case table.
"""
import json
import os
import sys

import numpy as onp

import golden_files

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "goldens", "np_more")
_R = onp.random.RandomState(3)
TABLE = _R.rand(6, 4).round(4)  # a data file as d2l's airfoil_self_noise.dat (tab separated)


_err = golden_files.error


def _write_files(d):
    tsv = os.path.join(d, "data.tsv")
    with open(tsv, "w") as f:
        f.write("".join("\t".join(repr(float(v)) for v in row) + "\n" for row in TABLE))
    csv = os.path.join(d, "data.csv")
    with open(csv, "w") as f:
        f.write("a,b,c\n1,2,3\n4,,6\n7,8,x\n")
    return tsv, csv


def _cases(mx, d):
    np = mx.np
    tsv, csv = _write_files(d)
    x = np.array([[3.0, 1.0, 2.0], [2.0, 5.0, -1.0]])
    xi = np.array([[3, 1, 2], [2, 5, -1]], dtype="int32")
    px, py = np.array([0.0, 1.0, 2.0, 3.5]), np.array([1.0, 3.2, 4.9, 8.0])
    return {
        "genfromtxt_tsv": lambda: np.genfromtxt(tsv, delimiter="\t"),
        "genfromtxt_f32": lambda: np.genfromtxt(tsv, delimiter="\t", dtype=onp.float32),
        "genfromtxt_cols": lambda: np.genfromtxt(tsv, delimiter="\t", usecols=(0, 3),
                                                 skip_header=2, ctx=mx.cpu()),
        "genfromtxt_missing": lambda: np.genfromtxt(csv, delimiter=",", skip_header=1),
        "genfromtxt_filled": lambda: np.genfromtxt(csv, delimiter=",", skip_header=1,
                                                   filling_values=-1.0),
        "genfromtxt_int": lambda: np.genfromtxt(["1 2", "3 4"], dtype=int),
        "apply_over_axes": lambda: np.apply_over_axes(onp.sum, x, [0, 1]),
        "histogram2d": lambda: np.histogram2d(px, py, bins=2),
        "histogram_bin_edges": lambda: np.histogram_bin_edges(py, bins=3),
        "histogramdd": lambda: np.histogramdd(x.T, bins=2),
        "piecewise": lambda: np.piecewise(px, [px < 1.5, px >= 1.5], [-1.0, lambda v: v * 2]),
        "poly": lambda: np.poly(np.array([1.0, 2.0, -3.0])),
        "polydiv": lambda: np.polydiv(np.array([1.0, -3.0, 2.0]), np.array([1.0, -1.0])),
        "polyfit": lambda: np.polyfit(px, py, 1),
        "polyfit_deg2": lambda: np.polyfit(px, py, 2),
        "polyint": lambda: np.polyint(np.array([3.0, 2.0, 1.0]), k=2),
        "roots": lambda: np.roots(np.array([1.0, -3.0, 2.0])),
        "msort": lambda: np.msort(x),
        "msort_int": lambda: np.msort(xi),
        "trapz": lambda: np.trapz(x),
        "trapz_x": lambda: np.trapz(py, x=px),
        "trapz_dx_axis0": lambda: np.trapz(x, dx=0.5, axis=0),
        "row_stack": lambda: np.row_stack([np.array([1.0, 2.0]), np.array([3.0, 4.0])]),
        "row_stack_2d": lambda: np.row_stack((x, x[:1])),
        "multibox_prior": lambda: mx.npx.multibox_prior(np.zeros((1, 3, 2, 3)),
                                                        sizes=[0.5, 0.25], ratios=[1, 2]),
        "roi_pooling": lambda: mx.npx.roi_pooling(
            np.arange(32, dtype="float32").reshape(1, 2, 4, 4),
            np.array([[0, 0, 0, 3, 3], [0, 1, 1, 2, 3]]), pooled_size=(2, 2),
            spatial_scale=1.0),
        "multibox_target": lambda: mx.npx.multibox_target(
            np.array([[[0.0, 0.0, 0.5, 0.5], [0.4, 0.4, 1.0, 1.0]]]),
            np.array([[[0.0, 0.1, 0.1, 0.45, 0.5]]]), np.zeros((1, 2, 2))),
        "multibox_detection": lambda: mx.npx.multibox_detection(
            np.array([[[0.2, 0.9], [0.8, 0.1]]]), np.zeros((1, 8)),
            np.array([[[0.0, 0.0, 0.5, 0.5], [0.4, 0.4, 1.0, 1.0]]])),
    }


def _flat(name, res):
    """[(key, value)] of a result: arrays one by one (tuples and lists spread)."""
    if isinstance(res, (tuple, list)):
        return [kv for i, r in enumerate(res) for kv in _flat(f"{name}.{i}", r)]
    return [(name, res)]


def run(mx, d):
    meta, arrays = {"cases": {}}, {}
    for name, fn in _cases(mx, d).items():
        entries = []
        for key, value in _flat(name, fn()):
            is_mx = isinstance(value, mx.np.ndarray)
            a = value.asnumpy() if is_mx else onp.asarray(value)
            entries.append([key, is_mx, str(a.dtype), list(a.shape)])
            arrays[key] = a
        meta["cases"][name] = entries
    np = mx.np
    meta["errors"] = {
        **{n: _err(lambda n=n: getattr(np, n)(0.1, 10, 100)) for n in
           ("mirr", "npv", "ppmt", "pv", "rate")},
        "genfromtxt_nofile": _err(lambda: np.genfromtxt(os.path.join(d, "none.txt"))),
        "genfromtxt_columns": _err(lambda: np.genfromtxt(["1 2", "3 4 5"])),
        "polyfit_deg": _err(lambda: np.polyfit(np.array([1.0, 2.0]), np.array([1.0, 2.0]),
                                               -1)),
        "roots_2d": _err(lambda: np.roots(np.ones((2, 2)))),
    }
    meta["genfromtxt_ctx"] = str(np.genfromtxt(["1 2"], ctx=None).ctx)
    meta["linalg_fallback"] = sorted(n for n in np.linalg.fallback_linalg.__all__)
    # error messages name the temporary directory: made independent of it
    return json.loads(json.dumps(meta).replace(d, "<dir>")), arrays


def main():
    golden_files.write_run_in_tempdir(run, OUT)


if __name__ == "__main__":
    sys.exit(main())
