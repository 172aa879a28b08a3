"""mx.kv / mx.kvstore: key-value stores ('local', 'device', 'nccl', ... and 'dist_*').

``push`` sums the pushed values (on the first value's device), then either
stores the sum or, after ``set_optimizer``, lets the optimizer update the
stored weight with it; ``pull`` copies the stored value into each output.
Keys are ints or strings (not mixed), as in MXNet.

Distributed ('dist_sync', 'dist_device_sync', 'dist_async', ...): started by MXNet's
launcher with ``DMLC_NUM_WORKER`` > 1, every worker process joined a JAX multi-process
job at ``import mxnet`` (see ``xnd.frontend.distributed``) and ``create`` returns a
`DistKVStore`: ``rank`` is the worker id, ``num_workers`` N; ``init`` stores worker 0's
values on every worker; ``push`` sums over the pushed list and then over all workers (an
XLA collective) and, after ``set_optimizer``, every worker applies the optimizer to that
same sum -- the values MXNet's servers compute, kept by each worker instead of a server.
Every worker must call init/push/pull with the same keys in the same order (as with
MXNet). 'dist_async' runs synchronously (like 'dist_sync'): the results are those of
synchronous training. Without the launcher (or with one worker) the 'dist_*' types work in
one process, rank 0 of 1. Sparse ``row_sparse_pull`` and gradient compression raise.
"""
import os as _os

import jax.numpy as jnp

from ..base import MXNetError
from ..ndarray import NDArray, _wrap
from ..serialization import atomic_write
from . import distributed as _dist
from . import optimizer as opt
from . import registry as _registry

__all__ = ["KVStoreBase", "KVStore", "DistKVStore", "TestStore", "create"]

# MXNet's launcher starts servers and a scheduler too: they stop here (see distributed.py);
# a worker of a several-worker job joins it here, before anything starts JAX's backend
_dist.handle_role()

_LOCAL_TYPES = ("local", "device", "nccl", "local_update_cpu", "local_allreduce_cpu",
                "local_allreduce_device")
_DIST_TYPES = ("dist", "dist_sync", "dist_async", "dist_device_sync", "dist_sync_device",
               "dist_async_device")


class KVStoreBase:
    """Interface of key-value stores (mx.kvstore.KVStoreBase) and their registry."""

    OPTIMIZER = "optimizer"
    kv_registry = {}

    @staticmethod
    def register(klass):
        """Register a KVStoreBase subclass so ``create(name)`` returns it."""
        return _registry.register_class(KVStoreBase.kv_registry, klass, "kvstore")


def _interface(name):
    def method(self, *args, **kwargs):
        raise NotImplementedError()
    method.__name__ = method.__qualname__ = name
    method.__doc__ = "KVStoreBase interface: a subclass implements %s." % name
    return method


# the interface MXNet's KVStoreBase declares (each raises NotImplementedError there)
for _name in ("broadcast", "pushpull", "set_optimizer", "is_capable", "save_optimizer_states",
              "load_optimizer_states"):
    setattr(KVStoreBase, _name, _interface(_name))
for _name in ("type", "rank", "num_workers"):
    setattr(KVStoreBase, _name, property(_interface(_name)))


def _pairs(key, value):
    """MXNet's key/value normalisation: [(key, [NDArray, ...]), ...] and the key kind."""
    if isinstance(key, (tuple, list)):
        assert len(key) == len(value)
        out, kind = [], None
        for k, v in zip(key, value):
            sub, sub_kind = _pairs(k, v)
            if kind is not None and kind != sub_kind:
                raise AssertionError("inconsistent types of keys detected.")
            kind = sub_kind
            out += sub
        return out, kind
    if isinstance(key, bool) or not isinstance(key, (int, str)):
        raise AssertionError("unexpected type for keys: " + str(type(key)))
    kind = "str" if isinstance(key, str) else "int"
    if isinstance(value, NDArray):
        return [(key, [value])], kind
    vals = list(value)
    for v in vals:
        assert isinstance(v, NDArray)
    return [(key, vals)], kind


class KVStore(KVStoreBase):
    """The single-process store behind every non-dist ``mx.kv.create`` type."""

    def __init__(self, kv_type="local"):
        self._type = kv_type
        self._store = {}
        self._key_kind = None
        self._updater = None
        self._updater_func = None
        self._str_updater_func = None

    def _check_kind(self, kind):
        if self._key_kind is None:
            self._key_kind = kind
        elif kind is not None and kind != self._key_kind:
            raise MXNetError("Check failed: key_type_ == key_type: Mixed key types are not "
                             "allowed")

    def _check_new(self, key):
        if key in self._store:
            raise MXNetError("Check failed: local_.find(keys[i]) == local_.end(): duplicate "
                             "init of key %s. Please double check if you called kv.init or "
                             "kv.broadcast with this key multiple times" % key)

    def _stored(self, key):
        if key not in self._store:
            raise MXNetError("Check failed: !local.is_none(): key %s has not been inited" % key)
        return self._store[key]

    def init(self, key, value):
        """Initialize each key once with a copy of its value."""
        pairs, kind = _pairs(key, value)
        self._check_kind(kind)
        for k, vals in pairs:
            self._check_new(k)
            self._store[k] = vals[0].copy()

    def push(self, key, value, priority=0):
        """Sum the values pushed for each key (``_reduce``: then over all workers); store the
        sum, or hand it to the optimizer."""
        pairs, kind = _pairs(key, value)
        self._check_kind(kind)
        merged = []
        for k, vals in pairs:
            stored = self._stored(k)
            m = vals[0]
            for v in vals[1:]:
                m = m + v.as_in_context(m.context)
            if m.shape != stored.shape:
                raise MXNetError("kvstore push: key %s holds shape %s, pushed %s"
                                 % (k, stored.shape, m.shape))
            merged.append(m.as_in_context(stored.context))
        for (k, _), total in zip(pairs, self._reduce(merged)):
            stored = self._store[k]
            if self._updater is not None:
                self._updater(k, total, stored)
            else:
                total.copyto(stored)

    def _reduce(self, merged):
        """The sums over all workers of this process's sums (one process: themselves)."""
        return merged

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy each key's stored value into its output array(s)."""
        assert out is not None
        pairs, kind = _pairs(key, out)
        self._check_kind(kind)
        for k, outs in pairs:
            stored = self._stored(k)
            for o in outs:
                if ignore_sparse and o.stype != "default":
                    continue   # MXNet: a sparse output is filled by row_sparse_pull only
                stored.copyto(o)

    def pushpull(self, key, value, out=None, priority=0):
        """push then pull (into ``value`` itself when ``out`` is None)."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority=0):
        """init with ``value``, then pull into ``out``."""
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """The rows ``row_ids`` of each key's stored value into ``out`` (row_sparse arrays;
        one row-id array per output, or one for all)."""
        from ..sparse.arrays import retain
        assert out is not None and row_ids is not None
        pairs, kind = _pairs(key, out)
        self._check_kind(kind)
        ids = row_ids if isinstance(row_ids, (list, tuple)) else [row_ids]
        n_out = sum(len(outs) for _, outs in pairs)
        if len(ids) == 1:                    # one for all
            ids = ids * n_out
        elif len(ids) == len(pairs) != n_out:   # one per key, for each of its outputs
            ids = [i for (_, outs), i in zip(pairs, ids) for _ in outs]
        if len(ids) != n_out:
            raise MXNetError("row_sparse_pull: %d row_ids for %d outputs" % (len(ids), n_out))
        it = iter(ids)
        for k, outs in pairs:
            stored = self._stored(k)
            src = stored if stored.stype == "row_sparse" else stored.tostype("row_sparse")
            for o in outs:
                if o.stype != "row_sparse":
                    raise MXNetError("row_sparse_pull: out must be row_sparse, got %s" % o.stype)
                rows = retain(src, next(it))
                o._assign(rows.copyto(o.context).astype(o.dtype))

    def set_gradient_compression(self, compression_params):
        if "device" in self.type or "dist" in self.type or "nccl" in self.type:
            raise MXNetError("gradient compression is not supported by xnd")
        raise Exception("Gradient compression is not supported for this type of kvstore")

    def set_optimizer(self, optimizer):
        """Update stored weights with ``optimizer`` on each push."""
        self._set_updater(opt.get_updater(optimizer))

    def _set_updater(self, updater):
        self._updater = updater
        self._updater_func = updater
        self._str_updater_func = updater

    def is_capable(self, capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError("Unknown capability: {}".format(capability))

    @property
    def type(self):
        return self._type

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the updater's states (xnd's format, never a pickle) atomically."""
        assert self._updater is not None, "Cannot save states for distributed training"
        atomic_write(fname, self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname):
        assert self._updater is not None, "Cannot load states for distributed training"
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())

    def _barrier(self):
        """All workers meet here: with one worker, a no-op."""

    def _send_command_to_servers(self, head, body):
        raise MXNetError("xnd's kvstore has no servers")


class DistKVStore(KVStore):
    """The store of a 'dist_*' type in a multi-process job: every worker holds the store's
    values; ``init`` takes worker 0's, ``push`` sums across the workers (one collective per
    call, over all of its keys) and applies the updater to that sum on every worker."""

    def init(self, key, value):
        """Initialize each key once with worker 0's value."""
        pairs, kind = _pairs(key, value)
        self._check_kind(kind)
        for k, _ in pairs:
            self._check_new(k)
        vals = _dist.broadcast([vals[0]._val() for _, vals in pairs])
        for (k, src), v in zip(pairs, vals):
            self._store[k] = _wrap(jnp.array(v, copy=True), src[0].context)

    def _reduce(self, merged):
        """Every worker's sums added up (one collective for all keys): every worker then runs
        the same update, as MXNet's servers do."""
        summed = _dist.allreduce([m._val() for m in merged])
        return [_wrap(v, m.context) for m, v in zip(merged, summed)]

    @property
    def rank(self):
        return _dist.rank()

    @property
    def num_workers(self):
        return _dist.num_workers()

    def _barrier(self):
        """All workers meet here."""
        _dist.barrier("xnd_kvstore_barrier")

    def _allreduce(self, vals):
        """xnd extension used by Module and gluon.Trainer: jax arrays -> their sums over the
        workers (one collective)."""
        return _dist.allreduce(vals)

    def _broadcast(self, vals):
        """xnd extension: jax arrays -> worker 0's values (one collective)."""
        return _dist.broadcast(vals)


@KVStoreBase.register
class TestStore(KVStoreBase):
    """MXNet's registered example store ('teststore', mx.kvstore.base.TestStore): one process,
    no optimizer (``is_capable('optimizer')`` is False, so a Trainer updates locally)."""

    def broadcast(self, key, value, out, priority=0):
        """Copy ``value`` into every array of ``out``."""
        for o in out if isinstance(out, list) else [out]:
            o[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        """Sum a list of values (on the first one's context) into ``out``, or into each value
        when ``out`` is None; a single value is copied into ``out``."""
        if isinstance(value, NDArray):
            total, targets = value, ([] if out is None else out)
        else:
            ctx = value[0].context
            total = value[0].as_in_context(ctx)
            for v in value[1:]:
                total = total + v.as_in_context(ctx)
            targets = value if out is None else out
        for o in targets if isinstance(targets, list) else [targets]:
            o[:] = total

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError("Unknown capability: {}".format(capability))

    @property
    def type(self):
        return "teststore"

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1


def create(name="local"):
    """A KVStore of type ``name``: 'local', 'device', 'nccl', 'dist_sync', ... or a registered
    class. A 'dist_*' type in a job started by MXNet's launcher with several workers is a
    `DistKVStore`; otherwise the store is this process's (rank 0 of 1)."""
    if not isinstance(name, str):
        raise TypeError("name must be a string")
    name = name.lower()
    if name in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name]()
    if name in _DIST_TYPES:
        workers = _dist.launcher_env()["num_workers"]
        if workers > 1 or _dist.is_initialized():
            _dist.ensure(name)
            return DistKVStore(name)
        return KVStore(name)
    if name.startswith("dist") or name in ("byteps", "p3"):
        raise MXNetError("kvstore type %r is not supported by xnd; use 'dist_sync' "
                         "(multi-process), 'local' or 'device'" % name)
    if name not in _LOCAL_TYPES:
        raise MXNetError("Unknown KVStore type %r; xnd supports %s"
                         % (name, ", ".join(_LOCAL_TYPES + _DIST_TYPES)))
    return KVStore(name)


# MXNet's mx.kvstore is a package (kvstore.base, kvstore.kvstore, kvstore.kvstore_server);
# this module stands for it, and its submodules are the files of xnd/frontend/_kvstore/
__path__ = [_os.path.join(_os.path.dirname(__file__), "_kvstore")]
from .kvstore import base, horovod, kvstore, kvstore_server  # noqa: E402,F401  (MXNet's submodules)
from .kvstore.horovod import Horovod  # noqa: E402,F401  (registers 'horovod')
from .kvstore.kvstore_server import KVStoreServer  # noqa: E402,F401
