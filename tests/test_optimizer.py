"""mx.optimizer and mx.lr_scheduler against MXNet 1.9.1 goldens
(tests/make_toolkit_goldens.py), plus the pure ``step`` interface, Updater
state files and error cases."""
import importlib.util
import os

import jax
import numpy as np
import pytest

import xnd as mx
from xnd import tiers
from xnd.base import MXNetError
from xnd.frontend import lr_scheduler, optimizer

_spec = importlib.util.spec_from_file_location(
    "toolkit_loader", os.path.join(os.path.dirname(__file__), "goldens", "toolkit", "loader.py"))
L = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(L)

OPT = L.section("optimizer")
SCHED = L.section("lr_scheduler")


def make_sched(kind, kw):
    return {"factor": lr_scheduler.FactorScheduler, "multifactor": lr_scheduler.MultiFactorScheduler,
            "poly": lr_scheduler.PolyScheduler, "cosine": lr_scheduler.CosineScheduler}[kind](**kw)


def make_opt(spec):
    kwargs = dict(spec["kwargs"])
    if "lr_scheduler" in kwargs:
        kwargs["lr_scheduler"] = make_sched(*kwargs["lr_scheduler"])
    if "param_idx2name" in spec:
        kwargs["param_idx2name"] = {k: v for k, v in spec["param_idx2name"]}
    opt = optimizer.create(spec["name"], **kwargs)
    setup = spec["setup"]
    if "lr_mult" in setup:
        opt.set_lr_mult({k: v for k, v in setup["lr_mult"]})
    if "wd_mult" in setup:
        opt.set_wd_mult({k: v for k, v in setup["wd_mult"]})
    return opt


def check_state(got, want, tol, where):
    if want is None:
        assert got is None, where
    elif isinstance(want, np.ndarray):
        assert isinstance(got, mx.nd.NDArray), where
        assert got.shape == want.shape and got.dtype == want.dtype, (where, got.dtype, want.dtype)
        np.testing.assert_allclose(got.asnumpy().astype(np.float64), want.astype(np.float64),
                                   err_msg=where, **tol)
    else:
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (where, got)
        assert type(got) is type(want), (where, type(got), type(want))
        for i, (g, w) in enumerate(zip(got, want)):
            check_state(g, w, tol, "%s[%d]" % (where, i))


def replay(case, mode):
    spec = OPT["cases"][case]["spec"]
    ws = [L.arr(r) for r in OPT["inputs"]["weights"]]
    gs = [[L.arr(r) for r in step] for step in OPT["inputs"]["grads"]]
    dtype = spec["dtype"]
    opt = make_opt(spec)
    weights = [mx.nd.array(w, dtype=dtype) for w in ws]
    if mode == "update":
        states = [opt.create_state_multi_precision(i, w) for i, w in enumerate(weights)]
    else:
        upd = optimizer.get_updater(opt)
    for s in range(len(gs)):
        grads = [mx.nd.array(g, dtype=dtype) for g in gs[s]]
        if mode == "update":
            for i in range(len(weights)):
                opt.update_multi_precision(i, weights[i], grads[i], states[i])
        else:
            upd(list(range(len(weights))), grads, weights)
            states = [upd.states[i] for i in range(len(weights))]
        yield s, opt, weights, states


@pytest.mark.parametrize("mode", ["update", "updater"])
@pytest.mark.parametrize("case", sorted(OPT["cases"]))
def test_optimizer_trajectory(case, mode):
    run = OPT["cases"][case]["runs"][mode]
    assert "error" not in run
    dtype = OPT["cases"][case]["spec"]["dtype"]
    tol = {"rtol": 2e-3, "atol": 2e-3} if dtype == "float16" else {"rtol": 1e-5, "atol": 1e-6}
    for s, opt, weights, states in replay(case, mode):
        want = run["steps"][s]
        for i, w in enumerate(weights):
            ref = L.dec(want["weights"][i])
            assert w.dtype == ref.dtype
            np.testing.assert_allclose(w.asnumpy().astype(np.float64), ref.astype(np.float64),
                                       err_msg="%s %s step %d weight %d" % (case, mode, s, i), **tol)
        for i, st in enumerate(states):
            check_state(st, L.dec(want["states"][i]), tol, "%s %s step %d state %d" % (case, mode, s, i))
        assert opt.num_update == want["num_update"]
        assert sorted([k, v] for k, v in opt._index_update_count.items()) == \
            want["index_update_count"]
        assert opt.learning_rate == pytest.approx(want["learning_rate"], rel=1e-12)


def test_defaults_and_registry():
    for name, want in OPT["defaults"].items():
        o = optimizer.create(name)
        assert type(o).__name__ == want["class"]
        for k, v in want.items():
            if k == "class":
                continue
            assert getattr(o, k) == v, (name, k)
    assert set(OPT["registry"]) <= set(optimizer.Optimizer.opt_registry)


def test_errors():
    with pytest.raises(ValueError, match="^Cannot find optimizer nosuchopt") as e:
        optimizer.create("nosuchopt")
    assert "sgd" in str(e.value) and "adam" in str(e.value)
    o = optimizer.SGD(lr_scheduler=lr_scheduler.FactorScheduler(step=2))
    with pytest.raises(UserWarning, match=OPT["errors"]["set_lr_with_sched"]["message"][:40]):
        o.set_learning_rate(0.5)
    with pytest.raises(MXNetError, match="shape"):
        optimizer.SGD().update(0, mx.nd.ones((3,)), mx.nd.ones((4,)), None)


def test_lr_props_and_sym_mult():
    want = OPT["lr_props"]
    o = optimizer.SGD(learning_rate=0.3)
    o.set_learning_rate(0.7)
    assert o.learning_rate == want["set"]
    sch = lr_scheduler.FactorScheduler(step=2, base_lr=0.5)
    o2 = optimizer.SGD(learning_rate=0.2, lr_scheduler=sch)
    assert [o2.learning_rate, sch.base_lr] == want["override"]
    o3 = optimizer.SGD(lr_scheduler=lr_scheduler.FactorScheduler(step=2, base_lr=0.5))
    assert o3.learning_rate == want["from_sched"]
    o4 = optimizer.SGD(param_idx2name={0: "a_weight", 1: "a_bias", 2: "b_gamma", 3: "b_beta"})
    assert sorted([list(x) for x in o4.wd_mult.items()]) == want["wd_mult_names"]
    data = mx.sym.var("data")
    w = mx.sym.var("fc_weight", lr_mult=2.0, wd_mult=0.5)
    net = mx.sym.FullyConnected(data, weight=w, num_hidden=3, name="fc")
    o = optimizer.SGD(sym=net, param_idx2name={0: "fc_weight", 1: "fc_bias"}, wd=0.1)
    got = {"lr_mult": sorted([list(x) for x in o.lr_mult.items()]),
           "wd_mult": sorted([list(x) for x in o.wd_mult.items()]),
           "lrs": o._get_lrs([0, 1]), "wds": o._get_wds([0, 1])}
    assert got == OPT["sym_mult"]


def test_dcasgd_momentum_extension():
    # MXNet 1.9.1 raises here ('if mom:' on an NDArray); xnd applies the documented rule
    assert OPT["errors"]["dcasgd_momentum"]["error"] == "ValueError"
    o = optimizer.DCASGD(momentum=0.9, learning_rate=0.1, lamda=0.0)
    w = mx.nd.ones((3,))
    s = o.create_state(0, w)
    o.update(0, w, mx.nd.ones((3,)), s)
    o.update(0, w, mx.nd.ones((3,)), s)
    np.testing.assert_allclose(w.asnumpy(), 1 - 0.1 - (0.9 * 0.1 + 0.1), rtol=1e-6)


def test_sgld_statistics():
    mx.random.seed(3)
    o = optimizer.SGLD(learning_rate=0.04, wd=0.0)
    w = mx.nd.zeros((20000,))
    o.update(0, w, mx.nd.ones((20000,)), None)
    x = w.asnumpy()
    assert abs(x.mean() - (-0.02)) < 0.01
    assert abs(x.std() - 0.2) < 0.01
    mx.random.seed(3)
    w2 = mx.nd.zeros((20000,))
    optimizer.SGLD(learning_rate=0.04).update(0, w2, mx.nd.ones((20000,)), None)
    np.testing.assert_array_equal(x, w2.asnumpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sgld_noise_is_the_eager_normal_of_the_same_seed(dtype):
    """MXNet's test_sgld re-seeds and compares with a Python SGLD that draws
    ``nd.random.normal(0, sqrt(lr))``: the optimizer's noise is that draw."""
    mx.random.seed(1234)
    w = mx.nd.ones((3, 4, 5), dtype=dtype)
    optimizer.SGLD(learning_rate=0.01).update(0, w, mx.nd.zeros((3, 4, 5), dtype=dtype), None)
    mx.random.seed(1234)
    noise = mx.nd.random.normal(0, 0.1, shape=(3, 4, 5), dtype=dtype)
    np.testing.assert_allclose(w.asnumpy(), 1 + noise.asnumpy(), rtol=1e-7)


def test_group_adagrad():
    o = optimizer.contrib.GroupAdaGrad(learning_rate=0.1, rescale_grad=0.5, clip_gradient=0.8)
    rs = np.random.RandomState(1)
    w0, g0 = rs.randn(3, 4).astype(np.float32), rs.randn(3, 4).astype(np.float32) * 3
    w = mx.nd.array(w0)
    st = o.create_state(0, w)
    assert st.shape == (3, 1)
    hist = np.zeros((3, 1), np.float32)
    for _ in range(2):
        o.update(0, w, mx.nd.array(g0), st)
        g = np.clip(g0 * np.float32(0.5), -0.8, 0.8)
        hist += np.mean(g * g, axis=1, keepdims=True)
        w0 = w0 - np.float32(0.1) * g / np.sqrt(hist + np.float32(1e-5))
    np.testing.assert_allclose(w.asnumpy(), w0, rtol=1e-6)
    np.testing.assert_allclose(st.asnumpy(), hist, rtol=1e-6)
    with pytest.raises(AssertionError, match="Weight decay"):
        optimizer.create("groupadagrad", wd=0.1).update(0, w, mx.nd.array(g0), st)


def test_user_defined_optimizer():
    """The MXNet way of writing an optimizer: subclass, register, create_state + update()
    with NDArray ops; Updater and create() route through it."""
    @optimizer.register
    class MyMomentum(optimizer.Optimizer):
        def __init__(self, mom=0.5, **kw):
            super().__init__(**kw)
            self.mom = mom

        def create_state(self, index, weight):
            return mx.nd.zeros(weight.shape, weight.context)

        def update(self, index, weight, grad, state):
            self._update_count(index)
            lr = self._get_lr(index)
            state[:] = self.mom * state + grad * self.rescale_grad
            weight[:] -= lr * state
    o = optimizer.create("mymomentum", learning_rate=0.1, rescale_grad=0.5)
    u = optimizer.get_updater(o)
    w = [mx.nd.ones((2,)), mx.nd.ones((3,))]
    for _ in range(2):
        u([0, 1], [mx.nd.ones((2,)), mx.nd.ones((3,))], w)
    # state: 0.5, then 0.75; w = 1 - 0.1 * (0.5 + 0.75)
    np.testing.assert_allclose(w[0].asnumpy(), [0.875, 0.875], rtol=1e-6)
    assert o.num_update == 2
    blob = u.get_states(dump_optimizer=True)
    u2 = optimizer.get_updater(optimizer.SGD())
    u2.set_states(blob)
    assert type(u2.optimizer).__name__ == "MyMomentum" and u2.optimizer.mom == 0.5
    # multi-precision through the user's update(): float32 master copy, float16 weight
    o = optimizer.create("mymomentum", learning_rate=0.1, multi_precision=True)
    wh = mx.nd.ones((2,), dtype="float16")
    st = o.create_state_multi_precision(0, wh)
    assert st[0].dtype == np.float32
    o.update_multi_precision(0, wh, mx.nd.ones((2,), dtype="float16"), st)
    assert wh.dtype == np.float16 and np.allclose(wh.asnumpy(), 0.9, rtol=1e-3)


def test_adadelta_scales_grad_in_place():
    o = optimizer.AdaDelta(rescale_grad=0.5)
    w, g = mx.nd.ones((2,)), mx.nd.ones((2,)) * 4
    o.update(0, w, g, o.create_state(0, w))
    np.testing.assert_array_equal(g.asnumpy(), [2, 2])


# ---- the pure step interface -----------------------------------------------------------------
@pytest.mark.parametrize("name,kw", [("sgd", {"momentum": 0.9, "wd": 0.01}), ("adam", {"wd": 0.01}),
                                     ("rmsprop", {"centered": True}), ("nadam", {}),
                                     ("lamb", {}), ("ftml", {}), ("signum", {}),
                                     ("adagrad", {}), ("ftrl", {}), ("lars", {"momentum": 0.9})])
def test_step_matches_update(name, kw):
    """The fused jitted step over all parameters == per-parameter update()."""
    rs = np.random.RandomState(0)
    shapes = [(4, 3), (3,), (2, 2, 2)]
    ws = [rs.randn(*s).astype(np.float32) for s in shapes]
    gs = [[rs.randn(*s).astype(np.float32) for s in shapes] for _ in range(3)]
    o1, o2 = optimizer.create(name, **kw), optimizer.create(name, **kw)
    w1 = [mx.nd.array(w) for w in ws]
    s1 = [o1.create_state_multi_precision(i, w) for i, w in enumerate(w1)]
    w2 = [mx.nd.array(w)._val() for w in ws]
    s2 = [jax.tree_util.tree_map(lambda a: a._val(), o2.create_state_multi_precision(i, mx.nd.array(w)))
          for i, w in enumerate(ws)]
    fn = o2.jitted_step(donate=True)
    for step in gs:
        for i in range(len(shapes)):
            o1.update(i, w1[i], mx.nd.array(step[i]), s1[i])
        lrs, wds, extras = o2.step_scalars(list(range(len(shapes))))
        w2, s2 = fn(w2, [jax.numpy.asarray(g) for g in step], s2, lrs, wds, extras)
    for a, b in zip(w1, w2):
        np.testing.assert_allclose(a.asnumpy(), np.asarray(b), rtol=1e-6, atol=1e-7)


def test_step_scalars_packed_matches_lists():
    o1, o2 = optimizer.Nadam(), optimizer.Nadam()
    lrs, wds, ex = o1.step_scalars([0, 1, 2])
    plrs, pwds, pex = o2.step_scalars([0, 1, 2], packed=True)
    assert plrs.dtype == np.float64 and np.allclose(plrs, lrs) and np.allclose(pwds, wds)
    for k in ex[0]:
        assert np.allclose(pex[k], [e[k] for e in ex])


def test_step_without_extras():
    """Rules without host extras accept extras=None; the others refuse (no silent drift)."""
    w, g = [jax.numpy.ones((2,))], [jax.numpy.ones((2,))]
    o = optimizer.SGD(learning_rate=0.5)
    nw, _ = o.step(w, g, [None], [0.5], [0.0])
    assert np.asarray(nw[0]).tolist() == [0.5, 0.5]
    o = optimizer.Adam()
    with pytest.raises(MXNetError, match="step_scalars"):
        o.step(w, g, [(jax.numpy.zeros(2), jax.numpy.zeros(2))], [0.1], [0.0])


def test_step_compiles_once():
    o = optimizer.Adam(learning_rate=0.01, beta1=0.85,
                       lr_scheduler=lr_scheduler.FactorScheduler(step=1, factor=0.9))
    w = [jax.numpy.ones((3,)), jax.numpy.ones((2, 2))]
    s = [jax.tree_util.tree_map(lambda a: a._val(), o.create_state(i, mx.nd.ones(x.shape)))
         for i, x in enumerate(w)]
    fn = o.jitted_step()
    host = tiers.STATS["host"]
    for _ in range(tiers.TABLE.quick_calls + 2):   # lr, bias correction, step count change each step
        lrs, wds, extras = o.step_scalars([0, 1])
        w, s = fn(w, [jax.numpy.ones((3,)), jax.numpy.ones((2, 2))], s, lrs, wds, extras)
    # one program per compiled tier (xnd/tiers: the first calls on the host or a
    # quick program, then the optimized one)
    on_host = tiers.STATS["host"] - host == tiers.TABLE.quick_calls
    assert fn._cache_size() == (2 if isinstance(getattr(fn, "_program", fn), tiers.Tiered) and not on_host else 1)
    assert o.jitted_step() is fn
    o.beta1 = 0.5   # a hyper-parameter change gives another compiled step
    assert o.jitted_step() is not fn


def test_multi_precision_state_layout():
    w = mx.nd.ones((3,), dtype="float16")
    s = optimizer.SGD(momentum=0.9, multi_precision=True).create_state_multi_precision(0, w)
    assert s[0].dtype == np.float32 and s[1].dtype == np.float32   # (momentum, master)
    s = optimizer.Adam(multi_precision=True).create_state_multi_precision(0, w)
    assert s[0].dtype == np.float32 and isinstance(s[1], tuple)


# ---- Updater states -------------------------------------------------------------------------
def test_updater_states_roundtrip():
    o = optimizer.Adam(learning_rate=0.01, lr_scheduler=lr_scheduler.FactorScheduler(step=2, factor=0.5,
                                                                                    base_lr=0.01))
    u = optimizer.get_updater(o)
    ws = [mx.nd.ones((2, 3)), mx.nd.ones((4,), dtype="float64")]
    for _ in range(3):
        u([0, "b"], [mx.nd.ones((2, 3)), mx.nd.ones((4,), dtype="float64")], ws)
    blob = u.get_states(dump_optimizer=True)
    assert blob.startswith(b"XNDOPTST")
    u2 = optimizer.get_updater(optimizer.SGD())
    u2.set_states(blob)
    assert type(u2.optimizer) is optimizer.Adam
    assert u2.optimizer.num_update == 3 and u2.optimizer._index_update_count == {0: 3, "b": 3}
    assert isinstance(u2.optimizer.lr_scheduler, lr_scheduler.FactorScheduler)
    assert u2.optimizer.learning_rate == o.learning_rate
    assert set(u2.states) == {0, "b"}
    for k in u.states:
        for a, b in zip(u.states[k], u2.states[k]):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    # continue training from the restored state: the original's numbers (both updaters share
    # one compiled step, whose tier counts its calls: u2's first is the step's fifth, so it
    # may run another tier than u's fourth and round differently, xnd/tiers)
    w2 = [w.copy() for w in ws]
    u([0, "b"], [mx.nd.ones((2, 3)), mx.nd.ones((4,), dtype="float64")], ws)
    u2([0, "b"], [mx.nd.ones((2, 3)), mx.nd.ones((4,), dtype="float64")], w2)
    for a, b in zip(ws, w2):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=0)
    # states only
    u3 = optimizer.get_updater(optimizer.Adam())
    u3.set_states(u.get_states())
    assert type(u3.optimizer) is optimizer.Adam and set(u3.states) == {0, "b"}


def test_updater_refuses_pickles():
    import pickle
    u = optimizer.get_updater(optimizer.SGD())
    with pytest.raises(MXNetError, match="pickle"):
        u.set_states(pickle.dumps({0: None}))
    with pytest.raises(MXNetError, match="not an xnd"):
        u.set_states(b"garbage")
    good = optimizer.get_updater(optimizer.SGD(momentum=0.9))
    good(0, mx.nd.ones((2,)), mx.nd.ones((2,)))
    blob = good.get_states()
    with pytest.raises(MXNetError):
        u.set_states(blob[:-5])


def test_updater_bytes_keys_and_single_calls():
    u = optimizer.get_updater(optimizer.SGD(learning_rate=0.5))
    w = mx.nd.ones((2,))
    u(b"w", mx.nd.ones((2,)), w)
    assert list(u.states) == ["w"]
    np.testing.assert_allclose(w.asnumpy(), [0.5, 0.5])


# ---- lr schedulers ----------------------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(SCHED["cases"]))
def test_scheduler_sequence(case):
    c = SCHED["cases"][case]
    s = make_sched(c["kind"], c["kwargs"])
    got = [s(n) for n in range(16)]
    np.testing.assert_allclose(got, c["values"], rtol=1e-12)
    s = make_sched(c["kind"], c["kwargs"])
    np.testing.assert_allclose([s(n) for n in [1, 7, 3, 12, 5, 20, 9]], SCHED["jumps"][case], rtol=1e-12)


@pytest.mark.parametrize("case", sorted(SCHED["errors"]))
def test_scheduler_errors(case):
    c = SCHED["errors"][case]
    want = c["error"]
    exc = {"ValueError": ValueError, "AssertionError": AssertionError}[want["error"]]
    with pytest.raises(exc) as e:
        make_sched(c["kind"], c["kwargs"])
    assert str(e.value) == want["message"]


def test_scheduler_logs(caplog):
    import logging
    caplog.set_level(logging.INFO)
    s = lr_scheduler.FactorScheduler(step=1, factor=0.1, stop_factor_lr=1e-3, base_lr=1.0)
    for n in range(1, 6):
        s(n)
    msgs = [r.getMessage() for r in caplog.records]
    assert msgs == ["Update[2]: Change learning rate to 1.00000e-01",
                    "Update[3]: Change learning rate to 1.00000e-02",
                    "Update[4]: Change learning rate to 1.00000e-03",   # 0.1**3 > 1e-3 in floats
                    "Update[5]: now learning rate arrived at 1.00000e-03, will not change in the future"]
