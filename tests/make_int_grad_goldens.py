"""Goldens for tests/test_int_grad.py: MXNet 1.9.1's gradients of integer arrays (computed
in the array's dtype, truncated where a float is cast back). Run:
/work/mxref/bin/python tests/make_int_grad_goldens.py
"""
import os

import numpy as np

from golden_files import real_mxnet, write

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "goldens", "int_grad")


def cases(mx):
    nd = mx.nd
    idx = lambda: nd.array([1, 0], dtype="int32")
    return {
        "mul_scalar_sum": lambda a: (a * 2).sum(),
        "square_sum": lambda a: (a * a).sum(),
        "slice": lambda a: a[1:],
        "take": lambda a: nd.take(a, idx()),
        "cast_float_scale": lambda a: a.astype("float32") * 1.5,
        "div_scalar": lambda a: a / 2,
        "reshape_plus": lambda a: a.reshape((3, 2)) + 1,
        "exp": lambda a: nd.exp(a),
        "boolean_mask_sum": lambda a: nd.contrib.boolean_mask(a, nd.array([0, 1])).sum(),
        "two_masks_add": lambda a: (nd.contrib.boolean_mask(a, nd.array([1, 1])).sum()
                                    + nd.contrib.boolean_mask(a, nd.array([0, 1])).sum()),
    }


def grad_of(mx, fn, req="write", steps=1):
    a = mx.nd.array([[1, 2, 3], [4, 5, 6]], dtype="int32")
    a.attach_grad(grad_req=req)
    for _ in range(steps):
        with mx.autograd.record():
            y = fn(a)
        y.backward()
    return a.grad.asnumpy()


def main():
    mx = real_mxnet()
    arrays = {}
    for name, fn in cases(mx).items():
        arrays[name] = grad_of(mx, fn)
    arrays["two_masks_add_req_add_3"] = grad_of(mx, cases(mx)["two_masks_add"], "add", 3)
    write(os.path.join(OUT, "cases.json"), os.path.join(OUT, "cases.npz"),
          {"cases": sorted(cases(mx))}, arrays)


if __name__ == "__main__":
    main()
