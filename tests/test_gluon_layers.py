"""Gluon layers and losses against MXNet 1.9.1 (goldens from tests/make_gluon_goldens.py).

Every layer case runs imperatively and hybridized: forward in predict mode, then a
training-mode forward under ``record()`` and ``backward`` with MXNet's head gradients:
outputs, input and parameter gradients, and the parameters after backward (BatchNorm's
running statistics change only there).
"""
import json
import os

import numpy as np
import pytest

import xnd as mx
from xnd import autograd
from xnd.frontend import gluon as G
from xnd.frontend import initializer

import make_gluon_goldens as cases

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "gluon", "gluon.json")) as _f:
    GOLD = json.load(_f)
NPZ = np.load(os.path.join(HERE, "goldens", "gluon", "gluon.npz"), allow_pickle=False)
TOL = dict(rtol=1e-4, atol=1e-5)


def _arr(key):
    return NPZ[key]


def _fwd(call):
    return (lambda n, a: n(*a)) if call is None else call


def _build_loaded(case, hybridize):
    build, specs, train, call = cases.LAYER_CASES[case]
    entry = GOLD["layers"][case]
    net = build(G)
    net.initialize(initializer.Zero())  # every value is set from the golden below
    if hybridize:
        net.hybridize()
    xs = [_arr(f"layers/{case}/in/{i}") for i in range(len(specs))]
    nd_in = [mx.nd.array(x) for x in xs]
    fwd = _fwd(call)
    fwd(net, nd_in)  # deferred shape inference and initialization
    params = net._collect_params_with_prefix()
    assert sorted(params) == entry["params"]
    for k in entry["params"]:
        params[k].set_data(mx.nd.array(_arr(f"layers/{case}/param/{k}")))
    return net, nd_in, fwd, params, entry


# What runs per case, to keep the file fast: every case is checked hybridized (forward,
# training forward, backward) and imperatively (forward); the imperative training check
# (one op kernel per op, a backward plan per case) runs on a subset -- the F=nd and F=sym
# code of a layer is the same hybrid_forward. The recurrent cases compile slowly (the RNN
# operator), so each runs in one mode only.
IMPERATIVE_TRAIN = {"dense", "conv2d", "batchnorm", "batchnorm_global", "layernorm",
                    "embedding", "prelu", "concurrent", "maxpool2d_ceil", "lstm_states",
                    "lstmcell_unroll"}
RECURRENT = {"rnn_tanh_2layer": "hybrid", "rnn_relu_states": "imperative", "lstm_bi": "hybrid",
             "lstm_states": "imperative", "gru_ntc": "hybrid", "rnncell_unroll": "imperative",
             "lstmcell_unroll": "imperative", "grucell_unroll_tnc": "hybrid",
             "seqcell_unroll": "hybrid", "bicell_unroll": "imperative",
             "residualcell_unroll": "imperative"}


def _check_layer(case, hybridize, train):
    net, nd_in, fwd, params, entry = _build_loaded(case, hybridize)
    if all(n.startswith(entry["prefix"]) for n in entry["names"]):
        rel = sorted(n[len(net.prefix):] for n in net.collect_params().keys())
        assert rel == sorted(n[len(entry["prefix"]):] for n in entry["names"])
    outs = cases.flat_outputs(fwd(net, nd_in))
    assert len(outs) == entry["n_out"]
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o.asnumpy(), _arr(f"layers/{case}/out/{i}"), **TOL,
                                   err_msg=f"{case} output {i}")
    if not (entry["train"] and train):
        return
    specs = cases.LAYER_CASES[case][1]
    for a, (_, kind) in zip(nd_in, specs):
        if kind == "f":
            a.attach_grad()
    with autograd.record():
        touts = cases.flat_outputs(fwd(net, nd_in))
    heads = [mx.nd.array(_arr(f"layers/{case}/head/{i}")) for i in range(len(touts))]
    autograd.backward(touts, heads)
    mx.nd.waitall()
    for i, o in enumerate(touts):
        np.testing.assert_allclose(o.asnumpy(), _arr(f"layers/{case}/train_out/{i}"), **TOL,
                                   err_msg=f"{case} training output {i}")
    for i, a in enumerate(nd_in):
        key = f"layers/{case}/in_grad/{i}"
        if key in NPZ:
            np.testing.assert_allclose(a.grad.asnumpy(), _arr(key), **TOL,
                                       err_msg=f"{case} input grad {i}")
    for k, p in params.items():
        key = f"layers/{case}/grad/{k}"
        if key in NPZ:
            np.testing.assert_allclose(p.grad().asnumpy(), _arr(key), **TOL,
                                       err_msg=f"{case} grad of {k}")
        if k.endswith("gamma") and getattr(net, "_kwargs", {}).get("fix_gamma"):
            continue  # MXNet's BatchNorm op overwrites a fixed gamma with ones in place
        np.testing.assert_allclose(p.data().asnumpy(), _arr(f"layers/{case}/after/{k}"), **TOL,
                                   err_msg=f"{case} {k} after backward")


@pytest.mark.parametrize("case", sorted(c for c in cases.LAYER_CASES
                                         if RECURRENT.get(c, "hybrid") == "hybrid"))
def test_layer_hybridized(case):
    _check_layer(case, True, case not in ("lstm_bi", "gru_ntc", "grucell_unroll_tnc"))


@pytest.mark.parametrize("case", sorted(c for c in cases.LAYER_CASES
                                         if RECURRENT.get(c, "imperative") == "imperative"))
def test_layer_imperative(case):
    _check_layer(case, False, case in IMPERATIVE_TRAIN)


def test_layer_reprs():
    for case, text in sorted(GOLD["reprs"].items()):
        assert repr(cases.LAYER_CASES[case][0](G)) == text, case


@pytest.mark.parametrize("case", sorted(cases.LOSS_CASES))
def test_loss(case):
    entry = GOLD["losses"][case]
    lf = cases.LOSS_CASES[case][0](G)
    assert repr(lf) == entry["repr"]
    nd_in = [None if i in entry["none"] else mx.nd.array(_arr(f"losses/{case}/in/{i}"))
             for i in range(entry["n_in"])]
    for i in entry["grads"]:
        nd_in[i].attach_grad()
    if entry["grads"]:
        with autograd.record():
            out = lf(*nd_in)
        out.backward()
    else:
        out = lf(*nd_in)
    np.testing.assert_allclose(out.asnumpy(), _arr(f"losses/{case}/out"), **TOL)
    for i in entry["grads"]:
        np.testing.assert_allclose(nd_in[i].grad.asnumpy(), _arr(f"losses/{case}/grad/{i}"),
                                   **TOL, err_msg=f"grad of input {i}")


@pytest.mark.parametrize("case", ["softmax_ce", "l2_weighted", "sigmoid_bce_pos_weight", "huber",
                                  "cosine_embedding", "kldiv_softmax"])
def test_loss_hybridized(case):
    entry = GOLD["losses"][case]
    lf = cases.LOSS_CASES[case][0](G)
    lf.hybridize()
    nd_in = [None if i in entry["none"] else mx.nd.array(_arr(f"losses/{case}/in/{i}"))
             for i in range(entry["n_in"])]
    np.testing.assert_allclose(lf(*nd_in).asnumpy(), _arr(f"losses/{case}/out"), **TOL)


def test_dropout_training_mask():
    d = G.nn.Dropout(0.5)
    d.hybridize()
    x = mx.nd.ones((200, 10))
    with autograd.record():
        y = d(x).asnumpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 0.3 < (y == 0).mean() < 0.7
    np.testing.assert_array_equal(d(x).asnumpy(), np.ones((200, 10), np.float32))


def test_rnn_layer_hybridized_without_states():
    lstm = G.rnn.LSTM(4, layout="NTC")
    lstm.initialize()
    x = mx.nd.random.uniform(shape=(3, 5, 2))
    ref = lstm(x).asnumpy()
    lstm.hybridize()
    np.testing.assert_allclose(lstm(x).asnumpy(), ref, rtol=1e-5, atol=1e-6)
    lstm.hybridize()  # a new graph: the cached one was traced without state outputs (as MXNet)
    out, states = lstm(x, lstm.begin_state(3))
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-5, atol=1e-6)
    assert [s.shape for s in states] == [(1, 3, 4), (1, 3, 4)]


def test_cells_hybridized_unroll_inside_block():
    class Net(G.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.cell = G.rnn.GRUCell(3, input_size=2)

        def hybrid_forward(self, F, x):
            out, _ = self.cell.unroll(4, x, layout="NTC", merge_outputs=True)
            return out

    net = Net()
    net.initialize()
    x = mx.nd.random.uniform(shape=(2, 4, 2))
    ref = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-5, atol=1e-6)
