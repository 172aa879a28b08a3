"""Deterministic parameters for the Gluon pattern scripts: MXNet's and xnd's random streams
differ (docs/porting.md), so parameters and data come from numpy and the checksums agree."""
import numpy as np


def set_params(net, seed):
    """Every parameter of ``net`` from a numpy stream, in name order (gamma 1, beta and biases
    small, weights scaled by fan-in)."""
    rs = np.random.RandomState(seed)
    for name, p in sorted(net.collect_params().items()):
        shape = p.shape
        if name.endswith(("gamma", "running_var")):
            v = np.ones(shape)
        elif name.endswith(("beta", "bias", "running_mean")):
            v = rs.uniform(-0.05, 0.05, shape) if name.endswith("bias") else np.zeros(shape)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
            v = rs.uniform(-1.0, 1.0, shape) * np.sqrt(3.0 / fan_in)
        p.set_data(v.astype(np.float32))


def batch(rs, n, shape, classes):
    return (rs.normal(0, 1, (n,) + shape).astype(np.float32),
            rs.randint(0, classes, n).astype(np.float32))


def train_predict_report(st, net, optimizer_params, seed, shape, classes, train_sizes,
                         predict_sizes, steady_sizes):
    """The pattern scripts' run: SGD training steps on batches of `train_sizes` (stage
    "train"), inference outside ``record`` on `predict_sizes` ("predict"), then steps on
    `steady_sizes` whose median CPU is the steady per-step cost; reports through ``st``
    (a _pattern_timing.Stages) with a checksum of the parameters, losses and predictions."""
    import mxnet as mx
    from mxnet import autograd, gluon, nd
    trainer = gluon.Trainer(net.collect_params(), "sgd", optimizer_params)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rs = np.random.RandomState(seed)

    def step(n):
        x, y = batch(rs, n, shape, classes)
        x, y = nd.array(x), nd.array(y)
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(n)
        return float(loss.mean().asscalar())

    losses = []
    for n in train_sizes:
        with st.call("train"):
            losses.append(step(n))
    preds = []
    for n in predict_sizes:
        with st.call("predict"):
            x, _ = batch(rs, n, shape, classes)
            preds.append(float(net(nd.array(x)).sum().asscalar()))
    steady = []
    for n in steady_sizes:
        with st.call("steady") as c:
            step(n)
        steady.append(c.cpu_s)
    del st.totals["steady"]
    mx.nd.waitall()
    checksum = sum(float(p.data().sum().asscalar()) for p in net.collect_params().values())
    st.report(checksum + sum(losses) + sum(preds), steady)
