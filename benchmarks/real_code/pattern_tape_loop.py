"""Pattern 1 of issue 40: a GRU-like cell written in Python, run over 60-80 time steps under
``autograd.record``; six training steps of varying length, then a forward outside ``record``
on lengths seen and unseen.  A plain MXNet script: runs on MXNet 1.9.1 and on xnd.

On MXNet each operator and its backward are ready kernels; a tape of a few thousand operators
is what a non-hybridized RNN (GluonTS DeepAR) records per batch.  Prints one JSON line
(_pattern_timing.Stages.report)."""
import numpy as np

import mxnet as mx
from mxnet import autograd, nd

from _pattern_timing import Stages

BATCH, IN, HID = 8, 16, 32
TRAIN_LENGTHS = (60, 72, 65, 80, 61, 77)
PREDICT_LENGTHS = (60, 70, 80, 66)
STEADY_LENGTHS = (72, 72, 72)
LR = 0.05


def params():
    rs = np.random.RandomState(7)
    p = {}
    for g in "zrn":
        p["W" + g] = nd.array(rs.uniform(-0.3, 0.3, (HID, IN)))
        p["U" + g] = nd.array(rs.uniform(-0.3, 0.3, (HID, HID)))
        p["b" + g] = nd.zeros((HID,))
    p["Wo"] = nd.array(rs.uniform(-0.3, 0.3, (1, HID)))
    for v in p.values():
        v.attach_grad()
    return p


def cell(p, x, h):
    """One GRU-like step from elementary operators (FullyConnected, dot, sigmoid, tanh, *, +)."""
    z = nd.sigmoid(nd.FullyConnected(x, p["Wz"], p["bz"], num_hidden=HID)
                   + nd.dot(h, p["Uz"], transpose_b=True))
    r = nd.sigmoid(nd.FullyConnected(x, p["Wr"], p["br"], num_hidden=HID)
                   + nd.dot(h, p["Ur"], transpose_b=True))
    n = nd.tanh(nd.FullyConnected(x, p["Wn"], p["bn"], num_hidden=HID)
                + r * nd.dot(h, p["Un"], transpose_b=True))
    return (1 - z) * n + z * h


def forward(p, xs):
    h = nd.zeros((BATCH, HID))
    outs = []
    for t in range(xs.shape[0]):
        h = cell(p, xs[t], h)
        outs.append(nd.FullyConnected(h, p["Wo"], no_bias=True, num_hidden=1))
    return nd.concat(*outs, dim=1)


def data(length, seed):
    # numpy draws: MXNet's and xnd's random streams differ (docs/porting.md), the checksum not
    rs = np.random.RandomState(seed)
    return (nd.array(rs.normal(0, 1, (length, BATCH, IN))),
            nd.array(rs.normal(0, 1, (BATCH, length))))


def train_step(p, length, seed):
    xs, ys = data(length, seed)
    with autograd.record():
        loss = nd.mean(nd.square(forward(p, xs) - ys))
    loss.backward()
    for v in p.values():
        nd.sgd_update(v, v.grad, lr=LR, out=v)
    return loss.asscalar()


def main():
    st = Stages("pattern_tape_loop")
    p = params()
    losses = []
    for i, length in enumerate(TRAIN_LENGTHS):
        with st.call("train"):
            losses.append(train_step(p, length, 100 + i))
    preds = []
    for i, length in enumerate(PREDICT_LENGTHS):
        with st.call("predict"):
            xs, _ = data(length, 200 + i)
            preds.append(float(forward(p, xs).sum().asscalar()))
            mx.nd.waitall()
    steady = []
    for i, length in enumerate(STEADY_LENGTHS):
        with st.call("steady") as c:
            train_step(p, length, 300 + i)
        steady.append(c.cpu_s)
    del st.totals["steady"]
    checksum = sum(float(v.sum().asscalar()) for v in p.values()) + sum(losses) + sum(preds)
    st.report(checksum, steady)


if __name__ == "__main__":
    main()
