"""Monitor scenarios, run with either framework (``mx`` passed in)."""


def _module(mx):
    data = mx.sym.Variable("data")
    h = mx.sym.FullyConnected(data, num_hidden=3, name="fc1")
    h = mx.sym.Activation(h, act_type="relu", name="relu1")
    h = mx.sym.BatchNorm(h, name="bn")
    out = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=2, name="fc2"),
                               name="softmax")
    mod = mx.mod.Module(out)
    mod.bind([("data", (4, 5))], [("softmax_label", (4,))])
    mod.init_params(mx.init.One())
    mod.init_optimizer()
    return mod


def run(mx):
    res = {}
    batch = mx.io.DataBatch([mx.nd.ones((4, 5))], [mx.nd.zeros((4,))])
    for monitor_all in (False, True):
        mod = _module(mx)
        mon = mx.mon.Monitor(1, monitor_all=monitor_all)
        mod.install_monitor(mon)
        mon.tic()
        mod.forward_backward(batch)
        mod.update()
        res["train_all" if monitor_all else "train"] = [list(r) for r in mon.toc()]
    mod = _module(mx)
    mon = mx.mon.Monitor(2, stat_func=lambda x: [mx.nd.max(x), mx.nd.min(x).reshape((1, 1))],
                         pattern="fc.*", sort=True)
    mod.install_monitor(mon)
    rows = []
    for _ in range(3):
        mon.tic()
        mod.forward(batch, is_train=False)
        rows.append([list(r) for r in mon.toc()])
    res["interval_sorted"] = rows
    return res
