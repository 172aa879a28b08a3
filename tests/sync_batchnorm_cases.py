"""Cross-device SyncBatchNorm scenarios, run by MXNet 1.9.1 (tests/make_sync_batchnorm_goldens.py)
and by xnd (tests/test_sync_batchnorm.py) on the contexts cpu(0) and cpu(1).

Each case takes the ``mx`` module and returns {name: numpy array}: results, gradients and
running statistics per context. Parameters and data come from a fixed numpy seed and are set
into every context's copy, so the two libraries start from the same numbers."""

import numpy as np

import device_threads


def _ctxs(mx):
    return [mx.cpu(0), mx.cpu(1)]


def _set_params(net, seed):
    rs = np.random.RandomState(seed)
    for name, p in sorted(net.collect_params().items()):
        v = rs.uniform(-1, 1, p.shape).astype("float32")
        if name.endswith("running_var") or name.endswith("gamma"):
            v = np.abs(v) + 0.5
        p.set_data(v)


def _record(net, tag, out):
    for name, p in sorted(net.collect_params().items()):
        short = name.split("_", 1)[1]
        for i, d in enumerate(p.list_data()):
            if "running" in short:
                out[f"{tag}/{short}/{i}"] = d.asnumpy()
        if p.grad_req != "null":
            for i, g in enumerate(p.list_grad()):
                out[f"{tag}/{short}_grad/{i}"] = g.asnumpy()


def _split(mx, x, ctxs):
    return [mx.nd.array(part, ctx=c) for part, c in zip(np.split(x, len(ctxs)), ctxs)]


def layer(mx):
    """The Gluon layer alone: both devices' calls, then one backward of a weighted loss."""
    ctxs = _ctxs(mx)
    bn = mx.gluon.contrib.nn.SyncBatchNorm(in_channels=3, num_devices=2, momentum=0.8)
    bn.initialize(ctx=ctxs)
    _set_params(bn, 1)
    rs = np.random.RandomState(2)
    x = rs.randn(4, 3, 5, 5).astype("float32") * 2 + 1
    w = rs.randn(2, 3, 5, 5).astype("float32")
    xs = _split(mx, x, ctxs)
    for a in xs:
        a.attach_grad()
    with mx.autograd.record():
        outs = [bn(a) for a in xs]
        losses = [(o * mx.nd.array(w, ctx=c)).sum() for o, c in zip(outs, ctxs)]
    mx.autograd.backward(losses)
    res = {f"layer/out/{i}": o.asnumpy() for i, o in enumerate(outs)}
    res.update({f"layer/dx/{i}": a.grad.asnumpy() for i, a in enumerate(xs)})
    _record(bn, "layer", res)
    return res


def _net(mx):
    nn = mx.gluon.nn
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, in_channels=2), mx.gluon.contrib.nn.SyncBatchNorm(
            in_channels=4, num_devices=2), nn.Activation("relu"), nn.Dense(3, in_units=64))
    net.initialize(ctx=_ctxs(mx))
    _set_params(net, 3)
    return net


def _net_data(mx):
    return _split(mx, np.random.RandomState(4).randn(4, 2, 6, 6).astype("float32"), _ctxs(mx))


def net_loop(mx, hybridize=False, backward=False):
    """Conv, SyncBatchNorm, relu, Dense: the whole network per device in one loop, then an
    inference call per device. (``backward``: then one backward of both losses; MXNet 1.9.1
    deadlocks there, xnd gives the gradients of the threaded case.)"""
    net = _net(mx)
    if hybridize:
        net.hybridize()
    xs = _net_data(mx)
    with mx.autograd.record():
        losses = [(net(a) ** 2).sum() for a in xs]
    res = {f"loop/loss/{i}": l.asnumpy() for i, l in enumerate(losses)}
    if backward:
        mx.autograd.backward(losses)
    _record(net, "loop", res)
    res.update({f"loop/predict/{i}": net(a).asnumpy() for i, a in enumerate(xs)})
    return res


def net_threads(mx, hybridize=False):
    """The same network, each device's forward and backward in its own thread (GluonCV's
    DataParallelModel)."""
    net = _net(mx)
    if hybridize:
        net.hybridize()
    xs = _net_data(mx)
    losses = [None, None]

    def work(i):
        with mx.autograd.record():
            loss = (net(xs[i]) ** 2).sum()
        loss.backward()
        losses[i] = loss.asnumpy()

    device_threads.run(work, 2)
    res = {f"threads/loss/{i}": l for i, l in enumerate(losses)}
    _record(net, "threads", res)
    return res


def module(mx):
    """A symbol with SyncBatchNorm(ndev=2) trained by a Module over cpu(0) and cpu(1): the
    batch split over the two contexts, whose layers meet (MXNet's executors on two devices).
    Two SGD steps; the outputs of each, and the parameters and moving statistics after."""
    data = mx.sym.Variable("data")
    h = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), name="conv")
    h = mx.sym.contrib.SyncBatchNorm(h, ndev=2, key="sbn", fix_gamma=False, momentum=0.8,
                                     name="sbn")
    h = mx.sym.FullyConnected(mx.sym.Activation(h, act_type="relu"), num_hidden=3, name="fc")
    net = mx.sym.SoftmaxOutput(h, name="softmax")
    rs = np.random.RandomState(5)
    x = rs.randn(8, 2, 6, 6).astype("float32") * 1.5 + 0.5
    y = rs.randint(0, 3, 8).astype("float32")
    mod = mx.mod.Module(net, context=_ctxs(mx))
    mod.bind(data_shapes=[("data", (8, 2, 6, 6))], label_shapes=[("softmax_label", (8,))])
    shapes = dict(zip(net.list_arguments(), net.infer_shape(data=(8, 2, 6, 6))[0]))
    arg = {k: mx.nd.array(rs.uniform(-0.5, 0.5, shapes[k]).astype("float32") + (
        1.0 if k == "sbn_gamma" else 0.0)) for k in sorted(shapes)
        if k not in ("data", "softmax_label")}
    mod.init_params(arg_params=arg, aux_params={
        "sbn_moving_mean": mx.nd.zeros(4), "sbn_moving_var": mx.nd.ones(4)})
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1})
    batch = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
    res = {}
    for step in range(2):
        mod.forward_backward(batch)
        res[f"module/out/{step}"] = mod.get_outputs()[0].asnumpy()
        mod.update()
    args, auxs = mod.get_params()
    res.update({f"module/{k}": v.asnumpy() for k, v in list(args.items()) + list(auxs.items())})
    return res


CASES = {"layer": layer, "net_loop": net_loop, "net_threads": net_threads, "module": module}
