"""``mxnet.kvstore.horovod``: the 'horovod' store (``mx.kv.create('horovod')``,
``Trainer(kvstore='horovod')``), as MXNet 1.9.1's: Horovod's collectives behind the KVStore
interface -- ``pushpull`` sums over the processes, ``broadcast`` takes rank 0's value, and
the optimizer runs in each process (no updating on the store). It uses whichever Horovod
``import horovod.mxnet`` gives: xnd's (xnd/horovod) unless a real one is installed."""
from .. import kvstore as _kv

__all__ = ["Horovod"]


def _hvd():
    import horovod.mxnet as hvd
    return hvd


@_kv.KVStoreBase.register
class Horovod(_kv.KVStoreBase):
    """A communication backend using Horovod."""

    def __init__(self):
        _hvd().init()

    @property
    def type(self):
        return "horovod"

    def broadcast(self, key, value, out, priority=0):
        """Rank 0's ``value`` into ``out`` (an NDArray or a list of them) on every rank."""
        for o in out if isinstance(out, list) else [out]:
            o[:] = _hvd().broadcast(tensor=value, root_rank=0, name=str(key), priority=priority)

    def pushpull(self, key, value, out=None, priority=0):
        """The sum over all processes of ``value`` (each tensor of a list), in place or into
        ``out``."""
        hvd = _hvd()
        values = value if isinstance(value, list) else [value]
        if out is None:
            for v in values:
                hvd.allreduce_(v, average=False, name=str(key), priority=priority)
            return
        for o, v in zip(out if isinstance(out, list) else [out], values):
            o[:] = hvd.allreduce(v, average=False, name=str(key), priority=priority)

    def set_optimizer(self, optimizer):
        """The optimizer runs in each process, never on the store."""

    @staticmethod
    def is_capable(capability):
        return False

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """The store holds no optimizer, so there is nothing to save."""

    def load_optimizer_states(self, fname):
        """The store holds no optimizer, so there is nothing to load."""

    @property
    def rank(self):
        return _hvd().rank()

    @property
    def local_rank(self):
        return _hvd().local_rank()

    @property
    def num_workers(self):
        return _hvd().size()
