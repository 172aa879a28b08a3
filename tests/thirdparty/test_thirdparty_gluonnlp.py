"""GluonNLP 0.10.0 on xnd: a 2-layer BERT (the library's BERTEncoder/BERTModel) forward and one
BERTAdam training step, against MXNet 1.9.1's numbers from the same initial weights
(tests/make_thirdparty_goldens.py)."""
import numpy as np
import pytest

import mxnet as mx
import golden_files
import thirdparty_cases as C


def test_import_and_registrations():
    import gluonnlp
    assert gluonnlp.__version__ == "0.10.0"
    opt = mx.optimizer.create("bertadam", learning_rate=0.1)
    assert type(opt).__name__ == "BERTAdam"


@pytest.mark.parametrize("hybridize", [False, True])
def test_bert_forward_and_bertadam_step(hybridize):
    meta, g = golden_files.read("thirdparty", "bert")
    model = C.bert_model(mx, hybridize=hybridize)
    model(*[mx.nd.array(a) for a in C.bert_inputs()[:4]])  # settles deferred shapes
    C.load_params(mx, model, g)
    out = C.bert_step(mx, model)
    assert sorted(out) == meta["outputs"]
    for k in meta["outputs"]:
        assert out[k].dtype == g[k].dtype and out[k].shape == g[k].shape, k
        np.testing.assert_allclose(out[k], g[k], rtol=1e-4, atol=1e-5, err_msg=k)
    after = C.params_of(model)
    for k, v in after.items():
        np.testing.assert_allclose(v, g["after/" + k], rtol=1e-4, atol=1e-5, err_msg=k)
    # the step moved the parameters (BERTAdam has no bias correction: its first step is
    # lr * 0.1 / sqrt(0.001) = 3.16 lr where the gradient is large beside epsilon)
    moved = max(float(np.abs(after[k] - g["init/" + k]).max()) for k in after)
    assert C.BERT_LR < moved < 4 * C.BERT_LR
