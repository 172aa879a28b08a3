"""mx.gluon: the imperative/hybrid neural-network API of MXNet 1.9.1 on xnd.

``from mxnet import gluon`` -> this package (blocks, parameters, layers, losses, data
loading, Trainer, model zoo). See block.py for how hybridization maps onto one jitted
graph and parameter.py for parameter storage.
"""
from .parameter import Constant, DeferredInitializationError, Parameter, ParameterDict  # noqa
from .parameter import tensor_types  # noqa: F401
from .block import Block, HybridBlock, SymbolBlock  # noqa: F401
from . import nn  # noqa: F401
from . import rnn  # noqa: F401
from . import loss  # noqa: F401
from . import utils  # noqa: F401
from . import data  # noqa: F401
from . import model_zoo  # noqa: F401
from . import contrib  # noqa: F401
from .trainer import Trainer  # noqa: F401
