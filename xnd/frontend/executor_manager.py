"""``mx.executor_manager`` (MXNet's ``mxnet/executor_manager.py``): the executor manager that
MXNet's legacy ``FeedForward`` trained with before Module.  xnd's FeedForward trains through
Module's executor group (mx.module.executor_group.DataParallelExecutorGroup), so MXNet's two
pre-Module classes are not here: xnd/porting/surface_exceptions.py lists them with that
reason.  The names MXNet's module imports are here."""
from ..context import cpu  # noqa: F401
from . import ndarray as nd  # noqa: F401
from .io import DataDesc  # noqa: F401
