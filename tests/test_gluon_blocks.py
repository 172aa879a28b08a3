"""Gluon blocks and parameters: naming, saving/loading in MXNet's formats, hybridize/export,
SymbolBlock, deferred initialization, hooks, summary, and MXNet's error messages.

Goldens: tests/goldens/gluon (``/work/mxref/bin/python tests/make_gluon_goldens.py``) and
the fixtures written by real MXNet 1.9.1 (tests/fixtures/gluon_cnn*, see MANIFEST.md).
"""
import contextlib
import io
import json
import os
import warnings

import numpy as np
import pytest

import xnd as mx
from xnd import autograd
from xnd.base import MXNetError
from xnd.frontend import gluon as G
from xnd.frontend import initializer
from xnd.frontend.gluon import block as gblock
from xnd.frontend.gluon import nn

import make_gluon_goldens as cases

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")
with open(os.path.join(HERE, "goldens", "gluon", "gluon.json")) as _f:
    GOLD = json.load(_f)


# ---- the MXNet-written Gluon CNN (fixtures) -----------------------------------------------------
def gluon_cnn():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(6, 3, padding=1, activation="relu"), nn.BatchNorm(), nn.MaxPool2D(2, 2),
                nn.Conv2D(8, 3), nn.Activation("relu"), nn.AvgPool2D(2), nn.Flatten(),
                nn.Dense(16, activation="relu"), nn.Dropout(0.3), nn.Dense(10))
    return net


X_CNN = np.load(os.path.join(FIX, "gluon_cnn_input.npy"))
Y_CNN = np.load(os.path.join(FIX, "gluon_cnn_output.npy"))
CNN_TOL = dict(rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fname", ["gluon_cnn.params", "gluon_cnn-legacy_save_params.params"])
def test_fixture_load_parameters(fname):
    net = gluon_cnn()  # any prefix: structural names, or the block's own prefix restored
    net.load_parameters(os.path.join(FIX, fname))
    np.testing.assert_allclose(net(mx.nd.array(X_CNN)).asnumpy(), Y_CNN, **CNN_TOL)
    net.hybridize()
    np.testing.assert_allclose(net(mx.nd.array(X_CNN)).asnumpy(), Y_CNN, **CNN_TOL)


def test_fixture_symbolblock_imports():
    sb = G.SymbolBlock.imports(os.path.join(FIX, "gluon_cnn-symbol.json"), "data",
                               os.path.join(FIX, "gluon_cnn-0000.params"))
    np.testing.assert_allclose(sb(mx.nd.array(X_CNN)).asnumpy(), Y_CNN, **CNN_TOL)
    assert sorted(sb.collect_params().keys())[0] == "hybridsequential0_batchnorm0_beta"


def test_fixture_export_matches_mxnet(tmp_path):
    net = gluon_cnn()
    with mx.name.NameManager():  # the fixture's net was the first block of its process
        net = gluon_cnn()
    # as in the fixture script: shapes inferred at a first imperative forward (the symbol
    # variables then carry the shapes known before inference, e.g. (6, 0, 3, 3))
    net.initialize()
    net(mx.nd.array(X_CNN))
    net.load_parameters(os.path.join(FIX, "gluon_cnn.params"))
    with pytest.raises(RuntimeError, match="hybridize"):
        net.export(str(tmp_path / "early"))
    net.hybridize()
    np.testing.assert_allclose(net(mx.nd.array(X_CNN)).asnumpy(), Y_CNN, **CNN_TOL)
    net.export(str(tmp_path / "cnn"), epoch=7)
    with open(tmp_path / "cnn-symbol.json") as f:
        ours = json.load(f)
    with open(os.path.join(FIX, "gluon_cnn-symbol.json")) as f:
        theirs = json.load(f)
    assert [(n["name"], n["op"]) for n in ours["nodes"]] == \
        [(n["name"], n["op"]) for n in theirs["nodes"]]
    assert ours["heads"] == theirs["heads"] and ours["arg_nodes"] == theirs["arg_nodes"]
    for a, b in zip(ours["nodes"], theirs["nodes"]):
        assert a.get("attrs", {}) == b.get("attrs", {}), a["name"]
        # (the third field of an input entry is a version counter, not compared)
        assert [i[:2] for i in a["inputs"]] == [i[:2] for i in b["inputs"]], a["name"]
    saved = mx.nd.load(str(tmp_path / "cnn-0007.params"))
    ref = mx.nd.load(os.path.join(FIX, "gluon_cnn-0000.params"))
    assert sorted(saved) == sorted(ref)
    for k in ref:
        np.testing.assert_array_equal(saved[k].asnumpy(), ref[k].asnumpy())
    # the exported files load back: as a SymbolBlock, and as a Symbol bound by the executor
    sb = G.SymbolBlock.imports(str(tmp_path / "cnn-symbol.json"), ["data"],
                               str(tmp_path / "cnn-0007.params"))
    np.testing.assert_allclose(sb(mx.nd.array(X_CNN)).asnumpy(), Y_CNN, **CNN_TOL)
    sym = mx.sym.load(str(tmp_path / "cnn-symbol.json"))
    args = {k[4:]: v for k, v in saved.items() if k.startswith("arg:")}
    aux = {k[4:]: v for k, v in saved.items() if k.startswith("aux:")}
    args["data"] = mx.nd.array(X_CNN)
    exe = sym.bind(mx.cpu(), args, aux_states=aux)
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), Y_CNN, **CNN_TOL)


def test_save_parameters_round_trip(tmp_path):
    net = gluon_cnn()
    net.load_parameters(os.path.join(FIX, "gluon_cnn.params"))
    net.save_parameters(str(tmp_path / "a.params"))
    ours, ref = mx.nd.load(str(tmp_path / "a.params")), mx.nd.load(
        os.path.join(FIX, "gluon_cnn.params"))
    assert list(ours) == list(ref)
    for k in ref:
        np.testing.assert_array_equal(ours[k].asnumpy(), ref[k].asnumpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net.save_params(str(tmp_path / "legacy.params"))
    legacy = mx.nd.load(str(tmp_path / "legacy.params"))
    assert sorted(legacy) == sorted(mx.nd.load(
        os.path.join(FIX, "gluon_cnn-legacy_save_params.params")))
    other = gluon_cnn()
    other.load_parameters(str(tmp_path / "legacy.params"))
    np.testing.assert_allclose(other(mx.nd.array(X_CNN)).asnumpy(), Y_CNN, **CNN_TOL)


def test_load_parameters_cast_dtype_and_flags(tmp_path):
    net = gluon_cnn()
    net.load_parameters(os.path.join(FIX, "gluon_cnn.params"))
    net.cast("float64")
    assert net[0].weight.data().dtype == np.float64
    np.testing.assert_allclose(net(mx.nd.array(X_CNN, dtype="float64")).asnumpy(), Y_CNN,
                               rtol=1e-5, atol=1e-5)
    other = gluon_cnn()
    other.cast("float64")
    with pytest.raises(AssertionError, match="dtype incompatible"):
        other.load_parameters(os.path.join(FIX, "gluon_cnn.params"))
    other.load_parameters(os.path.join(FIX, "gluon_cnn.params"), cast_dtype=True)
    assert other[0].weight.data().dtype == np.float64
    small = nn.HybridSequential()
    with small.name_scope():
        small.add(nn.Conv2D(6, 3, padding=1, activation="relu"))
    small.load_parameters(os.path.join(FIX, "gluon_cnn.params"), ignore_extra=True)
    bigger = gluon_cnn()
    bigger.add(nn.Dense(3))
    bigger.load_parameters(os.path.join(FIX, "gluon_cnn.params"), allow_missing=True)
    assert bigger[10].weight._data is None


# ---- naming (goldens) --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def naming():
    return cases.naming_nets(mx, G)


@pytest.mark.parametrize("key", ["d0", "d1", "model", "seq", "hseq", "two", "lstm", "shared"])
def test_naming(naming, key):
    gold = GOLD["naming"][key]
    net = naming[key]
    assert net.prefix == gold["prefix"] and net.name == gold["name"]
    assert [[n, list(p.shape) if p.shape is not None else None]
            for n, p in net.collect_params().items()] == gold["params"]
    assert sorted(net._collect_params_with_prefix()) == gold["structural"]
    assert repr(net) == gold["repr"]


def test_naming_select_repr_and_files(naming, tmp_path):
    gold = GOLD["naming"]
    assert sorted(naming["model"].collect_params(".*weight|.*running").keys()) == gold["select"]
    assert repr(naming["hseq"].collect_params()) == gold["params_repr"]
    hseq, two, model, lstm = naming["hseq"], naming["two"], naming["model"], naming["lstm"]
    hseq.initialize()
    hseq.hybridize()
    hseq(mx.nd.ones((2, 2, 5, 5)))
    hseq.export(str(tmp_path / "hseq"), epoch=3)
    with open(tmp_path / "hseq-symbol.json") as f:
        assert [[n["name"], n["op"]] for n in json.load(f)["nodes"]] == \
            gold["export_hseq"]["nodes"]
    assert sorted(mx.nd.load(str(tmp_path / "hseq-0003.params"))) == \
        gold["export_hseq"]["params"]
    two.initialize()
    two.hybridize()
    two(mx.nd.ones((2, 4)), mx.nd.ones((2, 3)))
    two.export(str(tmp_path / "two"))
    with open(tmp_path / "two-symbol.json") as f:
        assert [[n["name"], n["op"]] for n in json.load(f)["nodes"]] == \
            gold["export_two"]["nodes"]
    assert sorted(mx.nd.load(str(tmp_path / "two-0000.params"))) == gold["export_two"]["params"]
    model.initialize()
    model(mx.nd.ones((1, 2, 5, 5)))
    model.save_parameters(str(tmp_path / "model.params"))
    assert sorted(mx.nd.load(str(tmp_path / "model.params"))) == gold["save_parameters_keys"]
    # MXNet 1.9.1 fails here (a child outside the name scope); so does xnd, with a clear error
    assert gold["save_params_keys"].startswith("error")
    with pytest.raises(ValueError, match="does not start with"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.save_params(str(tmp_path / "legacy.params"))
    lstm.initialize()
    lstm.save_parameters(str(tmp_path / "lstm.params"))
    assert sorted(mx.nd.load(str(tmp_path / "lstm.params"))) == gold["lstm_save_keys"]


def test_summary_matches_mxnet():
    with mx.name.NameManager():
        net = cases.summary_net(G)
    net.initialize()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        net.summary(mx.nd.ones((2, 3, 6, 6)))
    assert buf.getvalue() == GOLD["naming"]["summary"]
    net.hybridize()
    with pytest.raises(AssertionError, match="must not be hybridized"):
        net.summary(mx.nd.ones((2, 3, 6, 6)))


def test_name_scope_counters():
    with mx.name.NameManager():
        a, b = nn.Dense(2), nn.Dense(2)
        seq = nn.HybridSequential()
        with seq.name_scope():
            c, d = nn.Dense(3), nn.Conv2D(2, 1)
            e = nn.Conv2DTranspose(2, 1)
            p = nn.MaxPool2D()
            q = nn.GlobalAvgPool2D()
            r = nn.Activation("relu")
        outside = nn.Dense(1)
        named = nn.Dense(1, prefix="model_")
    assert [x.prefix for x in (a, b, seq, c, d, e, p, q, r, outside, named)] == [
        "dense0_", "dense1_", "hybridsequential0_", "hybridsequential0_dense0_",
        "hybridsequential0_conv0_", "hybridsequential0_conv1_", "hybridsequential0_pool0_",
        "hybridsequential0_pool1_", "hybridsequential0_relu0_", "dense2_", "model_"]


# ---- errors (goldens) -----------------------------------------------------------------------
def test_errors_match_mxnet(tmp_path):
    gold = GOLD["errors"]

    def err(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            return [type(e).__name__, str(e)]
        return None

    def same(key, got, exact=True):
        want = gold[key]
        assert got is not None, key
        assert got[0] == want[0], (key, got)
        if exact:
            assert got[1] == want[1].replace("/tmp/xnd_gluon_golden_", str(tmp_path) + "/"), key

    with mx.name.NameManager():
        d = nn.Dense(3, in_units=4)
        same("not_initialized", err(lambda: d(mx.nd.ones((2, 4)))))
        d2 = nn.Dense(3)
        d2.initialize()
        same("deferred_data", err(lambda: d2.weight.data()))
        d3 = nn.Dense(3, in_units=4)
        d3.initialize()
        d3.save_parameters(str(tmp_path / "d3.params"))
        d4 = nn.Dense(3, in_units=5)
        same("shape_mismatch", err(lambda: d4.load_parameters(str(tmp_path / "d3.params"))))
        s = nn.HybridSequential()
        with s.name_scope():
            s.add(nn.Dense(3, in_units=4), nn.Dense(2, in_units=3))
        s2 = nn.HybridSequential()
        with s2.name_scope():
            s2.add(nn.Dense(3, in_units=4))
        s.initialize()
        s.save_parameters(str(tmp_path / "s.params"))
        s2.initialize()
        s2.save_parameters(str(tmp_path / "s2.params"))
        same("missing", err(lambda: s.load_parameters(str(tmp_path / "s2.params"))))
        same("extra", err(lambda: s2.load_parameters(str(tmp_path / "s.params"))))
        got = err(lambda: d3(mx.nd.ones((2, 5))))
        same("dense_rank", got, exact=False)
        assert "(3,4)" in got[1].replace(" ", "") or "(3, 4)" in got[1], got
        c = nn.Conv2D(2, 3, in_channels=3)
        c.initialize()
        same("conv_rank", err(lambda: c(mx.nd.ones((2, 3, 5)))), exact=False)
        got = err(lambda: nn.HybridSequential().add(nn.Sequential()))
        assert got[0] == "ValueError" and "must also be HybridBlock" in got[1]
        same("export_before_forward", err(lambda: nn.Dense(2).export(str(tmp_path / "never"))))
        tr_net = nn.Dense(2, in_units=2)
        tr_net.initialize()
        trainer = G.Trainer(tr_net.collect_params(), "sgd")
        same("stale_grad", err(lambda: trainer.step(1)))


# ---- parameters --------------------------------------------------------------------------
def test_parameter_api():
    p = G.Parameter("w", shape=(2, 3), init=initializer.One())
    assert repr(p) == "Parameter w (shape=(2, 3), dtype=<class 'numpy.float32'>)"
    with pytest.raises(RuntimeError, match="has not been initialized"):
        p.data()
    p.initialize(ctx=mx.cpu())
    np.testing.assert_array_equal(p.data().asnumpy(), np.ones((2, 3)))
    assert p.list_ctx() == [mx.cpu()] and len(p.list_data()) == 1
    np.testing.assert_array_equal(p.grad().asnumpy(), np.zeros((2, 3)))
    with pytest.warns(UserWarning, match="already initialized"):
        p.initialize()
    p.initialize(init=initializer.Constant(2.0), force_reinit=True)
    np.testing.assert_array_equal(p.data().asnumpy(), 2 * np.ones((2, 3)))
    p.set_data(mx.nd.arange(6).reshape((2, 3)))
    x = mx.nd.ones((4, 3))
    with autograd.record():
        y = mx.nd.FullyConnected(x, p.data(), no_bias=True, num_hidden=2)
    y.backward()
    np.testing.assert_array_equal(p.grad().asnumpy(), 4 * np.ones((2, 3)))
    p.zero_grad()
    np.testing.assert_array_equal(p.grad().asnumpy(), np.zeros((2, 3)))
    p.grad_req = "null"
    with pytest.raises(RuntimeError, match="grad_req='null'"):
        p.grad()
    v = p.var()
    assert v.name == "w" and v.attr("__shape__") == "(2, 3)"
    p.cast("float16")
    assert p.data().dtype == np.float16
    with pytest.raises(AssertionError, match="incompatible"):
        p.shape = (3, 3)
    q = G.Parameter("q", shape=(0, 3), allow_deferred_init=True)
    q.initialize()
    with pytest.raises(G.DeferredInitializationError):
        q.data()
    q.shape = (5, 3)
    q._finish_deferred_init()
    assert q.data().shape == (5, 3)
    q.reset_ctx(mx.cpu(0))
    assert q.list_ctx() == [mx.cpu(0)]
    c = G.Constant("c", [[1, 2], [3, 4]])
    c.initialize()
    np.testing.assert_array_equal(c.data().asnumpy(), [[1, 2], [3, 4]])
    assert c.grad_req == "null"


def test_parameter_dict(tmp_path):
    pd = G.ParameterDict("net_")
    w = pd.get("weight", shape=(3, 0), allow_deferred_init=True)
    assert w.name == "net_weight" and pd.get("weight") is w
    assert pd.get("weight", shape=(3, 4)).shape == (3, 4)
    with pytest.raises(AssertionError, match="does not match"):
        pd.get("weight", shape=(2, 4))
    pd.get("bias", shape=(3,), init="zeros")
    pd.get_constant("const", [1.0, 2.0])
    assert list(pd.keys()) == ["net_weight", "net_bias", "net_const"]
    pd.initialize(init=initializer.Uniform(1.0))
    pd.setattr("lr_mult", 0.5)
    assert all(p.lr_mult == 0.5 for p in pd.values())
    pd.save(str(tmp_path / "pd.params"), strip_prefix="net_")
    assert sorted(mx.nd.load(str(tmp_path / "pd.params"))) == ["bias", "const", "weight"]
    other = G.ParameterDict("net_")
    other.get("weight", shape=(3, 4))
    other.get("bias", shape=(3,))
    other.load(str(tmp_path / "pd.params"), restore_prefix="net_", ignore_extra=True)
    np.testing.assert_array_equal(other["net_weight"].data().asnumpy(), w.data().asnumpy())
    with pytest.raises(AssertionError, match="is not present"):
        other.load(str(tmp_path / "pd.params"), restore_prefix="net_")
    shared = G.ParameterDict("other_", shared=pd)
    assert shared.get("weight") is not w
    assert G.ParameterDict("net_", shared=pd).get("weight") is w
    with pytest.raises(AssertionError, match="different Parameters"):
        pd.update({"net_weight": G.Parameter("net_weight")})
    pd.zero_grad()
    assert len(pd.list_ctx()) == 1


def test_deferred_init_and_infer_shape():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Dense(7), nn.Dense(3, flatten=False))
    net.initialize()
    assert net[0].weight.shape == (4, 0, 3, 3)
    net.infer_shape(mx.nd.zeros((2, 5, 8, 8)))
    assert net[0].weight.shape == (4, 5, 3, 3) and net[1].gamma.shape == (4,)
    assert net[2].weight.shape == (7, 144) and net[3].weight.shape == (3, 7)
    out = net(mx.nd.ones((2, 5, 8, 8)))
    assert out.shape == (2, 3)
    net2 = nn.Dense(4)
    net2.initialize()
    net2(mx.nd.ones((3, 2, 5)))
    assert net2.weight.shape == (4, 10)


# ---- hybridize ----------------------------------------------------------------------------
class _Multi(G.HybridBlock):
    """Several inputs (one optional), nested outputs, a Symbol-level op of its own."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.a = nn.Dense(4, activation="tanh")
            self.b = nn.Dense(4, in_units=3)
            self.scale = self.params.get("scale", shape=(1, 4), init=initializer.One())

    def hybrid_forward(self, F, x, y, z=None, scale=None):
        h = F.broadcast_mul(self.a(x) + self.b(y), scale)
        if z is not None:
            h = F.broadcast_add(h, z)
        return h, [F.sum(h, axis=1), F.relu(h) * 0.5]


def test_hybridize_matches_imperative_and_retraces_per_shape():
    net = _Multi()
    net.initialize(initializer.Xavier())
    x, y, z = mx.nd.random.uniform(shape=(2, 5)), mx.nd.ones((2, 3)), mx.nd.ones((1, 4))
    ref = net(x, y, z)
    ref_flat = [ref[0].asnumpy(), ref[1][0].asnumpy(), ref[1][1].asnumpy()]
    net.hybridize(static_alloc=True, static_shape=True)
    out = net(x, y, z)
    for a, b in zip([out[0], out[1][0], out[1][1]], ref_flat):
        np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-6, atol=1e-6)
    # gradients agree too
    grads = []
    for hyb in (False, True):
        net.hybridize(hyb)
        x.attach_grad()
        with autograd.record():
            h, (s, r) = net(x, y, z)
            loss = s + mx.nd.sum(r, axis=1)
        loss.backward()
        grads.append([x.grad.asnumpy()] + [p.grad().asnumpy()
                                           for p in net.collect_params().values()])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # one graph op; a new batch size is a new XLA compile of the same graph, not a new trace
    ops = gblock.STATS["graph_ops"]
    net(mx.nd.ones((5, 5)), mx.nd.ones((5, 3)), mx.nd.ones((1, 4)))
    net(mx.nd.ones((5, 5)), mx.nd.ones((5, 3)), mx.nd.ones((1, 4)))
    assert gblock.STATS["graph_ops"] == ops
    with pytest.raises(ValueError, match="does not match"):
        net(x, y)  # another input structure than the cached graph


def test_hybridized_backward_reuses_forward_and_refuses_second_order():
    net = nn.Dense(3, activation="tanh", in_units=2)
    net.initialize(initializer.Constant(0.3))
    net.hybridize()
    x = mx.nd.array([[0.5, -1.0]])
    x.attach_grad()
    traces = gblock.STATS["graph_traces"]
    for _ in range(3):
        with autograd.record():
            y = net(x).sum()
        y.backward()
    # forward without and with residuals, backward from the residuals: traced once each
    assert gblock.STATS["graph_traces"] - traces == 2
    # y = sum_j tanh(0.3 * 0.5 - 0.3 * 1.0) (bias: its own 'zeros' initializer)
    np.testing.assert_allclose(x.grad.asnumpy(),
                               np.full((1, 2), 3 * 0.3 * (1 - np.tanh(-0.15) ** 2)), rtol=1e-5)
    with pytest.raises(MXNetError, match="hybridize\\(False\\)"):
        with autograd.record():
            y = net(x).sum()
            g = autograd.grad(y, [x], create_graph=True)[0]
            z = (g * g).sum()
        z.backward()


def test_hybridized_batchnorm_stats_update_only_at_backward():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(3, in_units=2), nn.BatchNorm(in_channels=3))
    net.initialize()
    net.hybridize()
    x = mx.nd.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    bn = net[1]
    with autograd.record():
        y = net(x)
    np.testing.assert_array_equal(bn.running_mean.data().asnumpy(), np.zeros(3))
    y.backward()
    assert np.abs(bn.running_mean.data().asnumpy()).sum() > 0
    before = bn.running_mean.data().asnumpy()
    with autograd.record(train_mode=False):
        y = net(x)
    y.backward()
    np.testing.assert_array_equal(bn.running_mean.data().asnumpy(), before)
    net(x)  # predict mode
    np.testing.assert_array_equal(bn.running_mean.data().asnumpy(), before)


def test_symbolblock_from_symbols_and_compose():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    act = mx.sym.Activation(fc, act_type="relu", name="act")
    sb = G.SymbolBlock([fc, act], data)
    sb.initialize(initializer.One())
    out = sb(mx.nd.ones((2, 4)))
    assert isinstance(out, list) and len(out) == 2
    np.testing.assert_array_equal(out[0].asnumpy(), 5 * np.ones((2, 3)))  # bias has no init
    assert sorted(sb.collect_params()) == ["fc_bias", "fc_weight"]
    composed = sb(mx.sym.var("x"))
    assert composed[0].list_arguments() == ["x", "fc_weight", "fc_bias"]
    inner = nn.HybridSequential()
    with inner.name_scope():
        inner.add(nn.Dense(3, in_units=4))
    inner.initialize()
    internals = inner(mx.sym.var("data"))
    sb2 = G.SymbolBlock(internals, mx.sym.var("data"), params=inner.collect_params())
    np.testing.assert_allclose(sb2(mx.nd.ones((1, 4))).asnumpy(),
                               inner(mx.nd.ones((1, 4))).asnumpy(), rtol=1e-6)


def test_hooks_apply_cast_and_lambdas():
    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Dense(3, in_units=2), nn.Lambda(lambda x: x * 2),
                nn.HybridLambda(lambda F, x: F.relu(x)), nn.HybridLambda("tanh"))
    net.initialize(initializer.One())
    seen = []
    h1 = net[0].register_forward_pre_hook(lambda b, inp: seen.append(("pre", b.name)))
    h2 = net[0].register_forward_hook(lambda b, inp, out: seen.append(("post", out.shape)))
    out = net(mx.nd.ones((1, 2)))
    # Dense's bias has its own initializer ('zeros'): y = 2 * (1 + 1) -> tanh(4)
    np.testing.assert_allclose(out.asnumpy(), np.tanh(np.full((1, 3), 4.0)), rtol=1e-6)
    assert seen == [("pre", net[0].name), ("post", (1, 3))]
    h1.detach()
    with h2:
        pass
    net(mx.nd.ones((1, 2)))
    assert len(seen) == 2
    names = []
    net.apply(lambda b: names.append(type(b).__name__))
    assert names == ["Dense", "Lambda", "HybridLambda", "HybridLambda", "Sequential"]
    net.cast("float64")
    assert net[0].weight.data().dtype == np.float64
    assert len(net) == 4 and isinstance(net[1:], nn.Sequential) and len(net[1:]) == 3
    with pytest.warns(UserWarning, match="Consider using HybridSequential"):
        hs = nn.Sequential()
        hs.add(nn.Dense(2))
        hs.hybridize()


def test_grad_req_add_accumulates():
    net = nn.Dense(2, in_units=3)
    net.initialize(initializer.One())
    net.collect_params().setattr("grad_req", "add")
    x = mx.nd.ones((1, 3))
    for _ in range(3):
        with autograd.record():
            y = net(x)
        y.backward()
    np.testing.assert_array_equal(net.weight.grad().asnumpy(), 3 * np.ones((2, 3)))
    net.collect_params().zero_grad()
    np.testing.assert_array_equal(net.weight.grad().asnumpy(), np.zeros((2, 3)))


def test_block_setattr_rules():
    class Net(G.Block):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.dense = nn.Dense(2)
                self.w = self.params.get("w", shape=(1,))

        def forward(self, x):
            return self.dense(x)

    net = Net()
    assert "dense" in net._children and "w" in net._reg_params
    with pytest.raises(TypeError, match="Changing attribute type"):
        net.dense = 3
    assert [n[len(net.prefix):] for n in net.collect_params()] == ["w", "dense0_weight",
                                                                  "dense0_bias"]
