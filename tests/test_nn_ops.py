"""Neural-network operators against MXNet 1.9.1 goldens (tests/goldens/nn, written by
``/work/mxref/bin/python tests/make_nn_goldens.py``), plus xnd-only checks.

* forward: ``xnd.nd.<Op>(...)`` eager calls (predict mode); training-mode cases call
  the registry function with ``is_train=True``; rtol 1e-5, atol 1e-6.
* gradients: ``jax.vjp`` of the registry function with MXNet's head gradients (hidden
  outputs get zero heads), compared with MXNet's ``x.grad`` after ``backward``; this
  needs no xnd autograd. BatchNorm's moving statistics after backward are checked
  through ``batchnorm_aux_update``.
* errors: where MXNet raises, xnd raises MXNetError naming the op, argument and shapes.
"""
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import xnd as mx
from xnd.base import MXNetError
from xnd.lowering import registry
from xnd.lowering.norm import batchnorm_aux_update, batchnorm_moving_update
from xnd.lowering.rnn import rnn_param_size

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "nn", "nn_cases.json")) as _f:
    GOLD = json.load(_f)["cases"]
NPZ = np.load(os.path.join(HERE, "goldens", "nn", "nn_cases.npz"), allow_pickle=False)
KEY = np.array([7, 11], np.uint32)

FWD_TOL = GRAD_TOL = dict(rtol=1e-5, atol=1e-6)
TOL = {}  # per-case overrides, should a case ever need one

OK = sorted(n for n, m in GOLD.items() if "error" not in m)
GRAD = sorted(n for n in OK if GOLD[n]["grad"])
ERRORS = sorted(n for n, m in GOLD.items() if "error" in m)


def _inputs(name):
    m = GOLD[name]
    return [NPZ[f"{name}/in/{n}"] for n in m["inputs"]]


def _attrs(name):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in GOLD[name]["attrs"].items()}


def _full_attrs(op, name, train):
    a = op.parse_attrs(_attrs(name))
    if op.train:
        a["is_train"] = train
    if op.rng:
        a["key"] = KEY
    return a


def _visible(op, attrs, outs):
    nv = op.num_visible
    if nv is None:
        return outs
    return outs[:nv(attrs) if callable(nv) else nv]


def _as_list(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _close(got, want, what, tol):
    got = np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != MXNet {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != MXNet {want.dtype}"
    np.testing.assert_allclose(got, want, err_msg=what, **tol)


@pytest.mark.parametrize("name", OK)
def test_forward(name):
    m = GOLD[name]
    op = registry.get(m["op"])
    ins = _inputs(name)
    if m["train"]:
        attrs = _full_attrs(op, name, True)
        outs = _visible(op, attrs, _as_list(jax.jit(lambda *a: op.fn(*a, **attrs))(*ins)))
    else:
        f = getattr(mx.nd, m["op"])
        outs = [o.asnumpy() for o in _as_list(f(*[mx.nd.array(a, dtype=a.dtype) for a in ins],
                                                  **_attrs(name)))]
    assert len(outs) == m["num_outputs"], f"{name}: {len(outs)} outputs, MXNet has {m['num_outputs']}"
    for i in (m["compare"] if m["compare"] is not None else range(len(outs))):
        _close(outs[i], NPZ[f"{name}/out/{i}"], f"{name} output {i}", TOL.get(name, FWD_TOL))


@pytest.mark.parametrize("name", GRAD)
def test_gradient(name):
    m = GOLD[name]
    op = registry.get(m["op"])
    ins = _inputs(name)
    attrs = _full_attrs(op, name, m["train"])
    pos = [m["inputs"].index(n) for n in m["grad"]]

    def f(*diff):
        full = list(ins)
        for p, d in zip(pos, diff):
            full[p] = d
        return tuple(_as_list(op.fn(*full, **attrs)))

    @jax.jit
    def run(diff):
        outs, vjp = jax.vjp(f, *diff)
        n_heads = len([k for k in NPZ.files if k.startswith(f"{name}/head/")])
        cts = tuple(jnp.asarray(NPZ[f"{name}/head/{i}"]) if i < n_heads else jnp.zeros_like(o)
                    for i, o in enumerate(outs))
        return outs, vjp(cts)

    outs, grads = run(tuple(ins[p] for p in pos))
    for n, g in zip(m["grad"], grads):
        _close(g, NPZ[f"{name}/grad/{n}"], f"{name} d/d{n}", TOL.get(name, GRAD_TOL))
    if m["aux"]:
        mm, mv = batchnorm_aux_update(attrs, ins, outs)
        _close(mm, NPZ[f"{name}/aux/moving_mean"], f"{name} moving_mean", FWD_TOL)
        _close(mv, NPZ[f"{name}/aux/moving_var"], f"{name} moving_var", FWD_TOL)


# what xnd's message must mention (op, argument, shapes) for each MXNet error case
ERROR_WORDS = {
    "err_fc_weight": ["FullyConnected", "weight", "(4,7)", "(4,18)"],
    "err_fc_missing_bias": ["FullyConnected", "expects 3 inputs"],
    "err_conv_kernel_big": ["Convolution", "kernel", "(5,5)", "(1,2,3,3)"],
    "err_conv_group": ["Convolution", "num_group=2", "(1,3,3,3)"],
    "err_conv_weight": ["Convolution", "weight", "(4,3,2,2)", "(4,2,2,2)"],
    "err_conv_missing_bias": ["Convolution", "expects 3 inputs"],
    "err_conv_extra_bias": ["Convolution", "expects 2 inputs"],
    "err_deconv_target_big": ["Deconvolution", "target_shape", "(8,8)"],
    "err_act_type": ["Activation", "act_type", "foo"],
    "err_pad_3d": ["Pad", "4-D or 5-D", "(2,3,4)"],
    "err_pool_kernel_big": ["Pooling", "kernel size (5) exceeds input (3 padded to 3)"],
    "err_so_shape": ["SoftmaxOutput", "label", "(2,)", "(2,3,4)"],
}


@pytest.mark.parametrize("name", ERRORS)
def test_error(name):
    m = GOLD[name]
    f = getattr(mx.nd, m["op"])
    ins = [mx.nd.array(a, dtype=a.dtype) for a in _inputs(name)]
    with pytest.raises(MXNetError) as info:
        f(*ins, **_attrs(name)).asnumpy()
    msg = str(info.value)
    for w in ERROR_WORDS[name]:
        assert w in msg, f"{name}: {w!r} not in {msg!r}"


def test_error_table_complete():
    assert sorted(ERROR_WORDS) == ERRORS


# ---- xnd-only checks (no MXNet golden: GPU-only layouts, randomness, extensions) ---------------
def _fn(name):
    return registry.get(name).fn


def test_conv_channel_last_matches_channel_first():
    rs = np.random.RandomState(0)
    for nd, lay in ((1, "NWC"), (2, "NHWC"), (3, "NDHWC")):
        x = rs.randn(2, *([5] * nd), 4).astype(np.float32)
        w = rs.randn(6, *([3] * nd), 2).astype(np.float32)  # (F, *k, C/g)
        b = rs.randn(6).astype(np.float32)
        kw = dict(kernel=(3,) * nd, stride=(2,) * nd, pad=(1,) * nd, num_filter=6, num_group=2)
        got = _fn("Convolution")(x, w, b, layout=lay, **kw)
        ref = _fn("Convolution")(np.moveaxis(x, -1, 1), np.moveaxis(w, -1, 1), b, **kw)
        np.testing.assert_allclose(got, np.moveaxis(np.asarray(ref), 1, -1), rtol=1e-5, atol=1e-5)
        wd = rs.randn(4, *([3] * nd), 3).astype(np.float32)  # (C_in, *k, F/g)
        kd = dict(kernel=(3,) * nd, stride=(2,) * nd, pad=(1,) * nd, adj=(1,) * nd, num_filter=6,
                  num_group=2)
        got = _fn("Deconvolution")(x, wd, layout=lay, **kd)
        ref = _fn("Deconvolution")(np.moveaxis(x, -1, 1), np.moveaxis(wd, -1, 1), **kd)
        np.testing.assert_allclose(got, np.moveaxis(np.asarray(ref), 1, -1), rtol=1e-5, atol=1e-5)


def test_conv_shapes_from_operators_md():
    x = mx.nd.ones((2, 3, 7, 7))
    assert mx.nd.Convolution(x, mx.nd.ones((4, 3, 3, 3)), mx.nd.zeros(4), kernel=(3, 3), stride=(2, 2),
                             pad=(1, 1), dilate=(2, 2), num_filter=4).shape == (2, 4, 3, 3)
    assert mx.nd.Deconvolution(x, mx.nd.ones((3, 4, 3, 3)), kernel=(3, 3), stride=(2, 2),
                               num_filter=4).shape == (2, 4, 15, 15)
    assert mx.nd.Deconvolution(x, mx.nd.ones((3, 4, 4, 4)), kernel=(4, 4), stride=(2, 2), pad=(1, 1),
                               num_filter=4).shape == (2, 4, 14, 14)
    for k, s, p, conv, n in ((2, 2, 0, "valid", 3), (3, 2, 0, "valid", 3), (3, 2, 1, "valid", 4),
                             (3, 3, 0, "valid", 2), (2, 2, 0, "full", 4), (3, 3, 0, "full", 3)):
        out = mx.nd.Pooling(mx.nd.ones((1, 1, 7, 7)), kernel=(k, k), stride=(s, s), pad=(p, p),
                            pooling_convention=conv)
        assert out.shape == (1, 1, n, n), (k, s, p, conv)


def test_symbol_json_string_attributes():
    op = registry.get("Convolution")
    a = op.parse_attrs({"kernel": "(3, 3)", "num_filter": "4", "no_bias": "True", "pad": "(1, 1)",
                        "layout": "None", "cudnn_tune": "None"})
    assert a["kernel"] == (3, 3) and a["num_filter"] == 4 and a["no_bias"] is True
    assert a["layout"] is None
    out = jax.eval_shape(lambda x, w: op.fn(x, w, **a),
                         jax.ShapeDtypeStruct((2, 3, 5, 5), jnp.float32),
                         jax.ShapeDtypeStruct((4, 3, 3, 3), jnp.float32))
    assert out.shape == (2, 4, 5, 5)
    bn = registry.get("BatchNorm").parse_attrs({"eps": "0.001", "fix_gamma": "False",
                                                "output_mean_var": "0"})
    assert bn["fix_gamma"] is False and bn["momentum"] == 0.9


def test_defaults_match_mxnet():
    bn = registry.get("BatchNorm").params
    assert (bn["eps"].default, bn["momentum"].default, bn["fix_gamma"].default) == (1e-3, 0.9, True)
    assert registry.get("Deconvolution").params["no_bias"].default is True
    assert registry.get("Convolution").params["no_bias"].default is False
    pool = registry.get("Pooling").params
    assert pool["pool_type"].default == "max" and pool["pooling_convention"].default == "valid"
    lr = registry.get("LeakyReLU").params
    assert lr["act_type"].default == "leaky" and lr["slope"].default == 0.25
    assert registry.get("BatchNorm").aux == ("moving_mean", "moving_var")
    assert registry.get("Softmax") is registry.get("SoftmaxOutput")
    assert registry.get("stop_gradient") is registry.get("BlockGrad")


NN_OPS = ("FullyConnected Convolution Deconvolution Pooling UpSampling BatchNorm LayerNorm "
          "InstanceNorm GroupNorm L2Normalization LRN Activation LeakyReLU Dropout SoftmaxActivation "
          "Embedding SequenceMask SequenceLast SequenceReverse RNN softmax_cross_entropy Pad pad "
          "im2col col2im SoftmaxOutput Softmax LinearRegressionOutput LogisticRegressionOutput "
          "MAERegressionOutput MakeLoss make_loss BlockGrad stop_gradient Crop depth_to_space "
          "space_to_depth").split()


def test_every_nn_op_is_in_nd():
    for name in NN_OPS:
        assert registry.exists(name), name
        assert callable(getattr(mx.nd, name)), name


def test_batchnorm_moving_update_rule():
    mm, mv = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)
    bm, bv = np.array([0.0, 1.0], np.float32), np.array([1.0, 1.0], np.float32)
    nm, nv = batchnorm_moving_update(mm, mv, bm, bv, 0.9)
    np.testing.assert_allclose(nm, [0.9, 1.9], rtol=1e-6)
    np.testing.assert_allclose(nv, [2.8, 3.7], rtol=1e-6)
    # not training / use_global_stats: unchanged
    x = np.random.RandomState(1).randn(4, 2, 3).astype(np.float32)
    ins = (x, np.ones(2, np.float32), np.zeros(2, np.float32), mm, mv)
    op = registry.get("BatchNorm")
    for train, ugs in ((False, False), (True, True)):
        a = op.parse_attrs({"use_global_stats": ugs})
        a["is_train"] = train
        outs = op.fn(*ins, **a)
        r = batchnorm_aux_update(a, ins, outs)
        np.testing.assert_array_equal(r[0], mm)
        np.testing.assert_array_equal(r[1], mv)
    assert op.fn.aux_update is batchnorm_aux_update


def test_dropout_train_and_modes():
    f = _fn("Dropout")
    x = np.ones((200, 50), np.float32)
    out, mask = f(x, p=0.3, is_train=True, key=KEY)
    out = np.asarray(out)
    vals = set(np.unique(out).tolist())
    assert vals <= {0.0, np.float32(1 / 0.7)}
    frac = (out == 0).mean()
    assert abs(frac - 0.3) < 0.02  # 10000 draws: sd 0.0046
    np.testing.assert_array_equal(out, np.asarray(mask))
    out2, _ = f(x, p=0.3, is_train=True, key=KEY)
    np.testing.assert_array_equal(out, out2)  # same key, same mask
    out3, _ = f(x, p=0.3, is_train=True, key=np.array([7, 12], np.uint32))
    assert (np.asarray(out3) != out).any()
    # axes: one draw shared along axis 1
    o, _ = f(np.ones((40, 6, 5), np.float32), p=0.5, axes=(1,), is_train=True, key=KEY)
    o = np.asarray(o)
    assert (o == o[:, :1, :]).all()
    # predict mode: identity; mode='always': masked even then (through nd, not recording)
    np.testing.assert_array_equal(np.asarray(f(x, p=0.3, is_train=False, key=KEY)[0]), x)
    np.testing.assert_array_equal(mx.nd.Dropout(mx.nd.array(x), p=0.3).asnumpy(), x)
    a = mx.nd.Dropout(mx.nd.array(x), p=0.5, mode="always").asnumpy()
    assert set(np.unique(a).tolist()) == {0.0, 2.0}
    # p=1: MXNet scales the kept values by 1/(1-p) = inf and multiplies by the zero mask: NaN
    assert np.isnan(np.asarray(f(x, p=1.0, is_train=True, key=KEY)[0])).all()


def test_rrelu_train_slopes():
    f = _fn("LeakyReLU")
    x = -np.ones((100, 30), np.float32)
    out, s = f(x, act_type="rrelu", is_train=True, key=KEY)
    s = np.asarray(s)
    assert s.min() >= 0.125 and s.max() <= 0.334 and s.std() > 0.03
    np.testing.assert_allclose(np.asarray(out), -s)
    assert abs(s.mean() - (0.125 + 0.334) / 2) < 0.005
    out, s = f(x, act_type="rrelu", is_train=False, key=KEY)
    np.testing.assert_allclose(np.asarray(out), -0.2295, rtol=1e-6)


def test_rnn_sequence_length_and_dropout():
    rs = np.random.RandomState(3)
    f = _fn("RNN")
    T, N, I, H = 5, 3, 2, 4
    for mode in ("lstm", "gru"):
        params = rs.uniform(-0.5, 0.5, rnn_param_size(mode, I, H, 1, True)).astype(np.float32)
        x = rs.randn(T, N, I).astype(np.float32)
        h0 = rs.randn(2, N, H).astype(np.float32)
        c0 = rs.randn(2, N, H).astype(np.float32) if mode == "lstm" else None
        lens = np.array([2, 5, 3], np.float32)
        kw = dict(state_size=H, num_layers=1, bidirectional=True, mode=mode, state_outputs=True,
                  use_sequence_length=True, key=KEY)
        args = (x, params, h0, c0, lens) if mode == "lstm" else (x, params, h0, lens)  # symbol order
        res = f(*args, **kw)
        out, hy = np.asarray(res[0]), np.asarray(res[1])
        for b, L in enumerate(lens.astype(int)):
            kw1 = dict(kw, use_sequence_length=False)
            one = f(x[:L, b:b + 1], params, h0[:, b:b + 1], None if c0 is None else c0[:, b:b + 1],
                    **kw1)
            np.testing.assert_allclose(out[:L, b], np.asarray(one[0])[:, 0], rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(hy[:, b], np.asarray(one[1])[:, 0], rtol=1e-5, atol=1e-6)
            assert (out[L:, b] == 0).all()
    # dropout between layers: only in training, only with p > 0
    params = rs.uniform(-0.5, 0.5, rnn_param_size("rnn_tanh", I, H, 2)).astype(np.float32)
    x, h0 = rs.randn(T, N, I).astype(np.float32), np.zeros((2, N, H), np.float32)
    kw = dict(state_size=H, num_layers=2, mode="rnn_tanh", key=KEY)
    ref = np.asarray(f(x, params, h0, p=0.0, is_train=True, **kw))
    np.testing.assert_array_equal(np.asarray(f(x, params, h0, p=0.5, is_train=False, **kw)), ref)
    assert not np.allclose(np.asarray(f(x, params, h0, p=0.5, is_train=True, **kw)), ref)


def test_lstm_state_clip():
    """cuDNN semantics (MXNet 1.9.1's CPU kernel ignores lstm_state_clip_*): the cell state is
    clipped after each step, before the hidden output is computed from it."""
    rs = np.random.RandomState(4)
    f = _fn("RNN")
    T, N, I, H = 6, 2, 3, 4
    params = rs.uniform(-1, 1, rnn_param_size("lstm", I, H, 1)).astype(np.float32)
    x = (3 * rs.randn(T, N, I)).astype(np.float32)
    h0, c0 = np.zeros((1, N, H), np.float32), np.zeros((1, N, H), np.float32)
    kw = dict(state_size=H, num_layers=1, mode="lstm", state_outputs=True, key=KEY)
    free = [np.asarray(a) for a in f(x, params, h0, c0, **kw)]
    wide = [np.asarray(a) for a in f(x, params, h0, c0, lstm_state_clip_min=-100.0,
                                     lstm_state_clip_max=100.0, **kw)]
    for a, b in zip(free, wide):   # a clip that never acts; jaxlib 0.4.30 fuses it 1 ulp apart
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-7)
    assert np.abs(free[2]).max() > 0.3
    out, hy, cy = (np.asarray(a) for a in f(x, params, h0, c0, lstm_state_clip_min=-0.3,
                                             lstm_state_clip_max=0.3, **kw))
    assert np.abs(cy).max() <= 0.3 + 1e-7
    assert np.abs(out).max() <= np.tanh(0.3) + 1e-6


def test_pooling_same_and_im2col_extensions():
    # 'same' (1-D max only, as documented; MXNet 1.9.1 itself fails on it): out = ceil(n / s)
    x = np.arange(7, dtype=np.float32).reshape(1, 1, 7)
    out = np.asarray(_fn("Pooling")(x, kernel=(3,), stride=(2,), pooling_convention="same"))
    np.testing.assert_array_equal(out, [[[1, 3, 5, 6]]])
    with pytest.raises(MXNetError):
        _fn("Pooling")(x[None], kernel=(3, 3), pooling_convention="same")
    # im2col/col2im in 1-D and 3-D (MXNet 1.9.1 fails there): col2im is im2col's adjoint
    rs = np.random.RandomState(5)
    for shape, k in (((2, 3, 9), (3,)), ((1, 2, 4, 5, 3), (2, 3, 2))):
        x = rs.randn(*shape).astype(np.float32)
        kw = dict(kernel=k, stride=(2,) + (1,) * (len(k) - 1), pad=(1,) * len(k))
        cols = np.asarray(_fn("im2col")(x, **kw))
        y = rs.randn(*cols.shape).astype(np.float32)
        back = np.asarray(_fn("col2im")(y, output_size=shape[2:], **kw))
        np.testing.assert_allclose((cols * y).sum(), (x * back).sum(), rtol=1e-4)


def test_batchnorm_train_visible_outputs_through_nd():
    x = mx.nd.array(np.random.RandomState(2).randn(4, 3, 2, 2))
    args = (x, mx.nd.ones(3), mx.nd.zeros(3), mx.nd.zeros(3), mx.nd.ones(3))
    assert isinstance(mx.nd.BatchNorm(*args), mx.nd.NDArray)
    outs = mx.nd.BatchNorm(*args, output_mean_var=True)
    assert len(outs) == 3 and outs[1].shape == (3,)
    np.testing.assert_allclose(outs[2].asnumpy(), 1 / np.sqrt(1 + 1e-3) * np.ones(3), rtol=1e-6)


# cases whose label/gamma has another shape MXNet also accepts
INFER_SKIP = {"so_soft_label", "reg_label_1d", "prelu_scalar", "so_multi_null", "so_multi_batch",
              "so_multi_valid_ignore"}


@pytest.mark.parametrize("name", [n for n in OK if n not in INFER_SKIP and hasattr(
    registry.get(GOLD[n]["op"]).fn, "infer_shapes")])
def test_infer_shapes_from_data(name):
    """``fn.infer_shapes(attrs, data_shape)``: the parameter shapes symbol code infers."""
    m = GOLD[name]
    op = registry.get(m["op"])
    ins = dict(zip(m["inputs"], _inputs(name)))
    got = op.fn.infer_shapes(op.parse_attrs(_attrs(name)), ins[m["inputs"][0]].shape)
    for k, shape in got.items():
        if k in ins:
            assert tuple(shape) == ins[k].shape, (name, k)


# MXNet 1.9.1 (pip, MKLDNN) graph facts: internal output count, visible output names, implicit
# variables' __init__ (from tojson()/list_outputs() of one-op symbols)
GRAPH_FACTS = [
    ("Pooling", dict(kernel=(2, 2)), 2, ["output"]),
    ("Pooling", dict(kernel=(2, 2), pool_type="avg"), 1, ["output"]),
    ("Pooling", dict(global_pool=True), 1, ["output"]),
    ("Pooling", dict(kernel=(2, 2), layout="NHWC"), 1, ["output"]),
    ("BatchNorm", {}, 3, ["output"]),
    ("BatchNorm", dict(output_mean_var=True), 3, ["output", "mean", "var"]),
    ("LayerNorm", dict(output_mean_var=True), 3, ["output", "mean", "std"]),
    ("InstanceNorm", {}, 3, ["output"]),
    ("GroupNorm", {}, 3, ["output"]),
    ("L2Normalization", {}, 2, ["output"]),
    ("LRN", dict(nsize=3), 2, ["output"]),
    ("LeakyReLU", {}, 1, ["output"]),
    ("LeakyReLU", dict(act_type="rrelu"), 2, ["output", "mask"]),
    ("Dropout", {}, 2, ["output"]),
    ("RNN", dict(state_size=4, num_layers=1, mode="lstm"), 1, ["output"]),
    ("RNN", dict(state_size=4, num_layers=1, mode="lstm", state_outputs=True), 3,
     ["output", "state_output", "statecell_output"]),
    ("RNN", dict(state_size=4, num_layers=1, mode="gru", state_outputs=True), 2,
     ["output", "state_output"]),
    ("make_loss", {}, 1, ["loss"]),
    ("SoftmaxOutput", {}, 1, ["output"]),
    ("Convolution", dict(kernel=(3, 3), num_filter=3), 1, ["output"]),
]


@pytest.mark.parametrize("opname,attrs,n_out,names", GRAPH_FACTS)
def test_graph_facts(opname, attrs, n_out, names):
    op = registry.get(opname)
    a = op.parse_attrs(attrs)
    assert op.n_outputs(a) == n_out
    assert op.out_names(a) == names


def test_graph_hooks():
    bn = registry.get("BatchNorm")
    assert bn.input_init == {"moving_mean": '["zero", {}]', "moving_var": '["one", {}]'}
    assert registry.get("LeakyReLU").input_init == {"gamma": '["Constant", {"value": 0.25}]'}
    for name in ("SoftmaxOutput", "LinearRegressionOutput", "LogisticRegressionOutput",
                 "MAERegressionOutput", "MakeLoss", "make_loss"):
        assert registry.get(name).loss, name
    assert not registry.get("BlockGrad").loss
    # param_shapes: positional, fills unknown (None or 0-holding) entries from the data shape
    conv = registry.get("Convolution")
    a = conv.parse_attrs(dict(kernel=(3, 3), num_filter=8, num_group=2))
    assert conv.param_shapes(a, [(2, 4, 9, 9), None, None]) == [(2, 4, 9, 9), (8, 2, 3, 3), (8,)]
    fc = registry.get("FullyConnected")
    a = fc.parse_attrs(dict(num_hidden=5))
    assert fc.param_shapes(a, [(0, 3, 4), (5, 0), None]) == [(0, 3, 4), (5, 12), (5,)]
    rnn = registry.get("RNN")
    a = rnn.parse_attrs(dict(state_size=4, num_layers=1, mode="gru", use_sequence_length=True))
    assert rnn.param_shapes(a, [(5, 2, 3), None, None, None]) == \
        [(5, 2, 3), (rnn_param_size("gru", 3, 4, 1),), (1, 2, 4), (2,)]
    so = registry.get("SoftmaxOutput")
    assert so.param_shapes(so.parse_attrs({"multi_output": True}), [(2, 5, 3, 3), None])[1] == (2, 9)
    # aux_update: the executor passes only the aux values and no is_train
    x = np.random.RandomState(6).randn(8, 2).astype(np.float32)
    mm, mv = np.zeros(2, np.float32), np.ones(2, np.float32)
    a = bn.parse_attrs({})
    outs = bn.fn(x, np.ones(2, np.float32), np.zeros(2, np.float32), mm, mv, **a, is_train=True)
    nm, nv = bn.aux_update(a, [mm, mv], outs)
    np.testing.assert_allclose(nm, 0.1 * x.mean(0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(nv, 0.9 + 0.1 * x.var(0), rtol=1e-5)


def test_prelu_gamma_shapes_as_mxnet():
    # MXNet 1.9.1: a gamma of data's shape is elementwise; a 1-d gamma of data.shape[1]
    # values is per channel; others broadcast aligned at axis 0 or raise
    x = mx.nd.array(np.arange(-6, 6).reshape(3, 4))
    g = mx.nd.array(np.linspace(0.1, 1.2, 12).reshape(3, 4))
    np.testing.assert_allclose(mx.nd.LeakyReLU(x, gamma=g, act_type="prelu").asnumpy(),
                               [[-0.6, -1.0, -1.2, -1.2], [-1.0, -0.6, 0, 1], [2, 3, 4, 5]],
                               rtol=1e-6)
    y = mx.nd.LeakyReLU(mx.nd.array([[-1., 2], [-3, 4]]), gamma=mx.nd.array([0.5, 0.25]),
                        act_type="prelu")
    np.testing.assert_array_equal(y.asnumpy(), [[-0.5, 2], [-1.5, 4]])
    with pytest.raises(mx.base.MXNetError, match="Cannot broadcast gamma"):
        mx.nd.LeakyReLU(mx.nd.ones((2, 3, 4)), gamma=g, act_type="prelu")


def test_batchnorm_v1_is_batchnorm():
    x = mx.nd.array(np.arange(12, dtype=np.float32).reshape(2, 3, 2))
    args = [mx.nd.ones(3), mx.nd.zeros(3), mx.nd.zeros(3), mx.nd.ones(3)]
    with mx.autograd.train_mode():
        a = mx.nd.BatchNorm_v1(x, *args, fix_gamma=True)
        b = mx.nd.BatchNorm(x, *args, fix_gamma=True)
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_sync_batchnorm_third_output_is_the_variance():
    # MXNet 1.9.1's SyncBatchNorm returns (out, mean, var); BatchNorm returns 1/sqrt(var+eps)
    x = mx.nd.array(np.arange(12, dtype=np.float32).reshape(2, 3, 2))
    args = [mx.nd.ones(3), mx.nd.zeros(3), mx.nd.zeros(3), mx.nd.ones(3)]
    with mx.autograd.train_mode():
        _, mean, var = mx.nd.contrib.SyncBatchNorm(x, *args, output_mean_var=True, key="k")
        _, _, invstd = mx.nd.BatchNorm(x, *args, output_mean_var=True)
    want = x.asnumpy().transpose(1, 0, 2).reshape(3, -1).var(axis=1)
    np.testing.assert_allclose(var.asnumpy(), want, rtol=1e-5)
    np.testing.assert_allclose(invstd.asnumpy(), 1 / np.sqrt(want + 1e-3), rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), [3.5, 5.5, 7.5])


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_kernel_as_large_as_the_input_trains_fast(layout):
    """A kernel covering (nearly) the whole input runs as a sum over its few windows
    (conv.conv_by_windows): XLA's input gradient of that convolution took 150 s for MXNet's
    test_conv2d_16c (224x224 kernel).  Values and gradients match XLA's convolution."""
    from jax import lax
    rs = np.random.RandomState(5)
    x = rs.rand(2, 4, 12, 11).astype(np.float32)
    w = rs.rand(6, 2, 10, 10).astype(np.float32)          # 2 groups, 2x3 outputs with pad 1
    kw = dict(kernel=(10, 10), pad=(1, 1), stride=(1, 2), num_filter=6, num_group=2,
              no_bias=True)

    def ref(x, w):
        return lax.conv_general_dilated(x, w, (1, 2), [(1, 1), (1, 1)],
                                        dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                        feature_group_count=2,
                                        precision=lax.Precision.HIGHEST)
    want = ref(x, w)
    gx, gw = jax.grad(lambda x, w: (ref(x, w) ** 2).sum(), argnums=(0, 1))(x, w)
    if layout == "NHWC":
        xd, wd = mx.nd.array(x.transpose(0, 2, 3, 1)), mx.nd.array(w.transpose(0, 2, 3, 1))
    else:
        xd, wd = mx.nd.array(x), mx.nd.array(w)
    xd.attach_grad()
    wd.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Convolution(xd, wd, layout=layout, **kw)
        (y ** 2).sum().backward()
    back = (lambda a: a.transpose(0, 3, 1, 2)) if layout == "NHWC" else (lambda a: a)
    np.testing.assert_allclose(back(y.asnumpy()), want, rtol=1e-5)
    np.testing.assert_allclose(back(xd.grad.asnumpy()), gx, rtol=1e-5)
    np.testing.assert_allclose(back(wd.grad.asnumpy()), gw, rtol=1e-5)


def test_packed_rnn_parameters_gradient_is_one_concatenation():
    """The gradient of cutting the packed parameter vector is one concatenation, not a
    zero-padded copy of the whole vector per weight (which numpy, on the host tier,
    materialised: 16 x 42 MB per backward of a 2-layer bidirectional LSTM of 512)."""
    import jax
    from xnd.lowering import rnn as R
    shapes = [("a", (2, 3)), ("b", (4,)), ("c", (3, 1))]
    flat = np.arange(16, dtype=np.float32)     # three elements past the weights: zeros
    f = lambda v: sum((p * (k + 1)).sum() for k, p in enumerate(R._split_params(v, shapes).values()))
    prims = {e.primitive.name for e in jax.make_jaxpr(jax.grad(f))(flat).jaxpr.eqns}
    assert "pad" not in prims and "concatenate" in prims
    np.testing.assert_array_equal(np.asarray(jax.grad(f)(flat)),
                                  [1] * 6 + [2] * 4 + [3] * 3 + [0] * 3)
