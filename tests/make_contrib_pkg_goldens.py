"""Record what real MXNet 1.9.1's ``mx.contrib`` packages do, for tests/test_contrib_pkg.py.

Run with the reference interpreter (it must import the real ``mxnet``):

    /work/mxref/bin/python tests/make_contrib_pkg_goldens.py

Writes ``tests/goldens/contrib_pkg/contrib_pkg.{json,npz}``: text vocabularies and
embeddings built from the small files below, SVRGModule's first epochs on a fixed linear
regression, AMP's operator lists and the dynamic loss scaler's scales on forced overflows.
The inputs below are plain data, imported by the tests too; nothing here imports mxnet at
import time.
"""
import collections
import os
import sys
import tempfile

import numpy as np

import golden_files

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "goldens", "contrib_pkg")
JSON_PATH = os.path.join(OUT_DIR, "contrib_pkg.json")
NPZ_PATH = os.path.join(OUT_DIR, "contrib_pkg.npz")

# ---- text ----------------------------------------------------------------------------------
TEXT = " Life is great ! \n life is good . \n a b b c c c d d d d \n"
# an embedding file with an unknown-token row, a duplicate, a header-like line
EMBED_FILE = ("3 2\n<unk> 0.1 0.2\nlife 1.0 2.0\nis 3.0 4.0\ngreat 5 6\nis 7 8\n"
              "Good 9.5 -1.5\n")
EMBED_FILE2 = "life|0.5|0.25|0.125\na|1|2|3\nunk2|4|5|6\n"
VOCAB_CASES = {
    "plain": dict(most_freq_count=None, min_freq=1, unknown_token="<unk>", reserved_tokens=None),
    "min2": dict(most_freq_count=None, min_freq=2, unknown_token="<unk>",
                 reserved_tokens=["<pad>"]),
    "top3": dict(most_freq_count=3, min_freq=1, unknown_token="<unk>",
                 reserved_tokens=["<pad>", "<bos>"]),
    "unk_is_key": dict(most_freq_count=None, min_freq=1, unknown_token="c", reserved_tokens=None),
}
LOOKUPS = ["life", "Life", "good", "Good", "missing", "<unk>"]

# ---- SVRG ----------------------------------------------------------------------------------
SVRG_N, SVRG_BATCH, SVRG_EPOCHS, SVRG_FREQ, SVRG_LR = 40, 8, 4, 2, 0.025


def svrg_data():
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, (SVRG_N, 3)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3).astype(np.float32)
    w = rng.uniform(-0.1, 0.1, (1, 3)).astype(np.float32)
    return x, y, w


def svrg_run(mx, num_epoch=SVRG_EPOCHS, batch=SVRG_BATCH):
    """Fit SVRGModule; returns per-epoch weights and the MSE metric of each epoch."""
    from mxnet.contrib.svrg_optimization.svrg_module import SVRGModule
    x, y, w = svrg_data()
    it = mx.io.NDArrayIter(x, y, batch_size=batch, shuffle=False, label_name="lin_reg_label")
    data = mx.sym.Variable("data")
    label = mx.sym.Variable("lin_reg_label")
    fc = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=1)
    out = mx.sym.LinearRegressionOutput(data=fc, label=label, name="lro")
    mod = SVRGModule(symbol=out, data_names=["data"], label_names=["lin_reg_label"],
                     update_freq=SVRG_FREQ)
    weights, metrics = [], []
    metric = mx.metric.create("mse")

    def epoch_end(epoch, sym, arg, aux):
        weights.append(np.concatenate([arg["fc1_weight"].asnumpy().ravel(),
                                       arg["fc1_bias"].asnumpy().ravel()]))
        metrics.append(metric.get()[1])

    mod.fit(it, eval_metric=metric, optimizer="sgd",
            optimizer_params=(("learning_rate", SVRG_LR),), num_epoch=num_epoch,
            arg_params={"fc1_weight": mx.nd.array(w), "fc1_bias": mx.nd.array([0.05])},
            epoch_end_callback=epoch_end, kvstore="local")
    full = {k: v.asnumpy() for k, v in mod._param_dict[0].items()}
    return np.stack(weights), metrics, full


# ---- AMP -----------------------------------------------------------------------------------
AMP_LISTS = ("FP16_FUNCS", "FP16_FP32_FUNCS", "FP32_FUNCS", "WIDEST_TYPE_CASTS",
             "CONDITIONAL_FP32_FUNCS", "LOSS_OUTPUT_FUNCTIONS")
BF16_LISTS = ("BF16_FUNCS", "BF16_FP32_FUNCS", "FP32_FUNCS", "WIDEST_TYPE_CASTS",
              "CONDITIONAL_FP32_FUNCS", "LOSS_OUTPUT_FUNCTIONS")
# the gradient of each step: finite, or inf/nan to force an overflow
SCALER_STEPS = ["ok", "inf", "ok", "nan", "inf", "ok", "ok", "ok", "ok", "ok"]
SCALER_INIT, SCALER_WINDOW = 2.0 ** 16, 3


def amp_net(mx):
    """A symbol touching each AMP list: low precision, either, float32 and widest ops."""
    d = mx.sym.Variable("data")
    c = mx.sym.Convolution(d, num_filter=4, kernel=(3, 3), name="conv")
    b = mx.sym.BatchNorm(c, name="bn")
    r = mx.sym.Activation(b, act_type="relu", name="relu")
    f = mx.sym.FullyConnected(r, num_hidden=3, name="fc")
    s = mx.sym.softmax(f, name="sm")
    e = mx.sym.exp(s, name="ex")
    a = mx.sym.elemwise_add(e, f, name="add")
    return mx.sym.SoftmaxOutput(a, name="out")


def graph_nodes(sym):
    """(op, name, attrs, input node indices) of each operator node of a symbol's JSON."""
    import json
    return [[n["op"], n["name"], n.get("attrs", {}), [x[0] for x in n["inputs"]]]
            for n in json.loads(sym.tojson(remove_amp_cast=False))["nodes"] if n["op"] != "null"]


def main():
    import mxnet as mx
    meta, arrays = {}, {}

    # text
    from mxnet.contrib import text
    counter = text.utils.count_tokens_from_str(TEXT, " ", "\n", True)
    meta["counter"] = sorted(counter.items())
    meta["counter_regex"] = sorted(text.utils.count_tokens_from_str(
        "*a*b*\n*b*", "\\*", "\\n").items())
    meta["vocab"] = {}
    for name, kw in VOCAB_CASES.items():
        v = text.vocab.Vocabulary(counter, **kw)
        meta["vocab"][name] = dict(idx_to_token=v.idx_to_token,
                                   to_indices=v.to_indices(["life", "zz", "c"]),
                                   to_tokens=v.to_tokens([0, len(v) - 1]))
    tmp = tempfile.mkdtemp()
    f1, f2 = os.path.join(tmp, "e1.txt"), os.path.join(tmp, "e2.txt")
    with open(f1, "w") as f:
        f.write(EMBED_FILE)
    with open(f2, "w") as f:
        f.write(EMBED_FILE2)
    e1 = text.embedding.CustomEmbedding(f1, " ")
    meta["e1_tokens"] = e1.idx_to_token
    arrays["e1_vec"] = e1.idx_to_vec.asnumpy()
    arrays["e1_lookup"] = e1.get_vecs_by_tokens(LOOKUPS).asnumpy()
    arrays["e1_lookup_lower"] = e1.get_vecs_by_tokens(LOOKUPS, lower_case_backup=True).asnumpy()
    e2 = text.embedding.CustomEmbedding(f2, "|", init_unknown_vec=mx.nd.ones)
    arrays["e2_vec"] = e2.idx_to_vec.asnumpy()
    vocab = text.vocab.Vocabulary(counter, **VOCAB_CASES["top3"])
    e3 = text.embedding.CustomEmbedding(f1, " ", vocabulary=vocab)
    meta["e3_tokens"] = e3.idx_to_token
    arrays["e3_vec"] = e3.idx_to_vec.asnumpy()
    e3.update_token_vectors(["c", "<unk>"], mx.nd.array([[-1, -2], [-3, -4]]))
    arrays["e3_updated"] = e3.idx_to_vec.asnumpy()
    try:
        e3.update_token_vectors("zzz", mx.nd.array([1, 2]))
    except ValueError as e:
        meta["update_unknown_error"] = str(e)
    ce = text.embedding.CompositeEmbedding(vocab, [e1, e2])
    meta["ce_vec_len"] = ce.vec_len
    arrays["ce_vec"] = ce.idx_to_vec.asnumpy()
    names = text.embedding.get_pretrained_file_names()
    meta["pretrained"] = {k: names[k] for k in ("glove", "fasttext")}

    # SVRG
    weights, metrics, full = svrg_run(mx)
    arrays["svrg_weights"] = weights
    meta["svrg_mse"] = metrics
    for k, v in full.items():
        arrays["svrg_full_" + k] = v

    # AMP lists
    from mxnet.contrib.amp.lists import symbol_fp16, symbol_bf16
    meta["amp_fp16"] = {k: list(getattr(symbol_fp16, k)) for k in AMP_LISTS}
    meta["amp_bf16"] = {k: [list(x) if isinstance(x, tuple) else x
                            for x in getattr(symbol_bf16, k)] for k in BF16_LISTS}
    meta["amp_fp16"]["CONDITIONAL_FP32_FUNCS"] = [
        [a, b, list(c)] for a, b, c in symbol_fp16.CONDITIONAL_FP32_FUNCS]

    from mxnet.contrib import amp
    for dt in ("float16", "bfloat16"):
        meta["amp_convert_" + dt] = graph_nodes(amp.convert_symbol(amp_net(mx), target_dtype=dt))
    meta["amp_convert_excluded"] = graph_nodes(amp.convert_symbol(
        amp_net(mx), target_dtype="bfloat16", excluded_sym_names=["fc"]))

    # the dynamic loss scaler: scale before each step, and whether the step was skipped
    from mxnet.contrib.amp.loss_scaler import LossScaler
    scaler = LossScaler()
    scaler._scale_seq_len = SCALER_WINDOW
    scales, overflow = [], []
    p = mx.gluon.Parameter("w", shape=(2,))
    p.initialize()
    for step in SCALER_STEPS:
        g = {"ok": [1.0, 2.0], "inf": [np.inf, 1.0], "nan": [np.nan, 1.0]}[step]
        p.grad()[:] = mx.nd.array(g)
        overflow.append(bool(scaler.has_overflow([p])))
        scales.append(scaler.loss_scale)
    meta["scaler_scales"] = scales
    meta["scaler_overflow"] = overflow
    golden_files.write(JSON_PATH, NPZ_PATH, meta, arrays)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
