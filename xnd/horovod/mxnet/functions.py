"""Horovod's helpers for parameters and Python objects (horovod.mxnet.functions)."""
import io
import pickle
import types

import numpy as np

from xnd.base import MXNetError
from xnd.frontend import distributed as _dist
from xnd.frontend.gluon.parameter import DeferredInitializationError, Parameter, ParameterDict
from xnd.ndarray import NDArray

from .mpi_ops import _check, broadcast_, size


def broadcast_parameters(params, root_rank=0, prefix=None):
    """Overwrite every process's parameters with process ``root_rank``'s: a Gluon
    ``ParameterDict`` (``net.collect_params()``) or a dict of NDArrays (Module's
    ``arg_params``/``aux_params``), taken in sorted key order. A Gluon parameter whose
    initialization is deferred is broadcast right after it is initialized."""
    if size() == 1:
        return
    if prefix is not None and not isinstance(prefix, str):
        raise ValueError("broadcast_parameters: prefix must be a string, got %r" % (prefix,))
    if not isinstance(params, (dict, ParameterDict)):
        raise ValueError("invalid params of type: %s" % type(params))
    tensors = []
    for name, p in sorted(params.items()):
        if isinstance(p, Parameter):
            try:
                tensors.extend(p.list_data())
            except DeferredInitializationError:
                _broadcast_after_init(p, root_rank)
        elif isinstance(p, NDArray):
            tensors.append(p)
        else:
            raise ValueError("broadcast_parameters: %r is a %s, not a Parameter or NDArray"
                             % (name, type(p).__name__))
    for t in tensors:
        broadcast_(t, root_rank)


def _broadcast_after_init(param, root_rank):
    init_impl = param._init_impl

    def wrapped(self, *args, **kwargs):
        init_impl(*args, **kwargs)
        for t in self.list_data():
            broadcast_(t, root_rank)
    param._init_impl = types.MethodType(wrapped, param)


def _pickled(obj):
    buf = io.BytesIO()
    pickle.dump(obj, buf)
    return np.frombuffer(buf.getvalue(), dtype=np.uint8)


def broadcast_object(obj, root_rank=0, name=None):
    """Process ``root_rank``'s picklable ``obj`` on every process. (Unpickling runs code the
    root process chose, as Horovod's does: use it between processes of one job only.)"""
    _check()
    if size() == 1:
        return obj
    parts = _dist.allgather(_pickled(obj) if _dist.rank() == root_rank
                            else np.zeros(0, np.uint8))
    return pickle.loads(parts[root_rank].tobytes())


def allgather_object(obj, name=None):
    """Every process's picklable ``obj``, as a list in rank order."""
    _check()
    if size() == 1:
        return [obj]
    return [pickle.loads(p.tobytes()) for p in _dist.allgather(_pickled(obj))]


__all__ = ["broadcast_parameters", "broadcast_object", "allgather_object", "MXNetError"]
