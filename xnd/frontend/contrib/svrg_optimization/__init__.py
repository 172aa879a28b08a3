"""``mx.contrib.svrg_optimization``: stochastic variance-reduced gradient (SVRG) training
for Module (Johnson & Zhang, 2013), MXNet 1.9.1's ``SVRGModule``."""
from . import svrg_module, svrg_optimizer
from .svrg_module import SVRGModule
from .svrg_optimizer import _AssignmentOptimizer, _SVRGOptimizer

__all__ = ["SVRGModule", "svrg_module", "svrg_optimizer"]
