"""mx.engine, and the MXNET_* environment variables that scripts set.

MXNet reads its engine settings from the environment when it is imported, so
scripts set them first (``os.environ['MXNET_ENGINE_TYPE'] = 'NaiveEngine'``
then ``import mxnet``). xnd does the same, once, when this module is imported
(``xnd/__init__.py`` imports it before anything touches a JAX device):

* ``MXNET_ENGINE_TYPE=NaiveEngine``: every operator runs synchronously, so an
  error surfaces at the operator that caused it and a timer around one call
  measures that call. xnd turns off JAX's asynchronous CPU dispatch
  (``jax_cpu_enable_async_dispatch``, read when JAX creates its CPU client)
  and the dispatcher calls `sync` on each eager result (GPU results included).
  ``ThreadedEngine`` / ``ThreadedEnginePerDevice`` (MXNet's default) are the
  normal asynchronous dispatch; any other value logs a warning and is ignored.
* ``MXNET_ENFORCE_DETERMINISM=1``: the switch from a program's cheap tiers to its optimized
  one happens at a fixed call, synchronously, so runs are bit-reproducible (xnd/tiers; by
  default that program compiles in the background and the switch depends on timing).
* Every other ``MXNET_*`` variable is accepted and ignored: one debug line in
  the ``xnd`` logger lists them (XLA makes its own choices of threads, memory
  pools, cuDNN algorithms and bulking).

`set_bulk_size` and `bulk` are MXNet's engine API; XLA already fuses the work
inside each jitted call, so the size is remembered and returned, and has no
other effect.
"""
import logging
import os
import threading
import time
# names MXNet's module holds by importing them (its users import them from here)
from .base import check_call  # noqa: E402,F401

__all__ = ["set_bulk_size", "bulk", "NAIVE", "ENGINE_TYPE", "sync", "configure"]

_log = logging.getLogger("xnd")

ENGINE_TYPES = ("NaiveEngine", "ThreadedEngine", "ThreadedEnginePerDevice")
# Variables some other part of xnd reads itself (not "ignored").
HANDLED = frozenset({"MXNET_ENGINE_TYPE", "MXNET_HOME",
                     "MXNET_ENFORCE_DETERMINISM"})   # (xnd/tiers: a call-counted switch)

ENGINE_TYPE = "ThreadedEnginePerDevice"
NAIVE = False  # the dispatcher's hook: when True, call sync() on every eager result
IGNORED = ()


def sync(result):
    """Block until `result` (a jax.Array, or a list/tuple of them) is computed: the
    NaiveEngine hook of the dispatcher. Errors of the computation surface here."""
    import jax

    return jax.block_until_ready(result)


def configure(environ=None):
    """Read the MXNET_* variables (from `environ`, default os.environ) and apply them.
    Called once at import; returns the engine type in force."""
    global ENGINE_TYPE, NAIVE, IGNORED
    env = os.environ if environ is None else environ
    engine = env.get("MXNET_ENGINE_TYPE")
    if engine:
        if engine not in ENGINE_TYPES:
            _log.warning("MXNET_ENGINE_TYPE=%s is not an MXNet engine (%s); xnd ignores it",
                         engine, ", ".join(ENGINE_TYPES))
            engine = None
    ENGINE_TYPE = engine or "ThreadedEnginePerDevice"
    NAIVE = ENGINE_TYPE == "NaiveEngine"
    if NAIVE:
        try:
            import jax

            jax.config.update("jax_cpu_enable_async_dispatch", False)
        except Exception as e:  # an older JAX without the flag: the dispatcher hook still syncs
            _log.debug("xnd: could not turn off asynchronous CPU dispatch: %s", e)
    IGNORED = tuple(sorted(k for k in env if k.startswith("MXNET_") and k not in HANDLED))
    if IGNORED:
        _log.debug("xnd accepts and ignores %s", ", ".join(f"{k}={env[k]}" for k in IGNORED))
    return ENGINE_TYPE


_bulk_size = 0  # what MXNet 1.9.1 reports before any call (imperative bulking off)


def set_bulk_size(size):
    """Set the bulk execution limit; returns the previous one. No effect on execution:
    XLA already runs each jitted call as one fused program."""
    global _bulk_size
    prev, _bulk_size = _bulk_size, int(size)
    return prev


class _BulkScope:
    """Scope object for bulk execution (``with mx.engine.bulk(10): ...``)."""

    def __init__(self, size):
        self._size = size
        self._old_size = None

    def __enter__(self):
        self._old_size = set_bulk_size(self._size)
        return self

    def __exit__(self, ptype, value, trace):
        set_bulk_size(self._old_size)


def bulk(size):
    """A scope that sets the bulk size and restores it on exit (accepted; no effect)."""
    return _BulkScope(size)


configure()



class Failure:
    """An operator's error, shared by every array that holds it (the failed op's results and
    the results of every op that read them).

    MXNet's engine keeps one set of pending exceptions: the first read of any failed array,
    or ``nd.waitall()``, rethrows one of them and clears them all, so every failed array
    (even one that was never read, or was dropped) then reads without raising."""

    __slots__ = ("error",)

    def __init__(self, error):
        # without its traceback: the frames it holds would keep the failed arrays alive
        self.error = error.with_traceback(None)
        _UNDELIVERED.append(self)

    def deliver(self):
        """Raise the error, clearing every pending one, unless it was already cleared."""
        error = self.error
        if error is not None:
            clear_failures()
            raise error


_UNDELIVERED = []


def clear_failures():
    for f in _UNDELIVERED:
        f.error = None
    _UNDELIVERED.clear()


def raise_pending():
    """``nd.waitall()``'s part: rethrow the oldest pending operator error, clearing all."""
    if _UNDELIVERED:
        _UNDELIVERED[0].deliver()


class Failed:
    """The pending value of an operator result whose kernel check failed.

    MXNet's kernels check values while they run asynchronously: a sampler's parameters
    (``normal(0, -1)``), take(mode='raise') indices, a Cholesky factor. Its engine stores
    the exception on the result, passes it on to every operator that reads the result, and
    rethrows it once, at the next read (``wait_to_read``, ``asnumpy``) or ``nd.waitall()``;
    the array then reads as whatever was in its memory (xnd: zeros). An NDArray holding a
    Failed as its pending source knows its shape and dtype, so it can be indexed, copied and
    passed to more operators before anything raises. Under NaiveEngine the error is raised
    at the operator instead.
    """

    __slots__ = ("failure", "shape", "dtype")

    def __init__(self, failure, shape, dtype):
        self.failure, self.shape, self.dtype = failure, tuple(shape), dtype


class Awaited:
    """The pending value of a result that other operator calls complete: one device's part
    of a cross-device SyncBatchNorm until every device has run the layer (MXNet's engine
    runs it when the barrier opens), and every operator called on such a part meanwhile
    (MXNet queues them behind it). Like a Failed, the array knows its shape and dtype; a
    read calls ``resolve()``, which runs ``node`` (filling the array) or raises."""

    __slots__ = ("node", "shape", "dtype")

    def __init__(self, node, shape, dtype):
        self.node, self.shape, self.dtype = node, tuple(shape), dtype

    def resolve(self):
        resolve(self.node)


BARRIER_TIMEOUT_S = 300.0  # a barrier's wait for the other devices' calls, at most


def other_threads():
    """Whether another non-daemon thread is alive (one that may still join a barrier)."""
    me = threading.current_thread()
    return any(t is not me and not t.daemon and t.is_alive() for t in threading.enumerate())


def wait_at_barrier(event):
    """Wait for ``event`` (the other devices' calls) while another thread may still set it.
    False when none can: no other live non-daemon thread, or none set it within
    BARRIER_TIMEOUT_S (a thread that died before its call; MXNet would wait for ever)."""
    deadline = time.monotonic() + BARRIER_TIMEOUT_S
    while not event.wait(1.0 if other_threads() else 0):
        if not other_threads() or time.monotonic() > deadline:
            return False
    return True


def awaited_node(x):
    """The node that computes NDArray ``x`` (or the array it views), if ``x`` is awaited."""
    root = x if x._base is None else x._base
    if root._data is not None:
        return None
    src = root._src
    return src.node if type(src) is Awaited else None


class Deferred:
    """An operator call with an awaited input: ``call()`` runs it once the inputs are there.
    A node's protocol (shared with SyncBatchNorm's barrier): ``done``, ``waiting()`` (the
    nodes it needs first), ``run()``."""

    __slots__ = ("call", "inputs", "done", "lock")

    def __init__(self, call, inputs):
        self.call, self.inputs, self.done, self.lock = call, inputs, False, threading.Lock()

    def waiting(self):
        return [n for n in (awaited_node(x) for x in self.inputs if x is not None) if n is not None]

    def run(self):
        with self.lock:
            if not self.done:
                self.call()
                self.done, self.call, self.inputs = True, None, ()


def resolve(node):
    """Run ``node`` after the nodes it waits for, depth first and without recursion (a chain
    of deferred calls is as long as the network after the first barrier)."""
    stack = [node]
    while stack:
        n = stack[-1]
        if n.done:
            stack.pop()
            continue
        deps = [d for d in n.waiting() if not d.done]
        if deps:
            stack += deps
        else:
            stack.pop()
            n.run()


# ---- aggregate operator statistics (mx.profiler with aggregate_stats=True) ---------------
PROFILING = False  # the dispatcher's hook: when True, every operator call is timed
_STATS = {}        # domain -> name -> [count, total, min, max] (seconds)
_SCOPE = threading.local()


def record(opname, seconds):
    """One operator call's time. Inside a custom operator's Python code (``custom_scope``)
    the call counts as ``<op_type>::<name>`` in MXNet's 'Custom Operator' domain."""
    scope = getattr(_SCOPE, "name", None)
    if scope:
        _add("Custom Operator", f"{scope}::{opname}", seconds)
    else:
        _add("operator", opname, seconds)


def _add(domain, name, seconds):
    row = _STATS.setdefault(domain, {}).get(name)
    if row is None:
        _STATS[domain][name] = [1, seconds, seconds, seconds]
    else:
        row[0] += 1
        row[1] += seconds
        row[2] = min(row[2], seconds)
        row[3] = max(row[3], seconds)


class custom_scope:
    """The Python code of custom operator ``op_type`` (forward, or backward with
    ``backward=True``): timed as ``<op_type>::pure_python`` (``_backward_<op_type>::...``),
    the operators it calls counted under its name, as MXNet's profiler does."""

    def __init__(self, op_type, backward=False):
        self.name = ("_backward_" if backward else "") + op_type
        self._old = self._t0 = None

    def __enter__(self):
        if PROFILING:
            self._old = getattr(_SCOPE, "name", None), getattr(_SCOPE, "timing", False)
            _SCOPE.name, _SCOPE.timing = self.name, False   # its operators are timed too
            self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if self._t0 is not None:
            _SCOPE.name, _SCOPE.timing = self._old
            _add("Custom Operator", f"{self.name}::pure_python", time.perf_counter() - self._t0)
            self._t0 = None


def stats(reset=False):
    """{domain: {name: (count, total, min, max) in seconds}}; ``reset`` clears them."""
    out = {d: {n: tuple(r) for n, r in rows.items()} for d, rows in _STATS.items()}
    if reset:
        _STATS.clear()
    return out
