"""The issue's Module benchmark: an MLP symbol (784-128-64-10, SoftmaxOutput) trained with
Module.fit on a 20,000x784 random NDArrayIter, batch 100, sgd+momentum; one warm-up epoch
on the same iterator, then 2 timed epochs. The same script runs on MXNet 1.9.1 and xnd:

    /work/mxref/bin/python tests/goldens/module/bench_module_mlp.py      # MXNet
    python -m xnd run tests/goldens/module/bench_module_mlp.py           # xnd
"""
import time

import mxnet as mx
import numpy as np


def mlp():
    data = mx.sym.Variable("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=128, name="fc1")
    a1 = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    fc2 = mx.sym.FullyConnected(a1, num_hidden=64, name="fc2")
    a2 = mx.sym.Activation(fc2, act_type="relu", name="relu2")
    fc3 = mx.sym.FullyConnected(a2, num_hidden=10, name="fc3")
    return mx.sym.SoftmaxOutput(fc3, name="softmax")


rs = np.random.RandomState(0)
X = rs.rand(20000, 784).astype(np.float32)
Y = rs.randint(0, 10, 20000).astype(np.float32)
it = mx.io.NDArrayIter(X, Y, batch_size=100)
mod = mx.mod.Module(mlp(), context=mx.cpu())
opt = {"learning_rate": 0.1, "momentum": 0.9}
mod.fit(it, num_epoch=1, optimizer="sgd", optimizer_params=opt)        # warm-up
mx.nd.waitall()
tic = time.time()
mod.fit(it, begin_epoch=1, num_epoch=3, optimizer="sgd", optimizer_params=opt)
mx.nd.waitall()
dt = time.time() - tic
print("%s: %.0f samples/s, %.0f steps/s" % (mx.__name__ if hasattr(mx, "__name__") else "mx",
                                           40000 / dt, 400 / dt))
