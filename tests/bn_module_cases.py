"""A LeNet-like convolution + BatchNorm symbol trained by ``Module`` (issue 44), shared by
tests/make_bn_module_goldens.py (real MXNet 1.9.1) and tests/test_bn_module.py (xnd):
``run(mx, how)`` trains it for 30 SGD steps with momentum, by hand (forward, backward,
update) or by ``Module.fit``, from parameters drawn by a seeded numpy generator, and returns
the trained parameters, moving statistics and predictions as numpy arrays."""
import numpy as np

STEPS = 30
BATCH = 16


def symbol(mx):
    d = mx.sym.Variable("data")
    c1 = mx.sym.Convolution(d, kernel=(3, 3), num_filter=6, name="c1")
    b1 = mx.sym.BatchNorm(c1, fix_gamma=False, name="bn1")
    a1 = mx.sym.Activation(b1, act_type="relu")
    p1 = mx.sym.Pooling(a1, kernel=(2, 2), stride=(2, 2), pool_type="max")
    c2 = mx.sym.Convolution(p1, kernel=(3, 3), num_filter=8, name="c2")
    b2 = mx.sym.BatchNorm(c2, name="bn2")  # fix_gamma=True, MXNet's default
    a2 = mx.sym.Activation(b2, act_type="relu")
    f = mx.sym.FullyConnected(mx.sym.Flatten(a2), num_hidden=4, name="fc")
    return mx.sym.SoftmaxOutput(f, name="softmax")


def data():
    rs = np.random.RandomState(0)
    return (rs.rand(96, 1, 12, 12).astype("float32"),
            rs.randint(0, 4, 96).astype("float32"))


def init_params(mx, net):
    shapes, _, _ = net.infer_shape(data=(BATCH, 1, 12, 12))
    rs = np.random.RandomState(1)
    out = {}
    for n, s in zip(net.list_arguments(), shapes):
        if n in ("data", "softmax_label"):
            continue
        v = rs.rand(*s).astype("float32") - 0.5
        out[n] = mx.nd.array(v + 1 if n.endswith("gamma") else v if "bn" in n else v * 0.2)
    return out


def run(mx, how):
    X, Y = data()
    net = symbol(mx)
    it = mx.io.NDArrayIter(X, Y, batch_size=BATCH)
    mod = mx.mod.Module(net, context=mx.cpu())
    opt = {"learning_rate": 0.1, "momentum": 0.9}
    if how == "fit":  # 96 / 16 = 6 batches an epoch: 5 epochs are 30 steps
        mod.fit(it, num_epoch=STEPS // 6, arg_params=init_params(mx, net), allow_missing=True,
                initializer=mx.init.Zero(), optimizer="sgd", optimizer_params=opt)
    else:
        mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
        mod.init_params(arg_params=init_params(mx, net), allow_missing=True,
                        initializer=mx.init.Zero())
        mod.init_optimizer(optimizer="sgd", optimizer_params=opt)
        steps = 0
        while steps < STEPS:
            it.reset()
            for batch in it:
                mod.forward(batch, is_train=True)
                mod.backward()
                mod.update()
                steps += 1
    arg, aux = mod.get_params()
    out = {k: v.asnumpy() for k, v in list(arg.items()) + list(aux.items())}
    it.reset()
    out["pred"] = mod.predict(it).asnumpy()
    return out
