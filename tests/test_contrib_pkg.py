"""mx.contrib's packages against MXNet 1.9.1 (goldens from tests/make_contrib_pkg_goldens.py):
text vocabularies and embeddings, SVRGModule, AMP's lists and loss scaler, the contrib
autograd API, and the entry points that cannot exist on XLA."""
import collections
import json
import os

import numpy as np
import pytest

import xnd as mx
from xnd import compat
from xnd.base import MXNetError
import make_contrib_pkg_goldens as cases

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "contrib_pkg", "contrib_pkg.json")) as _f:
    G = json.load(_f)
NPZ = np.load(os.path.join(HERE, "goldens", "contrib_pkg", "contrib_pkg.npz"), allow_pickle=False)

text = mx.contrib.text
compat.alias_mxnet()  # the tests also use the `mxnet` names scripts import


def _files(tmp_path):
    f1, f2 = tmp_path / "e1.txt", tmp_path / "e2.txt"
    f1.write_text(cases.EMBED_FILE)
    f2.write_text(cases.EMBED_FILE2)
    return str(f1), str(f2)


# ---- text ----------------------------------------------------------------------------------
def test_import_forms():
    from mxnet.contrib import text as t  # what d2lzh does at import time
    import mxnet.contrib.text.embedding as emb
    assert t is text and emb is text.embedding
    assert mx.contrib.nd is mx.nd.contrib and mx.contrib.symbol is mx.sym.contrib
    assert mx.contrib.quant is mx.contrib.quantization


def test_count_tokens():
    counter = text.utils.count_tokens_from_str(cases.TEXT, " ", "\n", True)
    assert sorted(counter.items()) == [tuple(x) for x in G["counter"]]
    assert sorted(text.utils.count_tokens_from_str("*a*b*\n*b*", "\\*", "\\n").items()) == \
        [tuple(x) for x in G["counter_regex"]]
    c = collections.Counter({"a": 5})
    assert text.utils.count_tokens_from_str("a a", counter_to_update=c) is c and c["a"] == 7


@pytest.mark.parametrize("name", sorted(cases.VOCAB_CASES))
def test_vocabulary(name):
    counter = text.utils.count_tokens_from_str(cases.TEXT, " ", "\n", True)
    v = text.vocab.Vocabulary(counter, **cases.VOCAB_CASES[name])
    g = G["vocab"][name]
    assert v.idx_to_token == g["idx_to_token"] and len(v) == len(g["idx_to_token"])
    assert v.to_indices(["life", "zz", "c"]) == g["to_indices"]
    assert v.to_tokens([0, len(v) - 1]) == g["to_tokens"]
    assert v.to_indices("zz") == 0 and v.to_tokens(0) == v.unknown_token


def test_vocabulary_errors():
    v = text.vocab.Vocabulary(collections.Counter("aab"))
    with pytest.raises(ValueError, match="Token index 9 in the provided `indices` is invalid"):
        v.to_tokens(9)
    with pytest.raises(AssertionError, match="cannot contain `unknown_token`"):
        text.vocab.Vocabulary(unknown_token="<u>", reserved_tokens=["<u>"])
    with pytest.raises(AssertionError, match="duplicate"):
        text.vocab.Vocabulary(reserved_tokens=["x", "x"])
    with pytest.raises(AssertionError, match="collections.Counter"):
        text.vocab.Vocabulary({"a": 1})


def test_custom_embedding(tmp_path):
    f1, f2 = _files(tmp_path)
    with pytest.warns(UserWarning):  # the header and the duplicate 'is' are skipped
        e1 = text.embedding.CustomEmbedding(f1, " ")
    assert e1.idx_to_token == G["e1_tokens"] and e1.vec_len == 2
    np.testing.assert_array_equal(e1.idx_to_vec.asnumpy(), NPZ["e1_vec"])
    np.testing.assert_array_equal(e1.get_vecs_by_tokens(cases.LOOKUPS).asnumpy(),
                                  NPZ["e1_lookup"])
    np.testing.assert_array_equal(
        e1.get_vecs_by_tokens(cases.LOOKUPS, lower_case_backup=True).asnumpy(),
        NPZ["e1_lookup_lower"])
    assert e1.get_vecs_by_tokens("life").shape == (2,)
    e2 = text.embedding.CustomEmbedding(f2, "|", init_unknown_vec=mx.nd.ones)
    np.testing.assert_array_equal(e2.idx_to_vec.asnumpy(), NPZ["e2_vec"])


def test_embedding_with_vocabulary_and_composite(tmp_path):
    f1, f2 = _files(tmp_path)
    counter = text.utils.count_tokens_from_str(cases.TEXT, " ", "\n", True)
    vocab = text.vocab.Vocabulary(counter, **cases.VOCAB_CASES["top3"])
    with pytest.warns(UserWarning):
        e1 = text.embedding.CustomEmbedding(f1, " ")
        e3 = text.embedding.CustomEmbedding(f1, " ", vocabulary=vocab)
    e2 = text.embedding.CustomEmbedding(f2, "|", init_unknown_vec=mx.nd.ones)
    assert e3.idx_to_token == G["e3_tokens"]
    np.testing.assert_array_equal(e3.idx_to_vec.asnumpy(), NPZ["e3_vec"])
    ce = text.embedding.CompositeEmbedding(vocab, [e1, e2])
    assert ce.vec_len == G["ce_vec_len"]
    np.testing.assert_array_equal(ce.idx_to_vec.asnumpy(), NPZ["ce_vec"])
    e3.update_token_vectors(["c", "<unk>"], mx.nd.array([[-1, -2], [-3, -4]]))
    np.testing.assert_array_equal(e3.idx_to_vec.asnumpy(), NPZ["e3_updated"])
    with pytest.raises(ValueError) as err:
        e3.update_token_vectors("zzz", mx.nd.array([1, 2]))
    assert str(err.value) == G["update_unknown_error"]


def test_pretrained_names_and_local_files(tmp_path):
    names = text.embedding.get_pretrained_file_names()
    assert names["glove"] == G["pretrained"]["glove"]
    assert names["fasttext"] == G["pretrained"]["fasttext"]
    with pytest.raises(KeyError):
        text.embedding.get_pretrained_file_names("unknown$$")
    with pytest.raises(KeyError, match="Cannot find pretrained file nope"):
        text.embedding.create("glove", pretrained_file_name="nope")
    # no download: a clear error naming the file, the directory and the URL
    with pytest.raises(MXNetError, match=r"glove\.6B\.50d\.txt.*does not download.*glove\.6B\.zip"):
        text.embedding.create("GloVe", pretrained_file_name="glove.6B.50d.txt",
                              embedding_root=str(tmp_path))
    # a local file in GloVe's format is read; a fastText .vec file's header line is skipped
    (tmp_path / "glove").mkdir()
    (tmp_path / "glove" / "glove.6B.50d.txt").write_text("the 1 2\nof 3 4\n")
    g = text.embedding.create("glove", pretrained_file_name="glove.6B.50d.txt",
                              embedding_root=str(tmp_path))
    assert g.idx_to_token == ["<unk>", "the", "of"]
    np.testing.assert_array_equal(g.idx_to_vec.asnumpy(), [[0, 0], [1, 2], [3, 4]])
    (tmp_path / "fasttext").mkdir()
    (tmp_path / "fasttext" / "wiki.simple.vec").write_text("2 3\nx 1 2 3\ny 4 5 6\n")
    with pytest.warns(UserWarning, match="likely a header"):
        ft = text.embedding.FastText(embedding_root=str(tmp_path))
    np.testing.assert_array_equal(ft.get_vecs_by_tokens(["y", "q"]).asnumpy(),
                                  [[4, 5, 6], [0, 0, 0]])


def test_register_and_create():
    @text.embedding.register
    class MyEmbed(text.embedding._TokenEmbedding):
        pretrained_file_name_sha1 = {"f.txt": None}

        def __init__(self, scale=1):
            super().__init__()
            self.scale = scale

    assert text.embedding.create("myembed", scale=3).scale == 3
    assert text.embedding.get_pretrained_file_names("myembed") == ["f.txt"]
    with pytest.raises(AssertionError, match="nope is not registered"):
        text.embedding.create("nope")


# ---- SVRG ----------------------------------------------------------------------------------
def test_svrg_first_epochs():
    weights, metrics, full = cases.svrg_run(mx)
    np.testing.assert_allclose(weights, NPZ["svrg_weights"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(metrics, G["svrg_mse"], rtol=1e-5)
    for k in ("fc1_weight", "fc1_bias"):
        np.testing.assert_allclose(full[k], NPZ["svrg_full_" + k], rtol=1e-5, atol=1e-6)


def test_svrg_arguments_and_optimizer_routing():
    from mxnet.contrib.svrg_optimization import SVRGModule
    from mxnet.contrib.svrg_optimization.svrg_optimizer import _SVRGOptimizer
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=1)
    with pytest.raises(TypeError, match="must be an integer"):
        SVRGModule(net, label_names=None, update_freq=None)
    with pytest.raises(ValueError, match="positive integer"):
        SVRGModule(net, label_names=None, update_freq=0)
    opt = _SVRGOptimizer(default_optimizer="sgd", param_idx2name={0: "w", 1: "w_full"},
                         learning_rate=1.0)
    kv = mx.kv.create("local")
    kv.set_optimizer(opt)
    w, wf = mx.nd.array([0, 0]), mx.nd.array([1, 1])
    kv.init(0, w)
    kv.init(1, wf)
    kv.push(0, mx.nd.array([1, 1]))
    kv.push(1, mx.nd.array([2, 3]))
    kv.pull(0, w)
    kv.pull(1, wf)
    np.testing.assert_array_equal(w.asnumpy(), [-1, -1])    # sgd, lr 1
    np.testing.assert_array_equal(wf.asnumpy(), [2, 3])     # assigned
    assert opt.default_opt.lr == 1.0


# ---- contrib.autograd and contrib.io ---------------------------------------------------------
def test_contrib_autograd():
    from mxnet.contrib import autograd as cag
    f = cag.grad_and_loss(lambda x, y: x * x * y, argnum=[0])
    x, y = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 5.0])
    (gx,), loss = f(x, y)
    np.testing.assert_array_equal(gx.asnumpy(), [6.0, 20.0])
    np.testing.assert_array_equal(loss.asnumpy(), [3.0, 20.0])
    assert not mx.autograd.is_recording() and not mx.autograd.is_training()
    with cag.train_section():
        assert mx.autograd.is_recording() and mx.autograd.is_training()
        with cag.test_section():
            assert not mx.autograd.is_recording() and not mx.autograd.is_training()
    dx = mx.nd.zeros(2)
    cag.mark_variables([x], [dx])
    with cag.train_section():
        z = x * 4
    cag.backward([z], [mx.nd.array([1.0, 0.5])])
    np.testing.assert_array_equal(dx.asnumpy(), [4.0, 2.0])
    with pytest.raises(AssertionError, match="list or tuple"):
        cag.backward(z)


def test_dataloader_iter_pads_last_batch():
    from mxnet.contrib.io import DataLoaderIter
    ds = mx.gluon.data.ArrayDataset(np.arange(10, dtype=np.float32).reshape(5, 2),
                                    np.arange(5, dtype=np.float32))
    it = DataLoaderIter(mx.gluon.data.DataLoader(ds, batch_size=2), dtype="float16")
    assert it.provide_data[0].shape == (2, 2) and it.provide_label[0].name == "softmax_label"
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 1]
    assert batches[2].data[0].dtype == np.float16
    np.testing.assert_array_equal(batches[2].data[0].asnumpy(), [[8, 9], [0, 0]])
    it.reset()
    assert len(list(it)) == 3


# ---- what XLA has no counterpart for ---------------------------------------------------------
@pytest.mark.parametrize("path", ["contrib.quantization.quantize_model",
                                  "contrib.quantization.quantize_net",
                                  "contrib.tensorrt.init_tensorrt_params", "library.load"])
def test_unavailable_entry_points(path):
    obj = mx
    for part in path.split("."):
        obj = getattr(obj, part)
    with pytest.raises(MXNetError, match=r"mxnet\.%s: .*JAX/XLA" % path.replace(".", r"\.")):
        obj("x")


# ---- AMP -----------------------------------------------------------------------------------
amp = mx.contrib.amp


@pytest.fixture
def amp_on():
    amp.init("bfloat16")
    yield amp
    amp._reset()


def test_amp_lists():
    for dt, key, names in (("float16", "amp_fp16", cases.AMP_LISTS),
                           ("bfloat16", "amp_bf16", cases.BF16_LISTS)):
        m = amp.lists.symbol_fp16 if dt == "float16" else amp.lists.symbol_bf16
        for name in names:
            got = [list(x) if isinstance(x, tuple) else x for x in getattr(m, name)]
            assert got == G[key][name], (dt, name)
    assert amp.list_lp16_ops("bfloat16") == G["amp_bf16"]["BF16_FUNCS"]
    assert amp.list_fp32_ops("float16") == G["amp_fp16"]["FP32_FUNCS"]
    assert amp.list_widest_type_cast("float16") == G["amp_fp16"]["WIDEST_TYPE_CASTS"]
    assert amp.list_lp16_use_fp32_params("float16") is None


@pytest.mark.parametrize("key,kw", [("amp_convert_float16", dict(target_dtype="float16")),
                                    ("amp_convert_bfloat16", dict(target_dtype="bfloat16")),
                                    ("amp_convert_excluded", dict(target_dtype="bfloat16",
                                                                  excluded_sym_names=["fc"]))])
def test_amp_convert_symbol_matches_mxnet(key, kw):
    converted = amp.convert_symbol(cases.amp_net(mx), **kw)
    got = cases.graph_nodes(converted)
    assert [[op, name, dict(sorted(a.items())), ins] for op, name, a, ins in got] == \
        [[op, name, dict(sorted(a.items())), ins] for op, name, a, ins in G[key]]
    exe = converted.simple_bind(mx.cpu(), data=(2, 3, 5, 5))
    assert exe.forward()[0].dtype == np.float32
    with pytest.raises(AssertionError, match="Ops cannot be in two or more lists"):
        amp.convert_symbol(cases.amp_net(mx), target_dtype_ops=["FullyConnected"],
                           fp32_ops=["FullyConnected"])
    with pytest.raises(AssertionError, match="Only target_dtype float16 and bfloat16"):
        amp.convert_symbol(cases.amp_net(mx), target_dtype="int8")


def test_amp_convert_model_and_hybrid_block():
    sym = cases.amp_net(mx)
    arg_shapes, _, aux_shapes = sym.infer_shape(data=(2, 3, 5, 5))
    args = {n: mx.nd.ones(s) * 0.1 for n, s in zip(sym.list_arguments(), arg_shapes)
            if n not in ("data", "out_label")}
    aux = {n: mx.nd.ones(s) for n, s in zip(sym.list_auxiliary_states(), aux_shapes)}
    s2, a2, x2 = amp.convert_model(sym, dict(args), dict(aux), target_dtype="bfloat16",
                                   cast_optional_params=True)
    assert a2["fc_weight"].dtype == amp.bfloat16 and a2["bn_gamma"].dtype == np.float32
    assert "fc_weight_amp_cast_bfloat16" not in [n[1] for n in cases.graph_nodes(s2)]
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, activation="relu"), mx.gluon.nn.Dense(2))
    net.initialize(mx.init.Xavier())
    with pytest.raises(RuntimeError, match="first call block.hybridize"):
        amp.convert_hybrid_block(net, target_dtype="bfloat16", ctx=mx.cpu())
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (3, 5)))
    ref = net(x)
    low = amp.convert_hybrid_block(net, target_dtype="bfloat16", ctx=mx.cpu())
    out = low(x)
    assert out.dtype == amp.bfloat16
    np.testing.assert_allclose(out.astype("float32").asnumpy(), ref.asnumpy(), rtol=0.05,
                               atol=0.02)


def test_amp_loss_scaler_sequence_matches_mxnet():
    scaler = amp.LossScaler()
    scaler._scale_seq_len = cases.SCALER_WINDOW
    p = mx.gluon.Parameter("w", shape=(2,))
    p.initialize()
    scales, overflow = [], []
    for step in cases.SCALER_STEPS:
        g = {"ok": [1.0, 2.0], "inf": [np.inf, 1.0], "nan": [np.nan, 1.0]}[step]
        p.grad()[:] = mx.nd.array(g)
        overflow.append(scaler.has_overflow([p]))
        scales.append(scaler.loss_scale)
    assert overflow == G["scaler_overflow"]
    assert scales == G["scaler_scales"]


def test_amp_trainer_skips_overflowing_step(amp_on):
    net = mx.gluon.nn.Dense(1, in_units=2)
    net.initialize(mx.init.One())
    tr = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    with pytest.raises(TypeError, match="only compatible with Gluon Trainer"):
        amp.init_trainer(mx.optimizer.SGD())
    amp.init_trainer(tr)
    x = mx.nd.array([[1.0, 2.0]])
    for overflow in (True, False):
        with mx.autograd.record():
            loss = net(x).sum() * (np.inf if overflow else 1.0)
            with amp.scale_loss(loss, tr) as scaled:
                assert scaled.asnumpy()[0] == loss.asnumpy()[0] * tr._amp_loss_scaler.loss_scale
                mx.autograd.backward(scaled)
        before = net.weight.data().asnumpy().copy()
        tr.step(1)
        after = net.weight.data().asnumpy()
        if overflow:
            np.testing.assert_array_equal(after, before)       # the step was skipped
        else:
            # the overflow halved the scale; the step divides it back out exactly
            assert tr._amp_loss_scaler.loss_scale == 2.0 ** 15
            np.testing.assert_allclose(after, before - 0.5 * np.array([[1.0, 2.0]]), rtol=1e-6)
    with amp.scale_loss([loss, loss], tr) as pair:
        assert len(pair) == 2
    amp.unscale(tr)
    assert tr._scale == 1.0


class _Res(mx.gluon.nn.HybridBlock):
    def __init__(self, c, **kw):
        super().__init__(**kw)
        nn = mx.gluon.nn
        self.c1, self.b1 = nn.Conv2D(c, 3, padding=1, use_bias=False), nn.BatchNorm()
        self.c2, self.b2 = nn.Conv2D(c, 3, padding=1, use_bias=False), nn.BatchNorm()

    def hybrid_forward(self, F, x):
        y = F.Activation(self.b1(self.c1(x)), act_type="relu")
        return F.Activation(x + self.b2(self.c2(y)), act_type="relu")


def _train_resnet(use_amp, steps=10):
    nn = mx.gluon.nn
    mx.random.seed(0)
    rng = np.random.RandomState(0)
    x = mx.nd.array(rng.uniform(-1, 1, (16, 3, 8, 8)))
    y = mx.nd.array(rng.randint(0, 5, (16,)))
    net = nn.HybridSequential()
    net.add(nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"), _Res(8), _Res(8),
            nn.GlobalAvgPool2D(), nn.Dense(5))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    tr = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    if use_amp:
        amp.init_trainer(tr)
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for _ in range(steps):
        with mx.autograd.record():
            out = net(x)
            loss = loss_fn(out, y)
            if use_amp:
                with amp.scale_loss(loss, tr) as scaled:
                    mx.autograd.backward(scaled)
            else:
                loss.backward()
        tr.step(16)
        losses.append(float(loss.mean().asscalar()))
    return losses, out.dtype, net


def test_amp_bfloat16_resnet_follows_float32():
    ref, ref_dtype, _ = _train_resnet(False)
    amp.init("bfloat16")
    try:
        low, low_dtype, net = _train_resnet(True)
    finally:
        amp._reset()
    assert ref_dtype == np.float32 and low_dtype == amp.bfloat16   # the Dense ran in bfloat16
    assert all(np.dtype(p.data().dtype) == np.float32   # float32 master weights
               for p in net.collect_params().values())
    assert ref[-1] < 0.6 * ref[0]                                   # it does learn
    np.testing.assert_allclose(low, ref, rtol=0.06)


def test_xnd_check_reports_contrib(tmp_path):
    from xnd.porting import check
    (tmp_path / "ex.py").write_text(
        "import mxnet as mx\n"
        "from mxnet.contrib import amp, text\n"
        "from mxnet.contrib.svrg_optimization.svrg_module import SVRGModule\n"
        "amp.init()\n"
        "v = text.vocab.Vocabulary()\n"
        "mx.onnx.export_model\n"
        "mx.contrib.quantization.quantize_model\n"
        "mx.library.load\n")
    uses = check.run_check([str(tmp_path)])["files"][0]["uses"]
    status = {u["text"]: (u["status"], u.get("reason") or "") for u in uses}
    for text_ in ("amp.init", "text.vocab.Vocabulary", "mx.onnx.export_model", "svrg_module"):
        assert any(text_ in k and s == "supported" for k, (s, _) in status.items()), \
            (text_, status)
    bad = {k: r for k, (s, r) in status.items() if s == "unsupported"}
    assert any("quantize_model" in k and "oneDNN" in r for k, r in bad.items()), bad
    assert any("library" in k and "C ABI" in r for k, r in bad.items()), bad
    assert len(bad) == 2, bad
