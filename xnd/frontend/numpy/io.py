"""``mxnet.numpy.io`` (MXNet's module): reading arrays from text files (``genfromtxt``, where
mx.np has it), with the names MXNet's module imports."""
from ...context import current_context  # noqa: F401
from . import multiarray as _ma
from .multiarray import array  # noqa: F401

__all__ = []
if hasattr(_ma, "genfromtxt"):
    genfromtxt = _ma.genfromtxt
    __all__.append("genfromtxt")
