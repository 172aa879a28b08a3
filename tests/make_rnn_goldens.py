"""Record MXNet 1.9.1's mx.rnn (legacy symbolic cells, FusedRNNCell packing and unfuse,
FusedRNN initializer, encode_sentences, BucketSentenceIter): tests/goldens/rnn_cases.py.

    /work/mxref/bin/python tests/make_rnn_goldens.py

Writes ``tests/goldens/rnn/rnn.json`` (names, shapes) and ``rnn.npz`` (values).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "goldens"))
import golden_files  # noqa: E402

try:
    import mxnet as mx
except ImportError:  # pragma: no cover
    sys.exit("needs the real MXNet: run it with /work/mxref/bin/python")
if os.path.basename(os.path.dirname(mx.__file__)) != "mxnet":
    sys.exit("needs the real mxnet 1.9.1, got %r" % mx.__file__)

from rnn_cases import run  # noqa: E402

if __name__ == "__main__":
    meta, arrays = run(mx)
    out = os.path.join(HERE, "goldens", "rnn")
    golden_files.write(os.path.join(out, "rnn.json"), os.path.join(out, "rnn.npz"), meta, arrays)
