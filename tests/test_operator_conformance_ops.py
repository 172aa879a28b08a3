"""Operators MXNet's own test_operator.py exercised, against MXNet 1.9.1 goldens
(tests/make_operator_conformance_goldens.py): nd/sym.histogram (uniform bins over a range in
float and integer dtypes, given edges, numpy's result without a range), unravel_index and
ravel_multi_index with a leading -1 (the leading coordinate is not wrapped), and
symbol.split_v2, gather_nd's IndexError for out-of-range coordinates, and
Pooling's pad rules (pooling_convention='same' reads three pad entries; longer pads are cut),
linalg.syevd (ascending eigenvalues, rows of U signed by their largest entry, its symmetric
gradient), potrf/potri with lower=False, gemm/gemm2 with the rows on another axis, shape
inference of a variable that meets a float64 constant, and _square_sum (MXNet ran it on a
row_sparse input; xnd on the dense array with the same values)."""
import json
import os
import warnings

import numpy as np
import pytest

import xnd as mx
from make_operator_conformance_goldens import (CASES, GATHER_CASES, LINALG_CASES,
                                               NON_DIFFERENTIABLE_CASES, NONE_AXIS_CASES,
                                               POOL_CASES, SPLIT_CASES, SQUARE_SUM_CASES, _SYM)

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "operator_conformance", "cases.json")) as f:
    GOLD = json.load(f)


@pytest.mark.parametrize("name,fn,ins,attrs,bins", CASES, ids=[c[0] for c in CASES])
def test_nd_matches_mxnet(name, fn, ins, attrs, bins):
    want = GOLD[name]
    kw = dict(attrs)
    if bins is not None:
        kw["bins"] = mx.nd.array(bins[0], dtype=bins[1])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = getattr(mx.nd, fn)(*[mx.nd.array(v, dtype=d) for v, d in ins], **kw)
    res = res if isinstance(res, (list, tuple)) else [res]
    assert [np.dtype(r.dtype).name for r in res] == want["dtypes"]
    for r, v in zip(res, want["outputs"]):
        np.testing.assert_array_equal(r.asnumpy(), np.asarray(v, dtype=r.dtype))
    assert [str(x.message) for x in w] == want["warnings"]


@pytest.mark.parametrize("name,ios,axis", SPLIT_CASES, ids=[c[0] for c in SPLIT_CASES])
def test_sym_split_v2(name, ios, axis):
    s = mx.sym.split_v2(mx.sym.var("data"), indices_or_sections=ios, axis=axis)
    assert s.list_outputs() == GOLD[name]["list_outputs"]
    data = mx.nd.array(np.arange(12, dtype=np.float32).reshape(4, 3))
    outs = s.bind(mx.cpu(), {"data": data}).forward()
    assert [o.asnumpy().tolist() for o in outs] == GOLD[name]["outputs"]


def test_sym_split_v2_rejects_a_list():
    with pytest.raises(ValueError, match=GOLD["split_bad"]["message"]):
        mx.sym.split_v2(mx.sym.var("data"), [1])


def test_sym_histogram():
    with pytest.raises(ValueError, match=GOLD["sym_hist_no_range"]["message"]):
        mx.sym.histogram(mx.sym.var("a"), bins=3)
    x = mx.nd.array([-3.0, 0.1, 0.5, 0.9, 1.0])
    uni = mx.sym.histogram(a=mx.sym.var("a"), bins=4, range=(0, 1))
    assert uni.list_arguments() == ["a"]           # no implicit `bins` variable
    counts, edges = uni.bind(mx.cpu(), {"a": x}).forward()
    assert counts.asnumpy().tolist() == [1, 0, 1, 2] and counts.dtype == np.int64  # MXNet 1.9.1
    assert edges.asnumpy().tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    given = mx.sym.histogram(a=mx.sym.var("a"), bins=mx.sym.var("b"))
    assert given.list_arguments() == ["a", "b"]
    counts, _ = given.bind(mx.cpu(), {"a": x, "b": mx.nd.array([0, 0.5, 1])}).forward()
    assert counts.asnumpy().tolist() == [1, 3]


@pytest.mark.parametrize("name,idx", GATHER_CASES, ids=[c[0] for c in GATHER_CASES])
def test_gather_nd_bounds(name, idx):
    want = GOLD[name]
    data = mx.nd.array([[0, 1, 2], [3, 4, 5]])
    if "error" in want:
        with pytest.raises(IndexError) as e:
            mx.nd.gather_nd(data, mx.nd.array(idx)).asnumpy()
        assert want["message"].split("IndexError: ")[-1] in str(e.value)
    else:
        assert mx.nd.gather_nd(data, mx.nd.array(idx)).asnumpy().tolist() == want["outputs"]


@pytest.mark.parametrize("name,kw", POOL_CASES, ids=[c[0] for c in POOL_CASES])
def test_pooling_pad_rules(name, kw):
    want = GOLD[name]
    x = mx.nd.array(np.arange(10.0).reshape(1, 1, 10))
    if "error" in want:
        with pytest.raises(mx.base.MXNetError) as e:
            mx.nd.Pooling(x, pool_type="max", **kw)
        assert want["message"].split("MXNetError: ")[-1] in str(e.value)
    else:
        assert mx.nd.Pooling(x, pool_type="max", **kw).asnumpy().tolist() == want["outputs"]


@pytest.mark.parametrize("name,fn,ins,attrs", LINALG_CASES, ids=[c[0] for c in LINALG_CASES])
def test_linalg_matches_mxnet(name, fn, ins, attrs):
    want = GOLD[name]
    res = getattr(mx.nd.linalg, fn)(*[mx.nd.array(v, dtype=d) for v, d in ins], **attrs)
    res = res if isinstance(res, (list, tuple)) else [res]
    assert [np.dtype(r.dtype).name for r in res] == want["dtypes"]
    tol = 1e-6 if want["dtypes"][0] == "float32" else 1e-12
    for r, v in zip(res, want["outputs"]):
        np.testing.assert_allclose(r.asnumpy(), np.asarray(v), rtol=tol, atol=tol)


def test_syevd_gradient_matches_mxnet():
    a = mx.nd.array(_SYM, dtype="float64")
    a.attach_grad()
    with mx.autograd.record():
        u, lam = mx.nd.linalg.syevd(a)
        loss = (u * mx.nd.array(np.arange(16.0).reshape(4, 4) / 10, dtype="float64")).sum() + \
            (lam * mx.nd.array([1.0, -2.0, 0.5, 3.0], dtype="float64")).sum()
    loss.backward()
    np.testing.assert_allclose(a.grad.asnumpy(), GOLD["syevd_grad"]["outputs"][0], atol=1e-10)


def test_infer_shape_uses_the_dtypes_a_constant_implies():
    mask = mx.sym.one_hot(mx.sym.arange(start=0, stop=3, step=1, dtype="int32"), depth=3,
                          dtype="float64")
    s = mx.sym.broadcast_mul(mx.sym.var("w"), mx.sym.reshape(mask, shape=(1, 3, 3)))
    want = GOLD["infer_f64_constant"]
    assert [list(x) for x in s.infer_shape(w=(2, 3, 3))[1]] == want["shapes"]
    assert [np.dtype(t).name for t in s.infer_type()[0]] == want["types"]


def test_gemm_rejects_a_row_axis_that_does_not_contract():
    a = mx.nd.ones((2, 1, 2, 2), dtype="float64")
    with pytest.raises(mx.base.MXNetError):
        mx.nd.linalg.gemm2(a, a, axis=-3)


@pytest.mark.parametrize("name,fn,attrs", NONE_AXIS_CASES, ids=[c[0] for c in NONE_AXIS_CASES])
def test_symbol_keeps_an_explicit_none(name, fn, attrs):
    s = getattr(mx.sym, fn)(mx.sym.var("a"), **attrs)
    assert s.list_attr() == GOLD[name]["attrs"]
    assert [list(x) for x in s.infer_shape(a=(5, 5, 5, 5))[1]] == GOLD[name]["shapes"]


def test_zero_gradient_output_takes_any_head():
    a = mx.sym.var("a")
    exe = mx.sym.argmax(a, axis=1, keepdims=True).bind(mx.cpu(), {"a": mx.nd.ones((2, 3))},
                                                       args_grad={"a": mx.nd.ones((2, 3))})
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((2, 3)))          # the output is (2, 1)
    assert exe.grad_arrays[0].asnumpy().tolist() == GOLD["argmax_any_head"]["grad"]


@pytest.mark.parametrize("name,make,shapes", NON_DIFFERENTIABLE_CASES,
                         ids=[c[0] for c in NON_DIFFERENTIABLE_CASES])
def test_binding_an_op_without_gradient(name, make, shapes):
    want = GOLD[name]
    types = {"x": np.float32, "idx": np.int32, "not_an_input": np.float16}  # extra names: ignored
    s = make(mx, mx.sym.var("x"), mx.sym.var("idx"))
    exe = s.simple_bind(mx.cpu(), grad_req="null", type_dict=types, **shapes)
    assert list(exe.arg_arrays[0].shape) == want["null"]
    if want["write"] == "bound":
        s.simple_bind(mx.cpu(), type_dict=types, **shapes).forward()
    else:
        with pytest.raises(RuntimeError) as e:   # MXNetError is a RuntimeError, as in MXNet
            s.simple_bind(mx.cpu(), type_dict=types, **shapes)
        assert want["write"].endswith(str(e.value))


@pytest.mark.parametrize("name,inp,attrs", SQUARE_SUM_CASES, ids=[c[0] for c in SQUARE_SUM_CASES])
def test_square_sum_matches_mxnet(name, inp, attrs):
    want = GOLD[name]
    x = mx.nd.array(inp[0], dtype=inp[1])
    if "error" in want:
        msg = want["message"].split("MXNetError: ")[-1].replace(
            "Check failed: infer_stype_success: ", "")
        with pytest.raises(mx.base.MXNetError) as e:
            mx.nd._internal._square_sum(x, **attrs)
        assert msg in str(e.value)
        return
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd._internal._square_sum(x, **attrs)
    y.backward(mx.nd.array(np.arange(1, y.size + 1).reshape(y.shape), dtype=inp[1]))
    assert np.dtype(y.dtype).name == want["dtypes"][0]
    np.testing.assert_array_equal(y.asnumpy(), np.asarray(want["outputs"][0], dtype=y.dtype))
    np.testing.assert_array_equal(x.grad.asnumpy(), np.asarray(want["grad"], dtype=y.dtype))


def test_square_sum_symbol():
    want = GOLD["square_sum_sym"]
    s = mx.sym._internal._square_sum(mx.sym.var("v", stype="row_sparse"), axis=1, keepdims=True)
    assert s.list_attr() == want["attrs"]
    assert [list(x) for x in s.infer_shape(v=(4, 3))[1]] == want["shapes"]
    assert [np.dtype(t).name for t in s.infer_type(v="float64")[1]] == want["types"]
    with pytest.raises(mx.base.MXNetError, match="only supports axis=0 or 1"):   # MXNet: garbage
        mx.nd._internal._square_sum(mx.nd.ones((2, 3)), axis=1, exclude=True)
