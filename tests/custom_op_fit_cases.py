"""A Python softmax operator (MXNet's example/numpy-ops/custom_softmax.py, its forward written
with nd operators) trained by Module.fit and scored over many small batches, and a Python
operator that raises inside a bound graph. ``python custom_op_fit_cases.py OUT.npz`` runs it
on the ``mxnet`` it imports (test_custom_op_fit.py runs it under xnd in a child process with
a timeout: the scenario hung once; make_custom_op_fit_goldens.py runs it on MXNet 1.9.1)."""
import sys

import numpy as np

import custom_op_cases  # this script's folder is on sys.path


def define(mx):
    def nd_softmax(x):  # nd operators inside the callback: their programs nest in it
        y = mx.nd.exp(x - mx.nd.max(x, axis=1, keepdims=True))
        return mx.nd.broadcast_div(y, y.sum(axis=1, keepdims=True))
    custom_op_cases.register_softmax(mx, "t_fit_softmax", nd_softmax)
    custom_op_cases.register_raising(mx, "t_fit_raises", "deliberate failure in forward")


def run(mx):
    define(mx)
    rs = np.random.RandomState(7)
    x = rs.rand(160, 6).astype("float32")
    y = rs.randint(0, 4, 160).astype("float32")
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=8, name="fc1")
    fc2 = mx.sym.FullyConnected(mx.sym.Activation(fc1, act_type="relu"), num_hidden=4,
                                name="fc2")
    net = mx.sym.Custom(data=fc2, name="softmax", op_type="t_fit_softmax")
    params = {"fc1_weight": rs.randn(8, 6) * 0.5, "fc1_bias": np.zeros(8),
              "fc2_weight": rs.randn(4, 8) * 0.5, "fc2_bias": np.zeros(4)}
    mod = mx.mod.Module(net, context=mx.cpu())
    train = mx.io.NDArrayIter(x[:40], y[:40], batch_size=20, label_name="softmax_label")
    mod.fit(train, num_epoch=2, optimizer="sgd",
            optimizer_params={"learning_rate": 0.5, "momentum": 0.9},
            arg_params={k: mx.nd.array(v) for k, v in params.items()})
    out = {"param." + k: v.asnumpy() for k, v in mod.get_params()[0].items()}
    # many small batches: forward programs queue up behind the one in its callback
    score = mx.io.NDArrayIter(x, y, batch_size=2, label_name="softmax_label")
    out["score_acc"] = np.array(mod.score(score, "acc")[0][1])
    mod.forward(mx.io.DataBatch([mx.nd.array(x[:5])], [mx.nd.array(y[:5])]), is_train=False)
    out["probs"] = mod.get_outputs()[0].asnumpy()
    bad = mx.mod.Module(mx.sym.Custom(data=data, op_type="t_fit_raises"), label_names=None)
    bad.bind([("data", (3, 2))], for_training=False)
    bad.init_params()
    try:
        bad.forward(mx.io.DataBatch([mx.nd.ones((3, 2))]), is_train=False)
        bad.get_outputs()[0].asnumpy()
        out["raises"] = np.array("no error")
    except Exception as e:  # noqa: BLE001  (its type and message are the result)
        out["raises"] = np.array(type(e).__name__)
        out["raises_message"] = np.array(str(e))
    return out


def queued(n=300):
    """xnd only: n programs holding a Python operator dispatched back to back, each result
    summed by another program, nothing waited for until the end; every callback transfers
    its arrays through a jitted identity (a program of its own). Before host_callbacks.py
    the queued programs held XLA's in-flight slots and the callback waited for one forever.
    Returns (the sum, the expected sum)."""
    import jax.numpy as jnp
    import xnd as mx
    from xnd import _transfer
    from xnd.lowering import custom, xla_options
    _transfer.PROMOTE_AFTER = 1

    class Double(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * 2)

    @mx.operator.register("t_queued_double")
    class DoubleProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Double()

    prog = xla_options.jit(lambda x: custom.custom(x, op_type="t_queued_double") + 1,
                           kind="fit")
    add = xla_options.jit(lambda a, b: a + b.sum(), kind="fit")
    acc = jnp.zeros((), jnp.float32)
    for x in [jnp.full((100, 10), float(i)) for i in range(n)]:
        acc = add(acc, prog(x))
    return float(acc), sum((2.0 * i + 1) * 1000 for i in range(n))


if __name__ == "__main__":
    if sys.argv[1] == "queued":
        print("queued %r %r" % queued())
    else:
        import mxnet
        np.savez(sys.argv[1], **run(mxnet))
