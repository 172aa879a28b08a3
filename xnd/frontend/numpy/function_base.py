"""``mxnet.numpy.function_base`` (MXNet's module): ``meshgrid`` and ``broadcast_arrays``,
mx.np's own."""
from . import broadcast_arrays, meshgrid  # noqa: F401

__all__ = ["meshgrid"]
