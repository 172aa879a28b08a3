"""mx.registry (xnd/frontend/registry.py): the one register/alias/create mechanism that
mx.metric and mx.init are built on, with MXNet 1.9.1's names, warnings and errors; and the
one-truth rule of mx.optimizer: each optimizer with an MXNet update operator runs that
registry function."""
import warnings

import numpy as np
import pytest

import xnd as mx
from xnd.frontend import initializer, metric, optimizer, registry
from xnd.lowering import optimizer_ops


class _Base:
    pass


def test_register_alias_create_and_config_forms():
    register = registry.get_register_func(_Base, "thing")
    alias = registry.get_alias_func(_Base, "thing")
    create = registry.get_create_func(_Base, "thing")

    @register
    @alias("t1", "Tee")
    class Thing(_Base):
        def __init__(self, a=1, b=2):
            self.a, self.b = a, b

    assert registry.get_registry(_Base) == {"thing": Thing, "t1": Thing, "tee": Thing}
    assert registry.get_registry(_Base) is not registry.table(_Base)
    t = create("TEE", 5, b=7)
    assert (type(t), t.a, t.b) == (Thing, 5, 7)
    assert create(t) is t
    assert create({"thing": "t1", "a": 3}).a == 3
    assert create('["thing", {"b": 9}]').b == 9
    assert create('{"thing": "thing", "a": 4}').a == 4
    with pytest.raises(AssertionError, match="thing is already an instance"):
        create(t, 1)
    with pytest.raises(AssertionError, match="thing must be of string type"):
        create(3)
    with pytest.raises(AssertionError, match=r"nope is not registered\. Please register with "
                       r"thing\.register first \(registered: t1, tee, thing\)"):
        create("nope")
    with pytest.raises(AssertionError, match="Can only register subclass of _Base"):
        register(int)


def test_reregistering_warns_and_the_new_class_wins():
    register = registry.get_register_func(_Base, "thing")

    class Thing(_Base):
        pass
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        register(Thing)
    assert len(w) == 1 and w[0].category is UserWarning
    assert "New thing %s.Thing registered with name thing isoverriding existing thing" \
        % Thing.__module__ in str(w[0].message)
    assert registry.table(_Base)["thing"] is Thing


def test_metric_and_init_use_the_shared_tables():
    assert registry.table(metric.EvalMetric)["acc"] is metric.Accuracy
    assert registry.table(initializer.Initializer)["zeros"] is initializer.Zero
    assert type(metric.create("ce")) is metric.CrossEntropy
    assert type(initializer.create('["normal", {"sigma": 0.5}]')) is initializer.Normal
    with pytest.raises(AssertionError, match="Please register with initializer.register first"):
        initializer.create("no_such_init")


def test_optimizer_and_kvstore_register_messages():
    class Adam(optimizer.Optimizer):
        pass
    old = optimizer.Optimizer.opt_registry["adam"]
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            optimizer.register(Adam)
        assert str(w[0].message) == ("WARNING: New optimizer %s.Adam is overriding existing "
                                     "optimizer xnd.frontend.optimizer._adaptive.Adam"
                                     % Adam.__module__)
        assert optimizer.create("ADAM").__class__ is Adam
    finally:
        optimizer.Optimizer.opt_registry["adam"] = old
    with pytest.raises(ValueError, match="Cannot find optimizer nope"):
        optimizer.create("nope")


@pytest.mark.parametrize("name,kwargs,op", [
    ("sgd", {"momentum": 0.0}, "sgd_update"),
    ("sgd", {"momentum": 0.37}, "sgd_mom_update"),
    ("nag", {"momentum": 0.41}, "nag_mom_update"),
    ("signum", {"momentum": 0.0, "wd_lh": 0.013}, "signsgd_update"),
    ("signum", {"momentum": 0.43, "wd_lh": 0.017}, "signum_update"),
    ("adam", {"beta1": 0.77}, "adam_update"),
    ("rmsprop", {"gamma1": 0.81}, "rmsprop_update"),
    ("rmsprop", {"gamma1": 0.83, "centered": True}, "rmspropalex_update"),
    ("ftrl", {"lamda1": 0.019}, "ftrl_update"),
    ("ftml", {"beta1": 0.57}, "ftml_rule"),
    ("lamb", {"beta1": 0.79}, "lamb_direction"),
    ("lamb", {"beta1": 0.71}, "lamb_apply"),
])
def test_each_optimizer_runs_its_update_operator(monkeypatch, name, kwargs, op):
    """The classes call the registry functions (one truth per rule): a spy on the operator
    sees the optimizer's update, and the weight it returns is the one written back."""
    real = getattr(optimizer_ops, op)
    calls = []

    def spy(*args, **kw):
        calls.append(kw)
        return real(*args, **kw)
    monkeypatch.setattr(optimizer_ops, op, spy)
    monkeypatch.setattr(optimizer._base, "_SHARED_JIT", {})  # trace afresh
    opt = optimizer.create(name, learning_rate=0.1, **kwargs)
    w = mx.nd.array(np.linspace(-1, 1, 6).reshape(2, 3))
    g = mx.nd.array(np.linspace(0.5, -0.5, 6).reshape(2, 3))
    before = w.asnumpy().copy()
    opt.update(0, w, g, opt.create_state(0, w))
    assert len(calls) == 1, calls
    assert not np.array_equal(w.asnumpy(), before)


def test_get_operator_arguments_matches_mxnet():
    # MXNet 1.9.1's mx.operator.get_operator_arguments for these operators, verbatim
    from xnd.frontend.operator import OperatorArguments, get_operator_arguments
    want = {
        "Activation": (["data", "act_type"], [
            "NDArray-or-Symbol", "{'relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'}, required"]),
        "Dropout": (["data", "p", "mode", "axes", "cudnn_off"], [
            "NDArray-or-Symbol", "float, optional, default=0.5",
            "{'always', 'training'},optional, default='training'",
            "Shape(tuple), optional, default=[]", "boolean or None, optional, default=0"]),
        "FullyConnected": (["data", "weight", "bias", "num_hidden", "no_bias", "flatten"], [
            "NDArray-or-Symbol"] * 3 + ["int, required", "boolean, optional, default=0",
                                        "boolean, optional, default=1"]),
    }
    for op, (names, types) in want.items():
        got = get_operator_arguments(op)
        assert isinstance(got, OperatorArguments)
        assert (got.narg, got.names, got.types) == (len(names), names, types)
    assert get_operator_arguments("add_n").types[0] == "NDArray-or-Symbol[]"
    with pytest.raises(mx.base.MXNetError):
        get_operator_arguments("NoSuchOperator")
