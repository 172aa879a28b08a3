"""A Horovod MXNet training script, written as Horovod's own Gluon MNIST example is: each
process trains on its shard of the 8x8 digits, the parameters start from rank 0's
(``broadcast_parameters``), ``DistributedTrainer`` sums the gradients, and the accuracy is
averaged over the processes with ``allreduce``.

    python -m xnd launch -n 2 python horovod_mnist.py [--epochs N] [--out-dir DIR]

``--reference`` trains the same network in one process, without Horovod, on the combined
batches of ``--world`` processes: the weights it ends with are the job's (the gradient of a
combined batch is the sum of the shards' gradients).
"""
import argparse
import gzip
import os

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon
from mxnet.gluon import nn

HERE = os.path.dirname(os.path.abspath(__file__))
DIGITS = os.path.join(HERE, os.pardir, "data", "digits.csv.gz")


def load(batches, batch, world):
    """``batches`` combined batches of ``world * batch`` rows of the digits."""
    with gzip.open(DIGITS, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.float32)[:batches * batch * world]
    return table[:, :64].reshape(-1, 1, 8, 8) / 16.0, table[:, 64]


def shard(a, rank, batch, world):
    """Rank ``rank``'s rows: the rank-th ``batch`` rows of every combined batch."""
    steps = len(a) // (batch * world)
    return np.concatenate([a[(s * world + rank) * batch:(s * world + rank + 1) * batch]
                           for s in range(steps)])


def build_net():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(8, kernel_size=3, padding=1, activation="relu"),
                nn.MaxPool2D(pool_size=2, strides=2), nn.Flatten(),
                nn.Dense(32, activation="relu"), nn.Dense(10))
    return net


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=16, help="per process")
    ap.add_argument("--batches", type=int, default=6, help="combined batches per epoch")
    ap.add_argument("--reference", action="store_true")
    ap.add_argument("--world", type=int, default=2, help="processes the reference stands for")
    ap.add_argument("--out-dir", default=None,
                    help="write the final weights to OUT_DIR/rank<r>.npz (reference.npz)")
    args = ap.parse_args()
    if args.reference:
        rank, world, batch = 0, 1, args.batch_size * args.world
    else:
        import horovod.mxnet as hvd
        hvd.init()
        rank, world, batch = hvd.rank(), hvd.size(), args.batch_size
    x, y = load(args.batches, args.batch_size, args.world if args.reference else world)
    if not args.reference:
        x, y = shard(x, rank, batch, world), shard(y, rank, batch, world)
    data = gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=batch)

    mx.random.seed(42 + rank)   # different starting weights: broadcast_parameters aligns them
    net = build_net()
    net.initialize(mx.init.Xavier(), ctx=mx.cpu())
    net(mx.nd.zeros((1, 1, 8, 8)))
    params = net.collect_params()
    opt = {"learning_rate": 0.1, "momentum": 0.9}
    if args.reference:   # rank 0's starting weights: the same seed, the same draws
        trainer = gluon.Trainer(params, "sgd", opt, kvstore=None)
    else:
        hvd.broadcast_parameters(params, root_rank=0)
        trainer = hvd.DistributedTrainer(params, "sgd", opt)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    metric = mx.metric.Accuracy()
    for epoch in range(args.epochs):
        metric.reset()
        for xb, yb in data:
            with autograd.record():
                loss = loss_fn(net(xb), yb)
            loss.backward()
            trainer.step(batch)
            metric.update([yb], [net(xb)])
        acc = mx.nd.array([metric.get()[1]])
        if not args.reference:
            acc = hvd.allreduce(acc, name="acc")
        print("epoch %d: accuracy %.4f" % (epoch, acc.asscalar()), flush=True)
    if args.out_dir:
        name = "reference" if args.reference else "rank%d" % rank
        np.savez(os.path.join(args.out_dir, name + ".npz"),
                 **{k: v.data().asnumpy() for k, v in sorted(params.items())})


if __name__ == "__main__":
    main()
