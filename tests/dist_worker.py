"""One process of tests/test_dist_kvstore.py: ``python dist_worker.py OUTDIR [reference]``.

As a worker (the DMLC_* variables set as MXNet's launcher sets them) it
(a) checks rank, num_workers, init (worker 0's values), push/pull sums and an optimizer on
    the store, and writes what it saw;
(b) trains an MLP with Module.fit, kvstore='dist_sync', on its shard of the batches;
(c) trains the same MLP with a gluon Trainer, kvstore='dist_sync';
then writes its parameters to OUTDIR/worker<rank>.npz. With ``reference`` (no DMLC_*
variables) it trains (b) and (c) in one process on the combined batches and writes
OUTDIR/reference.npz. The script runs unchanged on MXNet 1.9.1 (the oracle).
"""
import os
import sys

import numpy as np

try:                      # xnd's python: `import mxnet` is xnd
    from xnd import compat as _compat
    _compat.alias_mxnet()
except ImportError:       # MXNet's python (the oracle)
    pass
import mxnet as mx  # noqa: E402

NW = 2            # workers of the test
B = 4             # batch size per worker
STEPS = 3         # batches per epoch
EPOCHS = 2
IN, HID, OUT = 6, 8, 3


def dataset():
    rng = np.random.RandomState(7)
    x = rng.randn(STEPS * NW * B, IN).astype(np.float32)
    y = rng.randint(0, OUT, size=STEPS * NW * B).astype(np.float32)
    return x, y


def shard(a, rank):
    """Worker ``rank``'s part: the rank-th B rows of each combined batch of NW*B rows."""
    return np.concatenate([a[(s * NW + rank) * B:(s * NW + rank + 1) * B] for s in range(STEPS)])


def check_kv(kv, out):
    r, n = kv.rank, kv.num_workers
    assert n == NW, n
    if hasattr(mx, "xnd_version"):   # xnd: the launcher's worker id (MXNet: arrival order)
        assert r == int(os.environ.get("DMLC_WORKER_ID", os.environ.get("DMLC_TASK_ID"))), r
    assert kv.type == "dist_sync"
    shape = (2, 3)
    kv.init(3, mx.nd.ones(shape) * (r + 1))          # worker 0's value wins
    o = mx.nd.zeros(shape)
    kv.pull(3, out=o)
    out["kv_init"] = o.asnumpy()
    kv.push(3, mx.nd.ones(shape) * (r + 1))          # 1 + 2
    kv.pull(3, out=o)
    out["kv_push"] = o.asnumpy()
    kv.push(3, [mx.nd.ones(shape) * (r + 1), mx.nd.ones(shape) * 10 * (r + 1)])  # 11 + 22
    outs = [mx.nd.zeros(shape), mx.nd.zeros(shape)]
    kv.pull(3, out=outs)
    out["kv_push_list"] = outs[1].asnumpy()
    a = mx.nd.arange(6).reshape(shape) * (r + 1)
    kv.pushpull(3, a, out=o)                          # 3 * arange
    out["kv_pushpull"] = o.asnumpy()
    # several keys in one call
    kv.init([5, 6], [mx.nd.ones((4,)) * (r + 5), mx.nd.ones((1,)) * (r + 6)])
    o5, o6 = mx.nd.zeros((4,)), mx.nd.zeros((1,))
    kv.pull([5, 6], out=[o5, o6])
    out["kv_multi_init"] = np.concatenate([o5.asnumpy(), o6.asnumpy()])
    kv.push([5, 6], [mx.nd.ones((4,)) * (r + 1), mx.nd.ones((1,)) * 100 * (r + 1)])
    kv.pull([5, 6], out=[o5, o6])
    out["kv_multi_push"] = np.concatenate([o5.asnumpy(), o6.asnumpy()])
    kv._barrier()
    # an optimizer on the store: updates with the sum of the workers' gradients
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.5))
    kv.init(7, mx.nd.ones((3,)) * (r + 1))
    w = mx.nd.zeros((3,))
    for _ in range(2):
        kv.push(7, mx.nd.array([1.0, 2.0, 3.0]) * (r + 1))
        kv.pull(7, out=w)
    out["kv_sgd"] = w.asnumpy()


def mlp_symbol():
    d = mx.sym.Variable("data")
    h = mx.sym.Activation(mx.sym.FullyConnected(d, num_hidden=HID, name="fc1"), act_type="relu")
    o = mx.sym.FullyConnected(h, num_hidden=OUT, name="fc2")
    return mx.sym.SoftmaxOutput(o, name="softmax")


def train_module(x, y, batch, kvstore, seed):
    mx.random.seed(seed)
    it = mx.io.NDArrayIter(x, y, batch_size=batch, shuffle=False, label_name="softmax_label")
    mod = mx.mod.Module(mlp_symbol(), context=mx.cpu())
    mod.fit(it, num_epoch=EPOCHS, kvstore=kvstore, optimizer="sgd",
            optimizer_params={"learning_rate": 0.5, "momentum": 0.9, "wd": 1e-3},
            initializer=mx.init.Xavier(magnitude=2.0), eval_metric="acc")
    arg, aux = mod.get_params()
    return {"mod_" + k: v.asnumpy() for k, v in arg.items()}


def train_gluon(x, y, batch, kvstore, seed):
    from mxnet import autograd, gluon
    mx.random.seed(seed)
    net = gluon.nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(gluon.nn.Dense(HID, activation="relu", in_units=IN))
        net.add(gluon.nn.Dense(OUT, in_units=HID))
    net.initialize(mx.init.Xavier(magnitude=2.0))
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": 0.2, "momentum": 0.9}, kvstore=kvstore)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    def step(xb, yb, scale=1.0):
        with autograd.record():
            loss = loss_fn(net(mx.nd.array(xb)), mx.nd.array(yb)) * scale
        loss.backward()
        trainer.step(B)          # MXNet: the workers' summed gradients, scaled by 1/B

    # a zero gradient first: the trainer's first step takes worker 0's parameters (the
    # workers start from different ones) and changes nothing else
    step(x[:batch], y[:batch], 0.0)
    for _ in range(EPOCHS):
        for s in range(STEPS):
            step(x[s * batch:(s + 1) * batch], y[s * batch:(s + 1) * batch])
    return {"gluon_" + k: v.data().asnumpy() for k, v in net.collect_params().items()}


def main():
    outdir = sys.argv[1]
    what = sys.argv[2] if len(sys.argv) > 2 else "kv,module,gluon"
    x, y = dataset()
    out = {}
    if what == "reference":
        out.update(train_module(x, y, NW * B, "local", seed=1))
        out.update(train_gluon(x, y, NW * B, "local", seed=1))
        np.savez(os.path.join(outdir, "reference.npz"), **out)
        return
    # MXNet 1.9.1 hangs when a process creates a second dist kvstore, so the oracle runs one
    # section per launch; xnd runs all three in one (a store per section)
    sections = what.split(",")
    rank = None
    for sec in sections:
        kv = mx.kv.create("dist_sync")
        rank = kv.rank
        xs, ys = shard(x, rank), shard(y, rank)
        if sec == "kv":
            check_kv(kv, out)
        elif sec == "module":   # different seeds: the parameters must be worker 0's (seed 1)
            out.update(train_module(xs, ys, B, kv, seed=rank + 1))
        elif sec == "gluon":
            out.update(train_gluon(xs, ys, B, kv, seed=rank + 1))
        kv._barrier()
    np.savez(os.path.join(outdir, "worker%d_%s.npz" % (rank, "_".join(sections))), **out)
    print("worker %d done" % rank, flush=True)


if __name__ == "__main__":
    main()
