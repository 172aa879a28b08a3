"""Goldens of tests/int_math_cases.py on MXNet 1.9.1: run with /work/mxref/bin/python.
Writes tests/goldens/int_math/cases.{json,npz}: for each table, MXNet's output on the
whole grid (one call per table row, so the values are the kernels' elementwise answers)."""
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import golden_files  # noqa: E402
import int_math_cases as C  # noqa: E402


def main():
    mx = golden_files.real_mxnet()
    warnings.simplefilter("ignore")
    arrays, meta = {}, {"unary": C.UNARY, "scalar_ops": C.SCALAR_OPS}
    grid = np.array(C.FLOATS, np.float64)
    for src in C.CAST_FROM:
        x = mx.nd.array(grid.astype(src), dtype=src)
        for to in C.INT_DTYPES:
            arrays[f"cast/{src}/{to}"] = mx.nd.Cast(x, dtype=to).asnumpy()
            assert np.array_equal(x.astype(to).asnumpy(), arrays[f"cast/{src}/{to}"])
    for dt, vals in C.INTS.items():
        a = mx.nd.array(np.array(vals, dt), dtype=dt)
        for op in C.UNARY:
            r = getattr(mx.nd, op)(a)
            assert r.dtype == np.dtype(dt), (op, dt, r.dtype)
            arrays[f"unary/{dt}/{op}"] = r.asnumpy()
        arrays[f"hypot/{dt}"] = mx.nd.broadcast_hypot(
            a.reshape((-1, 1)), a.reshape((1, -1))).asnumpy()
        for op in C.SCALAR_OPS:
            arrays[f"scalar/{dt}/{op}"] = np.stack(
                [getattr(mx.nd._internal, op)(a, scalar=s).asnumpy() for s in C.SCALARS])
    data = mx.nd.arange(C.TAKE_SIZE)
    for src in ("float32", "float64"):
        idx = mx.nd.array(np.array(C.index_grid(), src), dtype=src)
        for mode in ("clip", "wrap"):
            arrays[f"take/{src}/{mode}"] = mx.nd.take(data, idx, mode=mode).asnumpy()
            rows = mx.nd.broadcast_to(data.reshape((1, -1)), (len(C.index_grid()), C.TAKE_SIZE))
            arrays[f"pick/{src}/{mode}"] = mx.nd.pick(rows, idx, axis=1, mode=mode).asnumpy()
    mx.npx.set_np()
    for dt, vals in C.INTS.items():
        a = mx.np.array(np.array(vals, dt), dtype=dt)
        for op in C.NP_UNARY:
            r = getattr(mx.np, op)(a)
            assert r.dtype == np.dtype(dt), (op, dt, r.dtype)
            arrays[f"np_unary/{dt}/{op}"] = r.asnumpy()
    for src in ("float32", "float64"):
        x = mx.np.array(grid.astype(src), dtype=src)
        for to in C.INT_DTYPES:
            arrays[f"np_astype/{src}/{to}"] = x.astype(to).asnumpy()
    try:
        mx.np.hypot(mx.np.array([3, 5], dtype="int32"), mx.np.array([4, 12], dtype="int32"))
    except mx.base.MXNetError as e:
        meta["np_hypot_int"] = [ln for ln in str(e).splitlines() if "Check failed" in ln][0]
    mx.npx.reset_np()
    golden_files.write(os.path.join(HERE, "goldens", "int_math", "cases.json"),
                       os.path.join(HERE, "goldens", "int_math", "cases.npz"), meta, arrays)


if __name__ == "__main__":
    main()
