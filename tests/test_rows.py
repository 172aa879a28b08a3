"""Hybridized inference on a new batch size runs at a bucketed batch size (xnd/symbol/rows.py):
one program serves every size up to the bucket, the rows are the exact size's, and only
graphs whose operators keep the rows of a batch apart qualify."""
import numpy as np
import pytest

import xnd as mx
from xnd import gluon, nd, tiers
from xnd.symbol import rewrite, rows


def _shapes_run(monkeypatch):
    """The data shapes every inference program call runs at."""
    seen = []
    orig = rewrite.InferencePlan._run

    def spy(self, args, aux, key, state):
        seen.append(tuple(args[k].shape for k in self.data_args))
        return orig(self, args, aux, key, state)
    monkeypatch.setattr(rewrite.InferencePlan, "_run", spy)
    return seen


def _mlp():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(8, activation="relu", in_units=5), gluon.nn.Dense(3, in_units=8))
    net.initialize(mx.init.Uniform(0.5))
    net.hybridize()
    return net


def _reference(net, x):
    w1, b1, w2, b2 = (p.data().asnumpy().astype(np.float64)
                      for p in net.collect_params().values())
    return np.maximum(x @ w1.T + b1, 0) @ w2.T + b2


def test_new_sizes_share_one_bucket_and_keep_their_rows(monkeypatch):
    net = _mlp()
    seen = _shapes_run(monkeypatch)
    rs = np.random.RandomState(0)
    for n in (3, 12, 25, 50):
        x = rs.normal(size=(n, 5)).astype(np.float32)
        y = net(nd.array(x))
        assert y.shape == (n, 3)
        np.testing.assert_allclose(y.asnumpy(), _reference(net, x), rtol=1e-5, atol=1e-6)
        with tiers.pinned():           # the exact size's own optimized program: float
            np.testing.assert_allclose(net(nd.array(x)).asnumpy(), y.asnumpy(), rtol=1e-5,
                                       atol=1e-6)   # rounding apart, as across a tier switch
    # the first size runs its own programs; the others share the bucket of 64 rows
    assert [s for s in seen if s != ((64, 5),)] == [((3, 5),)] * 2 + [((12, 5),), ((25, 5),),
                                                                      ((50, 5),)]
    assert seen.count(((64, 5),)) == 3


def test_a_size_that_comes_back_runs_its_own_program(monkeypatch):
    net = _mlp()
    seen = _shapes_run(monkeypatch)
    net(nd.array(np.ones((1, 5), np.float32))).wait_to_read()      # the first size met
    x = nd.array(np.ones((3, 5), np.float32))
    for _ in range(tiers.TABLE.quick_calls + 2):
        net(x).wait_to_read()
    k = tiers.TABLE.quick_calls
    assert seen == [((1, 5),)] + [((64, 5),)] * k + [((3, 5),)] * 2


def test_element_wise_graph_is_exact(monkeypatch):
    net = gluon.nn.HybridLambda(lambda F, x: F.relu(x * 2.0 + 1.0) - F.sigmoid(x))
    net.hybridize()
    x = nd.array(np.random.RandomState(1).normal(size=(7, 3)).astype(np.float32))
    seen = _shapes_run(monkeypatch)
    net(x[:2]).wait_to_read()                  # the first size met
    got = net(x).asnumpy()
    with tiers.pinned():
        want = net(x).asnumpy()
    np.testing.assert_array_equal(got, want)
    assert seen == [((2, 3),), ((64, 3),), ((7, 3),)]


@pytest.mark.parametrize("make", [
    lambda d: mx.sym.sum(d, axis=0, keepdims=True) + d,                   # reduces the batch
    lambda d: mx.sym.softmax(d, axis=0),
    lambda d: mx.sym.Reshape(d, shape=(-1,)),
    lambda d: mx.sym.broadcast_add(d, mx.sym.var("w")),                   # a parameter operand
    lambda d: mx.sym.Dropout(d, p=0.5, mode="always"),                    # random per row
    lambda d: mx.sym.BatchNorm(d, output_mean_var=True)[1],               # its statistics
])
def test_graphs_that_mix_rows_keep_the_exact_size(make):
    sym = make(mx.sym.var("data"))
    assert not rewrite.InferencePlan(mx.symbol.executor.graph_function(sym)).rows.ok


def test_conv_batchnorm_net_qualifies_and_matches(monkeypatch):
    nn = gluon.nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, padding=1, in_channels=2), nn.BatchNorm(in_channels=4),
            nn.Activation("relu"), nn.MaxPool2D(2), nn.Flatten(), nn.Dense(3, in_units=16))
    net.initialize(mx.init.Uniform(0.3))
    net.hybridize()
    seen = _shapes_run(monkeypatch)
    x = nd.array(np.random.RandomState(2).normal(size=(5, 2, 4, 4)).astype(np.float32))
    net(x[:1]).wait_to_read()                  # the first size met
    got = net(x).asnumpy()
    with tiers.pinned():
        want = net(x).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert got.shape == (5, 3) and seen == [((1, 2, 4, 4),), ((64, 2, 4, 4),), ((5, 2, 4, 4),)]


def test_bucket_sizes():
    assert rows.bucket(3) == 64 and rows.bucket(64) == 64 and rows.bucket(65) == 128
    assert rows.bucket(rows.ROW_BUCKET_MAX + 1) is None
    assert rows.bucket(3, row_elements=rows.MAX_ELEMENTS // 8) == 8   # a large row: no 64
    assert rows.bucket(3, row_elements=rows.MAX_ELEMENTS) is None
