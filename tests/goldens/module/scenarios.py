"""Module training scenarios run unchanged on real MXNet 1.9.1 (tests/make_module_goldens.py
records them) and on xnd (tests/test_module_goldens.py compares): ``run(mx, name)`` returns
a flat dict of numpy arrays, numbers and strings.

Every run starts from FIXED parameters built with a seeded numpy RNG (passed as
arg_params/aux_params), on seeded numpy data, so both libraries compute the same
thing. Dropout, where present, has p=0 (random streams differ between libraries).
"""
import logging
import os
import re
import tempfile
from collections import OrderedDict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CKPT = os.path.join(HERE, "ckpt_mx")        # a checkpoint written by MXNet 1.9.1


# ---- networks ------------------------------------------------------------------------------
def mlp(mx, hidden=16, classes=5):
    data = mx.sym.Variable("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=hidden, name="fc1")
    act = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    fc2 = mx.sym.FullyConnected(act, num_hidden=classes, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def cnn(mx, dropout=0.0):
    data = mx.sym.Variable("data")
    conv = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), pad=(1, 1), name="conv1")
    bn = mx.sym.BatchNorm(conv, name="bn1")
    act = mx.sym.Activation(bn, act_type="relu", name="relu1")
    pool = mx.sym.Pooling(act, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    drop = mx.sym.Dropout(pool, p=dropout, name="drop1")
    flat = mx.sym.Flatten(drop, name="flat")
    fc = mx.sym.FullyConnected(flat, num_hidden=5, name="fc1")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def fixed_params(mx, sym, seed=0, **shapes):
    """arg_params/aux_params from a seeded numpy RNG (sorted names, so the draw order is
    the same everywhere)."""
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    rs = np.random.RandomState(seed)
    args, aux = {}, {}
    for name, shape in sorted(zip(sym.list_arguments(), arg_shapes)):
        if name in shapes:
            continue
        if name.endswith("_gamma"):
            v = 1.0 + 0.1 * rs.randn(*shape)
        elif name.endswith(("_bias", "_beta")):
            v = 0.05 * rs.randn(*shape)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            v = rs.uniform(-1, 1, size=shape) * np.sqrt(3.0 / fan_in)
        args[name] = mx.nd.array(v.astype(np.float32))
    for name, shape in sorted(zip(sym.list_auxiliary_states(), aux_shapes)):
        v = rs.uniform(0.5, 1.5, size=shape) if name.endswith("_var") else 0.1 * rs.randn(*shape)
        aux[name] = mx.nd.array(v.astype(np.float32))
    return args, aux


def data(n, shape, classes=5, seed=1):
    rs = np.random.RandomState(seed)
    x = rs.randn(n, *shape).astype(np.float32)
    y = rs.randint(0, classes, size=n).astype(np.float32)
    return x, y


class LogCapture(logging.Handler):
    """Collects a logger's formatted messages (the fit log lines)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def capture_logger(name):
    logger = logging.getLogger(name)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    for h in list(logger.handlers):
        logger.removeHandler(h)
    cap = LogCapture()
    logger.addHandler(cap)
    return logger, cap


def put_params(out, prefix, arg, aux):
    for k, v in sorted(arg.items()):
        out["%s/arg/%s" % (prefix, k)] = v.asnumpy()
    for k, v in sorted(aux.items()):
        out["%s/aux/%s" % (prefix, k)] = v.asnumpy()


def epoch_recorder(out, prefix="epoch"):
    def cb(epoch, sym, arg, aux):
        put_params(out, "%s%d" % (prefix, epoch), arg, aux)
    return cb


def log_values(out, lines, key="log"):
    """The fit log lines without their timings: text and numbers separately."""
    kept = [ln for ln in lines if "Time cost" not in ln]
    out[key + "/text"] = "\n".join(re.sub(r"=[-0-9.naninf]+", "=<v>", ln) for ln in kept)
    nums = []
    for ln in kept:
        nums += [float(v) for v in re.findall(r"=([-0-9.]+|nan|inf)", ln)]
    out[key + "/values"] = np.array(nums, dtype=np.float64)
    out[key + "/time_lines"] = "\n".join(re.sub(r"=[0-9.]+$", "=<t>", ln)
                                         for ln in lines if "Time cost" in ln)


# ---- scenarios -------------------------------------------------------------------------------
def _fit(mx, out, sym, x, y, batch, epochs, optimizer, opt_params, ctx=None, xv=None, yv=None,
         name="fit", seed=0, **kw):
    logger, cap = capture_logger("xnd_module_golden_" + name)
    mod = mx.mod.Module(sym, context=ctx or mx.cpu(), logger=logger, **kw)
    train = mx.io.NDArrayIter(x, y, batch_size=batch)
    val = mx.io.NDArrayIter(xv, yv, batch_size=batch) if xv is not None else None
    arg, aux = fixed_params(mx, sym, seed, data=(batch,) + x.shape[1:])
    mod.fit(train, eval_data=val, optimizer=optimizer, optimizer_params=opt_params,
            arg_params=arg, aux_params=aux, num_epoch=epochs,
            epoch_end_callback=epoch_recorder(out))
    log_values(out, cap.lines)
    if xv is not None:
        out["predict"] = mod.predict(mx.io.NDArrayIter(xv, yv, batch_size=batch)).asnumpy()
    return mod


def fit_mlp_sgd(mx):
    out = OrderedDict()
    x, y = data(64, (20,))
    xv, yv = data(32, (20,), seed=2)
    _fit(mx, out, mlp(mx), x, y, 16, 3, "sgd",
         {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3}, xv=xv, yv=yv, name="sgd")
    return out


def fit_mlp_adam(mx):
    out = OrderedDict()
    x, y = data(64, (20,))
    _fit(mx, out, mlp(mx), x, y, 16, 3, "adam", {"learning_rate": 0.01, "wd": 1e-4},
         name="adam")
    return out


def fit_mlp_sched(mx):
    out = OrderedDict()
    x, y = data(64, (20,))
    sched = mx.lr_scheduler.FactorScheduler(step=3, factor=0.5)
    _fit(mx, out, mlp(mx), x, y, 16, 3, "sgd",
         {"learning_rate": 0.2, "momentum": 0.9, "lr_scheduler": sched}, name="sched")
    return out


def fit_cnn_bn(mx):
    out = OrderedDict()
    x, y = data(32, (3, 8, 8))
    xv, yv = data(16, (3, 8, 8), seed=2)
    _fit(mx, out, cnn(mx, dropout=0.0), x, y, 8, 2, "sgd",
         {"learning_rate": 0.05, "momentum": 0.9, "wd": 1e-3}, xv=xv, yv=yv, name="cnn")
    return out


def fit_cnn_bn_2dev(mx):
    """Data parallel over two contexts: per-device BatchNorm statistics, summed gradients."""
    out = OrderedDict()
    x, y = data(32, (3, 8, 8))
    xv, yv = data(16, (3, 8, 8), seed=2)
    _fit(mx, out, cnn(mx, dropout=0.0), x, y, 8, 2, "sgd",
         {"learning_rate": 0.05, "momentum": 0.9, "wd": 1e-3}, xv=xv, yv=yv, name="cnn2",
         ctx=[mx.cpu(0), mx.cpu(1)])
    return out


def fit_mlp_2dev(mx):
    out = OrderedDict()
    x, y = data(64, (20,))
    _fit(mx, out, mlp(mx), x, y, 16, 2, "adam", {"learning_rate": 0.01}, name="mlp2",
         ctx=[mx.cpu(0), mx.cpu(1)])
    return out


def fit_mlp_3dev_uneven(mx):
    """Batch 16 over three contexts: slices of 5, 5 and 6 samples."""
    out = OrderedDict()
    x, y = data(64, (20,))
    _fit(mx, out, mlp(mx), x, y, 16, 2, "sgd", {"learning_rate": 0.1, "momentum": 0.9},
         name="mlp3", ctx=[mx.cpu(0), mx.cpu(1), mx.cpu(2)])
    return out


def _bound_mlp(mx, batch=16, seed=0, **bind_kw):
    sym = mlp(mx)
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind(data_shapes=[("data", (batch, 20))], label_shapes=[("softmax_label", (batch,))],
             **bind_kw)
    arg, aux = fixed_params(mx, sym, seed, data=(batch, 20))
    mod.init_params(arg_params=arg, aux_params=aux)
    return mod


def manual_orders(mx):
    """The loop of the seed article and the other call orders MXNet allows."""
    out = OrderedDict()
    x, y = data(64, (20,))
    mod = _bound_mlp(mx)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    metric = mx.metric.create("acc")
    it = mx.io.NDArrayIter(x, y, batch_size=16)
    for i, b in enumerate(it):
        if i == 0:      # forward, backward, update, update_metric (seed listing 3-1)
            mod.forward(b)
            mod.backward()
            mod.update()
            mod.update_metric(metric, labels=b.label)
        elif i == 1:    # update_metric before backward
            mod.forward(b, is_train=True)
            mod.update_metric(metric, b.label)
            mod.backward()
            mod.update()
        elif i == 2:    # outputs read between backward and update
            mod.forward_backward(b)
            out["outputs2"] = mod.get_outputs()[0].asnumpy()
            mod.update()
            mod.update_metric(metric, b.label)
        else:           # gradients read before update; update twice on the same gradients
            mod.forward(b)
            mod.backward()
            out["grad3"] = mod._exec_group.grad_arrays[0][0].asnumpy()
            mod.update()
            mod.update()
            mod.update_metric(metric, b.label)
        out["outputs%d" % i] = mod.get_outputs()[0].asnumpy()
        put_params(out, "step%d" % i, *mod.get_params())
    out["metric"] = np.array([metric.get()[1]])
    mod.prepare(b)
    return out


def out_grads(mx):
    """backward(out_grads) on a network without a loss head."""
    out = OrderedDict()
    data_ = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(data_, num_hidden=3, name="fc1")
    act = mx.sym.Activation(fc, act_type="tanh", name="tanh1")
    mod = mx.mod.Module(act, label_names=None, context=mx.cpu())
    mod.bind(data_shapes=[("data", (4, 6))], inputs_need_grad=True)
    arg, aux = fixed_params(mx, act, 0, data=(4, 6))
    mod.init_params(arg_params=arg, aux_params=aux)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5})
    x, _ = data(4, (6,))
    rs = np.random.RandomState(5)
    for i in range(2):
        head = mx.nd.array(rs.randn(4, 3).astype(np.float32))
        mod.forward(mx.io.DataBatch([mx.nd.array(x)], None), is_train=True)
        mod.backward(out_grads=[head])
        out["input_grad%d" % i] = mod.get_input_grads()[0].asnumpy()
        mod.update()
        out["outputs%d" % i] = mod.get_outputs()[0].asnumpy()
        put_params(out, "step%d" % i, *mod.get_params())
    return out


def grad_add(mx):
    """grad_req='add': gradients of two batches accumulate before the update."""
    out = OrderedDict()
    x, y = data(32, (20,))
    mod = _bound_mlp(mx, grad_req="add")
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1})
    batches = list(mx.io.NDArrayIter(x, y, batch_size=16))
    for step in range(2):
        for b in batches:
            mod.forward(b, is_train=True)
            mod.backward()
        mod.update()
        out["grad%d" % step] = mod._exec_group.grad_arrays[0][0].asnumpy()
        put_params(out, "step%d" % step, *mod.get_params())
    return out


def fixed_and_inputs(mx):
    """fixed_param_names freezes fc1; inputs_need_grad gives the data gradient. (Not
    fc1_weight alone: MXNet's oneDNN FullyConnected then drops the bias gradient, a bug
    of that build that xnd does not copy.)"""
    out = OrderedDict()
    x, y = data(32, (20,))
    sym = mlp(mx)
    mod = mx.mod.Module(sym, context=mx.cpu(), fixed_param_names=["fc1_weight", "fc1_bias"])
    mod.bind(data_shapes=[("data", (16, 20))], label_shapes=[("softmax_label", (16,))],
             inputs_need_grad=True)
    arg, aux = fixed_params(mx, sym, 0, data=(16, 20))
    mod.init_params(arg_params=arg, aux_params=aux)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "wd": 0.01})
    for i, b in enumerate(mx.io.NDArrayIter(x, y, batch_size=16)):
        mod.forward_backward(b)
        out["input_grad%d" % i] = mod.get_input_grads()[0].asnumpy()
        mod.update()
        put_params(out, "step%d" % i, *mod.get_params())
    return out


def predict_pad(mx):
    """predict/iter_predict/score over a padded last batch; a reshape to a smaller batch."""
    out = OrderedDict()
    x, y = data(50, (20,))
    mod = _bound_mlp(mx)
    it = mx.io.NDArrayIter(x, y, batch_size=16)
    out["predict"] = mod.predict(it).asnumpy()
    lst = mod.predict(it, always_output_list=True)
    out["predict_list_len"] = len(lst)
    nested = mod.predict(it, merge_batches=False)
    out["nested_shapes"] = np.array([o[0].shape[0] for o in nested])
    out["nested_last"] = nested[-1][0].asnumpy()
    shapes = [o[0].shape[0] for o, _, _ in mod.iter_predict(it)]
    out["iter_shapes"] = np.array(shapes)
    out["score"] = np.array([v for _, v in mod.score(it, ["acc", "ce"])])
    out["predict_num_batch"] = mod.predict(it, num_batch=2).asnumpy()
    out["predict_nd"] = mod.predict(mx.nd.array(x[:16])).asnumpy()
    # a smaller batch: forward reshapes the module
    mod.forward(mx.io.DataBatch([mx.nd.array(x[:10])], [mx.nd.array(y[:10])]), is_train=False)
    out["reshaped_out"] = mod.get_outputs()[0].asnumpy()
    out["shapes"] = repr([(d.name, d.shape) for d in mod.data_shapes]
                         + [(d.name, d.shape) for d in mod.label_shapes] + mod.output_shapes)
    return out


def reshape_train(mx):
    """Training with a smaller last batch (reshape keeps parameters and optimizer state)."""
    out = OrderedDict()
    x, y = data(40, (20,))
    mod = _bound_mlp(mx)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    for i, (a, b) in enumerate([(0, 16), (16, 32), (32, 40), (0, 16)]):
        batch = mx.io.DataBatch([mx.nd.array(x[a:b])], [mx.nd.array(y[a:b])])
        mod.forward(batch, is_train=True)
        mod.backward()
        mod.update()
        out["out%d" % i] = mod.get_outputs()[0].asnumpy()
        put_params(out, "step%d" % i, *mod.get_params())
    return out


def checkpoint_resume(mx):
    """Module.load of a checkpoint written by MXNet 1.9.1, then one more epoch."""
    out = OrderedDict()
    x, y = data(64, (20,))
    logger, cap = capture_logger("xnd_module_golden_ckpt")
    mod = mx.mod.Module.load(CKPT, 1, logger=logger, context=mx.cpu())
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=16), optimizer="sgd",
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9}, begin_epoch=1,
            num_epoch=2, epoch_end_callback=epoch_recorder(out))
    log_values(out, cap.lines)
    return out


def write_checkpoint(mx):
    """(generator only) the checkpoint checkpoint_resume loads."""
    x, y = data(64, (20,))
    sym = mlp(mx)
    mod = mx.mod.Module(sym, context=mx.cpu())
    arg, aux = fixed_params(mx, sym, 0, data=(16, 20))
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=16), optimizer="sgd",
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9}, arg_params=arg,
            aux_params=aux, num_epoch=1)
    mod.save_checkpoint(CKPT, 1)


def states_roundtrip(mx):
    """save_checkpoint(save_optimizer_states=True) then Module.load(load_optimizer_states=True)
    continues with the same momentum (each library reads its own states file)."""
    out = OrderedDict()
    x, y = data(64, (20,))
    sym = mlp(mx)
    tmp = tempfile.mkdtemp(prefix="xnd-module-")
    prefix = os.path.join(tmp, "m")
    mod = mx.mod.Module(sym, context=mx.cpu())
    arg, aux = fixed_params(mx, sym, 0, data=(16, 20))
    it = mx.io.NDArrayIter(x, y, batch_size=16)
    opt = {"learning_rate": 0.1, "momentum": 0.9}
    mod.fit(it, optimizer="sgd", optimizer_params=opt, arg_params=arg, aux_params=aux,
            num_epoch=1)
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    mod2 = mx.mod.Module.load(prefix, 1, load_optimizer_states=True, context=mx.cpu())
    mod2.fit(it, optimizer="sgd", optimizer_params=opt, begin_epoch=1, num_epoch=2)
    put_params(out, "resumed", *mod2.get_params())
    mod.fit(it, optimizer="sgd", optimizer_params=opt, begin_epoch=1, num_epoch=2)
    put_params(out, "continued", *mod.get_params())
    # explicit save/load_optimizer_states on a bound module
    mod.save_optimizer_states(prefix + ".st")
    mod3 = mx.mod.Module(sym, context=mx.cpu())
    mod3.bind(it.provide_data, it.provide_label)
    mod3.init_params(arg_params=mod.get_params()[0], aux_params=mod.get_params()[1])
    mod3.init_optimizer(optimizer="sgd", optimizer_params=opt)
    mod3.load_optimizer_states(prefix + ".st")
    mod.fit(it, optimizer="sgd", optimizer_params=opt, begin_epoch=2, num_epoch=3)
    mod3.fit(it, optimizer="sgd", optimizer_params=opt, begin_epoch=2, num_epoch=3)
    put_params(out, "explicit_a", *mod.get_params())
    put_params(out, "explicit_b", *mod3.get_params())
    return out


def _bucket_sym(mx, key):
    data_ = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(data_, num_hidden=4, flatten=False, name="fc1")
    act = mx.sym.Activation(fc, act_type="relu", name="relu1")
    pooled = mx.sym.mean(act, axis=1, name="mean1")
    fc2 = mx.sym.FullyConnected(pooled, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax"), ("data",), ("softmax_label",)


def bucketing(mx):
    """BucketingModule: two sequence lengths share fc1/fc2; buckets alternate."""
    out = OrderedDict()
    rs = np.random.RandomState(3)
    batches = []
    for i, key in enumerate([5, 3, 5, 3, 3]):
        x = rs.randn(4, key, 6).astype(np.float32)
        y = rs.randint(0, 3, 4).astype(np.float32)
        batches.append(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)], bucket_key=key,
                                       provide_data=[mx.io.DataDesc("data", x.shape)],
                                       provide_label=[mx.io.DataDesc("softmax_label", y.shape)]))
    mod = mx.mod.BucketingModule(lambda k: _bucket_sym(mx, k), default_bucket_key=5,
                                 context=mx.cpu())
    mod.bind(data_shapes=[("data", (4, 5, 6))], label_shapes=[("softmax_label", (4,))])
    arg, aux = fixed_params(mx, _bucket_sym(mx, 5)[0], 0, data=(4, 5, 6))
    mod.init_params(arg_params=arg, aux_params=aux)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    metric = mx.metric.create("acc")
    for i, b in enumerate(batches):
        mod.prepare(b)
        mod.forward(b, is_train=True)
        mod.backward()
        mod.update()
        mod.update_metric(metric, b.label)
        out["out%d" % i] = mod.get_outputs()[0].asnumpy()
        put_params(out, "step%d" % i, *mod.get_params())
    out["buckets"] = np.array(sorted(mod._buckets.keys()))
    out["metric"] = np.array([metric.get()[1]])
    out["output_shapes"] = repr(mod.output_shapes)
    return out


def sequential(mx):
    """SequentialModule: a feature module and a loss module (take_labels, auto_wiring)."""
    out = OrderedDict()
    x, y = data(32, (20,))
    d = mx.sym.Variable("data")
    net1 = mx.sym.Activation(mx.sym.FullyConnected(d, num_hidden=8, name="fc1"),
                             act_type="relu", name="relu1")
    d2 = mx.sym.Variable("feat")
    net2 = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(d2, num_hidden=5, name="fc2"),
                                name="softmax")
    m1 = mx.mod.Module(net1, label_names=None, context=mx.cpu())
    m2 = mx.mod.Module(net2, data_names=["feat"], context=mx.cpu())
    seq = mx.mod.SequentialModule()
    seq.add(m1).add(m2, take_labels=True, auto_wiring=True)
    a1, _ = fixed_params(mx, net1, 0, data=(16, 20))
    a2, _ = fixed_params(mx, net2, 1, feat=(16, 8))
    a1.update(a2)
    logger, cap = capture_logger("xnd_module_golden_seq")
    seq.logger = logger
    seq.fit(mx.io.NDArrayIter(x, y, batch_size=16), optimizer="sgd",
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9}, arg_params=a1,
            aux_params={}, num_epoch=2, epoch_end_callback=epoch_recorder(out))
    log_values(out, cap.lines)
    out["output_shapes"] = repr(seq.output_shapes)
    return out


def speedometer(mx):
    """Speedometer's log lines (root logger) during fit."""
    out = OrderedDict()
    x, y = data(64, (20,))
    root = logging.getLogger()
    cap = LogCapture()
    old = root.level
    root.addHandler(cap)
    root.setLevel(logging.INFO)
    try:
        sym = mlp(mx)
        mod = mx.mod.Module(sym, context=mx.cpu())
        arg, aux = fixed_params(mx, sym, 0, data=(8, 20))
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=8), optimizer="sgd",
                optimizer_params={"learning_rate": 0.1}, arg_params=arg, aux_params=aux,
                num_epoch=2, eval_metric=["acc", "ce"],
                batch_end_callback=mx.callback.Speedometer(8, 3))
    finally:
        root.removeHandler(cap)
        root.setLevel(old)
    lines = [re.sub(r"Speed: [0-9.]+ samples/sec", "Speed: <s> samples/sec", ln)
             for ln in cap.lines if "Batch" in ln or "Epoch" in ln]
    log_values(out, lines)
    return out


SCENARIOS = OrderedDict((f.__name__, f) for f in [
    fit_mlp_sgd, fit_mlp_adam, fit_mlp_sched, fit_cnn_bn, fit_cnn_bn_2dev, fit_mlp_2dev,
    fit_mlp_3dev_uneven, manual_orders, out_grads, grad_add, fixed_and_inputs, predict_pad,
    reshape_train, checkpoint_resume, states_roundtrip, bucketing, sequential, speedometer])


def run(mx, name):
    return SCENARIOS[name](mx)
