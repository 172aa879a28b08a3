"""Core operators of issue 15 against MXNet 1.9.1 (goldens from make_core_ops_goldens.py):
outputs, dtypes, in-place state updates and gradients of each case in core_ops_cases.py,
the error cases, and what the goldens cannot hold (amp_multicast's float16 results, symbol
use, random sampling distributions)."""
import json
import os

import numpy as np
import pytest

import xnd as mx
from xnd.base import MXNetError

import core_ops_cases as C

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "core_ops", "core_ops.json")) as _f:
    GOLD = json.load(_f)
NPZ = np.load(os.path.join(HERE, "goldens", "core_ops", "core_ops.npz"), allow_pickle=False)
# float16 results may differ by one ulp of float16; float32 densities by gammaln's rounding
TOL = {"float16": dict(rtol=2e-3, atol=2e-3)}


@pytest.mark.parametrize("name", sorted(C.CASES))
def test_case_matches_mxnet(name):
    got = C.run_case(mx, C.CASES[name])
    want = {k.split("/", 1)[1]: k for k in GOLD["dtypes"] if k.split("/", 1)[0] == name}
    assert sorted(got) == sorted(want)
    for what, key in want.items():
        dt, shape = GOLD["dtypes"][key]
        assert str(got[what].dtype) == dt, (what, got[what].dtype, dt)
        assert list(got[what].shape) == shape, (what, got[what].shape, shape)
        np.testing.assert_allclose(got[what], NPZ[key], err_msg=what, equal_nan=True,
                                   **TOL.get(dt, dict(rtol=2e-5, atol=2e-6)))


@pytest.mark.parametrize("name", sorted(C.ERRORS))
def test_error_matches_mxnet(name):
    assert C.run_error(mx, C.ERRORS[name]) == GOLD["errors"][name] == "MXNetError"


def test_amp_multicast_dtypes():
    a, b = mx.nd.array([1.5, 2.0]), mx.nd.array([3.0, 4.0], dtype="float16")
    wide = mx.nd.amp_multicast(a, b, num_outputs=2)
    narrow = mx.nd.amp_multicast(a, b, num_outputs=2, cast_narrow=True)
    assert [x.dtype for x in wide] == [np.float32, np.float32]
    assert [x.dtype for x in narrow] == [np.float16, np.float16]
    assert wide[1].asnumpy().tolist() == [3.0, 4.0]
    ints = mx.nd.amp_multicast(mx.nd.array([1], dtype="int32"), a, num_outputs=2)
    assert [x.dtype for x in ints] == [np.int32, np.float32]


def test_symbol_moments_and_svm_output():
    x = mx.sym.var("x")
    m = mx.sym.moments(x, axes=(1,), name="mom")
    assert m.list_outputs() == ["mom_mean", "mom_var"]
    svm = mx.sym.SVMOutput(x, name="svm")
    assert svm.list_arguments() == ["x", "svm_label"]
    args, outs, _ = svm.infer_shape(x=(4, 3))
    assert args == [(4, 3), (4,)] and outs == [(4, 3)]


def test_sample_families_shapes_and_means():
    mx.random.seed(3)
    lam = mx.nd.array([1.0, 4.0])
    draws = {
        "exponential": (mx.nd.sample_exponential(lam, shape=(4000,)), [1.0, 0.25]),
        "gamma": (mx.nd.sample_gamma(lam, mx.nd.array([2.0, 0.5]), shape=(4000,)), [2.0, 2.0]),
        "poisson": (mx.nd.sample_poisson(lam, shape=(4000,)), [1.0, 4.0]),
        "negative_binomial": (mx.nd.sample_negative_binomial(mx.nd.array([2.0, 3.0]),
                                                             mx.nd.array([0.5, 0.75]),
                                                             shape=(4000,)), [2.0, 1.0]),
        "gnb": (mx.nd.sample_generalized_negative_binomial(mx.nd.array([2.0, 3.0]),
                                                           mx.nd.array([0.5, 0.2]),
                                                           shape=(4000,)), [2.0, 3.0]),
    }
    for name, (d, mean) in draws.items():
        assert d.shape == (2, 4000) and d.dtype == np.float32, name
        np.testing.assert_allclose(d.asnumpy().mean(axis=1), mean, rtol=0.1, err_msg=name)
    x = mx.nd.zeros((3, 500), dtype="float64")
    for name in ("uniform", "normal", "exponential", "gamma", "poisson", "negative_binomial",
                 "generalized_negative_binomial"):
        y = getattr(mx.nd.random, name + "_like")(x)
        assert y.shape == (3, 500) and y.dtype == np.float64, name
    assert abs(mx.nd.random.normal_like(x, loc=5.0, scale=0.1).asnumpy().mean() - 5.0) < 0.05


def test_random_frontend_array_parameters_use_sample_ops():
    mx.random.seed(0)
    d = mx.nd.random.exponential(mx.nd.array([1.0, 2.0]), shape=(3,))
    assert d.shape == (2, 3)
    g = mx.nd.random.poisson(mx.nd.array([1.0, 2.0]))
    assert g.shape == (2,)


def test_reset_arrays_returns_nothing_and_zeroes_inputs():
    a, b = mx.nd.ones((2,)), mx.nd.ones((1, 3))
    assert mx.nd.reset_arrays(a, b, num_arrays=2) == []
    assert a.asnumpy().tolist() == [0.0, 0.0] and b.asnumpy().tolist() == [[0.0, 0.0, 0.0]]


@pytest.mark.parametrize("lhs, rhs, spans, want", [
    ((24,), (4, 6, 5), (0, None, 0, 2), (4, 6)),
    ((6, 5), (2, 3, 7), (0, 1, 0, 2), (2, 3, 5)),
    ((4, 6), (9, 2, 3), (-1, None, 1, None), (4, 2, 3)),
    ((2, 1, 6), (1, 2, 3), (1, None, 1, None), (2, 2, 3)),
])
def test_reshape_like_spans(lhs, rhs, spans, want):
    # MXNet's reshape_like: lhs dims [lhs_begin, lhs_end) become rhs dims [rhs_begin, rhs_end)
    lb, le, rb, re_ = spans
    out = mx.nd.reshape_like(mx.nd.ones(lhs), mx.nd.ones(rhs), lhs_begin=lb, lhs_end=le, rhs_begin=rb,
                          rhs_end=re_)
    assert out.shape == want


def test_reshape_like_size_mismatch_names_the_spans():
    with pytest.raises(mx.base.MXNetError, match="reshape_like.*lhs dims"):
        mx.nd.reshape_like(mx.nd.ones((6,)), mx.nd.ones((4, 2)), rhs_begin=0, rhs_end=1)
