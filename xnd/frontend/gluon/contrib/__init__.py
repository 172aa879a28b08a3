"""mx.gluon.contrib: contrib layers (nn, cnn), recurrent cells (rnn) and data sets."""
from . import cnn, data, nn, rnn  # noqa: F401
