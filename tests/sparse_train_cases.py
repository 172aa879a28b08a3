"""Training with sparse gradients and weights, run by MXNet 1.9.1
(tests/make_sparse_train_goldens.py) and by xnd (tests/test_sparse_train.py): the optimizers'
lazy updates, autograd's row_sparse gradients, a Trainer over a row_sparse gradient and a
row_sparse weight, and kvstore's row_sparse_pull."""
import numpy as np


def _grad(mx, rows=(1, 3), shape=(5, 3), seed=0):
    rs = np.random.RandomState(seed)
    data = rs.uniform(-1, 1, (len(rows),) + shape[1:]).astype("float32")
    return mx.nd.sparse.row_sparse_array((data, list(rows)), shape=shape)


def _weight(mx, shape=(5, 3), seed=1):
    return mx.nd.array(np.random.RandomState(seed).uniform(-1, 1, shape).astype("float32"))


def lazy_updates(mx):
    out = {}
    configs = [("sgd", {"learning_rate": 0.1, "wd": 0.1}),
               ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.05}),
               ("sgd", {"learning_rate": 0.1, "wd": 0.1, "lazy_update": False}),
               ("adam", {"learning_rate": 0.01, "wd": 0.1}),
               ("adam", {"learning_rate": 0.01, "lazy_update": False}),
               ("adagrad", {"learning_rate": 0.1}),
               ("ftrl", {"learning_rate": 0.1, "lamda1": 0.01})]
    for n, (name, kw) in enumerate(configs):
        opt = mx.optimizer.create(name, **kw)
        for wst in ("default", "row_sparse"):
            w = _weight(mx)
            w = w.tostype("row_sparse") if wst == "row_sparse" else w
            st = opt.create_state(0, w)
            for step in range(2):
                opt.update(0, w, _grad(mx, rows=(1, 3) if step == 0 else (0, 3), seed=step),
                           st)
            out["%d_%s_%s/w" % (n, name, wst)] = w.asnumpy()
    return out


def autograd_grads(mx):
    csr = mx.nd.sparse.csr_matrix(([1.0, 2, 3], [0, 2, 1], [0, 2, 3]), shape=(2, 4))
    w = mx.nd.array(np.arange(12, dtype="float32").reshape(4, 3))
    w.attach_grad(stype="row_sparse")
    with mx.autograd.record():
        y = mx.nd.dot(csr, w)
        loss = (y * y).sum()
    loss.backward()
    return {"dot/grad": w.grad.asnumpy(), "dot/grad_stype": np.array(w.grad.stype),
            "dot/y": y.asnumpy()}


def trainer(mx):
    out = {}
    x = mx.gluon.Parameter("x", shape=(6,), grad_stype="row_sparse")
    x.initialize(ctx=[mx.cpu(0)], init="ones")
    tr = mx.gluon.Trainer([x], "sgd", {"learning_rate": 0.5, "momentum": 0.5, "wd": 0.1})
    for step in range(2):
        with mx.autograd.record():
            y = (x.data(mx.cpu(0)) * mx.nd.array([1, 0, 2, 0, 0, 3.0])).sum()
        y.backward()
        out["dense_w/grad_stype%d" % step] = np.array(x.grad(mx.cpu(0)).stype)
        tr.step(1)
        out["dense_w/w%d" % step] = x.data(mx.cpu(0)).asnumpy()
    p = mx.gluon.Parameter("emb", shape=(6, 2), stype="row_sparse", grad_stype="row_sparse")
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="ones")
    tr = mx.gluon.Trainer([p], "sgd", {"learning_rate": 0.5})
    rows = mx.nd.array([1, 4])
    for step in range(2):
        ws = p.list_row_sparse_data(rows)
        with mx.autograd.record():
            for k, w in enumerate(ws):
                (w * (k + 1)).sum().backward()
        tr.step(1)
    out["rsp_w/rows"] = p.row_sparse_data(mx.nd.arange(0, 6)).asnumpy()
    return out


def kvstore(mx):
    kv = mx.kv.create("local")
    kv.init("w", mx.nd.array(np.arange(12, dtype="float32").reshape(6, 2)).tostype("row_sparse"))
    outs = [mx.nd.sparse.zeros("row_sparse", (6, 2)) for _ in range(2)]
    kv.row_sparse_pull("w", out=outs, row_ids=[mx.nd.array([0, 5]), mx.nd.array([2])])
    kv.push("w", [_grad(mx, rows=(1, 2), shape=(6, 2)), _grad(mx, rows=(2, 4), shape=(6, 2))])
    after = mx.nd.sparse.zeros("row_sparse", (6, 2))
    kv.row_sparse_pull("w", out=after, row_ids=mx.nd.arange(0, 6))
    return {"pull0": outs[0].asnumpy(), "pull1": outs[1].asnumpy(), "after": after.asnumpy(),
            "pull0_rows": outs[0].indices.asnumpy()}


def module(mx):
    """Module over an Embedding with sparse_grad: row_sparse gradients, lazy SGD updates
    (momentum and weight decay on the batch's rows only)."""
    data, label = mx.sym.var("data"), mx.sym.var("softmax_label")
    emb = mx.sym.Embedding(data, weight=mx.sym.var("emb_weight"), input_dim=20, output_dim=4,
                           sparse_grad=True, name="emb")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.flatten(emb), num_hidden=3,
                                                     name="fc"), label, name="softmax")
    rs = np.random.RandomState(0)
    x, y = rs.randint(0, 20, (16, 2)).astype("float32"), rs.randint(0, 3, 16).astype("float32")
    it = mx.io.NDArrayIter(x, y, batch_size=8)
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(arg_params={"emb_weight": mx.nd.array(rs.uniform(-1, 1, (20, 4))),
                                "fc_weight": mx.nd.array(rs.uniform(-1, 1, (3, 8))),
                                "fc_bias": mx.nd.zeros(3)})
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5, "wd": 0.1,
                                                          "momentum": 0.9})
    for _ in range(2):
        it.reset()
        for b in it:
            mod.forward_backward(b)
            mod.update()
    args, _ = mod.get_params()
    return {"emb_weight": args["emb_weight"].asnumpy(), "fc_weight": args["fc_weight"].asnumpy()}


CASES = {"module": module, "lazy_updates": lazy_updates, "autograd_grads": autograd_grads, "trainer": trainer,
         "kvstore": kvstore}
