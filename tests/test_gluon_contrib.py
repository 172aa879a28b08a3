"""mx.gluon.contrib (nn.PixelShuffle*, nn.SparseEmbedding, cnn.DeformableConvolution and
ModulatedDeformableConvolution, rnn.LSTMPCell and VariationalDropoutCell,
data.IntervalSampler, data.text) against MXNet 1.9.1 goldens
(tests/make_gluon_contrib_goldens.py)."""
import json
import os

import pytest

import xnd as mx
import xnd.compat
from gluon_contrib_cases import CASES

xnd.compat.alias_mxnet()  # the cases import mxnet.gluon.contrib.*
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "gluon_contrib", "gluon_contrib.json")) as f:
    GOLDEN = json.load(f)


def _numeric(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _close(got, want, path=""):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), path
        for k in want:
            _close(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{path}[{i}]")
    elif _numeric(want):
        assert _numeric(got) and abs(got - want) <= 2e-5 + 1e-4 * abs(want), (path, got, want)
    else:
        assert got == want, path


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mxnet(name):
    _close(json.loads(json.dumps(CASES[name](mx))), GOLDEN[name], name)


def test_pixelshuffle_factor_length_checked():
    with pytest.raises(ValueError, match="factor"):
        mx.gluon.contrib.nn.PixelShuffle2D((2, 2, 2))


def test_wikitext_reads_local_files(tmp_path):
    (tmp_path / "wiki.train.tokens").write_text(" a b c\n\n b c d e\n a a\n")
    ds = mx.gluon.contrib.data.text.WikiText2(root=str(tmp_path), seq_len=3)
    vocab = ds.vocabulary
    tokens = "a b c <eos> b c d e <eos> a a <eos>".split()
    ids = vocab.to_indices(tokens)
    assert len(ds) == (len(ids) - 1) // 3
    data, label = ds[1]
    assert data.asnumpy().tolist() == ids[3:6] and label.asnumpy().tolist() == ids[4:7]
    with pytest.raises(mx.test_utils.DownloadError, match="wiki.valid.tokens"):
        mx.gluon.contrib.data.text.WikiText2(root=str(tmp_path), segment="validation")
