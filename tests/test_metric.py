"""mx.metric against MXNet 1.9.1 goldens: names, values after each update, global
statistics, reset/reset_local, configs, errors; plus the device-side accumulation."""
import importlib.util
import math
import os

import numpy as np
import pytest

import xnd as mx
from xnd.frontend import metric

_spec = importlib.util.spec_from_file_location(
    "toolkit_loader", os.path.join(os.path.dirname(__file__), "goldens", "toolkit", "loader.py"))
L = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(L)
G = L.section("metric")
INP = {k: L.arr(v) for k, v in G["inputs"].items()}


def feval_pair(label, pred):
    return float(np.abs(label.ravel() - pred.argmax(axis=1)).sum()), label.size


def feval_scalar(label, pred):
    return float(np.mean(label.ravel() == pred.argmax(axis=1)))


def make_metric(spec, kw):
    if spec == "__feval_pair":
        return metric.create(feval_pair, **kw)
    if spec == "__feval_scalar":
        return metric.np(feval_scalar, **kw)
    if isinstance(spec, list):
        m = metric.CompositeEvalMetric()
        m.add("acc")
        m.add("ce")
        m.add(metric.TopKAccuracy(top_k=2))
        return m
    return metric.create(spec, **kw)


def same(got, want):
    """Compare (name, value) results: names exactly, values to rtol 1e-5 (NaN == NaN)."""
    if isinstance(want, list):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            same(g, w)
    elif isinstance(want, dict) and "seq" in want:
        same(got, want["seq"])
    elif isinstance(want, str):
        assert got == want
    elif want is None:
        assert got is None
    else:
        g = float(got)
        if math.isnan(want):
            assert math.isnan(g), (got, want)
        else:
            assert g == pytest.approx(want, rel=1e-5, abs=1e-7), (got, want)


@pytest.mark.parametrize("case", sorted(G["cases"]))
def test_metric_case(case):
    rec = G["cases"][case]
    m = make_metric(rec["spec"], rec["kwargs"])
    assert m.name == rec["name"]
    assert type(m).__name__ == rec["type"]
    same(m.get(), rec["initial"])
    after = rec.get("after", [])
    for i, (labels, preds) in enumerate(rec["batches"]):
        args = ([mx.nd.array(INP[k]) for k in labels], [mx.nd.array(INP[k]) for k in preds])
        if i == len(after):       # MXNet failed on this update: so must xnd, the same way
            want = rec["error"]
            with pytest.raises({"ValueError": ValueError}[want["error"]]) as e:
                m.update(*args)
            assert str(e.value) == want["message"]
            return
        m.update(*args)
        want = after[i]
        same(m.get(), want["get"])
        same(m.get_global(), want["global"])
        same([list(x) for x in m.get_name_value()], want["name_value"])
    m.reset_local()
    same(m.get(), rec["after_reset_local"]["get"])
    same(m.get_global(), rec["after_reset_local"]["global"])
    m.reset()
    same(m.get(), rec["after_reset"]["get"])
    same(m.get_global(), rec["after_reset"]["global"])
    if isinstance(rec["config"], dict) and "error" in rec["config"]:
        with pytest.raises(NotImplementedError):
            m.get_config()
    else:
        cfg = {k: v for k, v in m.get_config().items() if k != "metrics"}
        assert cfg == rec["config"]


def test_singles_and_str():
    m = metric.Accuracy()
    m.update(mx.nd.array(INP["l1"]), mx.nd.array(INP["p1"]))
    same(list(m.get()), G["singles"]["acc_single"])
    m = metric.MSE()
    m.update(mx.nd.array(INP["rl1"]), mx.nd.array(INP["r1"]))
    same(list(m.get()), G["singles"]["mse_single"])
    assert str(metric.Accuracy()) == G["str"]


def test_errors():
    errs = G["errors"]
    cases = {
        "acc_len": lambda: metric.Accuracy().update([mx.nd.array(INP["l1"])] * 2,
                                                   [mx.nd.array(INP["p1"])]),
        "acc_shape": lambda: metric.Accuracy().update([mx.nd.array(INP["l2"])],
                                                     [mx.nd.array(INP["p1"])]),
        "topk1": lambda: metric.TopKAccuracy(top_k=1),
        "f1_multiclass": lambda: metric.F1().update([mx.nd.array(INP["l1"])],
                                                   [mx.nd.array(INP["p1"])]),
        "custom_config": lambda: metric.create(feval_pair).get_config(),
    }
    for label, fn in cases.items():
        want = errs[label]
        exc = {"ValueError": ValueError, "AssertionError": AssertionError,
               "NotImplementedError": NotImplementedError}[want["error"]]
        with pytest.raises(exc) as e:
            fn()
        assert str(e.value) == want["message"], label
    with pytest.raises(AssertionError) as e:
        metric.create("nosuchmetric")
    assert str(e.value).startswith(errs["unknown"]["message"])
    assert "accuracy" in str(e.value) and "top_k_accuracy" in str(e.value)


def test_create_forms():
    assert type(metric.create("acc")) is metric.Accuracy
    assert type(metric.create("top_k_acc", top_k=3)) is metric.TopKAccuracy
    c = metric.create(["acc", "mse"])
    assert isinstance(c, metric.CompositeEvalMetric) and c.get()[0] == ["accuracy", "mse"]
    a = metric.Accuracy()
    assert metric.create(a) is a
    assert metric.create({"metric": "ce"}).name == "cross-entropy"
    assert metric.create('["mae", {}]').name == "mae"
    cm = metric.create(lambda label, pred: 1.0)
    assert cm.name == "custom(<lambda>)"
    assert isinstance(metric.CompositeEvalMetric(["acc"]).get_metric(5), ValueError)


def test_accuracy_accumulates_on_device():
    """update() leaves its contribution on the device; reading the stats folds it in."""
    m = metric.Accuracy()
    rs = np.random.RandomState(0)
    total = 0
    for _ in range(5):
        p = rs.rand(8, 3).astype(np.float32)
        lab = rs.randint(0, 3, 8).astype(np.float32)
        total += int((p.argmax(1) == lab).sum())
        m.update([mx.nd.array(lab)], [mx.nd.array(p)])
    assert m.__dict__["_pending"] is not None
    assert m.num_inst == 40 and m.sum_metric == total
    assert m.get() == ("accuracy", total / 40)
    m.reset_local()
    assert m.get_global() == ("accuracy", total / 40) and math.isnan(m.get()[1])
    m.sum_metric = 3.0      # plain attribute semantics for user code
    m.num_inst = 4
    assert m.get() == ("accuracy", 0.75)


def test_nan_loss_shows_nan():
    m = metric.create("ce")
    m.update([mx.nd.array([0, 1])], [mx.nd.array([[np.nan, np.nan], [0.5, 0.5]])])
    assert math.isnan(m.get()[1])
    lm = metric.Loss()
    lm.update(None, [mx.nd.array([1.0, np.nan])])
    assert math.isnan(lm.get()[1])


def test_accuracy_axis_and_int_labels():
    m = metric.Accuracy(axis=0)
    m.update([mx.nd.array([1, 0, 2], dtype="int32")],
             [mx.nd.array([[0.1, 0.9, 0.0], [0.8, 0.05, 0.1], [0.1, 0.05, 0.9]])])
    assert m.get() == ("accuracy", 1.0)      # argmax over axis 0: [1, 0, 2]
    with pytest.raises(mx.MXNetError, match="axis"):
        metric.Accuracy(axis=3).update([mx.nd.array([1, 0])], [mx.nd.array([[1, 0], [0, 1]])])


def test_perplexity_3d():
    rs = np.random.RandomState(5)
    p = rs.rand(2, 3, 4).astype(np.float32)
    p /= p.sum(-1, keepdims=True)
    lab = rs.randint(0, 4, (2, 3)).astype(np.float32)
    m = metric.Perplexity(ignore_label=None)
    m.update([mx.nd.array(lab)], [mx.nd.array(p)])
    picked = np.take_along_axis(p, lab.astype(int)[..., None], -1)
    assert m.get()[1] == pytest.approx(math.exp(-np.log(picked).mean()), rel=1e-5)


def test_update_dict_and_names():
    m = metric.Accuracy(output_names=["out"], label_names=["lab"])
    m.update_dict({"lab": mx.nd.array([1, 0])}, {"out": mx.nd.array([[0, 1], [1, 0]]),
                                                 "other": mx.nd.zeros((2, 2))})
    assert m.get() == ("accuracy", 1.0)
