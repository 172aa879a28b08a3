"""The third-party models the smoke tests run, built the same way on MXNet 1.9.1 (by
tests/make_thirdparty_goldens.py) and on xnd (by the tests in this folder).

Each case builds the library's own model with its own code, takes a batch made by numpy only
(so both sides see the same numbers), and runs one forward pass and one training step. The
initial weights come from MXNet: the generator saves them under their structural names
(``Block._collect_params_with_prefix``) and the tests load them, so the comparison does not
depend on either side's random number generator. Dropout is off everywhere for the same reason.
"""
import numpy as np

# ---- GluonNLP: a small BERT ------------------------------------------------------------------
BERT = dict(num_layers=2, units=32, hidden_size=64, max_length=16, num_heads=4, vocab=50)
BERT_BATCH, BERT_SEQ, BERT_MASKED = 3, 10, 2
BERT_LR = 1e-3


def bert_inputs():
    """Token ids, token types, valid lengths, masked positions and the two labels (numpy)."""
    rs = np.random.RandomState(7)
    ids = rs.randint(0, BERT["vocab"], size=(BERT_BATCH, BERT_SEQ)).astype(np.float32)
    types = (np.arange(BERT_SEQ)[None, :] >= 5).repeat(BERT_BATCH, 0).astype(np.float32)
    valid = np.array([10, 7, 4], dtype=np.float32)
    masked = np.array([[1, 3], [0, 5], [2, 3]], dtype=np.float32)
    mlm_label = rs.randint(0, BERT["vocab"], size=(BERT_BATCH, BERT_MASKED)).astype(np.float32)
    nsp_label = np.array([0, 1, 1], dtype=np.float32)
    return ids, types, valid, masked, mlm_label, nsp_label


def bert_model(mx, hybridize=False):
    from gluonnlp.model.bert import BERTEncoder, BERTModel
    c = BERT
    encoder = BERTEncoder(num_layers=c["num_layers"], units=c["units"],
                          hidden_size=c["hidden_size"], max_length=c["max_length"],
                          num_heads=c["num_heads"], dropout=0.0, output_attention=False,
                          output_all_encodings=False, prefix="enc_")
    model = BERTModel(encoder, vocab_size=c["vocab"], token_type_vocab_size=2,
                      units=c["units"], embed_size=c["units"],
                      use_pooler=True, use_decoder=True, use_classifier=True, prefix="bert_")
    model.initialize(mx.init.Normal(0.02))
    if hybridize:
        model.hybridize()
    return model


def bert_step(mx, model):
    """Forward outputs, the loss and the parameters after one BERTAdam step (all numpy)."""
    import gluonnlp  # noqa: F401  (registers the 'bertadam' optimizer)
    ids, types, valid, masked, mlm_label, nsp_label = [mx.nd.array(a) for a in bert_inputs()]
    seq, pooled, nsp, mlm = model(ids, types, valid, masked)
    out = {"seq": seq.asnumpy(), "pooled": pooled.asnumpy(), "nsp": nsp.asnumpy(),
           "mlm": mlm.asnumpy()}
    ce = mx.gluon.loss.SoftmaxCELoss()
    trainer = mx.gluon.Trainer(model.collect_params(), "bertadam",
                               {"learning_rate": BERT_LR, "wd": 0.01})
    with mx.autograd.record():
        _, _, nsp, mlm = model(ids, types, valid, masked)
        loss = ce(mlm, mlm_label).mean() + ce(nsp, nsp_label).mean()
    loss.backward()
    trainer.step(1)
    out["loss"] = loss.asnumpy()
    return out


# ---- GluonTS: SimpleFeedForward and DeepAR on a tiny synthetic dataset ------------------------
TS_FREQ, TS_PRED, TS_CONTEXT, TS_BATCH = "H", 4, 8, 4
TS_LR = 1e-2


def ts_dataset():
    from gluonts.dataset.common import ListDataset
    rs = np.random.RandomState(3)
    t = np.arange(60, dtype=np.float32)
    series = [{"start": "2020-01-01 00:00", "target": (10 + 3 * np.sin(t / (2 + i))
                                                        + rs.normal(size=60)).astype(np.float32)}
              for i in range(5)]
    return ListDataset(series, freq=TS_FREQ)


def sff_estimator(epochs=1, hybridize=True):
    from gluonts.mx import SimpleFeedForwardEstimator, Trainer
    return SimpleFeedForwardEstimator(
        prediction_length=TS_PRED, context_length=TS_CONTEXT, num_hidden_dimensions=[16, 16],
        batch_size=TS_BATCH, num_parallel_samples=10,
        trainer=Trainer(epochs=epochs, num_batches_per_epoch=2, learning_rate=TS_LR,
                        hybridize=hybridize))


def deepar_estimator(epochs=1, hybridize=False):
    from gluonts.mx import DeepAREstimator, Trainer
    return DeepAREstimator(
        freq=TS_FREQ, prediction_length=TS_PRED, context_length=TS_CONTEXT, num_layers=1,
        num_cells=8, dropout_rate=0.0, batch_size=TS_BATCH, num_parallel_samples=10,
        trainer=Trainer(epochs=epochs, num_batches_per_epoch=2, learning_rate=TS_LR,
                        hybridize=hybridize))


def ts_batch(estimator):
    """The first training batch of the estimator's own pipeline (numpy-only sampling, seeded),
    as a dict of numpy arrays in the training network's argument order."""
    np.random.seed(0)
    data = estimator.create_transformation().apply(ts_dataset())
    loader = estimator.create_training_data_loader(data)
    batch = next(iter(loader))
    return {k: np.asarray(v.asnumpy() if hasattr(v, "asnumpy") else v) for k, v in batch.items()}


def ts_network(mx, estimator, batch, hybridize):
    from gluonts.mx.util import get_hybrid_forward_input_names
    net = estimator.create_training_network()
    net.initialize(mx.init.Xavier())
    names = get_hybrid_forward_input_names(type(net))
    args = [mx.nd.array(batch[n]) for n in names]
    if hybridize:
        net.hybridize()
    net(*args)  # the first call settles the deferred shapes
    return net, args


def ts_step(mx, net, args):
    """The per-item loss and the parameters after one Adam step (numpy)."""
    def loss_of(output):  # DeepAR returns (weighted loss, loss): gluonts' trainer takes [0]
        return output[0] if isinstance(output, (list, tuple)) else output

    out = {"loss0": loss_of(net(*args)).asnumpy()}
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": TS_LR})
    with mx.autograd.record():
        loss = loss_of(net(*args))
    loss.backward()
    trainer.step(loss.shape[0])
    out["loss"] = loss.asnumpy()
    return out


# ---- parameters by structural name ------------------------------------------------------------
def params_of(block):
    return {k: p.data().asnumpy() for k, p in sorted(block._collect_params_with_prefix().items())}


def load_params(mx, block, arrays, prefix="init/"):
    """Set every parameter from ``arrays[prefix + structural name]``; every name must match."""
    params = block._collect_params_with_prefix()
    names = {k[len(prefix):] for k in arrays if k.startswith(prefix)}
    assert names == set(params), (sorted(names ^ set(params)))
    for k, p in params.items():
        p.set_data(mx.nd.array(arrays[prefix + k], dtype=arrays[prefix + k].dtype))
