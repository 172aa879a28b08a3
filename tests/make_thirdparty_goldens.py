"""Goldens for tests/thirdparty/: GluonNLP 0.10.0's BERT and GluonTS 0.13.9's SimpleFeedForward
and DeepAR on MXNet 1.9.1. Needs the libraries in the oracle environment (tests/thirdparty/README.md):

    /work/mxref/bin/python tests/make_thirdparty_goldens.py

writes tests/goldens/thirdparty/{bert,sff,deepar}.json/.npz: the initial parameters
(``init/<structural name>``), the batch, the forward outputs, the loss of one training step and
the parameters after it (``after/<name>``).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "thirdparty"))

import golden_files  # noqa: E402
import thirdparty_cases as cases  # noqa: E402


def _out(name, meta, arrays):
    d = os.path.join(HERE, "goldens", "thirdparty")
    golden_files.write(os.path.join(d, name + ".json"), os.path.join(d, name + ".npz"),
                       meta, arrays)


def bert(mx):
    mx.random.seed(0)
    model = cases.bert_model(mx)
    ids, types, valid, masked = [mx.nd.array(a) for a in cases.bert_inputs()[:4]]
    model(ids, types, valid, masked)
    arrays = {"init/" + k: v for k, v in cases.params_of(model).items()}
    out = cases.bert_step(mx, model)
    arrays.update(out)
    arrays.update({"after/" + k: v for k, v in cases.params_of(model).items()})
    _out("bert", {"config": cases.BERT, "outputs": sorted(out)}, arrays)


def gluonts(mx, name, estimator, hybridize):
    mx.random.seed(0)
    batch = cases.ts_batch(estimator)
    net, args = cases.ts_network(mx, estimator, batch, hybridize)
    arrays = {"init/" + k: v for k, v in cases.params_of(net).items()}
    arrays.update({"batch/" + k: v for k, v in batch.items()})
    out = cases.ts_step(mx, net, args)
    arrays.update(out)
    arrays.update({"after/" + k: v for k, v in cases.params_of(net).items()})
    _out(name, {"batch": sorted(batch), "hybridized": hybridize}, arrays)


def main():
    mx = golden_files.real_mxnet()
    bert(mx)
    gluonts(mx, "sff", cases.sff_estimator(), True)
    gluonts(mx, "deepar", cases.deepar_estimator(), False)


if __name__ == "__main__":
    main()
