"""Goldens from real MXNet 1.9.1 for the keyword arguments of the C++ iterators
(MNISTIter, CSVIter), for tests/test_io_kwargs.py.

    /work/mxref/bin/python tests/make_io_kwargs_goldens.py

MXNet passes every keyword as ``str(value)`` and parses it against the iterator's declared
parameters: strings such as ``'True'``/``'3'``/``'(3,)'`` work, a bad value of a declared
parameter is an MXNetError naming it, and an undeclared keyword has no effect. Each case is
``(kwargs, must_contain)``: the iterator is built from the files ``write_files`` makes and
read for one epoch; for an error case ``must_contain`` is a piece of the message that both
MXNet's and xnd's must hold. Writes ``tests/goldens/io_kwargs/cases.json``.
"""
import json
import os
import struct
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "goldens", "io_kwargs", "cases.json")
N = 10

MNIST = {
    "extra_keywords": ({"data_shape": (784,), "input_shape": (1, 28, 28), "mean_r": 3,
                        "rand_crop": True, "path_imgrec": "x.rec", "foo": 1}, None),
    "string_values": ({"shuffle": "False", "flat": "True", "batch_size": "4", "silent": "1",
                       "seed": "5", "prefetch_buffer": "2", "ctx": "cpu"}, None),
    "part_0_of_3": ({"num_parts": 3, "part_index": 0}, None),
    "part_1_of_3": ({"num_parts": 3, "part_index": 1}, None),
    "part_2_of_3": ({"num_parts": 3, "part_index": 2}, None),
    "part_1_of_4": ({"num_parts": 4, "part_index": 1, "batch_size": 1}, None),
    "names": ({"data_name": "pixels", "label_name": "digit"}, None),
    "bad_bool": ({"shuffle": "maybe"},
                 "Invalid Parameter format for shuffle expect boolean but value='maybe'"),
    "bad_int": ({"seed": 1.5}, "Invalid Parameter format for seed expect int but value='1.5'"),
    "bad_batch": ({"batch_size": "abc"},
                  "Invalid Parameter format for batch_size expect int but value='abc'"),
    "bad_prefetch": ({"prefetch_buffer": "x"}, "Invalid Parameter format for prefetch_buffer "
                                               "expect long (non-negative) but value='x'"),
    "bad_ctx": ({"ctx": "tpu"}, "Invalid Input: 'tpu', valid values are: {'cpu', 'gpu'}"),
    "bad_dtype": ({"dtype": "float17"}, "Invalid Input: 'float17'"),
    "bad_part": ({"num_parts": 3, "part_index": 3}, "num_parts"),
    "zero_batch": ({"batch_size": 0}, "batch_size"),
}
CSV = {
    "extra_keywords": ({"num_parts": 3, "part_index": 1, "shuffle": True, "seed": 3,
                        "silent": 1, "preprocess_threads": 2, "flat": True, "foo": "bar"},
                       None),
    "string_shape": ({"data_shape": "(3,)", "batch_size": "2", "round_batch": "False"}, None),
    "int_dtype": ({"dtype": "int32"}, None),
    "bad_shape": ({"data_shape": "abc"},
                  "Invalid Parameter format for data_shape expect Shape(tuple) but value='abc'"),
    "bad_dtype": ({"dtype": "float64"}, "float64 is not supported for CSVIter"),
    "bad_round": ({"round_batch": "no"},
                  "Invalid Parameter format for round_batch expect boolean but value='no'"),
}


def write_files(d):
    imgs = (np.arange(N * 28 * 28) % 253).astype(np.uint8).reshape(N, 28, 28)
    with open(os.path.join(d, "img"), "wb") as f:
        f.write(struct.pack(">iiii", 2051, N, 28, 28) + imgs.tobytes())
    with open(os.path.join(d, "lab"), "wb") as f:
        f.write(struct.pack(">ii", 2049, N) + np.arange(N, dtype=np.uint8).tobytes())
    with open(os.path.join(d, "x.csv"), "w") as f:
        f.write("".join("%d,%d,%d\n" % (3 * i, 3 * i + 1, 3 * i + 2) for i in range(5)))


def build(mx, kind, d, kwargs):
    if kind == "mnist":
        base = {"image": os.path.join(d, "img"), "label": os.path.join(d, "lab"),
                "batch_size": 3, "shuffle": False, "silent": True}
        return mx.io.MNISTIter(**dict(base, **kwargs))
    base = {"data_csv": os.path.join(d, "x.csv"), "data_shape": (3,), "batch_size": 2}
    return mx.io.CSVIter(**dict(base, **kwargs))


def run(mx, kind, d, kwargs):
    """``{"provide_data", "provide_label", "batches": [[data sum, labels, pad, dtype, label dtype]]}``,
    or ``{"error": class name, "message": last line}``."""
    try:
        it = build(mx, kind, d, kwargs)
        out = {"provide_data": [[x.name, list(x.shape), np.dtype(x.dtype).name]
                                for x in it.provide_data],
               "provide_label": [[x.name, list(x.shape), np.dtype(x.dtype).name]
                                 for x in it.provide_label],
               "batches": []}
        for b in it:
            data, label = b.data[0].asnumpy(), b.label[0].asnumpy()
            out["batches"].append([float(data.astype(np.float64).sum()), label.tolist(),
                                   int(b.pad), str(data.dtype), str(label.dtype)])
        return out
    except Exception as e:  # noqa: BLE001 - the error is the golden
        lines = [ln for ln in str(e).strip().splitlines() if ln.strip()]
        return {"error": type(e).__name__, "message": lines[-1] if lines else ""}


def main():
    import mxnet as mx
    out = {}
    with tempfile.TemporaryDirectory() as d:
        write_files(d)
        for kind, cases in (("mnist", MNIST), ("csv", CSV)):
            for name, (kwargs, must) in cases.items():
                res = run(mx, kind, d, kwargs)
                if must is not None:
                    assert res.get("error") == "MXNetError" and must in res["message"], res
                else:
                    assert "error" not in res, (name, res)
                out["%s/%s" % (kind, name)] = res
    os.makedirs(os.path.dirname(GOLDEN), exist_ok=True)
    with open(GOLDEN, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", GOLDEN, file=sys.stderr)


if __name__ == "__main__":
    main()
