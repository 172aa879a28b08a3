"""``mx.error`` (MXNet's ``mxnet/error.py``): the error classes MXNet's C++ messages map to,
and ``register`` (``base.register_error``) to add one."""
from ..base import MXNetError, register_error

__all__ = ["MXNetError", "register"]

register = register_error


@register_error
class InternalError(MXNetError):
    """An internal error of the system; its message gains MXNet's hint to report it."""

    def __init__(self, msg):
        if "MXNet hint:" not in msg:
            msg += ("\nMXNet hint: You hit an internal error. Please open an issue in "
                    "https://github.com/apache/incubator-mxnet/issues/new/choose to report it.")
        super().__init__(msg)


for _name, _cls in (("ValueError", ValueError), ("TypeError", TypeError),
                    ("AttributeError", AttributeError), ("IndexError", IndexError),
                    ("NotImplementedError", NotImplementedError), ("IOError", IOError),
                    ("FloatingPointError", FloatingPointError), ("RuntimeError", RuntimeError)):
    register_error(_name, _cls)
