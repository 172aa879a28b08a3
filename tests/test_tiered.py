"""Tiered compilation (xnd/tiers): a signature's first calls run a program
compiled at XLA's optimization level 0, later calls the optimized one; the switch counts
calls, so every run of a script computes the same numbers."""
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from xnd import _compat_jax
from xnd import tiers
from xnd.lowering import xla_options
from xnd.tiers import programs

ACTIVE = tiers.TABLE.tiered and xla_options.options() is not None   # jax 0.4.30: no options


def _program(f):
    """The program inside xla_options.jit's wrapper (lowering/host_callbacks.Synced)."""
    return getattr(f, "_program", f)


def _counted():
    calls = {"quick": 0, "full": 0}

    def make(kind):
        def f(x, y):
            calls[kind] += 1
            return jnp.tanh(x) @ y
        return jax.jit(f)
    return tiers.Tiered(make("quick"), make("full")), calls


def test_first_calls_of_each_signature_run_quick():
    f, traces = _counted()
    x, y = jnp.ones((3, 4)), jnp.ones((4, 2))
    want = np.tanh(np.ones((3, 4))) @ np.ones((4, 2))
    for _ in range(tiers.TABLE.quick_calls + 3):
        np.testing.assert_allclose(np.asarray(f(x, y)), want, rtol=1e-6)
    assert traces == {"quick": 1, "full": 1}          # each program traced once
    assert f.quick._cache_size() == 1 and f.full._cache_size() == 1
    # a new shape starts again at the quick tier
    f(jnp.ones((5, 4)), y)
    assert traces == {"quick": 2, "full": 1}


def test_switch_counts_calls_not_seconds():
    f, _ = _counted()
    x, y = jnp.ones((2, 2)), jnp.ones((2, 2))
    before = tiers.STATS["quick"]
    for _ in range(10):
        f(x, y)
    assert tiers.STATS["quick"] - before == tiers.TABLE.quick_calls
    assert f._calls[programs._signature((x, y), {})] == programs._SETTLED   # switched


def test_inside_another_trace_the_call_is_inlined():
    f, traces = _counted()
    g = jax.jit(lambda x, y: f(x, y) + 1)
    out = g(jnp.ones((2, 3)), jnp.ones((3, 1)))
    np.testing.assert_allclose(np.asarray(out), 3 * np.tanh(1.0) + 1, rtol=1e-6)
    assert traces == {"quick": 0, "full": 1} and not f._calls


@pytest.mark.skipif(not ACTIVE, reason="this jax takes no compile options")
def test_xnd_programs_are_tiered_and_agree():
    """A bound graph's quick and optimized programs give the same numbers to float32
    rounding (level 0 contracts no multiply-adds)."""
    import xnd as mx
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(mx.sym.Activation(mx.sym.FullyConnected(
        data, num_hidden=16, name="fc1"), act_type="tanh"), num_hidden=3, name="fc2")
    ex = net.simple_bind(mx.cpu(), data=(4, 8))
    rng = np.random.default_rng(0)
    for k, a in sorted(ex.arg_dict.items()):
        a[:] = rng.standard_normal(a.shape).astype("float32")
    assert isinstance(_program(ex._graph.forward), tiers.Tiered)
    outs = [ex.forward(is_train=True)[0].asnumpy() for _ in range(tiers.TABLE.quick_calls + 1)]
    for o in outs[1:tiers.TABLE.quick_calls]:
        np.testing.assert_array_equal(o, outs[0])      # the quick program, again
    np.testing.assert_allclose(outs[-1], outs[0], rtol=1e-6, atol=1e-6)
    assert ex._graph.forward.full._cache_size() == 1


@pytest.mark.skipif(not ACTIVE, reason="this jax takes no compile options")
def test_quick_program_rounds_each_operation():
    """Level 0 rounds a*b and then +c (numpy's two roundings); an optimized program may fuse
    them into one multiply-add, which rounds once: (1+2**-12)**2 - (1+2**-11) is 2**-24 fused,
    0 rounded twice."""
    a = np.full(64, 1 + 2.0 ** -12, np.float32)
    c = np.full(64, -(1 + 2.0 ** -11), np.float32)
    f = xla_options.jit(lambda a, b, c: a * b + c)
    assert isinstance(_program(f), tiers.Tiered)
    np.testing.assert_array_equal(np.asarray(f(a, a, c)), a * a + c)
    assert (a * a + c == 0).all()


def test_switched_off_by_environment():
    code = ("from xnd import tiers; from xnd.lowering import xla_options;"
            "f = xla_options.jit(lambda x: x + 1); print(type(f).__name__, tiers.TABLE.tiered)")
    env = dict(os.environ, XND_TIERED="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[1] == "False" and out[0] != "Tiered"


def test_python_scalars_are_one_signature_and_static_arguments_each_their_own():
    """jit traces a Python float: a learning rate that changes every step is one program, so
    the switch comes after QUICK_CALLS calls (before, each value counted afresh and the step
    never left the quick tier); a static argument is a program per value."""
    calls = {"quick": 0, "full": 0}

    def make(kind):
        def f(x, lr, mode):
            calls[kind] += 1
            return x * lr if mode == "mul" else x + lr
        return jax.jit(f, static_argnums=2)
    f = tiers.Tiered(make("quick"), make("full"), static_argnums=(2,))
    x = jnp.ones((3,))
    for i in range(tiers.TABLE.quick_calls + 2):
        np.testing.assert_allclose(np.asarray(f(x, 0.5 + i, "mul")), 0.5 + i)
    assert calls == {"quick": 1, "full": 1}
    np.testing.assert_allclose(np.asarray(f(x, 2.0, "add")), 3.0)   # a new static value
    assert calls == {"quick": 2, "full": 1}
    assert len(f._calls) == 2


# ---- the host tier: a signature's first calls traced and run by numpy (host_jaxpr) -----------
_COMPILES = [0]


def _on_compile(event, duration, **_):
    if event == "/jax/core/compile/backend_compile_duration":
        _COMPILES[0] += 1


jax.monitoring.register_event_duration_secs_listener(_on_compile)

HOST = pytest.mark.skipif(not tiers.TABLE.host, reason="XND_HOST_TIER=0 or XND_TIERED=0")


def _conv_relu(x, w):
    return jnp.maximum(jax.lax.conv_general_dilated(x, w, (1, 1), "SAME"), 0).sum(axis=(2, 3))


@HOST
def test_host_tier_runs_the_first_calls_without_compiling():
    f = xla_options.jit(_conv_relu)
    rng = np.random.default_rng(1)
    x = jax.device_put(rng.standard_normal((2, 3, 8, 8)).astype(np.float32), jax.devices()[0])
    w = jnp.asarray(rng.standard_normal((4, 3, 3, 3)).astype(np.float32))
    want = np.asarray(jax.jit(lambda x, w: _conv_relu(x, w))(x, w))   # (a program of its own)
    before, host = _COMPILES[0], tiers.STATS["host"]
    outs = [f(x, w) for _ in range(tiers.TABLE.quick_calls)]
    assert _COMPILES[0] == before and tiers.STATS["host"] - host == tiers.TABLE.quick_calls
    for o in outs:
        # committed to the device exactly as the compiled program's result (x is committed)
        assert o.dtype == np.float32 and _compat_jax.committed(o) and o.devices() == x.devices()
        np.testing.assert_allclose(np.asarray(o), want, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(np.asarray(o), np.asarray(outs[0]))
    assert f.host._plans == {}                         # its last host call let the jaxpr go
    last = f(x, w)                                     # then the optimized program, once
    assert _COMPILES[0] - before == 1
    np.testing.assert_allclose(np.asarray(last), want, rtol=1e-5, atol=1e-5)


@HOST
def test_host_tier_declines_what_it_cannot_run_as_xla(monkeypatch):
    x = jnp.ones((3,), jnp.float32)
    # a primitive without a numpy rule (igamma): the quick tier compiles
    f = xla_options.jit(lambda a, x: x + jax.lax.igamma(a, x))
    before, host = _COMPILES[0], tiers.STATS["host"]
    f(x * 2, x)
    assert _COMPILES[0] > before and tiers.STATS["host"] == host
    # over the time budget: compiled too
    monkeypatch.setattr(tiers.TABLE, "host_max_s", 0.0)
    g = xla_options.jit(lambda x: x * 2)
    before = _COMPILES[0]
    np.testing.assert_array_equal(np.asarray(g(x)), 2 * np.ones(3))
    assert _COMPILES[0] > before and tiers.STATS["host"] == host


@HOST
def test_a_failing_host_rule_falls_back_to_the_compiled_program(monkeypatch):
    from xnd.lowering import host_jaxpr

    def broken(eqn, *args, **params):
        raise RuntimeError("a gap in a rule")
    monkeypatch.setitem(host_jaxpr.RULES, "tanh", broken)
    f = xla_options.jit(lambda x: jnp.tanh(x) * 3)
    x = jnp.linspace(-2, 2, 7, dtype=jnp.float32)
    failures = tiers.STATS["host_failures"]
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(f(x)), 3 * np.tanh(np.asarray(x)), rtol=1e-6)
    assert tiers.STATS["host_failures"] - failures == 1     # the signature stops trying


@HOST
def test_a_small_module_fit_compiles_no_training_step():
    import xnd as mx
    data = mx.sym.Variable("data")
    h = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), pad=(1, 1), name="c")
    h = mx.sym.Activation(mx.sym.BatchNorm(h, name="bn"), act_type="relu")
    h = mx.sym.Pooling(h, global_pool=True, kernel=(1, 1), pool_type="avg")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=3, name="fc"), name="softmax")
    rng = np.random.default_rng(0)
    it = mx.io.NDArrayIter(rng.standard_normal((8, 2, 6, 6)).astype("float32"),
                           rng.integers(0, 3, 8).astype("float32"), batch_size=4)

    def fit(host):
        tiers.TABLE.host, keep = host, tiers.TABLE.host
        try:
            mod = mx.mod.Module(net, context=mx.cpu())
            it.reset()
            mod.fit(it, num_epoch=1, optimizer="sgd", eval_metric="acc",
                    optimizer_params={"learning_rate": 0.1, "momentum": 0.9},
                    initializer=mx.init.Xavier(rnd_type="gaussian", magnitude=2))
            mx.nd.waitall()
            return {k: v.asnumpy() for k, v in mod.get_params()[0].items()}
        finally:
            tiers.TABLE.host = keep
    mx.random.seed(3)
    before, host = _COMPILES[0], tiers.STATS["host"]
    on_host = fit(True)
    assert _COMPILES[0] - before <= 1 and tiers.STATS["host"] - host >= 2
    mx.random.seed(3)
    compiled = fit(False)
    for k in compiled:
        np.testing.assert_allclose(on_host[k], compiled[k], rtol=1e-4, atol=1e-5)
