"""The channels-last internal layout (xnd/symbol/layout.py) in training programs: forward
outputs, gradients and BatchNorm's new moving statistics equal the channel-first
evaluation (rtol 1e-4) for random weights and odd shapes (stride 2, padding, groups,
dilation, depthwise, 1-D/3-D, a user NHWC convolution, Concat, Dropout)."""
import jax
import numpy as np
import pytest

import xnd as mx
from xnd.symbol import layout
from xnd.symbol.executor import GraphFunction

sym = mx.sym
RTOL = 1e-4


def _graphs(net):
    plain, cl = GraphFunction(net), GraphFunction(net)
    plain._channels_last = False
    return plain, cl


def _values(net, rng, **shapes):
    arg_shapes, _, aux_shapes = net.infer_shape(**shapes)
    args = [rng.standard_normal(s).astype("float32") * (1.0 if n in shapes else 0.5)
            for n, s in zip(net.list_arguments(), arg_shapes)]
    aux = [rng.uniform(0.5, 1.5, s).astype("float32") for s in aux_shapes]
    return args, aux


def _close(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=RTOL * max(1.0, np.abs(b).max()))


def _check_train(net, rng, **shapes):
    plain, cl = _graphs(net)
    assert cl._channels_last
    args, aux = _values(net, rng, **shapes)
    key = np.array([3, 7], np.uint32)
    mask = tuple(True for _ in args)
    got = cl.forward_backward(mask)(args, aux, key, [None] * len(net.list_outputs()))
    want = plain.forward_backward(mask)(args, aux, key, [None] * len(net.list_outputs()))
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        _close(g, w)
    return got


def _conv_block(x, name, f, k, s=1, p=0, d=1, g=1):
    x = sym.Convolution(x, kernel=(k, k), stride=(s, s), pad=(p, p), dilate=(d, d),
                        num_group=g, num_filter=f, name=name)
    x = sym.BatchNorm(x, fix_gamma=False, name=name + "_bn")
    return sym.Activation(x, act_type="relu")


def test_training_chain_matches_channel_first():
    rng = np.random.default_rng(0)
    x = sym.Variable("data")
    y = _conv_block(x, "c0", 8, 3, s=2, p=1)
    y = sym.Pooling(y, kernel=(2, 2), stride=(2, 2), pool_type="max")
    a = _conv_block(y, "c1", 8, 3, p=2, d=2, g=4)                 # groups + dilation
    b = _conv_block(y, "c2", 8, 3, p=1, g=8)                      # depthwise
    y = sym.Concat(a + y, b, dim=1)
    y = sym.Dropout(y, p=0.3)                                     # random: channel-first
    y = sym.Pooling(y, kernel=(1, 1), global_pool=True, pool_type="avg")
    y = sym.FullyConnected(sym.Flatten(y), num_hidden=5, name="fc")
    net = sym.SoftmaxOutput(y, name="softmax")
    outs, new_aux, grads = _check_train(net, rng, data=(3, 4, 15, 13), softmax_label=(3,))
    assert len(new_aux) == 6


@pytest.mark.parametrize("nd", [1, 3])
def test_other_ranks(nd):
    rng = np.random.default_rng(nd)
    x = sym.Variable("data")
    y = sym.Convolution(x, kernel=(3,) * nd, stride=(2,) * nd, pad=(1,) * nd, num_filter=4,
                        name="c")
    y = sym.Activation(sym.BatchNorm(y, name="bn"), act_type="tanh")
    net = sym.Pooling(y, kernel=(2,) * nd, stride=(2,) * nd, pool_type="avg")
    _check_train(net, rng, data=(2, 3) + (7,) * nd)


def test_user_channel_last_convolution_and_eval_mode():
    rng = np.random.default_rng(5)
    x = sym.Variable("data")
    y = sym.Convolution(x, kernel=(3, 3), num_filter=4, layout="NHWC", name="c")
    net = sym.Convolution(sym.transpose(y, axes=(0, 3, 1, 2)), kernel=(1, 1), num_filter=2,
                          name="d")
    _check_train(net, rng, data=(2, 6, 5, 3))
    plain, cl = _graphs(net)
    args, aux = _values(net, rng, data=(2, 6, 5, 3))
    key = np.zeros(2, np.uint32)
    _close(cl.forward(args, aux, key, False)[0][0], plain.forward(args, aux, key, False)[0][0])


def test_graphs_without_convolutions_are_left_alone(monkeypatch):
    x = sym.Variable("data")
    assert not GraphFunction(sym.Pooling(x, kernel=(2, 2), pool_type="max"))._channels_last
    monkeypatch.setattr(layout, "ENABLED", False)
    assert not GraphFunction(sym.Convolution(x, kernel=(1, 1), num_filter=2))._channels_last


def test_shape_errors_name_the_convolution():
    x = sym.Variable("data")
    w = sym.Variable("w")
    net = sym.Convolution(x, w, kernel=(3, 3), num_filter=4, no_bias=True, name="conv9")
    g = GraphFunction(net)
    args = [np.zeros((1, 3, 8, 8), np.float32), np.zeros((4, 2, 3, 3), np.float32)]
    with pytest.raises(mx.base.MXNetError, match="conv9"):
        g.forward(args, [], np.zeros(2, np.uint32), True)
