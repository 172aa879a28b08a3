"""Module.fit's compiled loop over an NDArrayIter (xnd/frontend/module/_fit_scan.py) leaves the
module, iterator, optimizer and metric exactly where the batch-by-batch loop leaves them,
compiles once, replays Speedometer/ProgressBar calls batch by batch with MXNet's metric
values, and steps aside whenever something else could watch the batches go by."""
import gc
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import xnd as mx
from xnd import tiers
from xnd.frontend.module import _fit_scan as fit_scan
from xnd.frontend.module import _programs as M
from xnd.symbol import executor as E
from xnd.symbol.executor import live_graphs

BATCH = 10


@pytest.fixture(autouse=True)
def short_runs(monkeypatch):
    monkeypatch.setattr(fit_scan, "SCAN_STEPS", 4)
    # the batch loop's steps run the optimized program from the first call, as the compiled
    # loop does, so that the two compare bit for bit (xnd/tiers)
    monkeypatch.setattr(tiers.TABLE, "quick_calls", 0)


def data(rows, dim=12, classes=4, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((rows, dim)).astype("float32"),
            rng.integers(0, classes, rows).astype("float32"))


def mlp(dropout=False):
    h = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=16, name="fc1")
    h = mx.sym.Activation(h, act_type="relu")
    if dropout:
        h = mx.sym.Dropout(h, p=0.3)
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=4, name="fc2"),
                                name="softmax")


def bn_net():
    h = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=16, name="fc1")
    h = mx.sym.BatchNorm(h, name="bn")                  # aux states, fix_gamma's 1s
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=4, name="fc2"),
                                name="softmax")


def train(monkeypatch, scan, sym, rows=135, epochs=2, metric="acc", handle="pad",
          optimizer="sgd", params=None, **fit_kw):
    """fit from fixed weights with the compiled loop on or off; everything fit leaves."""
    monkeypatch.setattr(fit_scan, "ENABLED", scan)
    # graphs of one structure share their programs: start from none, so that "scans" counts
    # this fit's trace of its compiled loop
    monkeypatch.setattr(E, "_RECENT", type(E._RECENT)())
    gc.collect()
    mx.random.seed(3)
    np.random.seed(3)
    x, y = data(rows)
    it = mx.io.NDArrayIter(x, y, batch_size=BATCH, last_batch_handle=handle, shuffle=False)
    mod = mx.mod.Module(sym, logger=logging.getLogger("fit_scan_test"))
    metric = mx.metric.create(metric)
    before = dict(M.TRACES)
    mod.fit(it, num_epoch=epochs, eval_metric=metric, optimizer=optimizer,
            initializer=mx.init.Xavier(rnd_type="gaussian", magnitude=2),
            optimizer_params=params or {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3},
            **fit_kw)
    arg, aux = mod.get_params()
    states = mod._updater.states
    return {
        "arg": {k: v.asnumpy() for k, v in arg.items()},
        "aux": {k: v.asnumpy() for k, v in aux.items()},
        "states": {k: [a.asnumpy() for a in (s if isinstance(s, (tuple, list)) else [s])
                       if a is not None] for k, s in states.items()},
        "metric": metric.get_global_name_value() if hasattr(metric, "get_global_name_value")
        else metric.get(),
        "local": metric.get(),
        "outputs": [o.asnumpy() for o in mod.get_outputs()],
        "grads": {k: v.asnumpy() for k, v in mod._exec.grad_dict.items() if v is not None},
        "inputs": [mod._exec.arg_dict[n].asnumpy() for n in ("data", "softmax_label")],
        "num_update": mod._optimizer.num_update,
        "cursor": it.cursor,
        "next": [b.data[0].asnumpy()[0, 0] for b in [it.next()]] if handle != "discard" else None,
        "scans": M.TRACES["scan"] - before.get("scan", 0),
    }


def assert_same(a, b, tol=0.0):
    for key in ("arg", "aux", "grads"):
        assert sorted(a[key]) == sorted(b[key])
        for k in a[key]:
            np.testing.assert_allclose(a[key][k], b[key][k], rtol=tol, atol=tol, err_msg=k)
    assert sorted(a["states"]) == sorted(b["states"])
    for k in a["states"]:
        for u, v in zip(a["states"][k], b["states"][k]):
            np.testing.assert_allclose(u, v, rtol=tol, atol=tol)
    for u, v in zip(a["outputs"] + a["inputs"], b["outputs"] + b["inputs"]):
        np.testing.assert_allclose(u, v, rtol=tol, atol=tol)
    assert a["metric"] == b["metric"] and a["local"] == b["local"]
    assert a["num_update"] == b["num_update"] and a["cursor"] == b["cursor"]
    assert a["next"] == b["next"]


@pytest.mark.parametrize("handle", ["pad", "discard", "roll_over"])
def test_same_state_as_the_batch_loop(monkeypatch, handle):
    # 135 rows: 13 whole batches an epoch -- three compiled runs of 4, then one whole batch
    # and the last 5 rows (padded, dropped or rolled over) through the ordinary loop
    fast = train(monkeypatch, True, mlp(), handle=handle)
    slow = train(monkeypatch, False, mlp(), handle=handle)
    assert fast["scans"] == 1 and slow["scans"] == 0
    assert_same(fast, slow)
    assert fast["num_update"] == {"pad": 28, "discard": 26, "roll_over": 27}[handle]


def test_epoch_made_of_whole_runs_only(monkeypatch):
    fast = train(monkeypatch, True, mlp(), rows=80, epochs=3)       # 8 batches: 2 runs
    slow = train(monkeypatch, False, mlp(), rows=80, epochs=3)
    assert_same(fast, slow)
    assert fast["num_update"] == 24 and fast["metric"][0][0] == "accuracy"


def test_batchnorm_dropout_and_adam(monkeypatch):
    sym = bn_net()
    fast = train(monkeypatch, True, sym, optimizer="adam", params={"learning_rate": 0.01})
    slow = train(monkeypatch, False, sym, optimizer="adam", params={"learning_rate": 0.01})
    assert fast["aux"] and fast["scans"] == 1
    assert_same(fast, slow, tol=1e-6)
    # random keys are drawn in the batch loop's order: the same dropout masks
    fast = train(monkeypatch, True, mlp(dropout=True))
    slow = train(monkeypatch, False, mlp(dropout=True))
    assert_same(fast, slow, tol=1e-6)


def test_lr_schedule_steps_inside_a_run(monkeypatch):
    params = {"learning_rate": 0.1, "lr_scheduler": mx.lr_scheduler.FactorScheduler(3, 0.5)}
    fast = train(monkeypatch, True, mlp(), params=dict(params))
    params["lr_scheduler"] = mx.lr_scheduler.FactorScheduler(3, 0.5)
    slow = train(monkeypatch, False, mlp(), params=params)
    assert_same(fast, slow)


def test_one_compile_for_every_run(monkeypatch):
    train(monkeypatch, True, mlp(), rows=160, epochs=3)
    progs = [p for g in live_graphs() for p in g.programs.values() if p._scans]
    assert progs
    for p in progs:
        for fn in p._scans.values():
            assert fn._cache_size() == 1       # no second compile for committed-ness


@pytest.mark.parametrize("kw", [
    {"batch_end_callback": lambda p: None},
    {"metric": "mse"},
    {"metric": ["acc", "ce"]},
])
def test_steps_aside_when_batches_are_watched(monkeypatch, kw):
    fast = train(monkeypatch, True, mlp(), **kw)
    slow = train(monkeypatch, False, mlp(), **kw)
    assert fast["scans"] == 0 and M.TRACES  # nothing compiled a loop
    assert_same(fast, slow)


def test_any_other_callback_sees_every_batch_live(monkeypatch):
    seen = []

    def watch(p):
        seen.append((p.nbatch, p.locals["self"]._optimizer.num_update))
    fast = train(monkeypatch, True, mlp(), batch_end_callback=watch)
    assert fast["scans"] == 0
    assert seen == [(b, 14 * e + b + 1) for e in range(2) for b in range(14)]


def _speed_lines(records):
    """Speedometer's lines without the (timing) speed."""
    import re
    return [re.sub(r"Speed: [0-9.]+", "Speed: -", r.getMessage()) for r in records
            if "Speed:" in r.getMessage()]


@pytest.mark.parametrize("auto_reset", [True, False])
def test_speedometer_runs_with_the_compiled_loop(monkeypatch, caplog, auto_reset):
    """Runs of ``frequent`` batches; every batch's metric update and Speedometer call are
    replayed in order, so its lines (metric values, batch ranges) are MXNet's."""
    caplog.set_level(logging.INFO)
    res, lines = {}, {}
    for scan in (True, False):
        caplog.clear()
        cbs = [mx.callback.Speedometer(BATCH, 5, auto_reset=auto_reset),
               mx.callback.ProgressBar(14)]
        res[scan] = train(monkeypatch, scan, mlp(), rows=300, batch_end_callback=cbs)
        lines[scan] = _speed_lines(caplog.records)
    assert res[True]["scans"] == 1 and res[False]["scans"] == 0
    assert_same(res[True], res[False])
    assert lines[True] == lines[False] and len(lines[True]) == 2 * 5    # batches 5..25
    assert ("Batch [5-10]" if auto_reset else "Batch [0-10]") in lines[True][1]


def test_speedometer_reporting_too_often_for_a_run(monkeypatch):
    fast = train(monkeypatch, True, mlp(), batch_end_callback=mx.callback.Speedometer(BATCH, 2))
    assert fast["scans"] == 0


def test_iterator_not_at_an_epoch_start(monkeypatch):
    monkeypatch.setattr(fit_scan, "ENABLED", True)
    x, y = data(80)
    it = mx.io.NDArrayIter(x, y, batch_size=BATCH)
    it.next()                                   # fit starts from the second batch, as MXNet
    mod = mx.mod.Module(mlp())
    before = M.TRACES["scan"]
    mod.fit(it, num_epoch=1, optimizer_params={"learning_rate": 0.1})
    assert M.TRACES["scan"] == before and mod._optimizer.num_update == 7


def test_convolutional_networks_keep_the_batch_loop(monkeypatch):
    monkeypatch.setattr(fit_scan, "ENABLED", True)
    h = mx.sym.Convolution(mx.sym.Variable("data"), kernel=(3, 3), num_filter=2)
    sym = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=4), name="softmax")
    x = np.random.default_rng(0).standard_normal((80, 1, 5, 5)).astype("float32")
    y = np.arange(80, dtype="float32") % 4
    it = mx.io.NDArrayIter(x, y, batch_size=BATCH)
    mod = mx.mod.Module(sym)
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params()
    mod.init_optimizer()
    assert fit_scan.plan(mod, it, mx.metric.Accuracy()) is None
    mod = mx.mod.Module(mlp())
    it = mx.io.NDArrayIter(x.reshape(80, -1)[:, :12], y, batch_size=BATCH)
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params()
    mod.init_optimizer()
    assert fit_scan.plan(mod, it, mx.metric.Accuracy()) is not None


def test_switch_off(monkeypatch):
    monkeypatch.setattr(fit_scan, "ENABLED", False)
    x, y = data(80)
    mod = mx.mod.Module(mlp())
    assert fit_scan.plan(mod, mx.io.NDArrayIter(x, y, batch_size=BATCH),
                         mx.metric.Accuracy()) is None


def test_module_on_another_device_than_its_data():
    """A module on cpu(1) training on batches that live on cpu(0) (as a GPU module on an
    iterator's host arrays): each run copies just its rows over."""
    here = os.path.dirname(os.path.abspath(__file__))
    code = """
import sys; sys.path.insert(0, %r)
import numpy as np, pytest, jax
import xnd as mx
from xnd.frontend.module import _fit_scan as fit_scan, _programs as M
import test_fit_scan as t
assert len(jax.devices("cpu")) == 2
fit_scan.SCAN_STEPS = 4
res = {}
for on in (True, False):
    fit_scan.ENABLED = on
    mx.random.seed(3)
    x, y = t.data(135)
    it = mx.io.NDArrayIter(x, y, batch_size=10)
    mod = mx.mod.Module(t.mlp(), context=mx.cpu(1))
    mod.fit(it, num_epoch=2, optimizer_params={"learning_rate": 0.1, "momentum": 0.9},
            initializer=mx.init.Xavier())
    res[on] = {k: v.asnumpy() for k, v in mod.get_params()[0].items()}
    assert M.TRACES["scan"] == 1                # the compiled loop ran (and stayed off)
    assert mod._exec._args[0]._val().devices() == {jax.devices("cpu")[1]}
for k in res[True]:
    np.testing.assert_array_equal(res[True][k], res[False][k])
print("ok")
""" % here
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2",
               XND_TIERED_CALLS="0")   # as short_runs does here
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]
