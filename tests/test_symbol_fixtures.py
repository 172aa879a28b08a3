"""Symbol JSON and checkpoint files written by real MXNet 1.9.1, loaded by xnd.

Fixtures (copied from ../shared/fixtures, see its MANIFEST.md) live in
tests/fixtures/.  Expected names and shapes below were printed by MXNet 1.9.1
for these exact files; expected values are the fixtures' own .npy/.npz files.

* every symbol file: list_arguments / list_outputs / list_auxiliary_states /
  get_internals().list_outputs() / heads, and infer_shape;
* the LeNet Module checkpoint (and its v0.8 and ``attr``-key rewrites) bound
  with ``lenet-0002.params`` reproduces ``lenet_output.npy`` and every
  internal output in ``lenet_internals.npz``;
* the Gluon export reproduces ``gluon_cnn_output.npy``;
* xnd's tojson() of each loaded graph, loaded by xnd again, gives the same
  lists and identical outputs.
"""

import json
import os

import numpy as np
import pytest

import xnd as mx

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")

RTOL, ATOL = 1e-5, 1e-6

LENET_FILES = ["lenet-symbol.json", "legacy_v0800_lenet-symbol.json",
               "attr_key_lenet-symbol.json"]

LENET_ARGS = ["data", "conv1_weight", "conv1_bias", "conv2_weight", "conv2_bias", "bn2_gamma",
              "bn2_beta", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias", "softmax_label"]
LENET_AUX = ["bn2_moving_mean", "bn2_moving_var"]
LENET_INTERNALS = [
    "data", "conv1_weight", "conv1_bias", "conv1_output", "tanh1_output", "pool1_output",
    "conv2_weight", "conv2_bias", "conv2_output", "bn2_gamma", "bn2_beta", "bn2_moving_mean",
    "bn2_moving_var", "bn2_output", "relu2_output", "pool2_output", "flatten_output",
    "fc1_weight", "fc1_bias", "fc1_output", "relu3_output", "drop_output", "fc2_weight",
    "fc2_bias", "fc2_output", "softmax_label", "softmax_output"]
LENET_SHAPES = (
    [(4, 1, 28, 28), (4, 1, 5, 5), (4,), (8, 4, 3, 3), (8,), (8,), (8,), (16, 200), (16,),
     (10, 16), (10,), (4,)],
    [(4, 10)],
    [(8,), (8,)])

G = "hybridsequential0_"
GLUON_ARGS = ["data"] + [G + n for n in (
    "conv0_weight", "conv0_bias", "batchnorm0_gamma", "batchnorm0_beta", "conv1_weight",
    "conv1_bias", "dense0_weight", "dense0_bias", "dense1_weight", "dense1_bias")]
GLUON_AUX = [G + "batchnorm0_running_mean", G + "batchnorm0_running_var"]
GLUON_OUTPUTS = [G + "dense1_fwd_output"]
GLUON_INTERNALS = ["data"] + [G + n for n in (
    "conv0_weight", "conv0_bias", "conv0_fwd_output", "conv0_relu_fwd_output",
    "batchnorm0_gamma", "batchnorm0_beta", "batchnorm0_running_mean", "batchnorm0_running_var",
    "batchnorm0_fwd_output", "pool0_fwd_output", "conv1_weight", "conv1_bias",
    "conv1_fwd_output", "relu0_fwd_output", "pool1_fwd_output", "flatten0_flatten0_output",
    "dense0_weight", "dense0_bias", "dense0_fwd_output", "dense0_relu_fwd_output",
    "dropout0_fwd_output", "dense1_weight", "dense1_bias", "dense1_fwd_output")]
GLUON_SHAPES = (
    [(4, 3, 16, 16), (6, 3, 3, 3), (6,), (6,), (6,), (8, 6, 3, 3), (8,), (16, 72), (16,),
     (10, 16), (10,)],
    [(4, 10)],
    [(6,), (6,)])

MULTI_ARGS = ["data", "bn_gamma", "bn_beta"]
MULTI_OUTPUTS = ["sp_output2", "r_output", "bn_mean"]
MULTI_AUX = ["bn_moving_mean", "bn_moving_var"]
MULTI_INTERNALS = ["data", "sp_output0", "sp_output1", "sp_output2", "r_output", "bn_gamma",
                   "bn_beta", "bn_moving_mean", "bn_moving_var", "bn_output", "bn_mean",
                   "bn_var"]
MULTI_SHAPES = ([(2, 6, 4), (2,), (2,)], [(2, 2, 4), (2, 2, 4), (2,)], [(2,), (2,)])


def _path(name):
    p = os.path.join(FIX, name)
    if not os.path.exists(p):
        pytest.fail("fixture %s missing: copy it from ../shared/fixtures" % name)
    return p


def _load_sym(name):
    return mx.sym.load(_path(name))


def _params(name):
    """nd.load of a checkpoint -> (arg_params, aux_params) with prefixes stripped."""
    arg, aux = {}, {}
    for k, v in mx.nd.load(_path(name)).items():
        kind, _, n = k.partition(":")
        {"arg": arg, "aux": aux}[kind][n] = v
    return arg, aux


def _bind(sym, data, arg_params, aux_params, label_shape=None):
    args = {}
    for n in sym.list_arguments():
        if n == "data":
            args[n] = mx.nd.array(data)
        elif n in arg_params:
            args[n] = arg_params[n].copy()
        elif n.endswith("_label") and label_shape is not None:
            args[n] = mx.nd.zeros(label_shape)
        else:
            raise AssertionError("no value for argument %s" % n)
    aux = {n: aux_params[n].copy() for n in sym.list_auxiliary_states()}
    return sym.bind(mx.cpu(), args, aux_states=aux)


def _forward(sym, data, arg_params, aux_params, label_shape=None):
    exe = _bind(sym, data, arg_params, aux_params, label_shape)
    return [o.asnumpy() for o in exe.forward(is_train=False)]


def _roundtrip(sym):
    return mx.sym.load_json(sym.tojson())


# ---------------------------------------------------------------------------
# lists, heads, shapes of every symbol file
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("fname", LENET_FILES)
def test_lenet_lists(fname):
    s = _load_sym(fname)
    assert s.list_arguments() == LENET_ARGS
    assert s.list_outputs() == ["softmax_output"]
    assert s.list_auxiliary_states() == LENET_AUX
    assert s.list_inputs() == LENET_ARGS[:5] + ["bn2_gamma", "bn2_beta"] + LENET_AUX + \
        LENET_ARGS[7:]
    assert s.get_internals().list_outputs() == LENET_INTERNALS


@pytest.mark.parametrize("fname", LENET_FILES)
def test_lenet_infer_shape(fname):
    s = _load_sym(fname)
    assert s.infer_shape(data=(4, 1, 28, 28)) == LENET_SHAPES


def test_legacy_v0800_lr_mult_upgraded():
    s = _load_sym("legacy_v0800_lenet-symbol.json")
    ad = s.attr_dict()
    assert ad["fc2_weight"]["__lr_mult__"] == "0.5"
    assert ad["fc2_weight"]["lr_mult"] == "0.5"


def test_legacy_v0800_bn_aux_recreated():
    s = _load_sym("legacy_v0800_lenet-symbol.json")
    doc = json.loads(s.tojson())
    names = [n["name"] for n in doc["nodes"]]
    bn = doc["nodes"][names.index("bn2")]
    assert bn["op"] == "BatchNorm"
    assert [doc["nodes"][e[0]]["name"] for e in bn["inputs"]] == [
        "conv2", "bn2_gamma", "bn2_beta", "bn2_moving_mean", "bn2_moving_var"]


def test_attr_key_graph_same_as_lenet():
    a = _load_sym("lenet-symbol.json")
    b = _load_sym("attr_key_lenet-symbol.json")
    assert a.attr_dict() == b.attr_dict()
    assert json.loads(a.tojson()) == json.loads(b.tojson())


def test_multi_output_lists():
    s = _load_sym("multi_output-symbol.json")
    assert s.list_arguments() == MULTI_ARGS
    assert s.list_outputs() == MULTI_OUTPUTS
    assert s.list_auxiliary_states() == MULTI_AUX
    assert s.get_internals().list_outputs() == MULTI_INTERNALS
    assert len(s) == 3


def test_multi_output_heads_written_back():
    s = _load_sym("multi_output-symbol.json")
    doc = json.loads(s.tojson())
    assert doc["heads"] == [[1, 2, 0], [2, 0, 0], [7, 1, 0]]
    assert [n["name"] for n in doc["nodes"]] == [
        "data", "sp", "r", "bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var", "bn"]


def test_multi_output_node_row_ptr():
    """BatchNorm has 3 internal outputs, SliceChannel num_outputs (FORMATS.md 2.2)."""
    s = _load_sym("multi_output-symbol.json")
    assert json.loads(s.tojson())["node_row_ptr"] == [0, 1, 4, 5, 6, 7, 8, 9, 12]


def test_multi_output_infer_shape():
    s = _load_sym("multi_output-symbol.json")
    assert s.infer_shape(data=(2, 6, 4)) == MULTI_SHAPES


def test_multi_output_forward():
    s = _load_sym("multi_output-symbol.json")
    data = np.arange(48, dtype=np.float32).reshape(2, 6, 4) / 10 - 2
    args = {"data": mx.nd.array(data), "bn_gamma": mx.nd.array([1.5, 0.5]),
            "bn_beta": mx.nd.array([0.1, -0.2])}
    aux = {"bn_moving_mean": mx.nd.zeros((2,)), "bn_moving_var": mx.nd.ones((2,))}
    outs = [o.asnumpy() for o in s.bind(mx.cpu(), args, aux_states=aux).forward()]
    sp = np.split(data, 3, axis=1)
    np.testing.assert_allclose(outs[0], sp[2], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(outs[1], np.maximum(sp[1], 0), rtol=RTOL, atol=ATOL)
    # bn_mean in inference mode: the batch mean over all axes but 1 is still reported
    assert outs[2].shape == (2,)


def test_gluon_lists():
    s = _load_sym("gluon_cnn-symbol.json")
    assert s.list_arguments() == GLUON_ARGS
    assert s.list_outputs() == GLUON_OUTPUTS
    assert s.list_auxiliary_states() == GLUON_AUX
    assert s.get_internals().list_outputs() == GLUON_INTERNALS


def test_gluon_infer_shape():
    s = _load_sym("gluon_cnn-symbol.json")
    assert s.infer_shape(data=(4, 3, 16, 16)) == GLUON_SHAPES


def test_checkpoint_params_keys():
    arg, aux = _params("lenet-0002.params")
    assert sorted(arg) == sorted(n for n in LENET_ARGS if n not in ("data", "softmax_label"))
    assert sorted(aux) == LENET_AUX
    assert arg["conv1_weight"].shape == (4, 1, 5, 5)
    arg, aux = _params("gluon_cnn-0000.params")
    assert sorted(arg) == sorted(GLUON_ARGS[1:])
    assert sorted(aux) == GLUON_AUX


# ---------------------------------------------------------------------------
# forward values against MXNet's outputs
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("fname", LENET_FILES)
def test_lenet_forward(fname):
    s = _load_sym(fname)
    arg, aux = _params("lenet-0002.params")
    data = np.load(_path("lenet_input.npy"))
    (out,) = _forward(s, data, arg, aux, label_shape=(4,))
    np.testing.assert_allclose(out, np.load(_path("lenet_output.npy")), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("fname", LENET_FILES)
def test_lenet_internals(fname):
    s = _load_sym(fname)
    arg, aux = _params("lenet-0002.params")
    data = np.load(_path("lenet_input.npy"))
    internals = s.get_internals()
    outs = _forward(internals, data, arg, aux, label_shape=(4,))
    by_name = dict(zip(internals.list_outputs(), outs))
    expected = np.load(_path("lenet_internals.npz"))
    assert sorted(expected.files) == sorted(n for n in by_name if n.endswith("_output"))
    bad = []
    for name in LENET_INTERNALS:  # network order: the first mismatch is the culprit
        if name not in expected.files:
            continue
        got, want = by_name[name], expected[name]
        if got.shape != want.shape or not np.allclose(got, want, rtol=RTOL, atol=ATOL):
            bad.append("%s: shape %s vs %s, max abs diff %s" % (
                name, got.shape, want.shape,
                np.abs(got - want).max() if got.shape == want.shape else "-"))
    assert not bad, "internal outputs differ from MXNet:\n" + "\n".join(bad)


def test_lenet_internal_selected_output():
    s = _load_sym("lenet-symbol.json")
    arg, aux = _params("lenet-0002.params")
    data = np.load(_path("lenet_input.npy"))
    fc1 = s.get_internals()["fc1_output"]
    assert fc1.list_arguments() == ["data", "conv1_weight", "conv1_bias", "conv2_weight",
                                    "conv2_bias", "bn2_gamma", "bn2_beta", "fc1_weight",
                                    "fc1_bias"]
    (out,) = _forward(fc1, data, arg, aux)
    np.testing.assert_allclose(out, np.load(_path("lenet_internals.npz"))["fc1_output"],
                               rtol=RTOL, atol=ATOL)


def test_lenet_copy_params_from():
    s = _load_sym("lenet-symbol.json")
    arg, aux = _params("lenet-0002.params")
    data = np.load(_path("lenet_input.npy"))
    exe = s.simple_bind(mx.cpu(), grad_req="null", data=(4, 1, 28, 28))
    exe.copy_params_from(arg, aux)
    (out,) = exe.forward(is_train=False, data=mx.nd.array(data))
    np.testing.assert_allclose(out.asnumpy(), np.load(_path("lenet_output.npy")),
                               rtol=RTOL, atol=ATOL)


def test_gluon_forward():
    s = _load_sym("gluon_cnn-symbol.json")
    arg, aux = _params("gluon_cnn-0000.params")
    data = np.load(_path("gluon_cnn_input.npy"))
    (out,) = _forward(s, data, arg, aux)
    np.testing.assert_allclose(out, np.load(_path("gluon_cnn_output.npy")),
                               rtol=RTOL, atol=ATOL)


# ---------------------------------------------------------------------------
# tojson round trip through xnd
# ---------------------------------------------------------------------------

ALL_FILES = LENET_FILES + ["multi_output-symbol.json", "gluon_cnn-symbol.json"]


@pytest.mark.parametrize("fname", ALL_FILES)
def test_roundtrip_lists(fname):
    s = _load_sym(fname)
    t = _roundtrip(s)
    assert t.list_arguments() == s.list_arguments()
    assert t.list_outputs() == s.list_outputs()
    assert t.list_auxiliary_states() == s.list_auxiliary_states()
    assert t.get_internals().list_outputs() == s.get_internals().list_outputs()
    assert t.attr_dict() == s.attr_dict()
    assert t.tojson() == s.tojson()


def test_roundtrip_lenet_same_json_as_mxnet():
    """xnd's JSON of MXNet's lenet graph has MXNet's nodes, heads and arg_nodes."""
    want = json.load(open(_path("lenet-symbol.json")))
    got = json.loads(_load_sym("lenet-symbol.json").tojson())
    assert got["nodes"] == want["nodes"]
    assert got["arg_nodes"] == want["arg_nodes"]
    assert got["heads"] == want["heads"]
    assert got["attrs"] == want["attrs"]


@pytest.mark.parametrize("fname", LENET_FILES)
def test_roundtrip_lenet_outputs(fname):
    s = _load_sym(fname)
    arg, aux = _params("lenet-0002.params")
    data = np.load(_path("lenet_input.npy"))
    a = _forward(s.get_internals(), data, arg, aux, label_shape=(4,))
    b = _forward(_roundtrip(s).get_internals(), data, arg, aux, label_shape=(4,))
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_roundtrip_gluon_outputs():
    s = _load_sym("gluon_cnn-symbol.json")
    arg, aux = _params("gluon_cnn-0000.params")
    data = np.load(_path("gluon_cnn_input.npy"))
    (a,) = _forward(s, data, arg, aux)
    (b,) = _forward(_roundtrip(s), data, arg, aux)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(b, np.load(_path("gluon_cnn_output.npy")), rtol=RTOL, atol=ATOL)


def test_save_and_load_file(tmp_path):
    s = _load_sym("gluon_cnn-symbol.json")
    f = str(tmp_path / "net-symbol.json")
    s.save(f)
    t = mx.sym.load(f)
    assert t.tojson() == s.tojson()
    with open(f) as fh:
        assert fh.read() == s.tojson()
