"""mxnet.optimizer.optimizer: MXNet keeps every optimizer class, ``Updater`` and
``get_updater`` in this one module, and scripts import them from it
(``from mxnet.optimizer.optimizer import SGD``). xnd defines them in _base.py, _sgd.py,
_adaptive.py and _updater.py; this module is their MXNet address."""
from ._adaptive import (FTML, LAMB, AdaDelta, AdaGrad, Adam, Adamax, Ftrl, Nadam, RMSProp,
                        Test)
from ._base import Optimizer, create, register
from ._sgd import DCASGD, LARS, LBSGD, NAG, SGD, SGLD, Signum, ccSGD
from ._updater import Updater, get_updater

__all__ = ["AdaDelta", "AdaGrad", "Adam", "Adamax", "DCASGD", "FTML", "Ftrl", "LARS", "LAMB",
           "NAG", "Nadam", "Optimizer", "RMSProp", "SGD", "SGLD", "Signum", "Test", "Updater",
           "ccSGD", "LBSGD", "create", "get_updater", "register"]
