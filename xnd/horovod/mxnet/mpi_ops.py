"""Horovod's process queries and collectives for MXNet NDArrays, over ``jax.distributed``.

The job itself is joined at ``import mxnet`` (xnd/frontend/distributed.py): JAX has to join
before its backend starts, and a Horovod script imports MXNet before it calls
``hvd.init()``. The collectives are XLA programs over a mesh of one device per process
(``distributed.allreduce``/``broadcast``/``allgather``), so on GPUs they are NCCL's and on
CPUs gloo's. Horovod's ``name`` and ``priority`` only order its background queue; here every
call is synchronous, so they are accepted and have no effect.
"""
import os

import numpy as np

from xnd.base import MXNetError
from xnd.frontend import distributed as _dist
from xnd.ndarray import NDArray, _wrap

# reduction ops (horovod.mxnet exports them; Average is the default of allreduce)
Average, Sum, Adasum, Min, Max, Product = "Average", "Sum", "Adasum", "Min", "Max", "Product"
_state = {"initialized": False}


def init(comm=None, process_sets=None):
    """Start Horovod: the process has already joined the launcher's job (if any) at
    ``import mxnet``; this records that ``init`` was called (``is_initialized``)."""
    if comm is not None and not (isinstance(comm, (list, tuple)) and
                                 sorted(comm) == list(range(_dist.num_workers()))):
        raise ValueError("hvd.init(comm=%r): xnd's Horovod runs one communicator of every "
                         "process (comm=None)" % (comm,))
    _state["initialized"] = True


def shutdown():
    """Horovod's shutdown: collectives are unavailable until ``init`` again."""
    _state["initialized"] = False


def is_initialized():
    return _state["initialized"]


def _check():
    if not _state["initialized"]:
        raise ValueError("Horovod has not been initialized; use hvd.init().")


def _env_int(name, default):
    v = os.environ.get(name)
    return default if v in (None, "") else int(v)


def size():
    _check()
    return _dist.num_workers()


def rank():
    _check()
    return _dist.rank()


def local_size():
    _check()
    return _env_int("HOROVOD_LOCAL_SIZE", _dist.num_workers())


def local_rank():
    _check()
    return _env_int("HOROVOD_LOCAL_RANK", _dist.rank())


def cross_size():
    _check()
    return _env_int("HOROVOD_CROSS_SIZE", 1)


def cross_rank():
    _check()
    return _env_int("HOROVOD_CROSS_RANK", 0)


def is_homogeneous():
    _check()
    return True


# what this build has, as horovod.mxnet reports it
def mpi_built():
    return False


def mpi_enabled():
    return False


def mpi_threads_supported():
    return False


def gloo_built():
    return True


def gloo_enabled():
    return True


def nccl_built():
    return 0


def ddl_built():
    return False


def ccl_built():
    return False


def cuda_built():
    return False


def rocm_built():
    return False


def _nd(tensor, what):
    if not isinstance(tensor, NDArray):
        raise TypeError("hvd.%s: tensor must be an mxnet NDArray, got %s"
                        % (what, type(tensor).__name__))
    return tensor


def _op_of(average, op, what):
    if average is not None and op is not None:
        raise ValueError("hvd.%s: give average or op, not both" % what)
    if op is None:
        op = Sum if average is False else Average
    if op not in (Average, Sum):
        raise ValueError("hvd.%s: op=%r is not served by xnd's Horovod (Average and Sum are)"
                         % (what, op))
    return op


def _reduce(tensors, op, prescale, postscale):
    """The summed (or averaged) values of ``tensors`` over every process, one collective."""
    vals = [t._val() for t in tensors]
    if prescale != 1.0:
        vals = [(v * prescale).astype(v.dtype) for v in vals]
    out = _dist.allreduce(vals)
    scale = postscale / (_dist.num_workers() if op == Average else 1)
    if scale != 1.0:
        out = [(v * scale).astype(v.dtype) for v in out]
    return out


def grouped_allreduce(tensors, average=None, name=None, priority=0, prescale_factor=1.0,
                      postscale_factor=1.0, process_set=None, op=None):
    """New NDArrays: each tensor averaged (default) or summed over every process."""
    _check()
    tensors = [_nd(t, "grouped_allreduce") for t in tensors]
    op = _op_of(average, op, "grouped_allreduce")
    out = _reduce(tensors, op, prescale_factor, postscale_factor)
    return [_wrap(v, t.context) for t, v in zip(tensors, out)]


def grouped_allreduce_(tensors, average=None, name=None, priority=0, prescale_factor=1.0,
                       postscale_factor=1.0, process_set=None, op=None):
    """In place: each tensor becomes its average (default) or sum over every process."""
    _check()
    tensors = [_nd(t, "grouped_allreduce_") for t in tensors]
    op = _op_of(average, op, "grouped_allreduce_")
    for t, v in zip(tensors, _reduce(tensors, op, prescale_factor, postscale_factor)):
        t._set_val(v)
    return tensors


def allreduce(tensor, average=None, name=None, priority=0, prescale_factor=1.0,
              postscale_factor=1.0, process_set=None, op=None):
    """A new NDArray: ``tensor`` averaged (default) or summed over every process, scaled by
    ``prescale_factor`` before and ``postscale_factor`` after the reduction."""
    return grouped_allreduce([tensor], average, name, priority, prescale_factor,
                             postscale_factor, process_set, op)[0]


def allreduce_(tensor, average=None, name=None, priority=0, prescale_factor=1.0,
               postscale_factor=1.0, process_set=None, op=None):
    """In place: ``tensor`` becomes its average (default) or sum over every process."""
    return grouped_allreduce_([tensor], average, name, priority, prescale_factor,
                              postscale_factor, process_set, op)[0]


def allgather(tensor, name=None, priority=0, process_set=None):
    """A new NDArray: every process's ``tensor`` concatenated along axis 0 in rank order
    (the first dimensions may differ, the others must agree)."""
    _check()
    t = _nd(tensor, "allgather")
    if t.ndim == 0:
        raise MXNetError("hvd.allgather: the tensor must have at least one dimension, got a "
                         "scalar")
    parts = _dist.allgather(t._val())
    rest = {p.shape[1:] for p in parts}
    if len(rest) != 1:
        raise MXNetError("hvd.allgather: the processes' tensors differ beyond the first "
                         "dimension: %s" % sorted(p.shape for p in parts))
    return _from_numpy(np.concatenate(parts, axis=0), t)


def _from_numpy(a, like):
    import jax
    return _wrap(jax.device_put(a, like.context.jax_device()), like.context)


def broadcast(tensor, root_rank, name=None, priority=0, process_set=None):
    """A new NDArray: process ``root_rank``'s ``tensor`` on every process."""
    _check()
    t = _nd(tensor, "broadcast")
    _check_root(root_rank, "broadcast")
    return _wrap(_dist.broadcast([t._val()], root=root_rank)[0], t.context)


def broadcast_(tensor, root_rank, name=None, priority=0, process_set=None):
    """In place: ``tensor`` becomes process ``root_rank``'s."""
    _check()
    t = _nd(tensor, "broadcast_")
    _check_root(root_rank, "broadcast_")
    t._set_val(_dist.broadcast([t._val()], root=root_rank)[0])
    return t


def _check_root(root_rank, what):
    n = _dist.num_workers()
    if not isinstance(root_rank, (int, np.integer)) or not 0 <= root_rank < n:
        raise ValueError("hvd.%s: root_rank=%r is not a rank in 0..%d" % (what, root_rank, n - 1))


def alltoall(tensor, splits=None, name=None, priority=0, process_set=None):
    """Process i sends the i-th block of ``tensor``'s rows (``splits[i]`` rows; equal blocks
    when ``splits`` is None) to process i; returns what it received, in rank order."""
    _check()
    t = _nd(tensor, "alltoall")
    n = _dist.num_workers()
    rows = t.shape[0] if t.ndim else 0
    if splits is None:
        if t.ndim == 0 or rows % n:
            raise MXNetError("hvd.alltoall: the first dimension (%d) does not split evenly "
                             "over %d processes; pass splits" % (rows, n))
        splits = [rows // n] * n
    splits = [int(s) for s in (splits.asnumpy() if isinstance(splits, NDArray) else splits)]
    if len(splits) != n or sum(splits) != rows or min(splits) < 0:
        raise MXNetError("hvd.alltoall: splits=%s must give %d non-negative row counts adding "
                         "up to the first dimension %d" % (splits, n, rows))
    a = np.asarray(t._val())
    gathered_splits = _dist.allgather(np.asarray(splits, dtype=np.int64))
    data = _dist.allgather(a)
    me = _dist.rank()
    got = []
    for src in range(n):
        start = int(sum(gathered_splits[src][:me]))
        got.append(data[src][start:start + int(gathered_splits[src][me])])
    return _from_numpy(np.concatenate(got, axis=0), t)
