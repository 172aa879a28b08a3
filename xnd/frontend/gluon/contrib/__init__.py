"""mx.gluon.contrib: contrib layers (nn, cnn), recurrent cells (rnn), data sets and the
Estimator fit API (estimator)."""
from . import cnn, data, nn, rnn  # noqa: F401
from . import estimator  # noqa: F401
