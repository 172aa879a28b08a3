"""mxnet.optimizer.optimizer: MXNet keeps every optimizer class, ``Updater`` and
``get_updater`` in this one module, and scripts import them from it
(``from mxnet.optimizer.optimizer import SGD``). xnd defines them in _base.py, _sgd.py,
_adaptive.py and _updater.py; this module is their MXNet address."""
from ._adaptive import (FTML, LAMB, AdaDelta, AdaGrad, Adam, Adamax, Ftrl, Nadam, RMSProp,
                        Test)
from ._base import Optimizer, create, register
from ._sgd import DCASGD, LARS, LBSGD, NAG, SGD, SGLD, Signum, ccSGD
from ._updater import Updater, get_updater
# the names MXNet's module imports (the update operators its optimizers call)
from ..ndarray import (NDArray, abs as NDabs, adam_update, array, cast, clip,  # noqa: F401,E402
                       ftml_update, ftrl_update, lamb_update_phase1, lamb_update_phase2,
                       maximum, mp_lamb_update_phase1, mp_lamb_update_phase2,
                       mp_nag_mom_update, mp_sgd_mom_update, mp_sgd_update,
                       multi_lars, multi_mp_sgd_mom_update,
                       multi_mp_sgd_update, multi_sgd_mom_update, multi_sgd_update,
                       multi_sum_sq, multiply, nag_mom_update, norm as NDnorm,
                       preloaded_multi_mp_sgd_mom_update, preloaded_multi_mp_sgd_update,
                       preloaded_multi_sgd_mom_update, preloaded_multi_sgd_update,
                       rmsprop_update, rmspropalex_update, sgd_mom_update, sgd_update,
                       signsgd_update, signum_update, sparse, sqrt, square, zeros)
from ...base import py_str  # noqa: F401,E402
from ..random import normal  # noqa: F401,E402
from ..util import is_np_array  # noqa: F401,E402

__all__ = ["AdaDelta", "AdaGrad", "Adam", "Adamax", "DCASGD", "FTML", "Ftrl", "LARS", "LAMB",
           "NAG", "Nadam", "Optimizer", "RMSProp", "SGD", "SGLD", "Signum", "Test", "Updater",
           "ccSGD", "LBSGD", "create", "get_updater", "register"]
