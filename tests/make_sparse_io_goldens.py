"""Goldens of sparse input/output on MXNet 1.9.1 (tests/test_sparse_io.py):

* ``params``: the bytes ``mx.nd.save`` writes for csr / row_sparse arrays (float32, float64,
  int32, int64; lists and dicts; mixed with dense arrays; empty ones), with the components
  the arrays were made from;
* ``libsvm``: every batch ``mx.io.LibSVMIter`` gives over small LibSVM files (components,
  labels, pad, index) for several epochs, and the errors it raises.

Run: /work/mxref/bin/python tests/make_sparse_io_goldens.py
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402
import iter_sequences  # noqa: E402

mx = golden_files.real_mxnet()
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "sparse_io")

# ---- params ------------------------------------------------------------------------------
# each array: (stype, shape, dtype, dense values as nested lists)
R = np.random.RandomState(7)


def _dense(shape, dtype, density):
    a = R.uniform(-4, 4, shape) * (R.uniform(0, 1, shape) < density)
    if np.dtype(dtype).kind in "iu":
        a = np.round(a)
    return a.astype(dtype)


def _rows(shape, dtype, rows):
    a = np.zeros(shape, dtype)
    a[rows] = _dense((len(rows),) + shape[1:], dtype, 1.0) + 1
    return a


PARAMS = {
    "csr_f32_list": [("csr", _dense((4, 5), "float32", 0.4))],
    "csr_f64_dict": {"x": ("csr", _dense((3, 7), "float64", 0.3))},
    "csr_i32": [("csr", _dense((5, 3), "int32", 0.5))],
    "csr_i64": [("csr", _dense((2, 6), "int64", 0.5))],
    "rsp_f32": [("row_sparse", _rows((6, 3), "float32", [1, 4]))],
    "rsp_f64_dict": {"w": ("row_sparse", _rows((5,), "float64", [0, 2, 3]))},
    "rsp_i64_3d": [("row_sparse", _rows((5, 2, 2), "int64", [0, 3]))],
    "rsp_i32": [("row_sparse", _rows((4, 2), "int32", [3]))],
    "mixed_dict": {"a": ("default", _dense((2, 3), "float32", 1.0)),
                   "b": ("csr", _dense((3, 4), "float64", 0.5)),
                   "c": ("row_sparse", _rows((4, 2), "float32", [0, 2]))},
    "mixed_list": [("row_sparse", _rows((3, 2), "float32", [2])),
                   ("default", _dense((3,), "int32", 1.0)),
                   ("csr", _dense((2, 2), "float32", 0.5))],
    "empty": [("csr", np.zeros((3, 4), "float32")), ("row_sparse", np.zeros((5, 2), "float32"))],
}


def _params(meta, arrays):
    for case, spec in PARAMS.items():
        named = isinstance(spec, dict)
        items = list(spec.items()) if named else list(enumerate(spec))
        made, desc = {}, []
        for key, (stype, dense) in items:
            x = mx.nd.array(dense, dtype=dense.dtype)
            if stype != "default":
                x = x.tostype(stype)
            made[key] = x
            desc.append({"key": key, "stype": stype, "shape": list(dense.shape),
                         "dtype": str(dense.dtype)})
            arrays[f"{case}.{key}.dense"] = dense
            if stype != "default":
                arrays[f"{case}.{key}.data"] = x.data.asnumpy()
                arrays[f"{case}.{key}.indices"] = x.indices.asnumpy()
                if stype == "csr":
                    arrays[f"{case}.{key}.indptr"] = x.indptr.asnumpy()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "f.params")
            mx.nd.save(path, dict(made) if named else [made[k] for k, _ in items])
            with open(path, "rb") as f:
                arrays[f"{case}.params"] = np.frombuffer(f.read(), np.uint8)
            back = mx.nd.load(path)
            vals = back.values() if named else back
            assert [v.stype for v in vals] == [s[0] for _, s in items], case
        meta["params"][case] = {"named": named, "arrays": desc}
    # np-shape semantics refuse sparse arrays
    try:
        with mx.np_shape(True):
            mx.nd.save(os.path.join(tempfile.gettempdir(), "np.params"),
                       [mx.nd.zeros((2, 2)).tostype("csr")])
        meta["np_shape_error"] = None
    except mx.base.MXNetError as e:
        meta["np_shape_error"] = str(e).strip().splitlines()[-1]


# ---- LibSVMIter --------------------------------------------------------------------------
FILES = {
    "d.t": "1.0 0:0.5 2:1.2\n-2.0\n-3.0 0:0.6 1:2.4 2:1.2\n4 2:-1.2\n5 1:3\n",
    "label.t": "1.0\n-2.0 0:0.125\n-3.0 2:1.2\n4 1:1.0 2:-1.2\n0 0:2\n",
    "odd.t": "1:0.5 0:1 1:2\n3 qid:4 2:1\n\n  \n2.5 1:1e-3 0:7\r\n-1 3:4\n",
    "neg.t": "1.0 0:0.5\n-3.0 -1:0.6 1:2.4\n",
    "long.t": "".join("%d %s\n" % (i % 3, " ".join("%d:%g" % (j, (i * 7 + j) % 5 - 2)
                                                  for j in range(i % 4, 9, 1 + i % 3)))
                    for i in range(23)),
}
LIBSVM = {
    "b3": dict(data_libsvm="d.t", data_shape=(3,), batch_size=3),
    "b2": dict(data_libsvm="d.t", data_shape=(3,), batch_size=2),
    "b5": dict(data_libsvm="d.t", data_shape=(3,), batch_size=5),
    "b7": dict(data_libsvm="d.t", data_shape=(3,), batch_size=7),
    "label_file": dict(data_libsvm="d.t", data_shape=(3,), label_libsvm="label.t",
                       label_shape=(3,), batch_size=3),
    "odd": dict(data_libsvm="odd.t", data_shape=(4,), batch_size=2),
    "str_args": dict(data_libsvm="d.t", data_shape="(3,)", batch_size="2", round_batch="True"),
    "part0of2": dict(data_libsvm="d.t", data_shape=(3,), batch_size=2, num_parts=2, part_index=0),
    "part1of2": dict(data_libsvm="d.t", data_shape=(3,), batch_size=2, num_parts=2, part_index=1),
    "long_p0of3": dict(data_libsvm="long.t", data_shape=(9,), batch_size=4, num_parts=3,
                       part_index=0),
    "long_p1of3": dict(data_libsvm="long.t", data_shape=(9,), batch_size=4, num_parts=3,
                       part_index=1),
    "long_p2of3": dict(data_libsvm="long.t", data_shape=(9,), batch_size=4, num_parts=3,
                       part_index=2),
    "long_b6": dict(data_libsvm="long.t", data_shape=(9,), batch_size=6),
}
ERRORS = {
    "neg_index": dict(data_libsvm="neg.t", data_shape=(3,), batch_size=2),
    "data_shape_2d": dict(data_libsvm="d.t", data_shape=(3, 2), batch_size=2),
    "label_shape_1": dict(data_libsvm="d.t", data_shape=(3,), label_libsvm="label.t",
                          label_shape=(1,), batch_size=2),
    "label_shape_no_file": dict(data_libsvm="d.t", data_shape=(3,), label_shape=(2,),
                                batch_size=2),
    "num_parts_0": dict(data_libsvm="d.t", data_shape=(3,), batch_size=2, num_parts=0),
    "round_batch_false": dict(data_libsvm="d.t", data_shape=(3,), batch_size=2,
                              round_batch=False),
    "batch_too_big": dict(data_libsvm="d.t", data_shape=(3,), batch_size=11),
}
EPOCHS = 3
# reset()/iteration sequences: "R" resets, "E" reads batches until the end (their indices);
# "N<k>" reads k batches. MXNet's prefetcher reads ahead, so where a reset leaves the loader
# depends on how far the read-ahead got (Module.score resets a fresh iterator).
SEQUENCES = {
    "d_b3": (dict(data_libsvm="d.t", data_shape=(3,), batch_size=3), "R E R R E R E E R E"),
    "d_b2": (dict(data_libsvm="d.t", data_shape=(3,), batch_size=2), "R E R E N1 R E"),
    "long_b4": (dict(data_libsvm="long.t", data_shape=(9,), batch_size=4), "R E R E N2 R E E"),
    "long_b3_buf1": (dict(data_libsvm="long.t", data_shape=(9,), batch_size=3,
                          prefetch_buffer=1), "R E N2 R E R E"),
    "long_b5_buf2": (dict(data_libsvm="long.t", data_shape=(9,), batch_size=5,
                          prefetch_buffer=2), "N1 R E R E N3 R E"),
}


def _components(prefix, x, arrays):
    if x.stype == "csr":
        arrays[prefix + ".indptr"] = x.indptr.asnumpy()
        arrays[prefix + ".indices"] = x.indices.asnumpy()
        arrays[prefix + ".data"] = x.data.asnumpy()
    else:
        arrays[prefix + ".dense"] = x.asnumpy()


def _last_line(e):
    return [ln for ln in str(e).strip().splitlines() if ln.strip()][-1]


def _libsvm(meta, arrays):
    with tempfile.TemporaryDirectory() as d:
        for name, text in FILES.items():
            with open(os.path.join(d, name), "w", newline="") as f:
                f.write(text)

        def make(kw):
            kw = dict(kw)
            for k in ("data_libsvm", "label_libsvm"):
                if k in kw:
                    kw[k] = os.path.join(d, kw[k])
            return mx.io.LibSVMIter(**kw)

        for case, kw in LIBSVM.items():
            it = make(kw)
            info = {"kwargs": {k: list(v) if isinstance(v, tuple) else v for k, v in kw.items()},
                    "provide_data": [[x.name, list(x.shape)] for x in it.provide_data],
                    "provide_label": [[x.name, list(x.shape)] for x in it.provide_label],
                    "epochs": []}
            info["error"] = None
            for ep in range(EPOCHS):
                batches = []
                info["epochs"].append(batches)
                try:
                    for i, b in enumerate(it):
                        p = f"{case}.{ep}.{i}"
                        _components(p + ".x", b.data[0], arrays)
                        _components(p + ".y", b.label[0], arrays)
                        arrays[p + ".index"] = np.asarray(b.index)
                        batches.append({"pad": int(b.pad), "data_stype": b.data[0].stype,
                                        "label_stype": b.label[0].stype,
                                        "shapes": [list(b.data[0].shape),
                                                   list(b.label[0].shape)]})
                except mx.base.MXNetError as e:   # a wrap-around needing more rows than exist
                    info["error"] = _last_line(e)
                    break
                it.reset()
            meta["libsvm"][case] = info
        for case, (kw, ops) in SEQUENCES.items():
            it = make(kw)  # held until the next case's is made, as the goldens were written
            meta["libsvm_sequences"][case] = {
                "kwargs": {k: list(v) if isinstance(v, tuple) else v for k, v in kw.items()},
                "ops": ops, "indices": iter_sequences.replay(it, ops)}
        for case, kw in ERRORS.items():
            try:
                it = make(kw)
                for b in it:
                    b.data[0].asnumpy()
                meta["libsvm_errors"][case] = {"kwargs": kw, "error": None}
            except mx.base.MXNetError as e:
                meta["libsvm_errors"][case] = {
                    "kwargs": {k: list(v) if isinstance(v, tuple) else v for k, v in kw.items()},
                    "error": _last_line(e)}
    meta["files"] = FILES


def main():
    meta = {"params": {}, "libsvm": {}, "libsvm_errors": {}, "libsvm_sequences": {}}
    arrays = {}
    _params(meta, arrays)
    _libsvm(meta, arrays)
    golden_files.write(os.path.join(OUT, "cases.json"), os.path.join(OUT, "cases.npz"),
                       meta, arrays)


if __name__ == "__main__":
    main()
