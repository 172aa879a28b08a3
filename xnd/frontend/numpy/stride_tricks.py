"""``mxnet.numpy.stride_tricks`` (MXNet's module): ``broadcast_arrays``, mx.np's own."""
from . import broadcast_arrays  # noqa: F401

__all__ = ["broadcast_arrays"]
