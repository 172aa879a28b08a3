"""GluonNLP 0.10 BERT, the library's own model code: ``--model small`` (2 layers, 256 units,
4 heads, BERTEncoder/BERTModel) or ``--model base`` (``bert_12_768_12`` from
``gluonnlp.model.get_model``, pretrained=False, a 30,522-token vocabulary). A batch of 2 x 64
tokens: the ``predict`` stage is two plain forwards and two hybridized forwards (a second
model instance, the same weights), the ``train`` stage 5 BERTAdam steps (masked-LM and
next-sentence losses) on the hybridized model. One JSON line (_pattern_timing)."""
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
warnings.filterwarnings("ignore")

import mxnet as mx  # noqa: E402
from mxnet import autograd, gluon, nd  # noqa: E402

from _pattern_nets import set_params  # noqa: E402
from _pattern_timing import Stages  # noqa: E402

BATCH, SEQ, MASKED = 2, 64, 8


def vocab(n):
    import gluonnlp
    return gluonnlp.vocab.BERTVocab(gluonnlp.data.count_tokens(
        ["w%d" % i for i in range(n - 5)]))


def build(model_name):
    import gluonnlp
    from gluonnlp.model.bert import BERTEncoder, BERTModel
    if model_name == "base":
        model, voc = gluonnlp.model.get_model("bert_12_768_12", vocab=vocab(30522),
                                              pretrained=False, use_pooler=True,
                                              use_decoder=True, use_classifier=True,
                                              dropout=0.0)
        n = len(voc)
    else:
        n = 8000
        enc = BERTEncoder(num_layers=2, units=256, hidden_size=1024, max_length=128,
                          num_heads=4, dropout=0.0)
        model = BERTModel(enc, vocab_size=n, token_type_vocab_size=2, units=256,
                          embed_size=256, use_pooler=True, use_decoder=True,
                          use_classifier=True)
    model.initialize(mx.init.Zero())
    return model, n


def inputs(rs, n):
    ids = nd.array(rs.randint(0, n, (BATCH, SEQ)))
    types = nd.array((np.arange(SEQ)[None] >= SEQ // 2).repeat(BATCH, 0))
    valid = nd.array([SEQ, SEQ - 11])
    masked = nd.array(np.stack([rs.choice(SEQ - 11, MASKED, replace=False)
                                for _ in range(BATCH)]))
    return ids, types, valid, masked


def main():
    import gluonnlp  # noqa: F401  (registers bertadam)
    model_name = sys.argv[sys.argv.index("--model") + 1] if "--model" in sys.argv else "small"
    st = Stages("gluonnlp_bert_" + model_name)
    rs = np.random.RandomState(0)
    model, n = build(model_name)
    hybrid, _ = build(model_name)
    x = inputs(rs, n)
    model(*x)
    hybrid(*x)  # settles deferred shapes before the weights are set
    set_params(model, 3)
    set_params(hybrid, 3)
    hybrid.hybridize()
    checksum = 0.0
    for net in (model, model, hybrid, hybrid):
        with st.call("predict"):
            out = net(*inputs(rs, n))
            checksum += float(out[-1].sum().asscalar())
    ce = gluon.loss.SoftmaxCELoss()
    trainer = gluon.Trainer(hybrid.collect_params(), "bertadam", {"learning_rate": 1e-4})
    steady = []
    for i in range(5):
        ids, types, valid, masked = inputs(rs, n)
        mlm_label = nd.array(rs.randint(0, n, (BATCH, MASKED)))
        nsp_label = nd.array(rs.randint(0, 2, (BATCH,)))
        with st.call("train") as c:
            with autograd.record():
                _, _, nsp, mlm = hybrid(ids, types, valid, masked)
                loss = ce(mlm, mlm_label).mean() + ce(nsp, nsp_label).mean()
            loss.backward()
            trainer.step(1)
            checksum += float(loss.asscalar())
        if i >= 2:
            steady.append(c.cpu_s)
    st.report(checksum, steady)


if __name__ == "__main__":
    main()
