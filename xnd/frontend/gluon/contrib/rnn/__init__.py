"""mx.gluon.contrib.rnn: VariationalDropoutCell and LSTMPCell."""
from . import rnn_cell  # noqa: F401
from .rnn_cell import LSTMPCell, VariationalDropoutCell  # noqa: F401

__all__ = ["VariationalDropoutCell", "LSTMPCell"]
