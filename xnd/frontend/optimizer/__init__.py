"""mx.optimizer (MXNet's optimizer/ package): the optimizers, their registry, Updater.

- _base.py: the ``Optimizer`` base class (hyper-parameters, lr/wd multipliers, update
  counts), ``register``/``create`` and the pure fused ``step`` every optimizer shares;
- optimizer.py: MXNet's ``mxnet.optimizer.optimizer``, every class at its MXNet address;
- _sgd.py: SGD, ccSGD, NAG, Signum, LARS, DCASGD, SGLD, LBSGD;
- _adaptive.py: Adam, Adamax, Nadam, LAMB, FTML, AdaGrad, AdaDelta, RMSProp, Ftrl, Test;
- contrib.py: mx.optimizer.contrib (GroupAdaGrad);
- _updater.py: ``Updater``/``get_updater`` and the optimizer-states file format.

Each rule with an MXNet update operator is that operator (xnd/lowering/optimizer_ops.py). To
add an optimizer: subclass Optimizer, decorate it with ``@register``, give it its states
(``_zero_states = n`` zero arrays, or a ``create_state``) and a ``_rule`` that calls its
operator (or, for a Python rule, computes the update on jax arrays with ``_python_rule =
True``), and list the attributes the rule reads in ``_static_attrs``. The submodules with a
leading underscore are xnd's own files; ``optimizer`` and ``contrib`` are MXNet's names.
"""
from . import contrib, optimizer
from ._adaptive import (FTML, LAMB, AdaDelta, AdaGrad, Adam, Adamax, Ftrl, Nadam, RMSProp,
                        Test)
from .contrib import GroupAdaGrad
from ._base import _SHARED_JIT, Optimizer, create, register  # noqa: F401 (tests read it)
from ._sgd import DCASGD, LARS, LBSGD, NAG, SGD, SGLD, Signum, ccSGD
from ._updater import Updater, get_updater

__all__ = ["AdaDelta", "AdaGrad", "Adam", "Adamax", "DCASGD", "FTML", "Ftrl", "LARS", "LAMB",
           "NAG", "Nadam", "Optimizer", "RMSProp", "SGD", "SGLD", "Signum", "Test", "Updater",
           "ccSGD", "LBSGD", "contrib", "create", "get_updater", "register", "GroupAdaGrad"]
