"""mx.rnn: MXNet 1.9.1's legacy symbolic RNN API (cells, bucketing iterator, checkpoints)."""
from . import io, rnn, rnn_cell
from .io import BucketSentenceIter, encode_sentences
from .rnn import do_rnn_checkpoint, load_rnn_checkpoint, rnn_unroll, save_rnn_checkpoint
from .rnn_cell import (BaseConvRNNCell, BaseRNNCell, BidirectionalCell, ConvGRUCell,
                       ConvLSTMCell, ConvRNNCell, DropoutCell, FusedRNNCell, GRUCell, LSTMCell, ModifierCell, ResidualCell, RNNCell, RNNParams,
                       SequentialRNNCell, ZoneoutCell)
# names MXNet's module holds by importing them (its users import them from here)
from ...base import numeric_types, string_types  # noqa: E402,F401
from ..io import DataBatch, DataDesc, DataIter  # noqa: E402,F401
from ..model import load_checkpoint, save_checkpoint  # noqa: E402,F401
from .. import initializer as init  # noqa: E402,F401
from .. import ndarray  # noqa: E402,F401
from ... import symbol  # noqa: E402,F401
