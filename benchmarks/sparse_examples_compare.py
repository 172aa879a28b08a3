"""Train MXNet's example/sparse models (linear_classification, matrix_factorization) with the
examples' own model code and training loop, but with the same initial parameters on every
implementation (a seeded numpy draw instead of MXNet's RNG), so the numbers of xnd and of
MXNet 1.9.1 can be compared (issue 42). The examples themselves run unchanged; this only
removes the one thing that differs by design, the random initialisation.

Usage (from a directory made by benchmarks/sparse_example_data.py):
  python benchmarks/sparse_examples_compare.py {lc,mf} EXAMPLE_DIR [--epochs 2] > out.json
EXAMPLE_DIR holds the example's .py files (git show 1.9.1:example/sparse/...; not committed).
"""
import argparse
import json
import logging
import os
import sys

import numpy as np

import mxnet as mx


def _init(mod, seed=0):
    """Every parameter drawn from numpy (N(0, 0.01)), the same on every implementation."""
    mod.init_params()
    arg, aux = mod.get_params()
    rng = np.random.RandomState(seed)
    new = {}
    for k in sorted(arg):
        v = arg[k]
        new[k] = mx.nd.array(rng.normal(0, 0.1, v.shape).astype(np.float32)).tostype(v.stype)
    mod.set_params(new, aux, force_init=True)


def _summary(mod):
    arg, _ = mod.get_params()
    out = {}
    for k in sorted(arg):
        a = arg[k].asnumpy().astype(np.float64)
        out[k] = {"sum": float(a.sum()), "sumsq": float((a * a).sum()),
                  "nonzero_rows": int((a.reshape(a.shape[0], -1) != 0).any(1).sum())}
    return out


def linear_classification(d, epochs, batch_size=100):
    import linear_model  # noqa: F401  (registers the example's custom loss)
    nf = 1000001
    train = mx.io.LibSVMIter(data_libsvm="data/avazu-app", data_shape=(nf,), batch_size=batch_size)
    val = mx.io.LibSVMIter(data_libsvm="data/avazu-app.t", data_shape=(nf,), batch_size=batch_size)
    mod = mx.mod.Module(symbol=linear_model.linear_model(nf, 2), data_names=["data"],
                        label_names=["softmax_label"])
    mod.bind(data_shapes=train.provide_data, label_shapes=train.provide_label)
    _init(mod)
    mod.init_optimizer(optimizer=mx.optimizer.create("sgd", learning_rate=0.5,
                                                     rescale_grad=1.0 / batch_size))
    return _loop(mod, train, val, epochs, "nll_loss",
                 lambda b: {"weight": b.data[0].indices},
                 lambda b: {"weight": mx.nd.arange(0, nf, dtype="int64")})


def matrix_factorization(d, epochs, batch_size=64, factor=16):
    from data import get_movielens_iter
    from model import matrix_fact_net
    np.random.seed(1)
    train = get_movielens_iter("./data/ml-10M100K/r1.train", batch_size)
    val = get_movielens_iter("./data/ml-10M100K/r1.test", batch_size)
    mod = mx.module.Module(matrix_fact_net(factor, factor, 71569, 65135, dense=False),
                           data_names=["user", "item"], label_names=["score"])
    mod.bind(data_shapes=train.provide_data, label_shapes=train.provide_label)
    _init(mod)
    mod.init_optimizer(optimizer=mx.optimizer.create("sgd", learning_rate=0.1,
                                                     rescale_grad=1.0 / batch_size),
                       kvstore="device")
    return _loop(mod, train, val, epochs, "MSE",
                 lambda b: {"user_weight": b.data[1].astype(np.int64),
                            "item_weight": b.data[0].astype(np.int64)},
                 lambda b: {"user_weight": mx.nd.arange(0, 71569, dtype="int64"),
                            "item_weight": mx.nd.arange(0, 65135, dtype="int64")})


def _loop(mod, train, val, epochs, metric_name, batch_rows, all_rows):
    metric = mx.metric.create([metric_name])
    out = {"train": [], "eval": []}
    for _ in range(epochs):
        metric.reset()
        for batch in train:
            mod.prepare(batch, sparse_row_id_fn=batch_rows)
            mod.forward_backward(batch)
            mod.update()
            mod.update_metric(metric, batch.label)
        out["train"].append(metric.get()[1][0] if isinstance(metric.get()[1], list)
                            else metric.get()[1])
        mod.prepare(None, sparse_row_id_fn=all_rows)
        out["eval"].append(mod.score(val, [metric_name])[0][1])
        train.reset()
        val.reset()
    out["params"] = _summary(mod)
    return out


if __name__ == "__main__":
    logging.disable(logging.WARNING)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=["lc", "mf"])
    ap.add_argument("example_dir")
    ap.add_argument("--epochs", type=int, default=2)
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.example_dir))
    fn = linear_classification if a.kind == "lc" else matrix_factorization
    print(json.dumps(fn(a.example_dir, a.epochs), indent=1, sort_keys=True))
