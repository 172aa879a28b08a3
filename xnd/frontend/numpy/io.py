"""``mxnet.numpy.io`` (MXNet's module): reading arrays from text files."""
import numpy as _onp

from ...context import current_context
from .multiarray import array

__all__ = ["genfromtxt"]


def genfromtxt(*args, **kwargs):
    """numpy.genfromtxt, its result as an mx.np.ndarray of numpy's dtype (float64 for
    numbers, as numpy reads them) on ``ctx`` (a keyword MXNet adds; default the current
    context). Every other argument is numpy's."""
    ctx = kwargs.pop("ctx", None)
    ctx = current_context() if ctx is None else ctx
    ret = _onp.genfromtxt(*args, **kwargs)
    return array(ret, dtype=ret.dtype, ctx=ctx)
