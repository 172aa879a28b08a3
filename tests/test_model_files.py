"""mx.model checkpoints (the lenet fixture written by MXNet 1.9.1; byte-identical
re-save), mx.callback log lines and checkpoints, and mx.kv (single process),
against the toolkit goldens."""
import hashlib
import importlib.util
import logging
import os

import numpy as np
import pytest

import xnd as mx
from xnd.base import MXNetError
from xnd.frontend import callback, kvstore, model, optimizer

_spec = importlib.util.spec_from_file_location(
    "toolkit_loader", os.path.join(os.path.dirname(__file__), "goldens", "toolkit", "loader.py"))
L = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(L)
LENET = os.path.join(L.FIXTURES, "lenet")


# ---- mx.model ---------------------------------------------------------------------------------
def test_load_checkpoint_lenet():
    want = L.section("model")["load"]
    sym, arg, aux = model.load_checkpoint(LENET, 2)
    assert sym.list_arguments() == want["arguments"]
    assert sym.list_auxiliary_states() == want["aux_states"]
    assert {k: list(v.shape) for k, v in arg.items()} == want["arg_params"]
    assert {k: list(v.shape) for k, v in aux.items()} == want["aux_params"]
    assert list(arg) == want["arg_order"] and list(aux) == want["aux_order"]
    assert all(isinstance(v, mx.nd.NDArray) and v.dtype == np.float32 for v in arg.values())


def test_save_checkpoint_byte_identical(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    want = L.section("model")
    sym, arg, aux = model.load_checkpoint(LENET, 2)
    prefix = str(tmp_path / "ck")
    model.save_checkpoint(prefix, 7, sym, arg, aux)
    assert sorted(os.listdir(tmp_path)) == want["files"]     # no temp files left behind
    with open(prefix + "-0007.params", "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == want["params_sha256"]
    assert caplog.records[-1].getMessage() == 'Saved checkpoint to "%s-0007.params"' % prefix
    sym2, arg2, aux2 = model.load_checkpoint(prefix, 7)
    assert sym2.list_arguments() == sym.list_arguments()
    assert sym2.tojson() == sym.tojson()
    for k in arg:
        np.testing.assert_array_equal(arg[k].asnumpy(), arg2[k].asnumpy())
    a2, x2 = model.load_params(prefix, 7)
    assert [sorted(a2), sorted(x2)] == want["load_params_keys"]


def test_save_checkpoint_without_symbol_and_empty(tmp_path, caplog):
    model.save_checkpoint(str(tmp_path / "p"), 3, None, {"w": mx.nd.ones((2,))}, {})
    assert os.listdir(tmp_path) == ["p-0003.params"]
    assert list(mx.nd.load(str(tmp_path / "p-0003.params"))) == ["arg:w"]
    mx.nd.save(str(tmp_path / "e-0001.params"), {})
    with caplog.at_level(logging.WARNING):
        assert [len(v) for v in model.load_params(str(tmp_path / "e"), 1)] == \
            L.section("model")["empty"]
    assert "is empty" in caplog.records[-1].getMessage()
    with pytest.raises(MXNetError, match="missing-symbol.json"):
        model.load_checkpoint(str(tmp_path / "missing"), 1)


def test_batch_end_param():
    name, fields = L.section("callback")["batchendparam"]
    assert model.BatchEndParam.__name__ == name and list(model.BatchEndParam._fields) == fields


# ---- mx.callback ------------------------------------------------------------------------------
class _FakeMetric:
    def __init__(self):
        self.resets = 0

    def get_name_value(self):
        return [("accuracy", 0.5), ("cross-entropy", 1.25)]

    def reset_local(self):
        self.resets += 1


@pytest.fixture
def fake_clock(monkeypatch):
    clock = [1000.0]

    def fake_time():
        clock[0] += 0.5
        return clock[0]
    monkeypatch.setattr(callback.time, "time", fake_time)


def _lines(caplog):
    return [r.getMessage() for r in caplog.records]


def test_speedometer(caplog, fake_clock):
    caplog.set_level(logging.INFO)
    gold = L.section("callback")
    for label, kw in {"auto": {"batch_size": 10, "frequent": 2},
                      "noauto": {"batch_size": 10, "frequent": 3, "auto_reset": False}}.items():
        caplog.clear()
        sp = callback.Speedometer(**kw)
        metric = _FakeMetric()
        for epoch in range(2):
            for nb in range(7):
                sp(model.BatchEndParam(epoch=epoch, nbatch=nb, eval_metric=metric, locals=None))
        assert _lines(caplog) == gold["speedometer_" + label]["lines"]
        assert metric.resets == gold["speedometer_" + label]["resets"]
    caplog.clear()
    sp = callback.Speedometer(8, 2)
    for nb in range(5):
        sp(model.BatchEndParam(epoch=3, nbatch=nb, eval_metric=None, locals=None))
    assert _lines(caplog) == gold["speedometer_nometric"]


def test_speedometer_with_real_metric(caplog):
    caplog.set_level(logging.INFO)
    from xnd.frontend import metric
    m = metric.Accuracy()
    sp = callback.Speedometer(4, 2)
    for nb in range(3):
        m.update([mx.nd.array([0, 1, 1, 0])], [mx.nd.array([[1, 0], [0, 1], [1, 0], [1, 0]])])
        sp(model.BatchEndParam(epoch=0, nbatch=nb, eval_metric=m, locals=None))
    import re
    (line,) = _lines(caplog)
    assert re.fullmatch(r"Epoch\[0\] Batch \[0-2\]\tSpeed: \d+\.\d\d samples/sec\taccuracy=0\.750000",
                        line), line
    assert m.num_inst == 0      # auto_reset reset the local statistics


def test_other_callbacks(caplog, fake_clock):
    caplog.set_level(logging.INFO)
    gold = L.section("callback")
    cb = callback.log_train_metric(2, auto_reset=True)
    m = _FakeMetric()
    for nb in range(5):
        cb(model.BatchEndParam(epoch=1, nbatch=nb, eval_metric=m, locals=None))
    assert _lines(caplog) == gold["log_train_metric"]["lines"]
    assert m.resets == gold["log_train_metric"]["resets"]
    caplog.clear()
    pb = callback.ProgressBar(total=7, length=20)
    for nb in [0, 3, 7]:
        pb(model.BatchEndParam(epoch=0, nbatch=nb, eval_metric=None, locals=None))
    assert _lines(caplog) == gold["progressbar"]
    caplog.clear()
    callback.LogValidationMetricsCallback()(model.BatchEndParam(epoch=4, nbatch=0,
                                                                eval_metric=_FakeMetric(), locals=None))
    assert _lines(caplog) == gold["logvalidation"]


def test_do_checkpoint(tmp_path):
    sym, arg, aux = model.load_checkpoint(LENET, 2)
    cb = callback.do_checkpoint(str(tmp_path / "net"), period=2)
    for epoch in range(4):
        cb(epoch, sym, arg, aux)
    assert sorted(os.listdir(tmp_path)) == ["net-0002.params", "net-0004.params", "net-symbol.json"]
    calls = []

    class FakeMod:
        def save_checkpoint(self, prefix, epoch, save_optimizer_states):
            calls.append((prefix, epoch, save_optimizer_states))
    cb = callback.module_checkpoint(FakeMod(), "m", period=3, save_optimizer_states=True)
    for epoch in range(6):
        cb(epoch)
    assert calls == [("m", 3, True), ("m", 6, True)]


# ---- mx.kv --------------------------------------------------------------------------------------
def test_kvstore_golden():
    gold = L.section("kvstore")
    kv = kvstore.create("local")
    assert [kv.type, kv.rank, kv.num_workers] == gold["props"]
    kv.init(3, mx.nd.ones((2, 3)))
    a = mx.nd.zeros((2, 3))
    kv.pull(3, out=a)
    assert a.asnumpy().tolist() == gold["init_pull"]
    kv.push(3, [mx.nd.ones((2, 3)) * 2, mx.nd.ones((2, 3)) * 3])
    kv.pull(3, out=a)
    assert a.asnumpy().tolist() == gold["push_list"]
    kv2 = kvstore.create("device")
    kv2.init(["x", "y"], [mx.nd.ones((2,)), mx.nd.ones((2,)) * 2])
    outs = [[mx.nd.zeros((2,)), mx.nd.zeros((2,))], [mx.nd.zeros((2,))]]
    kv2.pull(["x", "y"], out=outs)
    assert [[o.asnumpy().tolist() for o in g] for g in outs] == gold["multi_pull"]
    kv2.pushpull("x", [mx.nd.ones((2,)) * 5, mx.nd.ones((2,))], out=outs[0])
    assert [o.asnumpy().tolist() for o in outs[0]] == gold["pushpull"]
    kv3 = kvstore.create("local")
    kv3.init(0, mx.nd.ones((3,)))
    kv3.set_optimizer(optimizer.SGD(learning_rate=0.1, momentum=0.9))
    for s in range(3):
        kv3.push(0, [mx.nd.ones((3,)) * (s + 1), mx.nd.ones((3,))])
    o = mx.nd.zeros((3,))
    kv3.pull(0, out=o)
    np.testing.assert_allclose(o.asnumpy(), gold["optimizer_push"], rtol=1e-6)

    errs = gold["errors"]
    excs = {"MXNetError": MXNetError, "Exception": Exception, "AssertionError": AssertionError,
            "TypeError": TypeError}
    cases = {"dup": lambda: kv.init(3, mx.nd.ones((2, 3))),
             "uninit": lambda: kv.pull(7, out=a),
             "compression": lambda: kv.set_gradient_compression({"type": "2bit"}),
             "mixed_keys": lambda: kv.init([1, "x"], [mx.nd.ones(1), mx.nd.ones(1)]),
             "bad_name": lambda: kvstore.create(3)}
    for label, fn in cases.items():
        want = errs[label]
        with pytest.raises(excs[want["error"]]) as e:
            fn()
        msg = want["message"].replace("MXNetError: ", "")
        assert str(e.value) == msg, label


def test_kvstore_extras(tmp_path, monkeypatch):
    kv1 = kvstore.create("dist_sync")  # one process without the launcher: rank 0 of 1
    assert (kv1.type, kv1.rank, kv1.num_workers) == ("dist_sync", 0, 1)
    monkeypatch.setenv("DMLC_NUM_WORKER", "2")
    with pytest.raises(MXNetError, match="multi-process"):
        kvstore.create("dist_sync")
    monkeypatch.delenv("DMLC_NUM_WORKER")
    with pytest.raises(MXNetError, match="Unknown KVStore type"):
        kvstore.create("foo")
    kv = kvstore.create("local")
    kv.init("w", mx.nd.ones((2,)))
    with pytest.raises(MXNetError, match="Mixed key types"):
        kv.init(5, mx.nd.ones((2,)))
    with pytest.raises(MXNetError, match="row_sparse"):
        kv.row_sparse_pull("w", out=mx.nd.zeros((2,)), row_ids=mx.nd.array([0]))
    with pytest.raises(MXNetError, match="shape"):
        kv.push("w", mx.nd.ones((3,)))
    assert kv.is_capable("optimizer")
    # optimizer states through the store: xnd's safe format
    kv.set_optimizer(optimizer.Adam(learning_rate=0.1))
    kv.push("w", mx.nd.ones((2,)))
    fname = str(tmp_path / "opt.states")
    kv.save_optimizer_states(fname, dump_optimizer=True)
    with open(fname, "rb") as f:
        assert f.read(8) == b"XNDOPTST"
    kv2 = kvstore.create("local")
    kv2.init("w", mx.nd.ones((2,)))
    kv2.set_optimizer(optimizer.SGD())
    kv2.load_optimizer_states(fname)
    assert type(kv2._updater.optimizer) is optimizer.Adam
    # stored values are copies: writing the source array does not change the store
    src = mx.nd.ones((2,))
    kv3 = kvstore.create("local")
    kv3.init(1, src)
    src[:] = 5
    out = mx.nd.zeros((2,))
    kv3.pull(1, out=out)
    assert out.asnumpy().tolist() == [1, 1]


def test_model_training_helpers():
    kv, upd_on_kv = model._create_kvstore("local", 1, {"w": mx.nd.ones((2,))})
    assert kv is None and upd_on_kv is False
    kv, upd_on_kv = model._create_kvstore("device", 2, {"w": mx.nd.ones((2,))})
    assert kv.type == "device" and upd_on_kv is True
    # _update_params: one updater call with every parameter (Module's path)
    opt = optimizer.SGD(learning_rate=0.5)
    updater = optimizer.get_updater(opt)
    ws = [[mx.nd.ones((2,))], [mx.nd.ones((3,))]]
    gs = [[mx.nd.ones((2,))], [mx.nd.ones((3,)) * 2]]
    model._update_params(ws, gs, updater, 1)
    assert ws[0][0].asnumpy().tolist() == [0.5, 0.5] and ws[1][0].asnumpy().tolist() == [0, 0, 0]
    assert opt.num_update == 1 and opt._index_update_count == {0: 1, 1: 1}
    # updating on the kvstore
    kv = kvstore.create("local")
    kv.set_optimizer(optimizer.SGD(learning_rate=0.5))
    ws = [[mx.nd.ones((2,))]]
    model._initialize_kvstore(kv, ws, {"a": mx.nd.ones((2,))}, ["a"], True)
    model._update_params_on_kvstore(ws, [[mx.nd.ones((2,))]], kv, ["a"])
    assert ws[0][0].asnumpy().tolist() == [0.5, 0.5]
