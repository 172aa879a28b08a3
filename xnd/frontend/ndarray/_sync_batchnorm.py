"""``mx.nd.contrib.SyncBatchNorm``: the eager rendezvous of MXNet's cross-device BatchNorm.

In training with ``ndev`` > 1, MXNet's operator waits at a barrier (one per ``key``, the layer)
until the ``ndev`` devices' calls have all arrived, then normalizes each device's part with the
statistics of them all. Its engine is asynchronous, so a Python loop that runs the layer, or
the whole network, on each device in turn (``[net(x) for x in split_and_load(...)]``) never
blocks: later operators queue behind the barrier. Here a call that is not the last returns
*awaited* arrays (``engine.Awaited``: shape and dtype known, values not yet), and an operator
called on an awaited array returns awaited arrays too (``engine.Deferred``, under the autograd
flags of its call). The barrier's statistics are computed when the last device arrives, or at
the first read after that; a read runs whatever it needs (``engine.resolve``).

A read before every device has arrived waits while another (non-daemon) thread can still
arrive (GluonCV's DataParallelModel runs each device in a thread), and raises MXNetError when
none can: a one-thread loop that reads a device's result before calling the next device
(MXNet would wait for ever there).

Outside training, with ``use_global_stats`` or with ``ndev`` 1, the operator runs at once,
as MXNet's does (no barrier then).
"""
import threading

from ...base import MXNetError
from ... import engine
from ...engine import Awaited, awaited_node, wait_at_barrier
from ...lowering import registry
from ...lowering.sync_batchnorm import COMBINE, DEVICE_PART, MOMENTS
from ...ndarray import STATE, NDArray, _wrap, fail_arrays, invoke
from ...op_function import bind

_OP = registry.get("_contrib_SyncBatchNorm")
_LOCK = threading.Lock()
_OPEN = {}  # key -> the _Group still waiting for devices


class _Group:
    """One barrier: the ``ndev`` calls of layer ``key`` in one forward pass (a node of
    ``engine.resolve``: its outputs are awaited arrays until :meth:`run`)."""

    def __init__(self, key, ndev):
        self.key, self.ndev, self.parts = key, ndev, []
        self.arrived, self.lock = threading.Event(), threading.Lock()
        self.done, self.error, self.flags = False, None, None

    def waiting(self):
        """Wait for every device's call (see the module doc), then name the awaited inputs."""
        while not wait_at_barrier(self.arrived):
            with _LOCK:
                if _OPEN.get(self.key) is self:
                    del _OPEN[self.key]
                    self.error = MXNetError(
                        f"SyncBatchNorm (key={self.key!r}, ndev={self.ndev}): an output was read "
                        f"when {len(self.parts)} of the {self.ndev} devices had run this layer, "
                        f"and no other thread ran the rest (none is left, or none did within "
                        f"{engine.BARRIER_TIMEOUT_S:g} s). Call the layer on every device before using "
                        f"its outputs, or run each device's forward in its own thread (as "
                        f"gluoncv.utils.parallel.DataParallelModel does)")
            if self.error is not None:
                raise self.error
        return [n for inputs, _, _ in self.parts for n in map(awaited_node, inputs) if n is not None]

    def run(self):
        """Compute each part's (out, mean, var) into its arrays, once."""
        with self.lock:
            if not self.done:
                self._compute()
                self.done = True

    def _compute(self):
        saved, (STATE.recording, STATE.training) = (STATE.recording, STATE.training), self.flags
        try:
            first = self.parts[0][0][0]._ctx
            moments = []
            for inputs, _, _ in self.parts:
                moments += [m.as_in_context(first) for m in invoke(MOMENTS, [inputs[0]], {})]
            mean, var = invoke(COMBINE, moments, {})
            for inputs, outs, attrs in self.parts:
                ctx = inputs[0]._ctx
                res = invoke(DEVICE_PART, [*inputs, mean.as_in_context(ctx),
                                           var.as_in_context(ctx)],
                             {k: attrs[k] for k in ("eps", "fix_gamma", "momentum")})
                for o, r in zip(outs, res):
                    o._data, o._ag, o._shared, o._src = r._data, r._ag, r._shared, None
        except Exception as e:  # noqa: BLE001 - every part's arrays hold the error
            error = e if isinstance(e, MXNetError) else MXNetError(
                f"SyncBatchNorm (key={self.key!r}): {type(e).__name__}: {e}")
            fail_arrays([o for _, outs, _ in self.parts for o in outs if o._data is None], error)
        finally:
            STATE.recording, STATE.training = saved


def _awaited(group, shape, dtype, ctx):
    x = _wrap(None, ctx)
    x._src = Awaited(group, shape, dtype)
    return x


def SyncBatchNorm(*args, out=None, name=None, **kwargs):
    """MXNet's ``_contrib_SyncBatchNorm`` (see the module doc for the cross-device case)."""
    inputs, kw = bind(_OP, args, kwargs)
    attrs = _OP.parse_attrs(kw)
    if attrs["ndev"] <= 1 or attrs["use_global_stats"] or not STATE.training:
        return invoke(_OP, inputs, attrs, out=out)
    if len(inputs) != 5 or not all(isinstance(x, NDArray) for x in inputs):
        raise MXNetError(f"SyncBatchNorm: needs its five inputs (data, gamma, beta, "
                         f"moving_mean, moving_var) as NDArrays, got {len(inputs)}")
    if out is not None:
        raise MXNetError("SyncBatchNorm: out= is not supported with ndev > 1 in training")
    data, gamma = inputs[0], inputs[1]
    if data.ndim < 2 or gamma.shape != (data.shape[1],):
        raise MXNetError(f"SyncBatchNorm: data {data.shape} needs a channel axis 1 of gamma's "
                         f"length {gamma.shape}")
    key, ndev = attrs["key"], attrs["ndev"]
    with _LOCK:
        group = _OPEN.get(key)
        if group is None:
            group = _OPEN[key] = _Group(key, ndev)
        elif group.ndev != ndev:
            raise MXNetError(f"SyncBatchNorm (key={key!r}): ndev={ndev} where the devices "
                             f"already waiting have ndev={group.ndev}")
        channels = (data.shape[1],)
        outs = [_awaited(group, s, data.dtype, data._ctx) for s in (data.shape, channels, channels)]
        group.parts.append((inputs, outs, attrs))
        if len(group.parts) == ndev:
            del _OPEN[key]
            group.flags = (STATE.recording, STATE.training)  # a later read computes as now
            group.arrived.set()
    if group.arrived.is_set() and not group.waiting():
        group.run()  # as soon as the barrier opens, unless a part's input is still awaited
    return outs if attrs["output_mean_var"] else outs[0]
