"""Train a LeNet-like network on the 8x8 handwritten digits with the Module API.

A plain MXNet 1.x script (it runs unchanged on MXNet 1.9.1 and on xnd):
symbol graph, NDArrayIter, Module.fit with a Speedometer and a checkpoint per
epoch, validation accuracy, then the checkpoint reloaded twice (through
mx.model.load_checkpoint and through Module.load) and scored again.

    python lenet_module.py [--epochs N] [--batch-size B] [--model-prefix PREFIX]
"""
import argparse
import gzip
import logging
import os
import tempfile
import time

import mxnet as mx
import numpy as np

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


def lenet():
    data = mx.sym.Variable("data")
    conv1 = mx.sym.Convolution(data=data, kernel=(3, 3), pad=(1, 1), num_filter=16, name="conv1")
    act1 = mx.sym.Activation(data=conv1, act_type="relu", name="relu1")
    pool1 = mx.sym.Pooling(data=act1, pool_type="max", kernel=(2, 2), stride=(2, 2), name="pool1")
    conv2 = mx.sym.Convolution(data=pool1, kernel=(3, 3), pad=(1, 1), num_filter=32, name="conv2")
    act2 = mx.sym.Activation(data=conv2, act_type="relu", name="relu2")
    pool2 = mx.sym.Pooling(data=act2, pool_type="max", kernel=(2, 2), stride=(2, 2), name="pool2")
    flat = mx.sym.Flatten(data=pool2, name="flatten")
    fc1 = mx.sym.FullyConnected(data=flat, num_hidden=64, name="fc1")
    act3 = mx.sym.Activation(data=fc1, act_type="relu", name="relu3")
    fc2 = mx.sym.FullyConnected(data=act3, num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(data=fc2, name="softmax")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--model-prefix", default=None,
                        help="checkpoint prefix (default: a new temporary folder)")
    parser.add_argument("--data", default=DIGITS, help="digits.csv.gz")
    args = parser.parse_args()

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    mx.random.seed(42)
    np.random.seed(42)
    prefix = args.model_prefix or os.path.join(tempfile.mkdtemp(prefix="lenet-"), "lenet")
    if os.path.dirname(prefix):
        os.makedirs(os.path.dirname(prefix), exist_ok=True)

    train_x, train_y, val_x, val_y = load_digits(args.data)
    print("digits: %d training and %d validation images of %s"
          % (len(train_y), len(val_y), "x".join(map(str, train_x.shape[1:]))))
    train_iter = mx.io.NDArrayIter(train_x, train_y, args.batch_size, shuffle=True)
    val_iter = mx.io.NDArrayIter(val_x, val_y, args.batch_size)

    net = lenet()
    steps_per_epoch = (len(train_y) + args.batch_size - 1) // args.batch_size
    mod = mx.mod.Module(symbol=net, context=mx.cpu(), data_names=["data"],
                        label_names=["softmax_label"])
    tic = time.time()
    mod.fit(train_iter,
            eval_data=val_iter,
            optimizer="sgd",
            optimizer_params={"momentum": 0.9, "wd": 1e-4,
                              "lr_scheduler": mx.lr_scheduler.FactorScheduler(
                                  step=3 * steps_per_epoch, factor=0.5, base_lr=args.lr)},
            initializer=mx.init.Xavier(magnitude=2.0),
            eval_metric="acc",
            batch_end_callback=mx.callback.Speedometer(args.batch_size, 10),
            epoch_end_callback=mx.callback.do_checkpoint(prefix),
            num_epoch=args.epochs)
    print("training took %.1f s" % (time.time() - tic))

    acc = mod.score(val_iter, mx.metric.Accuracy())[0][1]
    print("validation accuracy: %.4f" % acc)

    # Reload the last checkpoint: the symbol and parameters as files on disk.
    sym, arg_params, aux_params = mx.model.load_checkpoint(prefix, args.epochs)
    reloaded = mx.mod.Module(symbol=sym, context=mx.cpu(), label_names=["softmax_label"])
    reloaded.bind(for_training=False, data_shapes=val_iter.provide_data,
                  label_shapes=val_iter.provide_label)
    reloaded.set_params(arg_params, aux_params)
    acc_ckpt = reloaded.score(val_iter, mx.metric.Accuracy())[0][1]
    print("reloaded %s-symbol.json and %s-%04d.params: validation accuracy %.4f"
          % (prefix, prefix, args.epochs, acc_ckpt))

    loaded = mx.mod.Module.load(prefix, args.epochs, context=mx.cpu())
    loaded.bind(for_training=False, data_shapes=val_iter.provide_data,
                label_shapes=val_iter.provide_label)
    acc_load = loaded.score(val_iter, "acc")[0][1]
    print("Module.load(%r, %d): validation accuracy %.4f" % (prefix, args.epochs, acc_load))

    if not acc == acc_ckpt == acc_load:
        raise SystemExit("the reloaded model does not give the same accuracy")
    print("checkpoint round trip: same accuracy")


if __name__ == "__main__":
    main()
