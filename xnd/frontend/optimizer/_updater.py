"""mx.optimizer.Updater and get_updater (MXNet's optimizer/optimizer.py): what KVStore and
Module call, holding the optimizer states; and the states' file format.

Updater states
--------------
``Updater.get_states()`` returns bytes in xnd's own safe format (magic ``XNDOPTST``, a JSON
header with the state structure and optionally the optimizer's settings, then the arrays in
MXNet's NDArray container format). It never pickles. MXNet's ``.states`` files are Python
pickles: ``set_states`` refuses them with MXNetError rather than unpickling untrusted data.
"""
import json
import struct

import jax
import numpy as np

from ... import serialization
from ...base import MXNetError
from ...ndarray import NDArray
from .. import lr_scheduler as _lrs
from .. import ndarray as nd
from ._base import Optimizer

__all__ = ["Updater", "get_updater"]


_MAGIC = b"XNDOPTST"
_VERSION = 1
_PICKLE_HINT = ("MXNet's optimizer state files are Python pickles, which xnd never loads "
                "(unpickling can run arbitrary code); re-create the states with xnd "
                "(Updater.get_states / save_optimizer_states) or start the optimizer fresh")


class Updater:
    """Applies an optimizer to (index, grad, weight) triples, holding the states
    (mx.optimizer.Updater; what KVStore and Module call). A call with lists
    updates all of them in one compiled step."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        if not isinstance(index, (list, tuple)):
            indices, grads, weights = [index], [grad], [weight]
        else:
            indices, grads, weights = list(index), list(grad), list(weight)
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        for i, idx in enumerate(indices):
            if isinstance(idx, bytes):
                idx = indices[i] = idx.decode("utf-8")
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, weights[i])
                self.states_synced[idx] = True
            elif not self.states_synced[idx]:
                self.states[idx] = self.sync_state_context(self.states[idx], weights[i].context)
                self.states_synced[idx] = True
        if not indices:
            return
        self.optimizer.update_multi_precision(indices, weights, grads,
                                              [self.states[i] for i in indices])

    def sync_state_context(self, state, context):
        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state

    def get_states(self, dump_optimizer=False):
        """The states (and, with ``dump_optimizer``, the optimizer's settings) as bytes in
        xnd's format: ``XNDOPTST`` | u32 version | u64 header length | JSON header | NDArray
        container with the arrays. Never a pickle."""
        arrays, ctxs = [], []

        def enc_tree(s):
            if s is None:
                return None
            if isinstance(s, NDArray):
                arrays.append(s.asnumpy())
                ctxs.append((s.context.device_typeid, s.context.device_id))
                return {"nd": len(arrays) - 1}
            if isinstance(s, (tuple, list)):
                return {"tuple" if isinstance(s, tuple) else "list": [enc_tree(v) for v in s]}
            raise MXNetError("Updater.get_states: cannot save a state of type %s"
                             % type(s).__name__)
        states = [[_enc_key(k), enc_tree(v)] for k, v in self.states.items()]
        header = {"format": "xnd-updater-states", "version": _VERSION, "states": states,
                  "optimizer": _enc_optimizer(self.optimizer) if dump_optimizer else None}
        head = json.dumps(header, sort_keys=True).encode("utf-8")
        body = serialization.dumps(arrays, contexts=ctxs)
        return _MAGIC + struct.pack("<IQ", _VERSION, len(head)) + head + body

    def set_states(self, states):
        """Load bytes written by ``get_states`` (refuses MXNet's pickled states)."""
        header, arrays = _parse_states(states)
        ctx = None
        if self.states:
            first = next(iter(self.states.values()))
            leaves = [a for a in jax.tree_util.tree_leaves(first) if isinstance(a, NDArray)]
            ctx = leaves[0].context if leaves else None

        def dec_tree(t):
            if t is None:
                return None
            if "nd" in t:
                i = t["nd"]
                if not isinstance(i, int) or not 0 <= i < len(arrays):
                    raise MXNetError("optimizer states: bad array reference %r" % (i,))
                return nd.array(arrays[i], ctx=ctx, dtype=arrays[i].dtype)
            if "tuple" in t:
                return tuple(dec_tree(v) for v in t["tuple"])
            if "list" in t:
                return [dec_tree(v) for v in t["list"]]
            raise MXNetError("optimizer states: unknown entry %r" % (t,))
        new_states = {_dec_key(k): dec_tree(v) for k, v in header["states"]}
        if header.get("optimizer") is not None:
            self.optimizer = _dec_optimizer(header["optimizer"])
        self.states = new_states
        self.states_synced = dict.fromkeys(self.states.keys(), False)


def get_updater(optimizer):
    """An Updater (the callable KVStore and Module use) for ``optimizer``."""
    return Updater(optimizer)


def _enc_key(k):
    if isinstance(k, bool) or not isinstance(k, (int, str, np.integer)):
        raise MXNetError("Updater.get_states: state keys must be int or str, got %r" % (k,))
    return {"int": int(k)} if isinstance(k, (int, np.integer)) else {"str": k}


def _dec_key(k):
    if isinstance(k, dict) and isinstance(k.get("int"), int):
        return k["int"]
    if isinstance(k, dict) and isinstance(k.get("str"), str):
        return k["str"]
    raise MXNetError("optimizer states: bad key %r" % (k,))


def _enc_value(v, where):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return {"float": repr(float(v))}
    if isinstance(v, tuple):
        return {"tuple": [_enc_value(x, where) for x in v]}
    if isinstance(v, list):
        return [_enc_value(x, where) for x in v]
    if isinstance(v, dict):
        return {"dict": [[_enc_value(k, where), _enc_value(x, where)] for k, x in v.items()]}
    if isinstance(v, _lrs.LRScheduler):
        return {"scheduler": type(v).__name__,
                "attrs": {k: _enc_value(x, where) for k, x in vars(v).items()}}
    raise MXNetError("Updater.get_states(dump_optimizer=True): cannot save the optimizer "
                     "attribute %s of type %s" % (where, type(v).__name__))


def _dec_value(v):
    if v is None or isinstance(v, (bool, str, int)):
        return v
    if isinstance(v, list):
        return [_dec_value(x) for x in v]
    if isinstance(v, dict):
        if "float" in v:
            return float(v["float"])
        if "tuple" in v:
            return tuple(_dec_value(x) for x in v["tuple"])
        if "dict" in v:
            return {_dec_value(k): _dec_value(x) for k, x in v["dict"]}
        if "scheduler" in v:
            cls = _find_scheduler(v["scheduler"])
            obj = cls.__new__(cls)
            obj.__dict__.update({k: _dec_value(x) for k, x in v["attrs"].items()})
            return obj
    raise MXNetError("optimizer states: cannot decode %r" % (v,))


def _find_scheduler(name):
    todo = [_lrs.LRScheduler]
    while todo:
        cls = todo.pop()
        if cls.__name__ == name:
            return cls
        todo.extend(cls.__subclasses__())
    raise MXNetError("optimizer states: unknown lr scheduler class %r" % (name,))


_SKIP_ATTRS = ("param_dict", "_jit_cache")


def _enc_optimizer(opt):
    name = type(opt).__name__.lower()
    if Optimizer.opt_registry.get(name) is not type(opt):
        raise MXNetError("Updater.get_states(dump_optimizer=True): optimizer class %s is not "
                         "registered (use mx.optimizer.register)" % type(opt).__name__)
    attrs = {k: _enc_value(v, k) for k, v in vars(opt).items() if k not in _SKIP_ATTRS}
    return {"class": name, "attrs": attrs}


def _dec_optimizer(d):
    cls = Optimizer.opt_registry.get(d.get("class"))
    if cls is None:
        raise MXNetError("optimizer states: unknown optimizer %r" % (d.get("class"),))
    opt = cls.__new__(cls)
    opt.__dict__.update({k: _dec_value(v) for k, v in d["attrs"].items()})
    opt.param_dict = {}
    if "_all_index_update_counts" in opt.__dict__:
        counts = opt._all_index_update_counts
        opt._index_update_count = counts.setdefault(0, {}) if 0 in counts or not counts \
            else next(iter(counts.values()))
    return opt


def _parse_states(buf):
    buf = bytes(buf)
    if not buf.startswith(_MAGIC):
        if buf[:1] == b"\x80" or buf[:1] in (b"(", b"]", b"}"):
            raise MXNetError("Cannot load optimizer states: " + _PICKLE_HINT)
        raise MXNetError("Cannot load optimizer states: not an xnd optimizer-states file "
                         "(expected magic %r)" % _MAGIC)
    if len(buf) < len(_MAGIC) + 12:
        raise MXNetError("Cannot load optimizer states: truncated header")
    version, hlen = struct.unpack_from("<IQ", buf, len(_MAGIC))
    if version != _VERSION:
        raise MXNetError("Cannot load optimizer states: unsupported version %d" % version)
    start = len(_MAGIC) + 12
    if hlen > len(buf) - start:
        raise MXNetError("Cannot load optimizer states: truncated header")
    try:
        header = json.loads(buf[start:start + hlen].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise MXNetError("Cannot load optimizer states: bad header (%s)" % e) from None
    if not isinstance(header, dict) or header.get("format") != "xnd-updater-states" or \
            not isinstance(header.get("states"), list):
        raise MXNetError("Cannot load optimizer states: bad header")
    arrays = serialization.loads(buf[start + hlen:])
    if isinstance(arrays, dict):
        arrays = list(arrays.values())
    return header, arrays
