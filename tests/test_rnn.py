"""mx.rnn against MXNet 1.9.1 (goldens: tests/make_rnn_goldens.py, scenarios in
tests/goldens/rnn_cases.py): names of parameters, outputs and states, forward values of
unrolled cells, FusedRNNCell packing/unfuse, the FusedRNN initializer, encode_sentences,
BucketSentenceIter; plus checkpoints and errors."""
import json
import os
import sys

import numpy as np
import pytest

import xnd as mx

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "goldens"))
from rnn_cases import run  # noqa: E402

G = json.load(open(os.path.join(HERE, "goldens", "rnn", "rnn.json")))
A = np.load(os.path.join(HERE, "goldens", "rnn", "rnn.npz"))


@pytest.fixture(scope="module")
def got():
    with mx.name.NameManager():  # fresh node-name counters, as in the generator's process
        return run(mx)


@pytest.mark.parametrize("key", sorted(G))
def test_meta_matches_mxnet(got, key):
    assert json.loads(json.dumps(got[0][key])) == G[key]


def test_values_match_mxnet(got):
    arrays = got[1]
    assert sorted(arrays) == sorted(A.files)
    for k in A.files:
        np.testing.assert_allclose(arrays[k], A[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_rnn_checkpoint_round_trip(tmp_path):
    cell = mx.rnn.LSTMCell(3, prefix="lstm_")
    out, _ = cell.unroll(2, mx.sym.Variable("data"), merge_outputs=True)
    args = {"lstm_i2h_weight": mx.nd.arange(24).reshape((12, 2)),
            "lstm_i2h_bias": mx.nd.arange(12), "lstm_h2h_weight": mx.nd.ones((12, 3)),
            "lstm_h2h_bias": mx.nd.zeros((12,))}
    prefix = str(tmp_path / "ck")
    mx.rnn.save_rnn_checkpoint(cell, prefix, 3, out, args, {})
    saved = mx.nd.load(prefix + "-0003.params")
    assert "arg:lstm_i2h_f_weight" in saved and "arg:lstm_i2h_weight" not in saved
    assert saved["arg:lstm_i2h_f_bias"].asnumpy().tolist() == [3.0, 4.0, 5.0]
    sym, arg, aux = mx.rnn.load_rnn_checkpoint(cell, prefix, 3)
    assert sorted(arg) == sorted(args) and aux == {}
    for k, v in args.items():
        assert np.array_equal(arg[k].asnumpy(), v.asnumpy())
    assert sym.list_outputs() == out.list_outputs()


def test_errors():
    with pytest.raises(NotImplementedError, match="FusedRNNCell cannot be stepped"):
        mx.rnn.FusedRNNCell(4)(mx.sym.Variable("x"), [])
    with pytest.raises(NotImplementedError, match="Bidirectional cannot be stepped"):
        mx.rnn.BidirectionalCell(mx.rnn.RNNCell(2), mx.rnn.RNNCell(2, prefix="r_"))(
            mx.sym.Variable("x"), [])
    with pytest.raises(AssertionError, match="FusedRNNCell doesn't support zoneout"):
        mx.rnn.ZoneoutCell(mx.rnn.FusedRNNCell(4))
    base = mx.rnn.RNNCell(2)
    mx.rnn.ResidualCell(base)
    with pytest.raises(AssertionError, match="base cell cannot be called directly"):
        base.begin_state()
    with pytest.raises(ValueError, match="Invalid layout"):
        mx.rnn.BucketSentenceIter([[1, 2]] * 4, 2, layout="XY")
