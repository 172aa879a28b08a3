"""xnd/tiers: the one table and ``decide``, the background switch to the optimized program,
``MXNET_ENFORCE_DETERMINISM=1``'s call-counted switch, and ``XND_LOG_COMPILES``'s lines."""
import os
import re
import subprocess
import sys
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from xnd import _compat_jax, tiers
from xnd.tiers import background, info, log, programs, table
from xnd.tiers.table import BACKGROUND, BUCKET, HOST, OPTIMIZED, QUICK


def _tiers(kind, n=7, **facts):
    return [tiers.decide(kind, i, **facts) for i in range(1, n + 1)]


def test_decide_follows_the_table(monkeypatch):
    for field, value in (("tiered", True), ("host", True), ("quick_calls", 4),
                         ("eager_host_calls", 8), ("bucket_calls", 2), ("background", True)):
        monkeypatch.setattr(tiers.TABLE, field, value)
    H, B, Q, O, G = HOST, BUCKET, QUICK, OPTIMIZED, BACKGROUND
    # an eager op: numpy for 8 calls where it can (then its kernel, compiled on a worker),
    # else 2 bucketed calls, then its kernel compiled at once
    assert _tiers("eager", 10, host=True) == [H] * 8 + [G] * 2
    assert _tiers("eager", 4, bucket=True) == [B, B, O, O]
    assert _tiers("eager", 3) == [O] * 3
    # compiled programs: host or quick for 4 calls, then the optimized one in the background
    for kind in ("graph", "tape", "step", "optimizer"):
        assert _tiers(kind, host=True) == [H] * 4 + [G] * 3
        assert _tiers(kind) == [Q] * 4 + [G] * 3
        assert tiers.decide(kind, 5, ready=True) == O
    assert _tiers("graph", 3, bucket=True) == [B, B, Q]
    assert _tiers("inference", 6, host=True) == [H] * 4 + [O] * 2   # fold and main together
    assert _tiers("inference", 5, bucket=True) == [B] * 4 + [O]     # a new batch size padded
    assert _tiers("fit", 2, host=True) == [O, O]
    assert tiers.host_budget("eager") == 0.05 and tiers.host_budget("inference") == 0.15
    assert tiers.host_budget("step") == 3.0
    # MXNET_ENFORCE_DETERMINISM=1: the switch at call 5, synchronously
    monkeypatch.setattr(tiers.TABLE, "background", False)
    assert _tiers("graph") == [Q] * 4 + [O] * 3
    assert _tiers("eager", 9, host=True) == [H] * 8 + [O]
    # XND_HOST_TIER=0: compiled programs' first calls quick; eager ops keep numpy
    monkeypatch.setattr(tiers.TABLE, "host", False)
    assert _tiers("step", 5, host=True) == [Q] * 4 + [O]
    assert _tiers("eager", 2, host=True) == [H, H]
    # XND_TIERED=0: optimized from the first call; pinned(): always optimized
    monkeypatch.setattr(tiers.TABLE, "tiered", False)
    assert _tiers("graph", 2, host=True) == [O, O]
    monkeypatch.setattr(tiers.TABLE, "tiered", True)
    with tiers.pinned():
        assert _tiers("eager", 2, host=True) == [O, O] and tiers.is_pinned()
    assert not tiers.is_pinned()
    with pytest.raises(ValueError, match="unknown program kind 'nope'"):
        tiers.decide("nope", 1)


def test_table_reads_its_variables_once():
    t = table.Table({"XND_TIERED_CALLS": "2", "XND_HOST_TIER": "0", "XND_LOG_COMPILES": "1",
                     "MXNET_ENFORCE_DETERMINISM": "1", "XND_HOST_TIER_MAX_S": "0.5",
                     "XND_BACKGROUND_WORKERS": "0"})
    assert (t.quick_calls, t.host, t.log, t.deterministic, t.background) == \
        (2, False, True, True, False)
    assert t.row("graph") == (2, 2, 2, 0.5, True) and t.workers == 1
    d = table.Table({})
    assert (d.tiered, d.quick_calls, d.host, d.background, d.log) == (True, 4, True, True, False)
    assert table.Table({"MXNET_ENFORCE_DETERMINISM": "0"}).background
    assert not table.Table({"XND_TIERED": "0"}).host           # no host tier without tiers
    assert d.variables()["MXNET_ENFORCE_DETERMINISM"] == 0


def _two_programs():
    """A Tiered whose quick tier adds 1 and optimized tier adds 2: the result names the tier."""
    return tiers.Tiered(jax.jit(lambda x: x + 1), jax.jit(lambda x: x + 2), kind="graph",
                        name="plus")


def test_background_switch_serves_the_quick_tier_until_the_program_is_ready(monkeypatch):
    monkeypatch.setattr(tiers.TABLE, "background", True)
    monkeypatch.setattr(tiers.TABLE, "quick_calls", 2)
    gate, entered, started = threading.Event(), threading.Event(), []

    def hold(kind, name):           # the worker's compile waits for the gate
        started.append((kind, name))
        entered.set()
        gate.wait(60)
    monkeypatch.setattr(background, "_HOOKS", [hold])
    f, x = _two_programs(), jnp.zeros(3)
    switches, waits = tiers.STATS["background_switches"], tiers.STATS["background_waits"]
    try:
        outs = [float(f(x)[0]) for _ in range(6)]
        # every call returned while the optimized compile was held: calls 3-6 ran quick
        assert outs == [1.0] * 6 and not gate.is_set()
        assert entered.wait(60) and started == [("graph", "plus")]                    # one compile, started once
        assert tiers.STATS["background_waits"] - waits == 4 and not f.ready((x,))
    finally:
        gate.set()
    assert background.wait(60)
    assert f.ready((x,)) and tiers.STATS["background_switches"] - switches == 1
    assert [float(f(x)[0]) for _ in range(2)] == [2.0, 2.0]      # the optimized executable
    assert f.full._cache_size() == 0           # (it ran the executable the worker compiled)
    assert float(f(jnp.zeros(4))[0]) == 1.0                      # a new signature starts over


def test_a_failed_background_compile_compiles_synchronously(monkeypatch):
    monkeypatch.setattr(tiers.TABLE, "background", True)
    monkeypatch.setattr(tiers.TABLE, "quick_calls", 1)

    def fail(kind, name):
        raise RuntimeError("the worker's compile failed")
    monkeypatch.setattr(background, "_HOOKS", [fail])
    f, x = _two_programs(), jnp.zeros(2)
    assert float(f(x)[0]) == 1.0 and float(f(x)[0]) == 1.0       # quick; compile started
    assert background.wait(60)
    assert not f.ready((x,)) and float(f(x)[0]) == 2.0           # the synchronous compile
    assert f.full._cache_size() == 1


def test_no_background_compile_where_the_quick_tier_is_the_optimized_program(monkeypatch):
    """Without quick options (an accelerator, jax 0.4.30) a signature the host did not serve
    ran ``full`` already: the switch compiles nothing more."""
    monkeypatch.setattr(tiers.TABLE, "background", True)
    monkeypatch.setattr(tiers.TABLE, "quick_calls", 2)
    full = jax.jit(lambda x: x * 3)
    f, x = tiers.Tiered(full, full, kind="step"), jnp.ones(2)
    starts = tiers.STATS["background_starts"]
    assert [float(f(x)[0]) for _ in range(4)] == [3.0] * 4
    assert tiers.STATS["background_starts"] == starts and full._cache_size() == 1
    assert not f.ready((x,)) and f._ready[programs._signature((x,), {})] is programs._SYNC


def test_an_eager_kernel_compiles_in_the_background_while_numpy_serves(monkeypatch):
    """An eager op past its host calls keeps running on numpy while a worker compiles its
    kernel (into JAX's persistent cache, which its jit then loads from); then the kernel."""
    import xnd as mx
    from xnd.lowering import compile_cache, host_eval, registry
    core = sys.modules["xnd.ndarray"]
    monkeypatch.setattr(tiers.TABLE, "background", True)
    monkeypatch.setattr(compile_cache, "cache_dir", lambda: "(the test's cache)")
    gate, entered, started = threading.Event(), threading.Event(), []

    def hold(kind, name):
        started.append((kind, name))
        entered.set()
        gate.wait(60)
    monkeypatch.setattr(background, "_HOOKS", [hold])
    x = mx.nd.array(np.arange(3 * 7 * 5, dtype=np.float32).reshape(3, 7, 5))
    op = registry.get("sum")
    compiled = sum(k._cache_size() for k in op._kernels.values())
    try:
        outs = [mx.nd.sum(x, axis=1).asnumpy() for _ in range(tiers.TABLE.eager_host_calls + 4)]
        assert entered.wait(60) and started == [("eager", "sum")]
        (entry,) = [e for k, e in core._HOST._seen.items()
                    if k[0] == "sum" and k[2] == (((3, 7, 5), np.dtype(np.float32)),)]
        assert entry[1] is not host_eval.SERVED           # still numpy, not compiling here
        assert sum(k._cache_size() for k in op._kernels.values()) == compiled
    finally:
        gate.set()
    assert background.wait(60) and entry[1] is host_eval.SERVED
    outs.append(mx.nd.sum(x, axis=1).asnumpy())              # the kernel now
    assert sum(k._cache_size() for k in op._kernels.values()) == compiled + 1
    for o in outs:
        np.testing.assert_array_equal(o, np.arange(105, dtype=np.float32).reshape(3, 7, 5).sum(1))


def test_deterministic_switch_is_synchronous(monkeypatch):
    monkeypatch.setattr(tiers.TABLE, "background", False)
    monkeypatch.setattr(tiers.TABLE, "quick_calls", 2)
    f, x = _two_programs(), jnp.zeros(3)
    starts = tiers.STATS["background_starts"]
    assert [float(f(x)[0]) for _ in range(4)] == [1.0, 1.0, 2.0, 2.0]
    assert tiers.STATS["background_starts"] == starts


_TRAIN = r"""
import hashlib, sys
import numpy as np
import xnd as mx
from xnd import autograd, gluon, tiers
mx.random.seed(7)
net = gluon.nn.HybridSequential()
net.add(gluon.nn.Dense(16, activation="tanh"), gluon.nn.Dense(3))
net.initialize(mx.init.Xavier())
net.hybridize()
trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
rng = np.random.default_rng(0)
x = mx.nd.array(rng.standard_normal((8, 5)).astype("float32"))
y = mx.nd.array(rng.integers(0, 3, 8).astype("float32"))
for step in range(12):
    with autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    trainer.step(8)
    if step == 5:
        tiers.background.wait(120)   # (background mode: the switch surely falls at step 7)
h = hashlib.sha256()
for name, p in sorted(net.collect_params().items()):
    h.update(p.data().asnumpy().tobytes())
print(tiers.TABLE.deterministic, tiers.STATS["background_switches"], h.hexdigest())
"""


def _child(code, **env):
    e = dict(os.environ, **env)
    out = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out


def test_enforced_determinism_gives_bit_identical_runs():
    """Two processes under MXNET_ENFORCE_DETERMINISM=1 that cross the switch to the optimized
    programs (12 training steps, the switch at the 5th) end with the same parameters, bit
    for bit, and compiled nothing in the background."""
    runs = [_child(_TRAIN, MXNET_ENFORCE_DETERMINISM="1").stdout.split() for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0][:2] == ["True", "0"]


def test_log_compiles_names_tier_seconds_and_cache(tmp_path):
    code = ("import jax.numpy as jnp\n"
            "from xnd import tiers\n"
            "from xnd.lowering import xla_options\n"
            "def double_sin(x):\n"
            "    return jnp.sin(x) * 2\n"
            "f = xla_options.jit(double_sin, kind='step')\n"
            "x = jnp.ones(5)\n"
            "for _ in range(4):\n"
            "    f(x)\n"
            "tiers.background.wait(120)\n"
            "f(x)\n")
    env = dict(XND_LOG_COMPILES="1", MXNET_ENFORCE_DETERMINISM="0",
               XND_TIERED_CALLS="2", XND_COMPILATION_CACHE=str(tmp_path / "cache"))
    pat = re.compile(r"^xnd compile: (\S+) (\S+) tier=(\S+) (\d+\.\d{3}) s cache=(hit|miss|off)$")
    lines = []
    for _ in range(2):
        err = _child(code, **env).stderr.splitlines()
        got = [pat.match(s).groups() for s in err if s.startswith("xnd compile:")]
        assert len(got) == len([s for s in err if "xnd compile" in s])   # each line readable
        lines.append([g for g in got if g[1] == "double_sin"])
    cache = _compat_jax.PERSISTENT_CACHE
    for run, want in zip(lines, ("miss", "hit")):
        # two calls on the host (no compile), then the optimized program on a worker
        assert [(k, t) for k, _, t, _, _ in run] == [("step", "optimized/background")]
        assert all(c == (want if cache else "off") for *_, c in run)
    assert log.line("graph", "_run", "quick", 0.41234, "miss") == \
        "xnd compile: graph _run tier=quick 0.412 s cache=miss"


def test_info_shows_the_cache_and_the_table(tmp_path, capsys):
    (tmp_path / "a-cache").write_bytes(b"x" * 1000)
    (tmp_path / "a-atime").write_bytes(b"x")
    assert info.cache_entries(str(tmp_path)) == (1, 1000)
    assert info.cache_line(str(tmp_path)).endswith(", 1 entries, 0.0 MB")
    assert info.cache_entries(str(tmp_path / "missing")) == (0, 0)   # JAX makes it at its first write
    lines = info.table_lines()
    assert len(lines) == 3 + len(tiers.KINDS)
    assert any(s.split()[:6] == ["fit", "0", "/", "0", "/", "0,"] for s in lines)
    from xnd import __main__
    assert __main__.main(["info"]) == 0
    out = capsys.readouterr().out
    assert "tiers (calls of one signature" in out and "MXNET_ENFORCE_DETERMINISM=" in out


def test_a_script_setting_the_variable_before_import_mxnet_gets_it(tmp_path):
    """MXNet reads MXNET_ENFORCE_DETERMINISM when it runs; a script sets it before ``import
    mxnet``, which ``python -m xnd run`` imports after xnd: the table is read again there."""
    script = tmp_path / "det.py"
    script.write_text("import os\nos.environ['MXNET_ENFORCE_DETERMINISM'] = '1'\n"
                      "import mxnet\nfrom xnd import tiers\n"
                      "print(tiers.TABLE.deterministic, tiers.TABLE.background)\n")
    env = {k: v for k, v in os.environ.items() if k != "MXNET_ENFORCE_DETERMINISM"}
    out = subprocess.run([sys.executable, "-m", "xnd", "run", str(script)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True", "False"]
