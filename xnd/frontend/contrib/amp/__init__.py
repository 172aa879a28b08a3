"""``mx.contrib.amp``: automatic mixed precision (float16, and bfloat16 on CPU)."""
from . import amp, lists
from .amp import *  # noqa: F401,F403
from .amp import __all__ as _amp_all
from .amp import _reset  # noqa: F401 (xnd: undo init, for tests)
from .loss_scaler import LossScaler

__all__ = list(_amp_all) + ["LossScaler", "lists"]
