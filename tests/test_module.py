"""mx.mod.Module: the API around the compiled training step (MXNet 1.9.1's behaviour).

Numbers against real MXNet are in test_module_goldens.py; here: bind/init/optimizer
rules and errors, get_params quirks, the fused step (one compile per batch shape, equal
to the unfused path, donation only when safe), BucketingModule sharing, data parallel
vs one device (in a subprocess with two XLA host devices) and the seed article's
Module listings run as scripts.
"""
import logging
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import xnd as mx
from xnd import tiers
from xnd.frontend.module import _programs as M

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GOLD = os.path.join(HERE, "goldens", "module")


def mlp(hidden=16, classes=5):
    data = mx.sym.Variable("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=hidden, name="fc1")
    act = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    fc2 = mx.sym.FullyConnected(act, num_hidden=classes, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def cnn():
    data = mx.sym.Variable("data")
    conv = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), pad=(1, 1), name="conv1")
    bn = mx.sym.BatchNorm(conv, fix_gamma=False, name="bn1")
    act = mx.sym.Activation(bn, act_type="relu", name="relu1")
    pool = mx.sym.Pooling(act, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    fc = mx.sym.FullyConnected(mx.sym.Flatten(pool), num_hidden=5, name="fc1")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def data(n, shape, classes=5, seed=1):
    rs = np.random.RandomState(seed)
    return (rs.randn(n, *shape).astype(np.float32),
            rs.randint(0, classes, size=n).astype(np.float32))


def params_np(mod):
    arg, aux = mod.get_params()
    out = {("arg", k): v.asnumpy() for k, v in arg.items()}
    out.update({("aux", k): v.asnumpy() for k, v in aux.items()})
    return out


def bound(sym=None, batch=8, shape=(20,), **kw):
    mod = mx.mod.Module(sym if sym is not None else mlp(), context=mx.cpu())
    mod.bind(data_shapes=[("data", (batch,) + shape)], label_shapes=[("softmax_label", (batch,))],
             **kw)
    return mod


# ---- bind ---------------------------------------------------------------------------------------
def test_bind_shapes_as_tuples_or_datadesc():
    a = bound()
    b = mx.mod.Module(mlp())
    b.bind(data_shapes=[mx.io.DataDesc("data", (8, 20))],
           label_shapes=[mx.io.DataDesc("softmax_label", (8,))])
    for m in (a, b):
        assert [(d.name, d.shape) for d in m.data_shapes] == [("data", (8, 20))]
        assert isinstance(m.data_shapes[0], mx.io.DataDesc)
        assert m.output_shapes == [("softmax_output", (8, 5))]
        assert m.data_names == ["data"] and m.label_names == ["softmax_label"]
        assert m.output_names == ["softmax_output"]


def test_bind_errors_and_warnings(caplog):
    with pytest.raises(AssertionError):
        mx.mod.Module(mlp()).data_shapes            # not bound
    with pytest.raises(ValueError, match="don't match names"):
        mx.mod.Module(mlp()).bind([("x", (8, 20))])
    with pytest.raises(AssertionError, match="same batch size"):
        mx.mod.Module(mlp()).bind([("data", (8, 20))], [("softmax_label", (7,))])
    with pytest.raises(AssertionError):
        mx.mod.Module(mlp()).bind([("data", (8, 20))], for_training=False, inputs_need_grad=True)
    with pytest.raises(ValueError, match="is not found in symbol.list_arguments"):
        mx.mod.Module(mlp(), data_names=["x"])
    with pytest.warns(UserWarning, match="label_names"):
        mx.mod.Module(mlp(), label_names=["y"])
    m = bound()
    with caplog.at_level(logging.WARNING):
        m.bind([("data", (8, 20))], [("softmax_label", (8,))])
    assert "Already bound, ignoring bind()" in caplog.text


def test_inference_binding_and_force_rebind():
    m = mx.mod.Module(mlp())
    m.bind([("data", (4, 20))], for_training=False)   # no labels: prediction only
    m.init_params()
    x = mx.nd.array(data(4, (20,))[0])
    m.forward(mx.io.DataBatch([x]))
    out = m.get_outputs()[0].asnumpy()
    assert out.shape == (4, 5) and np.allclose(out.sum(1), 1, atol=1e-5)
    with pytest.raises(AssertionError, match="for_training"):
        m.backward()
    before = params_np(m)
    m.bind([("data", (4, 20))], [("softmax_label", (4,))], force_rebind=True)
    assert m.params_initialized and m.for_training
    after = params_np(m)
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_grad_req_forms():
    for req, want in [("write", {"fc1_weight": "write", "data": "null"}),
                      ({"fc1_weight": "null"}, {"fc1_weight": "null", "fc2_bias": "write"}),
                      ("add", {"fc2_weight": "add", "softmax_label": "null"})]:
        m = bound(grad_req=req)
        reqs = dict(zip(m._symbol.list_arguments(), m._exec._reqs))
        for k, v in want.items():
            assert reqs[k] == v, (req, k)
    m = bound(inputs_need_grad=True, grad_req="add")
    assert dict(zip(m._symbol.list_arguments(), m._exec._reqs))["data"] == "add"


# ---- parameters ------------------------------------------------------------------------------
def test_init_params_defaults_and_rules():
    m = bound()
    m.init_params()                                   # Uniform(0.01), biases 0
    arg, aux = m.get_params()
    w = arg["fc1_weight"].asnumpy()
    assert np.abs(w).max() <= 0.01 and np.abs(w).max() > 0
    assert not arg["fc1_bias"].asnumpy().any()
    with pytest.warns(UserWarning, match="already initialized"):
        m.init_params()
    m2 = bound()
    with pytest.raises(RuntimeError, match="fc1_bias is not presented"):   # sorted order
        m2.init_params(arg_params={"fc2_weight": mx.nd.ones((5, 16))})
    m2.init_params(mx.init.Constant(3), arg_params={"fc2_weight": mx.nd.ones((5, 16))},
                   allow_missing=True)
    a2, _ = m2.get_params()
    assert (a2["fc2_weight"].asnumpy() == 1).all() and (a2["fc1_weight"].asnumpy() == 3).all()
    # MXNet ignores extra names in init_params; set_params(allow_missing=True) checks them
    m2.init_params(arg_params={"zzz": mx.nd.ones(2)}, allow_missing=True, force_init=True)
    with pytest.raises(ValueError, match='Find name "zzz"'):
        m2.set_params({"zzz": mx.nd.ones(2)}, {}, allow_missing=True)
    m2.set_params({"zzz": mx.nd.ones(2)}, {}, allow_missing=True, allow_extra=True)
    with pytest.raises(mx.MXNetError):
        m2.init_params(arg_params={"fc1_weight": mx.nd.ones((3, 3))}, allow_missing=True,
                       force_init=True)


def test_get_params_returns_the_same_dicts_refreshed_after_update():
    x, y = data(8, (20,))
    m = bound()
    m.init_params(mx.init.Xavier())
    m.init_optimizer(optimizer_params={"learning_rate": 0.5})
    arg, aux = m.get_params()
    w0 = arg["fc1_weight"].asnumpy().copy()
    b = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
    m.forward_backward(b)
    a2, _ = m.get_params()
    assert a2 is arg and np.array_equal(a2["fc1_weight"].asnumpy(), w0)  # no update yet
    m.update()
    a3, _ = m.get_params()
    assert a3 is arg and not np.array_equal(arg["fc1_weight"].asnumpy(), w0)


# ---- optimizer --------------------------------------------------------------------------------
def test_init_optimizer_rules():
    m = bound(batch=16)
    m.init_params()
    with pytest.raises(AssertionError):
        m.update()                                      # before init_optimizer
    with pytest.raises(ValueError, match="Cannot find optimizer foo.*sgd"):
        m.init_optimizer(optimizer="foo")
    m.init_optimizer()
    assert m._optimizer.rescale_grad == 1 / 16 and m._kvstore is None
    assert m._optimizer.idx2name == dict(enumerate(m._param_names))
    with pytest.warns(UserWarning, match="rescale_grad is not normalized"):
        m.init_optimizer(optimizer=mx.optimizer.Adam(), force_init=True)
    m.init_optimizer(optimizer="adam", optimizer_params={"rescale_grad": 0.5}, force_init=True)
    assert type(m._optimizer).__name__ == "Adam" and m._optimizer.rescale_grad == 0.5
    m.init_optimizer(kvstore="dist_sync", force_init=True)  # single process: rank 0 of 1
    assert m._optimizer is not None


def test_nan_loss_training_continues():
    x, y = data(16, (20,))
    x[3, 2] = np.nan
    logger = logging.getLogger("xnd-test-nan")
    d = mx.sym.Variable("data")
    linear = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(d, num_hidden=5, name="fc1"),
                                  name="softmax")
    m = mx.mod.Module(linear, logger=logger)
    records = []
    handler = logging.Handler()
    handler.emit = lambda r: records.append(r.getMessage())
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        m.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=2, eval_metric="ce",
              optimizer_params={"learning_rate": 0.1})
    finally:
        logger.removeHandler(handler)
    assert "Epoch[1] Train-cross-entropy=nan" in records
    assert np.isnan(m.get_params()[0]["fc1_weight"].asnumpy()).any()


# ---- the fused step ------------------------------------------------------------------------------
class SmallLastBatch(mx.io.DataIter):
    """Full batches, then (optionally) one smaller last batch."""

    def __init__(self, x, y, batch, last=None):
        super().__init__(batch)
        self.x, self.y, self.batch, self.last = x, y, batch, last
        self.provide_data = [mx.io.DataDesc("data", (batch,) + x.shape[1:])]
        self.provide_label = [mx.io.DataDesc("softmax_label", (batch,))]
        self.reset()

    def reset(self):
        n = len(self.x) // self.batch * self.batch
        self.bounds = [(i, i + self.batch) for i in range(0, n, self.batch)]
        if self.last:
            self.bounds.append((n, n + self.last))

    def next(self):
        if not self.bounds:
            raise StopIteration
        a, b = self.bounds.pop(0)
        return mx.io.DataBatch([mx.nd.array(self.x[a:b])], [mx.nd.array(self.y[a:b])], pad=0)


def test_fit_compiles_the_step_once_per_batch_shape():
    import jax
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)
    x, y = data(30 * 8 + 5, (20,))
    m = mx.mod.Module(mlp(hidden=24))
    M.TRACES.clear()
    m.fit(SmallLastBatch(x, y, 8), num_epoch=1, optimizer_params={"learning_rate": 0.1})
    assert M.TRACES["step"] == 1, M.TRACES            # 30 steps, one compile
    n = len(compiles)
    m.fit(SmallLastBatch(x, y, 8), begin_epoch=1, num_epoch=3)
    assert M.TRACES["step"] == 1 and len(compiles) == n, "steady-state epochs compiled again"
    m.fit(SmallLastBatch(x, y, 8, last=5), begin_epoch=3, num_epoch=5)
    assert M.TRACES["step"] == 2, M.TRACES            # the last batch's shape: one more
    assert M.TRACES["fwd_bwd"] == 0 and M.TRACES["forward"] == 0


def _train(order, sym, x, y, batch, steps, opt="sgd", **opt_params):
    m = mx.mod.Module(sym)
    m.bind([("data", (batch,) + x.shape[1:])], [("softmax_label", (batch,))])
    m.init_params(mx.init.Xavier(rnd_type="gaussian"))
    m.set_params(*[{k: v.copy() for k, v in d.items()} for d in _FIXED[id(sym)]])
    m.init_optimizer(optimizer=opt, optimizer_params=opt_params)
    metric = mx.metric.create("acc")
    for i in range(steps):
        a = (i * batch) % len(x)
        b = mx.io.DataBatch([mx.nd.array(x[a:a + batch])], [mx.nd.array(y[a:a + batch])])
        m.forward(b, is_train=True)
        if order == "fused":
            m.backward()
            m.update()
        else:                                    # outputs read between backward and update
            m.backward()
            m.get_outputs()
            m.update()
        m.update_metric(metric, b.label)
    return params_np(m), metric.get()[1]


_FIXED = {}


def test_fused_step_equals_unfused_path():
    x, y = data(48, (3, 6, 6))
    sym = cnn()
    ref = mx.mod.Module(sym)
    ref.bind([("data", (8, 3, 6, 6))], [("softmax_label", (8,))])
    ref.init_params(mx.init.Xavier(rnd_type="gaussian"))
    _FIXED[id(sym)] = ref.get_params()
    M.TRACES.clear()
    fused, acc1 = _train("fused", sym, x, y, 8, 6, momentum=0.9, wd=1e-3, learning_rate=0.1)
    assert M.TRACES["step"] >= 1 and M.TRACES["fwd_bwd"] == 0
    plain, acc2 = _train("plain", sym, x, y, 8, 6, momentum=0.9, wd=1e-3, learning_rate=0.1)
    assert M.TRACES["fwd_bwd"] >= 1
    assert acc1 == acc2
    for k in fused:
        np.testing.assert_allclose(fused[k], plain[k], rtol=1e-5, atol=1e-6, err_msg=str(k))


def test_donation_only_when_safe():
    x, y = data(16, (20,))
    m = bound()
    m.init_params(mx.init.Xavier())
    m.init_optimizer(optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    xb, yb = mx.nd.array(x[:8]), mx.nd.array(y[:8])
    batch = mx.io.DataBatch([xb], [yb])
    w = m._exec.arg_dict["fc1_weight"]
    for _ in range(max(1, tiers.TABLE.quick_calls)):   # (the host tier's steps donate nothing)
        m.forward_backward(batch)
        m.update()                  # first step: the buffers from set_params are the module's
    old = w._val()
    m.forward_backward(batch)
    m.update()
    assert old.is_deleted(), "parameter buffer was not donated"
    assert not xb._val().is_deleted() and not yb._val().is_deleted()   # the caller's batch
    np.testing.assert_array_equal(xb.asnumpy(), x[:8])
    # a second handle on the parameter's buffer: the next step must not donate it
    alias = mx.nd.zeros(w.shape)
    w.copyto(alias)
    held = w._val()
    m.forward_backward(batch)
    m.update()
    assert not held.is_deleted()
    assert np.isfinite(alias.asnumpy()).all()
    held2 = w._val()                # the step's output is the module's again
    m.forward_backward(batch)
    m.update()
    assert held2.is_deleted()


def test_update_metric_before_backward_and_twice_update():
    x, y = data(16, (20,))
    m = bound()
    m.init_params(mx.init.Xavier())
    m.init_optimizer(optimizer_params={"learning_rate": 0.1})
    b = mx.io.DataBatch([mx.nd.array(x[:8])], [mx.nd.array(y[:8])])
    metric = mx.metric.create("acc")
    m.forward(b, is_train=True)
    m.update_metric(metric, b.label)          # forward computed for the metric
    out_before = m.get_outputs()[0].asnumpy()
    m.backward()
    m.update()                                # still the fused step
    np.testing.assert_allclose(m.get_outputs()[0].asnumpy(), out_before, rtol=1e-6)
    assert metric.num_inst == 8


def test_exec_group_view():
    m = bound()
    m.init_params()
    g = m._exec_group
    assert g.batch_size == 8 and g.param_names == m._param_names
    assert len(g.execs) == 1 and set(g.execs[0].arg_dict) >= {"data", "fc1_weight"}
    assert g.grad_arrays[0][0].shape == g.param_arrays[0][0].shape
    assert g.get_output_shapes() == [("softmax_output", (8, 5))]


# ---- bucketing ----------------------------------------------------------------------------------
def test_bucketing_shares_parameters_and_compiles_per_bucket():
    def sym_gen(key):
        d = mx.sym.Variable("data")
        fc = mx.sym.FullyConnected(d, num_hidden=4, flatten=False, name="fc1")
        pooled = mx.sym.mean(fc, axis=1)
        out = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(pooled, num_hidden=3, name="fc2"),
                                   name="softmax")
        return out, ("data",), ("softmax_label",)
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=6)
    mod.bind([("data", (4, 6, 5))], [("softmax_label", (4,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer_params={"learning_rate": 0.1})
    rs = np.random.RandomState(0)
    M.TRACES.clear()
    for key in [6, 2, 6, 2, 2, 6]:
        x = mx.nd.array(rs.randn(4, key, 5))
        b = mx.io.DataBatch([x], [mx.nd.array(rs.randint(0, 3, 4))], bucket_key=key,
                            provide_data=[mx.io.DataDesc("data", (4, key, 5))],
                            provide_label=[mx.io.DataDesc("softmax_label", (4,))])
        mod.forward(b, is_train=True)
        mod.backward()
        mod.update()
    assert sorted(mod._buckets) == [2, 6] and M.TRACES["step"] == 2
    m6, m2 = mod._buckets[6], mod._buckets[2]
    assert m6._exec.arg_dict["fc1_weight"] is m2._exec.arg_dict["fc1_weight"]
    assert m2._updater is m6._updater
    arg, _ = mod.get_params()
    np.testing.assert_array_equal(arg["fc1_weight"].asnumpy(),
                                  m2._exec.arg_dict["fc1_weight"].asnumpy())


# ---- data parallel -----------------------------------------------------------------------------
_PARALLEL = r"""
import sys, json
import numpy as np
import jax
import xnd as mx
sys.path.insert(0, %(here)r)
import test_module as t
assert len(jax.devices("cpu")) == 2
x, y = t.data(64, (20,))
res = {}
def run(ctx, steps_per_epoch_check=False):
    m = mx.mod.Module(t.mlp(), context=ctx)
    it = mx.io.NDArrayIter(x, y, batch_size=16)
    m.bind(it.provide_data, it.provide_label)
    arg = {k: mx.nd.array(np.random.RandomState(0).uniform(-.3, .3, v))
           for k, v in zip(m._symbol.list_arguments(),
                           m._symbol.infer_shape(data=(16, 20))[0])
           if k not in ("data", "softmax_label")}
    m.fit(it, num_epoch=3, optimizer="adam", optimizer_params={"learning_rate": 0.01, "wd": 1e-3},
          arg_params=arg, aux_params={})
    return m
one = run(mx.cpu(0))
two = run([mx.cpu(0), mx.cpu(1)])
other = run(mx.cpu(1))          # a module on another device than its batches (like a GPU)
assert other._exec._args[0]._val().devices() == {jax.devices("cpu")[1]}
for k, v in one.get_params()[0].items():
    assert np.allclose(other.get_params()[0][k].asnumpy(), v.asnumpy(), rtol=1e-6, atol=1e-7), k
it = mx.io.NDArrayIter(x, y, batch_size=16)
assert other.score(it, ["acc", "ce"]) == one.score(it, ["acc", "ce"])
assert other.predict(it).context == mx.cpu(1)
assert two._exec.lay.mode == "spmd", two._exec.lay.mode
worst = 0.0
for k, v in one.get_params()[0].items():
    w = two.get_params()[0][k].asnumpy()
    worst = max(worst, float(np.max(np.abs(w - v.asnumpy()) / (1e-5 + np.abs(v.asnumpy())))))
    assert np.allclose(w, v.asnumpy(), rtol=1e-5, atol=1e-6), k
b = mx.io.DataBatch([mx.nd.array(x[:16])], [mx.nd.array(y[:16])])
two.forward(b, is_train=False)
merged = two.get_outputs()[0]
parts = two.get_outputs(merge_multi_context=False)[0]
assert merged.shape == (16, 5) and merged.context == mx.cpu(0)
assert [p.shape for p in parts] == [(8, 5), (8, 5)] and parts[1].context == mx.cpu(1)
one.forward(b, is_train=False)
assert np.allclose(merged.asnumpy(), one.get_outputs()[0].asnumpy(), rtol=1e-5, atol=1e-6)
m = mx.metric.create("acc"); two.update_metric(m, b.label)
m1 = mx.metric.create("acc"); one.update_metric(m1, b.label)
assert m.get() == m1.get() and m.num_inst == 16
print("OK", worst)
"""


def test_context_list_equals_single_device():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2",
               PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    res = subprocess.run([sys.executable, "-c", _PARALLEL % {"here": HERE}], env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and "OK" in res.stdout, res.stdout[-2000:] + res.stderr[-4000:]


# ---- the seed article's listings -------------------------------------------------------------
def _run_script(name):
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "xnd", "run", os.path.join(GOLD, name)],
                          cwd=GOLD, env=env, capture_output=True, text=True, timeout=300)


def test_seed_listing_3_1_runs_unchanged():
    res = _run_script("seed003_listing3_1.py")
    assert res.returncode == 0, res.stderr[-4000:]
    lines = res.stdout.splitlines()
    assert lines[0] == "(8, 2)"
    assert lines[1] == "[DataDesc[data,(8, 3, 16, 16),<class 'numpy.float32'>,NCHW]]"
    assert lines[2] == "[DataDesc[softmax_label,(8,),<class 'numpy.float32'>,NCHW]]"
    assert [re.sub(r"\d\.\d{4}$", "X", ln) for ln in lines[3:]] == \
        ["Epoch:%d Train_Acc:X" % e for e in range(5)]


def test_seed_listing_3_2_fit_logs_like_mxnet():
    res = _run_script("seed003_listing3_2.py")
    assert res.returncode == 0, res.stderr[-4000:]
    log = [ln for ln in res.stderr.splitlines() if ln.startswith("INFO:root:Epoch")]
    want = []
    for e in range(5):
        want += [r"INFO:root:Epoch\[%d\] Train-accuracy=\d\.\d{6}$" % e,
                 r"INFO:root:Epoch\[%d\] Time cost=\d+\.\d{3}$" % e]
    assert len(log) == 10 and all(re.match(w, ln) for w, ln in zip(want, log)), log


def test_base_module_is_abstract_with_clear_errors():
    """MXNet's BaseModule raises NotImplementedError for what subclasses define."""
    b = mx.mod.BaseModule()
    with pytest.raises(NotImplementedError, match=r"BaseModule does not define forward\(\)"):
        b.forward(None)
    with pytest.raises(NotImplementedError, match="does not define data_shapes"):
        b.data_shapes
    loss = mx.mod.PythonLossModule()
    with pytest.raises(NotImplementedError, match="needs grad_func"):
        loss._backward_impl()


def test_forward_takes_any_batch_with_data():
    """MXNet's forward reads .label only where the batch has one (a namedtuple of data)."""
    import collections
    batch = collections.namedtuple("Batch", ["data"])
    mod = mx.mod.Module(mx.sym.Variable("data") * 2, label_names=None)
    mod.bind(data_shapes=[("data", (1, 4))])
    mod.init_params()
    mod.forward(batch([mx.nd.ones((1, 4))]))
    assert mod.get_outputs()[0].asnumpy().tolist() == [[2.0] * 4]
    mod.forward(batch([mx.nd.ones((3, 2))]))          # a new shape re-binds
    assert mod.get_outputs()[0].asnumpy().tolist() == [[2.0] * 2] * 3
