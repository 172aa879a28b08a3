"""Pattern 3 of issue 40: a hybridized MLP trained on batches of sizes 32, 17, 5, 9 (a
dataset's last batch is another size), then inference outside ``record`` on four sizes it has
not seen.  A plain MXNet script: runs on MXNet 1.9.1 and on xnd.  Prints one JSON line
(_pattern_timing.Stages.report)."""
import numpy as np

import mxnet as mx
from mxnet import autograd, gluon, nd

from _pattern_nets import batch, set_params
from _pattern_timing import Stages

FEATURES, CLASSES = 64, 10
TRAIN_SIZES = (32, 17, 5, 9)
PREDICT_SIZES = (3, 12, 25, 50)
STEADY_SIZES = (32, 32, 32)


def build():
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(gluon.nn.Dense(128, activation="relu", in_units=FEATURES),
                gluon.nn.Dense(64, activation="relu", in_units=128),
                gluon.nn.Dense(CLASSES, in_units=64))
    net.initialize(mx.init.Zero())
    set_params(net, 11)
    net.hybridize()
    return net


def main():
    st = Stages("pattern_batch_sizes")
    net = build()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rs = np.random.RandomState(5)

    def step(n):
        x, y = batch(rs, n, (FEATURES,), CLASSES)
        x, y = nd.array(x), nd.array(y)
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(n)
        return float(loss.mean().asscalar())

    losses = []
    for n in TRAIN_SIZES:
        with st.call("train"):
            losses.append(step(n))
    preds = []
    for n in PREDICT_SIZES:
        with st.call("predict"):
            x, _ = batch(rs, n, (FEATURES,), CLASSES)
            preds.append(float(net(nd.array(x)).sum().asscalar()))
    steady = []
    for n in STEADY_SIZES:
        with st.call("steady") as c:
            step(n)
        steady.append(c.cpu_s)
    del st.totals["steady"]
    mx.nd.waitall()
    checksum = sum(float(p.data().sum().asscalar()) for p in net.collect_params().values())
    st.report(checksum + sum(losses) + sum(preds), steady)


if __name__ == "__main__":
    main()
