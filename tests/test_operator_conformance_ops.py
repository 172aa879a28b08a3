"""Operators MXNet's own test_operator.py exercised, against MXNet 1.9.1 goldens
(tests/make_operator_conformance_goldens.py): nd/sym.histogram (uniform bins over a range in
float and integer dtypes, given edges, numpy's result without a range), unravel_index and
ravel_multi_index with a leading -1 (the leading coordinate is not wrapped), and
symbol.split_v2, gather_nd's IndexError for out-of-range coordinates, and
Pooling's pad rules (pooling_convention='same' reads three pad entries; longer pads are cut)."""
import json
import os
import warnings

import numpy as np
import pytest

import xnd as mx
from make_operator_conformance_goldens import CASES, GATHER_CASES, POOL_CASES, SPLIT_CASES

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
