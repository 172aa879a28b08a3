"""``mxnet.numpy.arrayprint`` (MXNet's module): ``set_printoptions``, mx.np's own."""
from ..util import set_module  # noqa: F401
from . import set_printoptions  # noqa: F401

__all__ = ["set_printoptions"]
