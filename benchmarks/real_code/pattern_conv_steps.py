"""Pattern 2 of issue 40's reproducers: twelve training steps of a small hybridized
convolutional net on one batch shape, then two inference batches.  On xnd the first steps run
on cheap tiers and a later one switches to the optimized program (issue 40: one step stalled
1.3 s).  A plain MXNet script: runs on MXNet 1.9.1 and on xnd.  Prints one JSON line
(_pattern_timing.Stages.report)."""
import numpy as np

import mxnet as mx
from mxnet import autograd, gluon, nd

from _pattern_nets import batch, set_params
from _pattern_timing import Stages

BATCH, SHAPE, CLASSES = 16, (1, 28, 28), 10
TRAIN_STEPS, PREDICT_STEPS, STEADY_STEPS = 12, 2, 3


def build():
    nn = gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(8, 3, padding=1, in_channels=1), nn.BatchNorm(in_channels=8),
                nn.Activation("relu"), nn.MaxPool2D(2),
                nn.Conv2D(16, 3, padding=1, in_channels=8), nn.Activation("relu"),
                nn.MaxPool2D(2), nn.Flatten(), nn.Dense(10, in_units=16 * 7 * 7))
    net.initialize(mx.init.Zero())
    set_params(net, 13)
    net.hybridize()
    return net


def main():
    st = Stages("pattern_conv_steps")
    net = build()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05,
                                                          "momentum": 0.9})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rs = np.random.RandomState(3)

    def step():
        x, y = batch(rs, BATCH, SHAPE, CLASSES)
        x, y = nd.array(x), nd.array(y)
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(BATCH)
        return float(loss.mean().asscalar())

    losses = []
    for _ in range(TRAIN_STEPS):
        with st.call("train"):
            losses.append(step())
    preds = []
    for _ in range(PREDICT_STEPS):
        with st.call("predict"):
            x, _ = batch(rs, BATCH, SHAPE, CLASSES)
            preds.append(float(net(nd.array(x)).sum().asscalar()))
    steady = []
    for _ in range(STEADY_STEPS):
        with st.call("steady") as c:
            step()
        steady.append(c.cpu_s)
    del st.totals["steady"]
    mx.nd.waitall()
    checksum = sum(float(p.data().sum().asscalar()) for p in net.collect_params().values())
    st.report(checksum + sum(losses) + sum(preds), steady)


if __name__ == "__main__":
    main()
