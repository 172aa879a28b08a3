"""Golden gradients from real MXNet 1.9.1 for tests/test_tape_pieces.py: a GRU-like cell
written with ``nd`` operators, looped in Python over T time steps under ``autograd.record``
(the tape xnd/autograd/pieces.py splits), for two lengths.

    /work/mxref/bin/python tests/make_tape_pieces_goldens.py

``gru_loop(mx, T, seed, input_grad)`` is written against the MXNet 1.x API only; the test
imports this file and runs the very same function on xnd.  Writes
tests/goldens/tape_pieces/cases.{json,npz}.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

BATCH, IN, HID = 2, 3, 4
CASES = ((10, 1, False), (13, 2, False), (12, 3, True))   # (T, seed, gradient of the input)


def gru_loop(mx, T, seed, input_grad):
    """Gradients of a GRU-like loop's loss: ``[(name, numpy array)]`` in a fixed order."""
    nd, ag = mx.nd, mx.autograd
    rs = np.random.RandomState(seed)
    p = {}
    for g in "zrn":
        p["W" + g] = nd.array(rs.uniform(-0.5, 0.5, (HID, IN)))
        p["U" + g] = nd.array(rs.uniform(-0.5, 0.5, (HID, HID)))
        p["b" + g] = nd.array(rs.uniform(-0.1, 0.1, (HID,)))
    p["Wo"] = nd.array(rs.uniform(-0.5, 0.5, (1, HID)))
    xs = nd.array(rs.normal(0, 1, (T, BATCH, IN)))
    ys = nd.array(rs.normal(0, 1, (BATCH, T)))
    for v in p.values():
        v.attach_grad()
    if input_grad:
        xs.attach_grad()
    with ag.record():
        h = nd.zeros((BATCH, HID))
        outs = []
        for t in range(T):
            x = xs[t]
            z = nd.sigmoid(nd.FullyConnected(x, p["Wz"], p["bz"], num_hidden=HID)
                           + nd.dot(h, p["Uz"], transpose_b=True))
            r = nd.sigmoid(nd.FullyConnected(x, p["Wr"], p["br"], num_hidden=HID)
                           + nd.dot(h, p["Ur"], transpose_b=True))
            n = nd.tanh(nd.FullyConnected(x, p["Wn"], p["bn"], num_hidden=HID)
                        + r * nd.dot(h, p["Un"], transpose_b=True))
            h = (1 - z) * n + z * h
            outs.append(nd.FullyConnected(h, p["Wo"], no_bias=True, num_hidden=1))
        loss = nd.mean(nd.square(nd.concat(*outs, dim=1) - ys))
    loss.backward()
    res = [("loss", loss.asnumpy())] + [(k, p[k].grad.asnumpy()) for k in sorted(p)]
    if input_grad:
        res.append(("xs", xs.grad.asnumpy()))
    return res


def main():
    import golden_files
    mx = golden_files.real_mxnet()
    meta, arrays = {"cases": []}, {}
    for T, seed, input_grad in CASES:
        names = []
        for name, value in gru_loop(mx, T, seed, input_grad):
            key = f"T{T}_s{seed}_{name}"
            arrays[key] = value
            names.append(key)
        meta["cases"].append({"T": T, "seed": seed, "input_grad": input_grad, "arrays": names})
    d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "tape_pieces")
    golden_files.write(os.path.join(d, "cases.json"), os.path.join(d, "cases.npz"), meta, arrays)


if __name__ == "__main__":
    main()
