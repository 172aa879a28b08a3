"""A backward pass over graphs on several devices (MXNet's data-parallel idiom:
``autograd.backward([loss_on_gpu0, loss_on_gpu1])``, and graphs joined by ``copyto``).

One jitted program takes its arguments on one device, so ``engine.run`` asks :func:`split`
how the heads' graphs lie:

* ``None``: one device (the usual case; checked on the external arrays' contexts, no scan);
* ``[(head positions, device), ...]``: each connected graph on one device: one backward per
  device, each where its graph lives (data parallelism keeps its speed);
* ``[(all head positions, None)]``: a graph that crosses devices (a recorded cross-device
  ``copyto``, SyncBatchNorm's statistics): the backward runs on the first head's device, its
  arguments moved there and each gradient moved back to its variable's device.

:func:`meet` is SyncBatchNorm's barrier in the backward pass: per-device backward calls over
one graph joined by the shared statistics wait for each other and run as one.
"""
import threading

import jax

from ..base import MXNetError
from .. import engine as core_engine
from ..engine import wait_at_barrier
from ..lowering.sync_batchnorm import COMBINE

_COPYTO = "_copyto"
_LOCK = threading.Lock()
_MEETINGS = {}  # the barrier nodes of a graph -> the _Meeting of its devices' backward calls


def _device(handle):
    return handle._ctx.jax_device()


def several(ops, exts):
    """Whether the graph holds arrays of more than one device (or a cross-device copy)."""
    if not exts:
        return False
    first = exts[0].ctx
    dev = None
    for n in exts:
        c = n.ctx
        if c is not first:
            if dev is None:
                dev = first.jax_device()
            if c.jax_device() != dev:
                return True
    return any(n.kind[0] == "op" and n.kind[1].name == _COPYTO for n in ops)


def split(hentries, ops, exts):
    """The heads grouped by the device their graph lives on (see the module doc)."""
    parent = {}

    def find(i):
        while parent.get(i, i) != i:
            parent[i] = parent.get(parent[i], parent[i])
            i = parent[i]
        return i

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb

    crossing = set()
    for n in ops:
        for e in n.inputs:
            if e is not None:
                union(n.id, e[0].id)
        if n.kind[0] == "op" and n.kind[1].name == _COPYTO:
            crossing.add(n.id)
    devs = {}
    for n in exts:
        devs.setdefault(find(n.id), set()).add(n.ctx.jax_device())
    for i in crossing:
        devs.setdefault(find(i), set()).add(None)  # a copy joins two devices
    groups = {}
    for k, e in enumerate(hentries):
        ds = devs.get(find(e[0].id), set())
        if len(ds) != 1 or None in ds:
            return [(list(range(len(hentries))), None)]
        groups.setdefault(next(iter(ds)), []).append(k)
    return [(heads, dev) for dev, heads in groups.items()]


def to(device, values):
    """``values`` (a pytree of arrays and other leaves) with the arrays on ``device``."""
    return jax.tree_util.tree_map(
        lambda v: jax.device_put(v, device) if isinstance(v, jax.Array) else v, values)


def back(value, handle):
    """A gradient or state computed elsewhere, on ``handle``'s device."""
    return jax.device_put(value, _device(handle))


class _Meeting:
    def __init__(self):
        self.heads, self.head_grads, self.devices = [], [], set()
        self.done, self.error = threading.Event(), None


def meet(heads, head_grads, ops, backward):
    """MXNet's SyncBatchNorm barrier in the backward pass: where the heads' graph runs through
    the statistics of ``ndev`` devices (``COMBINE``) but the heads lie on fewer devices (each
    device's thread calls ``loss.backward()``, as GluonCV's DataParallelCriterion does), the
    calls meet, and the last one runs ``backward(all heads, all head grads)`` once, which gives
    each device's parameters the gradient of every device's loss (MXNet's numbers). Returns
    whether it handled the call; False: the caller runs its backward itself."""
    barrier = [n for n in ops if n.kind[0] == "op" and n.kind[1] is COMBINE]
    ndev = max((len(n.inputs) // 2 for n in barrier), default=0)
    mine = {(h._ctx.device_type, h._ctx.device_id) for h in heads}
    if len(mine) >= ndev:
        return False
    key = frozenset(id(n) for n in barrier)
    with _LOCK:
        m = _MEETINGS.setdefault(key, _Meeting())
        m.heads += heads
        m.head_grads += head_grads
        m.devices |= mine
        last = len(m.devices) >= ndev
        if last:
            del _MEETINGS[key]
    if last:
        try:
            backward(m.heads, m.head_grads)
        except Exception as e:
            m.error = e
            raise
        finally:
            m.done.set()
        return True
    while not wait_at_barrier(m.done):
        with _LOCK:
            if _MEETINGS.get(key) is m:
                del _MEETINGS[key]
                m.error = MXNetError(
                    f"autograd.backward: the heads' graph joins {ndev} devices through "
                    f"SyncBatchNorm, but the backward calls so far hold heads on "
                    f"{len(m.devices)} of them and no other thread made the rest (none is "
                    f"left, or none did within {core_engine.BARRIER_TIMEOUT_S:g} s). Pass every device's "
                    f"loss to one autograd.backward, or call each device's backward in its "
                    f"own thread")
                m.done.set()
    if m.error is not None:
        raise m.error
    return True
