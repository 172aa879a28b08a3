"""mx.module (mx.mod): the Module API of MXNet 1.9.1 (python/mxnet/module/).

MXNet's files, bottom to top: ``base_module`` (BaseModule's fit/score/predict loops, the
shared checks), ``executor_group`` (binding a symbol onto its contexts;
DataParallelExecutorGroup), ``module`` (Module), then ``bucketing_module``,
``sequential_module`` and ``python_module``.  xnd's own pieces below Module: ``_programs``
(the compiled forward, backward and training step of a bound graph), ``_optimizer_step``
(init_optimizer and update: the fused step) and ``_fit_scan`` (fit's compiled loop over an
NDArrayIter).  Each file imports only the ones below it.
"""
from .. import model as _model
from .base_module import BaseModule
from .bucketing_module import BucketingModule
from .module import Module
from .python_module import PythonLossModule, PythonModule
from .sequential_module import SequentialModule

__all__ = ["BaseModule", "Module", "BucketingModule", "SequentialModule", "PythonModule",
           "PythonLossModule"]

# mx.model.FeedForward trains with these (mx.model sits below this package)
_model.UPPER.update(Module=Module, BucketingModule=BucketingModule)
