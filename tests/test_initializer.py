"""mx.init against MXNet 1.9.1 goldens: dumps(), name dispatch, __init__ attributes,
deterministic initializers, create(), Load/Mixed and errors; random initializers by
their distributions, shapes, dtypes and seed-determinism (xnd's RNG, not MXNet's)."""
import importlib.util
import json
import os
import warnings

import numpy as np
import pytest

import xnd as mx
from xnd.frontend import initializer as init

_spec = importlib.util.spec_from_file_location(
    "toolkit_loader", os.path.join(os.path.dirname(__file__), "goldens", "toolkit", "loader.py"))
L = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(L)
G = L.section("initializer")

INITS = {
    "xavier": lambda: init.Xavier(),
    "xavier_in": lambda: init.Xavier(factor_type="in", magnitude=2.34),
    "xavier_gauss": lambda: init.Xavier(rnd_type="gaussian", factor_type="out", magnitude=2),
    "normal": lambda: init.Normal(0.5),
    "uniform": lambda: init.Uniform(),
    "constant": lambda: init.Constant(3.0),
    "constant_arr": lambda: init.Constant(mx.nd.array([1.0, 2.0])),
    "zero": lambda: init.Zero(),
    "one": lambda: init.One(),
    "msra": lambda: init.MSRAPrelu(),
    "msra_in": lambda: init.MSRAPrelu(factor_type="in", slope=0.1),
    "orthogonal": lambda: init.Orthogonal(),
    "bilinear": lambda: init.Bilinear(),
    "lstmbias": lambda: init.LSTMBias(forget_bias=2.0),
}

@pytest.mark.parametrize("label", sorted(INITS))
def test_dumps(label):
    assert INITS[label]().dumps() == G["dumps"][label]


@pytest.mark.parametrize("key", sorted(G["dispatch"]))
def test_dispatch(key):
    want = G["dispatch"][key]
    arr = mx.nd.full((6,) if "/" in key else (4,), 7.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)

        def run():
            if key.startswith("desc/"):
                init.Constant(5.0)(init.InitDesc(key[5:]), arr)
            elif key.startswith("str/"):
                init.Constant(5.0)(key[4:], arr)
            else:
                attrs = {"attr_const": ({"__init__": '["constant", {"value": 2.5}]'}, "x_bias"),
                         "attr_zero": ({"__init__": '["zero", {}]'}, "bn_moving_mean"),
                         "attr_one": ({"__init__": '["one", {}]'}, "bn_moving_var"),
                         "attr_name": ({"__init__": "ones"}, "z_weight")}[key]
                init.Uniform()(init.InitDesc(attrs[1], attrs[0]), arr)
        if key == "desc/fc_weight_quantize":     # one random value, broadcast (as MXNet)
            run()
            x = arr.asnumpy()
            assert len(set(x.tolist())) == 1 and -127 <= x[0] < 127 and x[0] == int(x[0])
        elif isinstance(want, dict):
            exc = {"ValueError": ValueError, "NotImplementedError": NotImplementedError,
                   "IndexError": IndexError}[want["error"]]
            with pytest.raises(exc) as e:
                run()
            assert str(e.value) == want["message"]
        else:
            run()
            np.testing.assert_allclose(arr.asnumpy(), want, rtol=1e-6)


def test_legacy_str_warns():
    with pytest.warns(DeprecationWarning):
        init.Zero()("fc_weight", mx.nd.ones((2,)))
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError):
        init.Zero()("fc_weight", np.ones(2))


def test_deterministic():
    det = G["deterministic"]
    arr = mx.nd.zeros((2, 3, 4, 4))
    init.Bilinear()(init.InitDesc("up_weight"), arr)
    np.testing.assert_allclose(arr.asnumpy(), L.arr(det["bilinear_2x3x4x4"]), rtol=1e-6)
    arr = mx.nd.zeros((1, 1, 3, 5))
    init.Bilinear()(init.InitDesc("up_weight"), arr)
    np.testing.assert_allclose(arr.asnumpy(), L.arr(det["bilinear_1x1x3x5"]), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        arr = mx.nd.zeros((1, 1, 3, 5))
        init.Uniform()("upsampling0_weight", arr)     # legacy path: upsampling -> bilinear
    np.testing.assert_allclose(arr.asnumpy(), L.arr(det["bilinear_1x1x3x5"]), rtol=1e-6)
    arr = mx.nd.zeros((12,))
    init.LSTMBias(forget_bias=2.0)(init.InitDesc("lstm_i2h_weight"), arr)
    assert arr.asnumpy().tolist() == det["lstmbias"]
    arr = mx.nd.zeros((2, 3))
    init.Constant(mx.nd.array([[1, 2, 3], [4, 5, 6]]))(init.InitDesc("c_weight"), arr)
    assert arr.asnumpy().tolist() == det["constant_nd"]
    arr = mx.nd.zeros((3,), dtype="int32")
    init.One()(init.InitDesc("c_weight"), arr)
    assert [arr.asnumpy().tolist(), str(arr.dtype)] == det["one_int32"]


def test_create():
    cr = G["create"]
    for label, args in {"name": ("xavier",), "json": ('["normal", {"sigma": 0.5}]',),
                        "alias_zeros": ("zeros",), "alias_ones": ("ones",), "kw": ("uniform",)}.items():
        kw = {"scale": 0.3} if label == "kw" else {}
        i = init.create(*args, **kw)
        assert [type(i).__name__, i.dumps()] == cr[label]
    x = init.Xavier()
    assert init.create(x) is x
    assert type(init.create({"initializer": "normal", "sigma": 2})) is init.Normal
    assert type(init.create('{"initializer": "one"}')) is init.One
    with pytest.raises(AssertionError) as e:
        init.create("nosuchinit")
    assert str(e.value).startswith(cr["unknown"]["message"])
    assert "xavier" in str(e.value)      # the valid names are listed


def test_register_custom():
    @init.register
    @init.alias("myinit_alias")
    class MyInit(init.Initializer):
        def __init__(self, v=0.25):
            super().__init__(v=v)
            self.v = v

        def _init_weight(self, _, arr):
            arr[:] = self.v
    arr = mx.nd.zeros((3,))
    init.create("myinit")(init.InitDesc("a_weight"), arr)
    assert arr.asnumpy().tolist() == [0.25] * 3
    init.create("myinit_alias", v=2.0)(init.InitDesc("a_weight"), arr)
    assert arr.asnumpy().tolist() == [2.0] * 3
    # dumps() written into a symbol attribute round-trips through __init__
    init.Uniform()(init.InitDesc("z", {"__init__": MyInit(1.5).dumps()}), arr)
    assert arr.asnumpy().tolist() == [1.5] * 3


def test_errors():
    errs = G["errors"]
    cases = {
        "xavier_vector": lambda: init.Xavier()(init.InitDesc("v_weight"), mx.nd.zeros((4,))),
        "xavier_factor": lambda: init.Xavier(factor_type="foo")(init.InitDesc("v_weight"),
                                                                mx.nd.zeros((4, 4))),
        "xavier_rnd": lambda: init.Xavier(rnd_type="foo")(init.InitDesc("v_weight"), mx.nd.zeros((4, 4))),
        "mixed_nomatch": lambda: init.Mixed(["bias"], [init.Zero()])("w", mx.nd.zeros((2,))),
        "load_missing": lambda: init.Load({"a": mx.nd.zeros((2,))})("b", mx.nd.zeros((2,))),
        "load_shape": lambda: init.Load({"arg:a": mx.nd.zeros((2,))})("a", mx.nd.zeros((3,))),
    }
    for label, fn in cases.items():
        want = errs[label]
        exc = {"ValueError": ValueError, "AssertionError": AssertionError}[want["error"]]
        with pytest.raises(exc) as e:
            fn()
        assert str(e.value) == want["message"], label


def test_load_mixed(tmp_path):
    lm = G["load_mixed"]
    arr = mx.nd.zeros((2,))
    init.Load({"arg:a": mx.nd.array([1, 2])})("a", arr)
    assert arr.asnumpy().tolist() == lm["load"]
    b = mx.nd.zeros((2,))
    init.Load({"arg:a": mx.nd.array([1, 2])}, default_init=init.One())(init.InitDesc("b_weight"), b)
    assert b.asnumpy().tolist() == lm["load_default"]
    m1, m2 = mx.nd.zeros((2,)), mx.nd.zeros((2,))
    mix = init.Mixed(["bias", ".*"], [init.Zero(), init.Constant(4.0)])
    mix(init.InitDesc("fc_bias"), m1)
    mix(init.InitDesc("fc_weight"), m2)
    assert [m1.asnumpy().tolist(), m2.asnumpy().tolist()] == [lm["mixed_bias"], lm["mixed_weight"]]
    # Load from a .params file (the lenet checkpoint)
    ld = init.Load(os.path.join(L.FIXTURES, "lenet-0002.params"))
    w = mx.nd.zeros((4, 1, 5, 5))
    ld("conv1_weight", w)
    ref = mx.nd.load(os.path.join(L.FIXTURES, "lenet-0002.params"))["arg:conv1_weight"]
    np.testing.assert_array_equal(w.asnumpy(), ref.asnumpy())


def test_eq():
    assert [init.Xavier() == init.Xavier(), init.Xavier() == init.Xavier(magnitude=2),
            init.Normal() == init.Uniform()] == G["eq"]


# ---- random initializers: distributions, not MXNet's bits ----------------------------------------
def _draw(i, shape, dtype="float32", name="w_weight", seed=0):
    mx.random.seed(seed)
    arr = mx.nd.zeros(shape, dtype=dtype)
    i(init.InitDesc(name), arr)
    return arr


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_uniform_normal(dtype):
    a = _draw(init.Uniform(0.3), (200, 100), dtype)
    assert a.dtype == np.dtype(dtype).type and a.shape == (200, 100)
    x = a.asnumpy().astype(np.float64)
    bound = 0.3 * (1 + 1e-3 if dtype == "float16" else 1)   # float16 rounds the bound
    assert x.min() >= -bound and x.max() <= bound
    assert abs(x.std() - 0.3 / np.sqrt(3)) < 0.01 and abs(x.mean()) < 0.01
    n = _draw(init.Normal(0.5), (200, 100), dtype).asnumpy().astype(np.float64)
    assert abs(n.std() - 0.5) < 0.02 and abs(n.mean()) < 0.02
    # seed-determinism
    np.testing.assert_array_equal(_draw(init.Uniform(0.3), (200, 100), dtype, seed=7).asnumpy(),
                                  _draw(init.Uniform(0.3), (200, 100), dtype, seed=7).asnumpy())
    assert not np.array_equal(_draw(init.Uniform(0.3), (20,), dtype, seed=7).asnumpy(),
                              _draw(init.Uniform(0.3), (20,), dtype, seed=8).asnumpy())


@pytest.mark.parametrize("rnd,factor,mag,shape", [
    ("uniform", "avg", 3, (64, 32)), ("uniform", "in", 2, (16, 8, 3, 3)),
    ("gaussian", "out", 2, (64, 48)), ("gaussian", "avg", 3, (32, 16, 2, 2))])
def test_xavier(rnd, factor, mag, shape):
    x = _draw(init.Xavier(rnd_type=rnd, factor_type=factor, magnitude=mag), shape).asnumpy()
    hw = np.prod(shape[2:]) if len(shape) > 2 else 1
    fan_in, fan_out = shape[1] * hw, shape[0] * hw
    n = {"avg": (fan_in + fan_out) / 2, "in": fan_in, "out": fan_out}[factor]
    c = np.sqrt(mag / n)
    if rnd == "uniform":
        assert np.abs(x).max() <= c and np.abs(x).max() > 0.9 * c
        assert abs(x.std() - c / np.sqrt(3)) < 0.1 * c
    else:
        assert abs(x.std() - c) < 0.1 * c


def test_msra_orthogonal():
    x = _draw(init.MSRAPrelu(factor_type="in", slope=0.0), (64, 128)).asnumpy()
    assert abs(x.std() - np.sqrt(2 / 128)) < 0.1 * np.sqrt(2 / 128)
    o = _draw(init.Orthogonal(scale=2.0), (6, 10)).asnumpy()
    np.testing.assert_allclose(o @ o.T, 4 * np.eye(6), atol=1e-4)
    o = _draw(init.Orthogonal(scale=1.0, rand_type="normal"), (10, 2, 3)).asnumpy().reshape(10, 6)
    np.testing.assert_allclose(o.T @ o, np.eye(6), atol=1e-4)


def test_default_dispatch_with_random_init():
    """Module's path: biases 0, gammas 1, betas 0 whatever the weight initializer."""
    for name, want in [("fc_bias", 0.0), ("bn_gamma", 1.0), ("bn_beta", 0.0)]:
        a = _draw(init.Xavier(), (5,), name=name)
        assert a.asnumpy().tolist() == [want] * 5
    w = _draw(init.Xavier(), (5, 4), name="fc_weight").asnumpy()
    assert np.abs(w).max() > 0


def test_verbosity(caplog):
    import logging
    caplog.set_level(logging.INFO)
    i = init.One().set_verbosity(True)
    i(init.InitDesc("x_weight"), mx.nd.zeros((4,)))
    assert caplog.records[-1].getMessage() == "Initialized x_weight as weight: 1.0"


def test_initdesc():
    d = init.InitDesc("fc_weight", {"__lr_mult__": "2"})
    assert d == "fc_weight" and isinstance(d, str) and d.attrs == {"__lr_mult__": "2"}
    assert d.global_init is None
    assert json.loads(init.Xavier().dumps())[0] == "xavier"
