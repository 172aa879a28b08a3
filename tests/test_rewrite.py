"""Inference rewrites (xnd/symbol/rewrite.py): the rewritten graph gives the un-rewritten
graph's numbers (rtol 1e-4) for random weights, random BatchNorm statistics and odd shapes.

The reference is ``GraphFunction.forward(args, aux, key, False)`` with the channels-last layout
off: the plain evaluation of every node, which ``Executor.forward(is_train=False)`` ran
before the rewrites.  Hybridized Gluon blocks in inference take the same path.
"""
import numpy as np
import pytest

import xnd as mx
from xnd import tiers
from xnd import _compat_jax
from xnd.lowering import xla_options
from xnd.symbol import rewrite
from xnd.symbol.executor import GraphFunction

RTOL = 1e-4
sym = mx.sym


def _bind(net, rng, dtype="float32", **shapes):
    exe = net.simple_bind(mx.cpu(), grad_req="null", type_dict={k: dtype for k in shapes},
                          **shapes)
    for name, a in exe.arg_dict.items():
        scale = 1.0 if name in shapes else 0.5
        a[:] = (rng.standard_normal(a.shape) * scale).astype(dtype)
    for name, a in exe.aux_dict.items():
        if name.endswith("moving_var"):
            a[:] = rng.uniform(0.3, 2.0, a.shape).astype(dtype)
        else:
            a[:] = (rng.standard_normal(a.shape) * 0.3).astype(dtype)
    return exe


def _reference(exe):
    g = GraphFunction(exe._symbol)
    g._channels_last = False          # every node as MXNet lays it out (xnd.symbol.layout off)
    outs, _ = g.forward(exe._values(exe.arg_arrays), exe._values(exe.aux_arrays), exe._key,
                        False)
    return [np.asarray(o) for o in outs]


def _check(exe, rtol=RTOL):
    """Both tiers (xnd/tiers): the first call's quick programs (XLA's convolutions)
    and, after the switch, the optimized ones (Winograd where it applies)."""
    for i in range(tiers.TABLE.quick_calls + 1):
        got = [o.asnumpy() for o in exe.forward(is_train=False)]
        if 0 < i < tiers.TABLE.quick_calls:
            continue
        ref = _reference(exe)     # with this forward's random key
        assert len(got) == len(ref)
        for a, b in zip(got, ref):
            assert a.shape == b.shape and a.dtype == b.dtype
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            np.testing.assert_allclose(a64, b64, rtol=rtol,
                                       atol=rtol * max(1.0, np.abs(b64).max()))
    return exe._graph.inference_plan()


def _conv_bn(x, name, f, k, s=1, p=0, d=1, g=1, bias=False, fix_gamma=False, relu=True):
    nd = 2
    x = sym.Convolution(x, kernel=(k,) * nd, stride=(s,) * nd, pad=(p,) * nd,
                        dilate=(d,) * nd, num_group=g, num_filter=f, no_bias=not bias,
                        name=name)
    x = sym.BatchNorm(x, fix_gamma=fix_gamma, eps=1e-3, name=name + "_bn")
    return sym.Activation(x, act_type="relu") if relu else x


def test_resnet_like_block_odd_shapes():
    """stride 2 + padding, groups + dilation, Winograd 3x3, residual add, pooling, FC."""
    rng = np.random.default_rng(0)
    x = sym.Variable("data")
    y = _conv_bn(x, "c0", 16, 3, s=2, p=1, bias=True)                     # bias + BN folded
    y = sym.Pooling(y, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max")
    z = _conv_bn(y, "c1", 16, 3, p=2, d=2, g=4)                           # groups, dilation
    z = _conv_bn(z, "c2", 16, 3, p=1, relu=False, fix_gamma=True)         # Winograd, fix_gamma
    y = sym.Activation(z + y, act_type="relu")
    y = sym.Pooling(y, kernel=(1, 1), global_pool=True, pool_type="avg")
    y = sym.FullyConnected(sym.Flatten(y), num_hidden=7, name="fc")
    y = sym.Dropout(y, p=0.3)
    net = sym.SoftmaxOutput(y, name="softmax")
    exe = _bind(net, rng, data=(3, 5, 19, 17))
    plan = _check(exe)
    assert len(plan.bn_pairs) == 3 and len(plan.convs) == 3
    assert len(plan.removed) == 1                                        # the Dropout
    assert exe._fold_state.variant.folded                                 # float32: folded


def test_channels_last_concat_broadcast_and_batchnorm_not_folded():
    """BatchNorm after a pooling (no conv to fold into) runs channels-last; an SE-style
    broadcast multiply by (N, C, 1, 1); Concat on channels; two outputs."""
    rng = np.random.default_rng(1)
    x = sym.Variable("data")
    a = sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=8, name="a")
    b = sym.Convolution(x, kernel=(1, 1), num_filter=8, no_bias=True, name="b")
    c = sym.Concat(a, b, dim=1)
    c = sym.BatchNorm(sym.Pooling(c, kernel=(2, 2), stride=(2, 2), pool_type="avg"),
                      fix_gamma=False, name="bn")
    s = sym.Pooling(c, kernel=(1, 1), global_pool=True, pool_type="avg")
    s = sym.Activation(s, act_type="sigmoid")
    out = sym.broadcast_mul(c, s)
    net = sym.Group([sym.LeakyReLU(out, act_type="leaky", slope=0.1), sym.Flatten(a)])
    exe = _bind(net, rng, data=(2, 3, 9, 11))
    plan = _check(exe)
    assert not plan.bn_pairs


def test_batchnorm_not_folded_where_the_convolution_output_is_also_used():
    rng = np.random.default_rng(2)
    x = sym.Variable("data")
    c = sym.Convolution(x, kernel=(3, 3), num_filter=4, name="c")
    bn = sym.BatchNorm(c, fix_gamma=False, name="bn")
    exe = _bind(sym.Group([bn, c * 2]), rng, data=(2, 3, 7, 7))
    assert not _check(exe).bn_pairs
    # output_mean_var: the statistics are outputs, nothing to fold
    bn2 = sym.BatchNorm(sym.Convolution(x, kernel=(1, 1), num_filter=4, name="c2"),
                        output_mean_var=True, name="bn2")
    exe = _bind(bn2, rng, data=(2, 3, 5, 5))
    assert not _check(exe).bn_pairs


def test_user_channel_last_layout_and_other_ranks():
    rng = np.random.default_rng(3)
    x = sym.Variable("data")
    y = sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=16, layout="NHWC", name="c")
    y = sym.BatchNorm(y, axis=3, fix_gamma=False, name="bn")                 # folded (axis 3)
    exe = _bind(sym.Activation(y, act_type="relu"), rng, data=(2, 6, 5, 16))
    assert len(_check(exe).bn_pairs) == 1
    z = sym.Variable("data")
    z = sym.Convolution(z, kernel=(3,), stride=(2,), pad=(1,), num_filter=6, name="c1d")
    z = sym.BatchNorm(z, fix_gamma=False, name="bn1d")
    z = sym.Pooling(z, kernel=(2,), stride=(2,), pool_type="max")
    exe = _bind(z, rng, data=(2, 4, 15))
    assert len(_check(exe).bn_pairs) == 1
    v = sym.Variable("data")
    v = sym.Convolution(v, kernel=(3, 3, 3), pad=(1, 0, 1), num_filter=4, name="c3d")
    v = sym.BatchNorm(v, fix_gamma=False, name="bn3d")
    exe = _bind(sym.Activation(v, act_type="tanh"), rng, data=(1, 3, 5, 6, 7))
    assert len(_check(exe).bn_pairs) == 1


def test_constant_folding_identities_and_random_ops():
    """A weight computed from parameters (folded once), BlockGrad/_copy identities, and a
    Dropout(mode='always') that stays random with the same draw as the plain graph."""
    rng = np.random.default_rng(4)
    x = sym.Variable("data")
    w = sym.Variable("w")
    wt = sym.BlockGrad(w * 0.5 + 1.0)
    y = sym.Convolution(x, weight=wt, kernel=(3, 3), num_filter=4, no_bias=True, name="c")
    y = sym.identity(y)
    y = sym.Dropout(y, p=0.5, mode="always")
    exe = _bind(y, rng, data=(2, 3, 6, 6), w=(4, 3, 3, 3))
    plan = _check(exe)
    assert plan.param_nodes and len(plan.convs) == 1
    assert len(plan.removed) == 2                                        # BlockGrad, identity


def test_refold_when_parameters_or_statistics_change():
    rng = np.random.default_rng(5)
    x = sym.Variable("data")
    net = _conv_bn(x, "c", 16, 3, p=1, bias=True)
    exe = _bind(net, rng, data=(2, 16, 6, 6))
    _check(exe)
    state = exe._fold_state
    consts = state.consts
    exe.forward(is_train=False)
    assert state.consts is consts                                        # same params: no refold
    exe.forward(is_train=False, data=rng.standard_normal((2, 16, 6, 6)))  # new data: no refold
    assert state.consts is consts
    exe.arg_dict["c_weight"][:] = rng.standard_normal((16, 16, 3, 3))
    _check(exe)
    assert state.consts is not consts
    consts = state.consts
    exe.aux_dict["c_bn_moving_var"][:] = rng.uniform(0.1, 3.0, 16)
    _check(exe)
    assert state.consts is not consts
    exe.copy_params_from({"c_bn_gamma": mx.nd.array(rng.standard_normal(16))})
    _check(exe)


def test_float64_graph_and_disabled_rewrites(monkeypatch):
    rng = np.random.default_rng(6)
    x = sym.Variable("data")
    net = _conv_bn(x, "c", 16, 3, p=1)
    exe = _bind(net, rng, dtype="float64", data=(1, 16, 5, 5))
    _check(exe, rtol=1e-10)
    monkeypatch.setattr(rewrite, "ENABLED", False)
    exe2 = _bind(net, rng, data=(1, 16, 5, 5))
    exe2.forward(is_train=False)
    assert exe2._fold_state is None


def test_training_forward_is_not_rewritten():
    rng = np.random.default_rng(7)
    x = sym.Variable("data")
    net = _conv_bn(x, "c", 4, 3, p=1)
    exe = _bind(net, rng, data=(4, 3, 5, 5))
    out = exe.forward(is_train=True)[0].asnumpy()
    g = exe._graph
    ref, _ = g.forward(exe._values(exe.arg_arrays), exe._values(exe.aux_arrays), exe._key, True)
    np.testing.assert_allclose(out, np.asarray(ref[0]), rtol=1e-6, atol=1e-6)
    assert exe._fold_state is None


@pytest.mark.parametrize("batch", [1, 3])
def test_reshaped_executor_shares_the_plan(batch):
    rng = np.random.default_rng(8)
    x = sym.Variable("data")
    net = sym.FullyConnected(sym.Flatten(_conv_bn(x, "c", 16, 3, p=1)), num_hidden=3,
                             name="fc")
    exe = _bind(net, rng, data=(2, 16, 6, 6))
    _check(exe)
    exe2 = exe.reshape(data=(batch, 16, 6, 6), allow_up_sizing=True)
    exe2.arg_dict["data"][:] = rng.standard_normal((batch, 16, 6, 6))
    _check(exe2)


def test_unknown_xla_option_is_dropped(monkeypatch):
    """An XLA that does not know xnd's CPU compile options compiles without them: the first
    compilation that it refuses runs the plain jit, and no program asks again."""
    from xnd.lowering import xla_options
    monkeypatch.setattr(xla_options, "_REFUSED", [])
    monkeypatch.setattr(xla_options, "CPU_OPTIONS", {"xla_cpu_no_such_option_xnd": True})
    rng = np.random.default_rng(9)
    # a graph of its own: the programs made here carry the unknown option, and a later test
    # that met them in the graph caches would be refused again, into the restored list
    exe = _bind(_conv_bn(sym.Variable("data"), "refused", 4, 3, p=1), rng, data=(1, 3, 5, 5))
    _check(exe)
    assert xla_options.options() is None
    assert bool(xla_options._REFUSED) == _compat_jax.JIT_COMPILER_OPTIONS


def test_hybridized_block_predicts_through_the_rewrites():
    """A hybridized Gluon block outside autograd.record runs the inference plan: same numbers
    as the imperative block, BatchNorm folded, and refolded after set_data."""
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, 3, padding=1, strides=2), nn.BatchNorm(), nn.Activation("relu"),
            nn.MaxPool2D(2, 2), nn.Conv2D(8, 1), nn.BatchNorm(), nn.Dropout(0.5),
            nn.GlobalAvgPool2D(), nn.Dense(5))
    net.initialize(mx.init.Xavier())
    rng = np.random.default_rng(11)
    x = mx.nd.array(rng.standard_normal((2, 3, 13, 11)))
    net(x)
    for name, p in net.collect_params().items():
        v = rng.uniform(0.3, 2.0, p.shape) if name.endswith("running_var") else \
            rng.standard_normal(p.shape) * 0.5
        p.set_data(mx.nd.array(v))
    want = net(x).asnumpy()
    net.hybridize()
    y = net(x)
    from xnd.ndarray import _RECENT
    assert any(r() is y._val() for r in _RECENT)           # nd.waitall() waits for it
    got = y.asnumpy()
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * np.abs(want).max())
    gop = net._cached_op
    assert gop._fold_state.variant is not None and len(gop._fold_state.variant.folded) == 2
    w = net[0].weight
    w.set_data(w.data() * 2)
    net.hybridize(False)
    want2 = net(x).asnumpy()
    net.hybridize()
    got2 = net(x).asnumpy()
    assert not np.allclose(want2, want)
    np.testing.assert_allclose(got2, want2, rtol=RTOL, atol=RTOL * np.abs(want2).max())


@pytest.mark.skipif(not tiers.TABLE.tiered or xla_options.options() is None,
                    reason="no quick tier: no XLA options here (jax 0.4.30) or XND_TIERED=0")
def test_quick_tier_folds_plain_kernels_and_the_switch_folds_winograd_ones():
    """A 3x3 stride-1 convolution of 16 channels: the first calls' fold keeps the (3, 3, C, F)
    kernel (XLA's convolution: Winograd's transforms compile and run slowly at XLA's level 0),
    the optimized tier's the (16, C, F) Winograd kernel; the parameters are folded once per
    tier, and both give the plain graph's numbers."""
    rng = np.random.default_rng(7)
    y = _conv_bn(sym.Variable("data"), "w", 16, 3, p=1)
    exe = _bind(y, rng, data=(2, 16, 6, 6))
    shapes = []
    for _ in range(tiers.TABLE.quick_calls + 2):
        out = exe.forward(is_train=False)[0].asnumpy()
        ref = _reference(exe)[0]
        np.testing.assert_allclose(out, ref, rtol=RTOL, atol=RTOL * np.abs(ref).max())
        shapes.append(tuple(exe._fold_state.consts[0].shape))
    q = tiers.TABLE.quick_calls
    assert shapes == [(3, 3, 16, 16)] * q + [(16, 16, 16)] * 2
    # the quick fold (float arithmetic and transposes) ran on the host: never compiled
    variant = exe._fold_state.variant
    assert any(p is not None for p in variant._host_plans.values())
    assert variant._qfold._cache_size() == 0 and variant.fold._cache_size() == 1


def test_a_host_fold_that_fails_compiles_instead(monkeypatch):
    """A host rule that declines a value while the quick tier's fold runs (host_jaxpr raises
    Unsupported, counted and logged) makes that fold compile: the forward still gives the
    plain graph's numbers, and the signature's later folds compile without trying the host."""
    from xnd.lowering import host_jaxpr
    calls = []

    def declined(eqn, x, *, accuracy=None):
        calls.append(1)
        raise host_jaxpr.Unsupported("a value this rule does not follow")
    monkeypatch.setitem(host_jaxpr.RULES, "rsqrt", declined)      # BatchNorm's 1/sqrt(var)
    monkeypatch.setitem(host_jaxpr.RULES, "sqrt", declined)
    rng = np.random.default_rng(3)
    exe = _bind(_conv_bn(sym.Variable("data"), "c", 4, 3, p=1), rng, data=(2, 3, 5, 5))
    outs = [exe.forward(is_train=False)[0].asnumpy() for _ in range(2)]
    quick = exe._fold_state.variant.quick is not None       # (no quick tier on jax 0.4.30)
    assert len(calls) == (1 if quick else 0)      # the first fold; the second compiled at once
    assert all(p is None for p in exe._fold_state.variant._host_plans.values())
    ref = _reference(exe)[0]
    for out in outs:
        np.testing.assert_allclose(out, ref, rtol=RTOL, atol=RTOL * np.abs(ref).max())
