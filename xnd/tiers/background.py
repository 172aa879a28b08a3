"""The background compiles: a small pool of daemon threads that run ``Lowered.compile()``.

Only XLA's compile runs here.  Tracing and lowering to StableHLO stay on the thread that
called the program (``programs.Tiered._start``): JAX's tracing state is per thread, and a
trace on a worker racing a trace on the main thread is where a deadlock or a confused
trace context could come from; ``.compile()`` of a finished ``Lowered`` is self-contained
(XLA releases the GIL while it compiles, and JAX writes the result to its persistent
compilation cache from inside it, so a worker's compile lands in the same cache as any
other).

The threads are daemons, so they never keep the interpreter alive by themselves.  At exit
(``atexit``), queued compiles get up to ``TABLE.exit_wait_s`` seconds in all
(``XND_BACKGROUND_EXIT_WAIT_S``, 0: none) to start and finish, so a short script still
leaves its optimized programs in the persistent cache for the next run; the rest are
dropped.  A compile already running is always let finish (at most one per worker): a
thread inside XLA's compiler when the interpreter finalizes aborts the process.
"""
import atexit
import collections
import threading

from . import table
from .table import TABLE

_lock = threading.Condition()
_queue = collections.deque()     # (lowered, done, kind, name) waiting for a worker
_state = {"threads": 0, "running": 0, "closing": False, "done": 0, "failed": 0}
_HOOKS = []                      # tests: called with (kind, name) before each compile


def submit(lowered, done, kind, name):
    """Compile ``lowered`` on a worker; ``done(executable)`` is called there with the
    result, or with None when the compile raised (the caller then compiles synchronously
    and reports the error itself)."""
    with _lock:
        if _state["closing"]:
            return
        _queue.append((lowered, done, kind, name))
        if _state["threads"] < TABLE.workers:
            _state["threads"] += 1
            threading.Thread(target=_work, name="xnd-compile", daemon=True).start()
        _lock.notify()


def _work():
    while True:
        with _lock:
            while not _queue:
                if _state["closing"]:
                    _state["threads"] -= 1
                    return
                _lock.wait()
            lowered, done, kind, name = _queue.popleft()
            _state["running"] += 1
        exe = None
        try:
            for hook in list(_HOOKS):
                hook(kind, name)
            if TABLE.log:
                from . import log
                with log.program(kind, name, table.OPTIMIZED + "/background"):
                    exe = lowered.compile()
            else:
                exe = lowered.compile()
        except Exception:  # noqa: BLE001  (reported: the caller's synchronous compile raises it)
            _state["failed"] += 1
        finally:
            try:
                done(exe)
            finally:
                with _lock:
                    _state["running"] -= 1
                    _state["done"] += 1
                    _lock.notify_all()


def wait(timeout=None):
    """Block until no compile is queued or running (tests, ``_at_exit``); False on timeout."""
    with _lock:
        return _lock.wait_for(lambda: not _queue and not _state["running"], timeout)


def stats():
    with _lock:
        return dict(_state, queued=len(_queue))


def _at_exit():
    """Let the compiles asked for finish (queued ones for ``TABLE.exit_wait_s`` in all), then
    drop the queue and wait for the compiles running: a thread still inside XLA's compiler
    when the interpreter finalizes is unwound through C++ frames that do not allow it, and
    the process aborts ("FATAL: exception not rethrown")."""
    with _lock:
        _lock.wait_for(lambda: not _queue and not _state["running"], TABLE.exit_wait_s)
        _state["closing"] = True
        _queue.clear()
        _lock.notify_all()
        _lock.wait_for(lambda: not _state["running"])


atexit.register(_at_exit)
