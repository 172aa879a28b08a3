"""Training with a Python custom operator (issue 15's workload): ``Module.fit`` of an MLP whose
loss is a ``mx.operator.CustomOp``, samples/s.

The custom operator is the softmax loss of MXNet's ``example/numpy-ops/custom_softmax.py``
pattern, written here from its documented behaviour: ``forward`` computes the row softmax in
numpy and ``assign``s it; ``backward`` (no head gradient: ``need_top_grad=False``) assigns
softmax minus the one-hot label.  The network is mlp_module's (FullyConnected 128/64/10 with
relu) on the same 20,000x784 random data, batch 100, 'sgd' (lr 0.01, momentum 0.9, wd 1e-4),
with ``Custom(op_type='bench_softmax')`` in place of SoftmaxOutput.  Every batch therefore
leaves the compiled graph twice (forward and backward run the Python operator on the host).
The warm-up call binds, initializes and runs a first epoch slice; the timed call is a second
``fit``.  No JAX twin (``IMPLS``).  Checksum: sum of |weights| after the run.
"""
import sys

import numpy as np

from . import mlp_module

N, N_QUICK = 200, 4               # training batches: one epoch
WARMUP = 200               # a whole epoch over the iterator itself: fit's compiled 50-batch runs (module/_fit_scan.py) compile here
QUICK = "--quick" in sys.argv
IMPLS = ("xnd", "mxnet")
METRICS = {"samples/s": "higher"}
GOAL = "xnd at least MXNet's speed (xnd/MXNet samples/s >= 1)"
CHECKS = [("samples/s", "mxnet", ">=", 1.0)]
metrics = mlp_module.metrics


def _register(mx):
    class Softmax(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            x = in_data[0].asnumpy()
            e = np.exp(x - x.max(axis=1, keepdims=True))
            self.assign(out_data[0], req[0], mx.nd.array(e / e.sum(axis=1, keepdims=True)))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            label = in_data[1].asnumpy().astype("int64")
            g = out_data[0].asnumpy().copy()
            g[np.arange(label.shape[0]), label] -= 1.0
            self.assign(in_grad[0], req[0], mx.nd.array(g))

    @mx.operator.register("bench_softmax")
    class SoftmaxProp(mx.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=False)

        def list_arguments(self):
            return ["data", "label"]

        def list_outputs(self):
            return ["output"]

        def infer_shape(self, in_shape):
            return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []

        def create_operator(self, ctx, shapes, dtypes):
            return Softmax()


_STATE = {}


def _head(mx, h):
    return mx.sym.Custom(h, mx.sym.Variable("softmax_label"), op_type="bench_softmax",
                         name="softmax")


def run_mx(mx, n):
    st = _STATE.get("mx")
    if st is None:
        _register(mx)
        st = _STATE["mx"] = mlp_module._build(mx, _head)
    return mlp_module.fit(mx, st, n)
