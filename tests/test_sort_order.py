"""sort/argsort/topk give MXNet 1.9.1's CPU order where it is not unique: rows with equal
values and NaN, ordered by libstdc++'s introsort and heap select (xnd/lowering/stdsort.py).
Goldens: tests/make_sort_goldens.py."""
import os

import numpy as np
import pytest

import xnd as mx
from xnd.lowering import stdsort
import sort_cases

GOLDEN = np.load(os.path.join(os.path.dirname(__file__), "goldens", "sort_order", "mxnet.npz"))
CASES = sort_cases.cases()


@pytest.mark.parametrize("name,x,op,kw", CASES, ids=[c[0] for c in CASES])
def test_order_matches_mxnet(name, x, op, kw):
    got = sort_cases.run(mx, name, x, op, kw)
    for j, r in enumerate(got):
        np.testing.assert_array_equal(r, GOLDEN[f"{name}.{j}"])


def test_argsort_of_repeating_labels():
    # hand-checked on MXNet 1.9.1: the introsort's first partition swaps 21 and 18 forward
    x = mx.nd.array([i % 3 for i in range(40)])
    assert mx.nd.argsort(x).asnumpy()[:6].tolist() == [0, 21, 18, 24, 15, 27]


def test_nan_stays_where_insertion_leaves_it():
    x = mx.nd.array([1.0, np.nan, np.inf, np.nan, -np.inf])
    np.testing.assert_array_equal(mx.nd.sort(x).asnumpy(), [-np.inf, 1, np.nan, np.inf, np.nan])
    assert mx.nd.argsort(x, is_ascend=False).asnumpy().tolist() == [2, 0, 1, 3, 4]


def test_unsigned_descending():
    x = mx.nd.array([0, 5, 3, 5, 1], dtype="uint8")
    assert mx.nd.argsort(x, is_ascend=False, dtype="int32").asnumpy().tolist() == [1, 3, 2, 4, 0]
    assert mx.nd.sort(x, is_ascend=False).asnumpy().tolist() == [5, 5, 3, 1, 0]


def test_distinct_rows_stay_on_the_device_path(monkeypatch):
    calls = []
    monkeypatch.setattr(stdsort, "row_order", lambda *a: calls.append(a))
    x = mx.nd.array(np.random.RandomState(3).permutation(50).astype("float32"))
    np.testing.assert_array_equal(mx.nd.argsort(x).asnumpy(), np.argsort(x.asnumpy()))
    assert calls == []


def test_sort_gradient_follows_the_order():
    x = mx.nd.array([[2.0, 1.0, 2.0, 0.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.topk(x, k=2, ret_typ="value")
        (y * mx.nd.array([[10.0, 1.0]])).sum().backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[10.0, 0.0, 1.0, 0.0]])
