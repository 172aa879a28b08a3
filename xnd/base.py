"""MXNetError and the small helpers every layer shares."""


class MXNetError(RuntimeError):
    """The error MXNet raises from its engine and operators (mxnet.base.MXNetError)."""


def _as_tuple(x):
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)
