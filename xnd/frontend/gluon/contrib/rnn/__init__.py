"""mx.gluon.contrib.rnn: the convolutional cells (Conv{1,2,3}D{RNN,LSTM,GRU}Cell),
VariationalDropoutCell, LSTMPCell and rnn_cell.dynamic_unroll."""
from . import conv_rnn_cell, rnn_cell  # noqa: F401
from .conv_rnn_cell import *  # noqa: F401,F403
from .rnn_cell import LSTMPCell, VariationalDropoutCell  # noqa: F401

__all__ = conv_rnn_cell.__all__ + ["VariationalDropoutCell", "LSTMPCell"]
