"""Four-context scenarios, run by MXNet 1.9.1 on cpu(0..3) (tests/make_multidevice_goldens.py)
and by xnd on four simulated host devices (tests/multidevice/, the CI stage with
``XLA_FLAGS=--xla_force_host_platform_device_count=4``).

Each case takes the ``mx`` module and a context list and returns {name: numpy array}. With
one context the same case gives the one-device numbers the four-device run must equal.
Parameters and data come from fixed numpy seeds, so both libraries start from the same
numbers."""

import numpy as np

import device_threads

N_IN, N_HID, N_OUT = 6, 8, 3


def ctxs(mx, n=4):
    return [mx.cpu(i) for i in range(n)]


def _data(batch, seed=0):
    rs = np.random.RandomState(seed)
    return (rs.randn(batch, N_IN).astype("float32"),
            rs.randint(0, N_OUT, size=batch).astype("float32"))


def _mlp_symbol(mx):
    data = mx.sym.Variable("data")
    h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=N_HID, name="fc1"), "relu")
    out = mx.sym.FullyConnected(h, num_hidden=N_OUT, name="fc2")
    return mx.sym.SoftmaxOutput(out, name="softmax")


def _mlp_params(mx):
    rs = np.random.RandomState(5)
    return {"fc1_weight": mx.nd.array(rs.uniform(-0.5, 0.5, (N_HID, N_IN))),
            "fc1_bias": mx.nd.array(rs.uniform(-0.1, 0.1, (N_HID,))),
            "fc2_weight": mx.nd.array(rs.uniform(-0.5, 0.5, (N_OUT, N_HID))),
            "fc2_bias": mx.nd.array(rs.uniform(-0.1, 0.1, (N_OUT,)))}


def module_steps(mx, contexts, batch=8, steps=3, tag="module"):
    """Module over ``contexts``: SGD with momentum for ``steps`` batches of ``batch`` rows
    (the rows split over the contexts as MXNet splits them), then the averaged parameters
    (``get_params``) and the merged outputs of the last forward."""
    mod = mx.mod.Module(_mlp_symbol(mx), context=contexts)
    mod.bind(data_shapes=[("data", (batch, N_IN))], label_shapes=[("softmax_label", (batch,))])
    mod.init_params(arg_params=_mlp_params(mx), force_init=True)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1,
                                                          "momentum": 0.9})
    for s in range(steps):
        x, y = _data(batch, seed=s)
        b = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
        mod.forward_backward(b)
        mod.update()
    args, _ = mod.get_params()
    res = {f"{tag}/{k}": v.asnumpy() for k, v in sorted(args.items())}
    res[f"{tag}/outputs"] = mod.get_outputs()[0].asnumpy()
    return res


def module_uneven(mx, contexts):
    """A batch of 10 over the contexts (4 gives parts of 3, 3, 2, 2 rows)."""
    return module_steps(mx, contexts, batch=10, steps=2, tag="uneven")


def get_params_average(mx, contexts):
    """``get_params`` of a Module whose devices hold different weights: their mean."""
    mod = mx.mod.Module(_mlp_symbol(mx), context=contexts)
    mod.bind(data_shapes=[("data", (8, N_IN))], label_shapes=[("softmax_label", (8,))])
    mod.init_params(arg_params=_mlp_params(mx), force_init=True)
    for i, block in enumerate(mod._exec_group.param_arrays):
        for j, arr in enumerate(block):
            arr[:] = arr + (i + 1) * (j + 1)
    args, _ = mod.get_params()
    return {f"avg/{k}": v.asnumpy() for k, v in sorted(args.items())}


def trainer_device(mx, contexts, batch=10, steps=3):
    """Gluon: a Dense network on every context, ``Trainer(kvstore='device')``, batches split
    with ``split_and_load(even_split=False)``; every context's final weights."""
    nn = mx.gluon.nn
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Dense(N_HID, activation="relu", in_units=N_IN), nn.Dense(N_OUT, in_units=N_HID))
    net.initialize(ctx=contexts)
    rs = np.random.RandomState(9)
    for _, p in sorted(net.collect_params().items()):
        p.set_data(mx.nd.array(rs.uniform(-0.5, 0.5, p.shape)))
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd",
                               {"learning_rate": 0.1, "momentum": 0.9}, kvstore="device")
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    for s in range(steps):
        x, y = _data(batch, seed=10 + s)
        xs = mx.gluon.utils.split_and_load(mx.nd.array(x), contexts, even_split=False)
        ys = mx.gluon.utils.split_and_load(mx.nd.array(y), contexts, even_split=False)
        with mx.autograd.record():
            losses = [loss_fn(net(a), b) for a, b in zip(xs, ys)]
        mx.autograd.backward(losses)
        trainer.step(batch)
    res = {}
    for name, p in sorted(net.collect_params().items()):
        for i, d in enumerate(p.list_data()):
            res[f"trainer/{name}/{i}"] = d.asnumpy()
    return res


def sync_batchnorm(mx, contexts):
    """SyncBatchNorm over the contexts, each part's forward and backward in its own thread
    (how MXNet runs it): outputs, input gradients and the running statistics."""
    n = len(contexts)
    bn = mx.gluon.contrib.nn.SyncBatchNorm(in_channels=3, num_devices=n, momentum=0.8)
    bn.initialize(ctx=contexts)
    rs = np.random.RandomState(1)
    x = rs.randn(8, 3, 4, 4).astype("float32") * 2 + 1
    w = rs.randn(8, 3, 4, 4).astype("float32")
    xs = [mx.nd.array(p, ctx=c) for p, c in zip(np.split(x, n), contexts)]
    ws = [mx.nd.array(p, ctx=c) for p, c in zip(np.split(w, n), contexts)]
    outs = [None] * n

    def work(i):
        xs[i].attach_grad()
        with mx.autograd.record():
            outs[i] = bn(xs[i])
            loss = (outs[i] * ws[i]).sum()
        loss.backward()

    device_threads.run(work, n)
    res = {"syncbn/out": np.concatenate([o.asnumpy() for o in outs]),
           "syncbn/dx": np.concatenate([a.grad.asnumpy() for a in xs])}
    for name, p in sorted(bn.collect_params().items()):
        if "running" in name:
            for i, d in enumerate(p.list_data()):
                res[f"syncbn/{name.split('_', 1)[1]}/{i}"] = d.asnumpy()
    return res


CASES = {"module_steps": module_steps, "module_uneven": module_uneven,
         "get_params_average": get_params_average, "trainer_device": trainer_device,
         "sync_batchnorm": sync_batchnorm}
