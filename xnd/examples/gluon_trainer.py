"""Train a small convolutional network on the 8x8 handwritten digits with Gluon.

A plain MXNet 1.x script (it runs unchanged on MXNet 1.9.1 and on xnd):
HybridSequential, DataLoader over an ArrayDataset, autograd.record, the
Trainer loop, an Accuracy metric, then save_parameters/load_parameters into
a fresh network that must give the same validation accuracy.

    python gluon_trainer.py [--epochs N] [--batch-size B] [--params FILE]
"""
import argparse
import gzip
import os
import tempfile
import time

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon
from mxnet.gluon import nn

HERE = os.path.dirname(os.path.abspath(__file__))
DIGITS = os.path.join(HERE, os.pardir, "data", "digits.csv.gz")


def load_digits(path, num_val=352, seed=0):
    """The 1,797 8x8 digits: (train_x, train_y, val_x, val_y), pixels scaled to [0, 1]."""
    with gzip.open(path, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.float32)
    images = table[:, :64].reshape(-1, 1, 8, 8) / 16.0
    labels = table[:, 64]
    order = np.random.RandomState(seed).permutation(len(labels))
    images, labels = images[order], labels[order]
    return images[num_val:], labels[num_val:], images[:num_val], labels[:num_val]


def build_net():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(channels=16, kernel_size=3, padding=1, activation="relu"),
                nn.MaxPool2D(pool_size=2, strides=2),
                nn.Conv2D(channels=32, kernel_size=3, padding=1, activation="relu"),
                nn.MaxPool2D(pool_size=2, strides=2),
                nn.Flatten(),
                nn.Dense(64, activation="relu"),
                nn.Dense(10))
    return net


def evaluate(net, data_iter, ctx):
    metric = mx.metric.Accuracy()
    for data, label in data_iter:
        output = net(data.as_in_context(ctx))
        metric.update([label.as_in_context(ctx)], [output])
    return metric.get()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--params", default=None,
                        help="parameter file to save and reload (default: in a new temporary folder)")
    parser.add_argument("--data", default=DIGITS, help="digits.csv.gz")
    args = parser.parse_args()

    mx.random.seed(42)
    np.random.seed(42)
    ctx = mx.cpu()
    params_file = args.params or os.path.join(tempfile.mkdtemp(prefix="gluon-"), "digits.params")

    train_x, train_y, val_x, val_y = load_digits(args.data)
    print("digits: %d training and %d validation images of %s"
          % (len(train_y), len(val_y), "x".join(map(str, train_x.shape[1:]))))
    train_data = gluon.data.DataLoader(gluon.data.ArrayDataset(train_x, train_y),
                                       batch_size=args.batch_size, shuffle=True)
    val_data = gluon.data.DataLoader(gluon.data.ArrayDataset(val_x, val_y),
                                     batch_size=args.batch_size, shuffle=False)

    net = build_net()
    net.initialize(mx.init.Xavier(magnitude=2.0), ctx=ctx)
    net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": args.lr, "momentum": 0.9, "wd": 1e-4})

    metric = mx.metric.Accuracy()
    start = time.time()
    for epoch in range(args.epochs):
        if epoch and epoch % 3 == 0:
            trainer.set_learning_rate(trainer.learning_rate * 0.5)
        tic = time.time()
        metric.reset()
        cumulative_loss = 0.0
        for data, label in train_data:
            data = data.as_in_context(ctx)
            label = label.as_in_context(ctx)
            with autograd.record():
                output = net(data)
                loss = loss_fn(output, label)
            loss.backward()
            trainer.step(data.shape[0])
            cumulative_loss += loss.sum().asscalar()
            metric.update([label], [output])
        name, train_acc = metric.get()
        val_acc = evaluate(net, val_data, ctx)
        print("[Epoch %d] loss=%.4f train-%s=%.4f validation-%s=%.4f time=%.2fs"
              % (epoch, cumulative_loss / len(train_y), name, train_acc, name, val_acc,
                 time.time() - tic))
    print("training took %.1f s" % (time.time() - start))

    acc = evaluate(net, val_data, ctx)
    print("validation accuracy: %.4f" % acc)

    net.save_parameters(params_file)
    reloaded = build_net()
    reloaded.load_parameters(params_file, ctx=ctx)
    reloaded.hybridize()
    acc_reloaded = evaluate(reloaded, val_data, ctx)
    print("reloaded %s: validation accuracy %.4f" % (params_file, acc_reloaded))
    if acc != acc_reloaded:
        raise SystemExit("the reloaded network does not give the same accuracy")
    print("checkpoint round trip: same accuracy")


if __name__ == "__main__":
    main()
