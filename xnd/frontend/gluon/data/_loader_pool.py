"""The worker pools of gluon.data.DataLoader (part of mxnet.gluon.data.dataloader): the
spawned processes that run xnd/_dataloader_worker.py (the protocol is in that file's
docstring), the iterator that keeps ``prefetch`` batches in flight and returns them in
order, and the thread pool of ``thread_pool=True`` and of the fallback.
"""
import atexit
import concurrent.futures
import contextlib
import io
import itertools
import multiprocessing
import multiprocessing.connection
import multiprocessing.pool
import os
import pickle
import queue
import runpy
import sys
import threading
import time
import weakref

import numpy as np

from .... import _dataloader_worker as _w
from .... import semantics
from ....context import cpu_pinned
from ._loader_common import (START_METHOD_ENV, STARTUP_TIMEOUT, DataLoaderTimeoutError,
                             DataLoaderWorkerError, _WorkerStartupError, _as_in_context, _batch,
                             _log, _shared_ctx)


# ---- the process pool ------------------------------------------------------------------------
class _ResultUnpickler(pickle.Unpickler):
    """A worker's batch; its arrays are ``mx.np`` arrays when the DataLoader was made with
    NumPy array semantics on (MXNet's workers inherit the flag: ``_worker_initializer``)."""

    def __init__(self, file, buffers, np_array):
        super().__init__(file, buffers=buffers)
        self._np_array = np_array

    def persistent_load(self, pid):
        if pid[0] != "nd":
            raise pickle.UnpicklingError(f"unknown DataLoader result id {pid[0]!r}")
        if self._np_array:
            from ... import numpy as mxnp
            make = mxnp.array
        else:
            from ... import ndarray as nd
            make = nd.array
        arr = pid[1]
        return make(arr, dtype=arr.dtype, ctx=_shared_ctx())


def _start_method():
    method = os.environ.get(START_METHOD_ENV, "").strip() or "spawn"
    if method not in ("spawn", "forkserver"):
        raise ValueError(f"{START_METHOD_ENV}={method!r}: xnd's DataLoader workers start with "
                         f"'spawn' or 'forkserver' ('fork' is unsafe once JAX is running)")
    return method


_forkserver_preloaded = False


def _context():
    """The multiprocessing context of the workers. With 'forkserver', the server (started once
    per process) imports xnd (JAX imported, not initialized), so workers of scripts that
    import xnd start in milliseconds instead of re-importing it each."""
    global _forkserver_preloaded
    method = _start_method()
    ctx = multiprocessing.get_context(method)
    if method == "forkserver" and not _forkserver_preloaded:
        _forkserver_preloaded = True
        # not "__main__": its top level may start XLA, and children forked from that are unsafe
        ctx.set_forkserver_preload(["xnd"])  # takes effect if the server is not running yet
    return ctx


def _stop_workers(procs, conns, grace=1.0):
    """Ask the workers to stop, wait up to ``grace`` seconds, then terminate (never hangs)."""
    for c in conns:
        try:
            c.send(None)
        except Exception:  # noqa: BLE001 - already gone
            pass
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.join(max(0.0, deadline - time.monotonic()))
        except Exception:  # noqa: BLE001
            pass
    for p in procs:
        try:
            if p.is_alive():
                p.terminate()
        except Exception:  # noqa: BLE001
            pass
    for p in procs:
        try:
            p.join(5.0)
            if p.is_alive():
                p.kill()
                p.join(1.0)
        except Exception:  # noqa: BLE001
            pass
    for c in conns:
        try:
            c.close()
        except Exception:  # noqa: BLE001
            pass


WORKER_NAME = "DataLoaderWorker"
_prep_lock = threading.Lock()


class _RunOnLoad:
    """Unpickles as ``exec(code)``: how `_dataloader_worker.bootstrap_code` rides to a worker."""

    def __init__(self, code):
        self.code = code

    def __reduce__(self):
        return exec, (self.code, {"__name__": "xnd_dataloader_bootstrap"})


def _mxnet_alias_root():
    """The folder that holds the xnd package when ``mxnet`` is xnd here by alias, else None."""
    xnd_module = sys.modules.get("xnd")
    if xnd_module is None or sys.modules.get("mxnet") is not xnd_module:
        return None
    return os.path.dirname(os.path.dirname(os.path.abspath(xnd_module.__file__)))


@contextlib.contextmanager
def _worker_preparation():
    """While DataLoader workers start: the preparation data that multiprocessing sends each
    (unpickled in the worker before it re-runs the main script) also carries
    `_dataloader_worker.bootstrap_code`, so that the re-run already has one BLAS/XLA thread
    and the CPU, and ``import mxnet`` gives xnd there when it does here (python -m xnd run).
    Only processes named ``DataLoaderWorker-*`` get it."""
    from multiprocessing import spawn
    original = getattr(spawn, "get_preparation_data", None)
    if original is None:  # a multiprocessing without it: workers start without the bootstrap
        yield
        return
    extra = _RunOnLoad(_w.bootstrap_code(_mxnet_alias_root()))

    def get_preparation_data(name):
        data = original(name)
        if isinstance(data, dict) and str(name).startswith(WORKER_NAME):
            data["xnd_dataloader_bootstrap"] = extra
        return data

    with _prep_lock:
        spawn.get_preparation_data = get_preparation_data
        try:
            yield
        finally:
            spawn.get_preparation_data = original


class _ProcessPool:
    """``num_workers`` worker processes with the dataset loaded; tasks go to the least busy
    worker and results are matched to tasks by id, so several iterators can share the pool."""

    _seq = itertools.count()

    def __init__(self, num_workers, payload, timeout):
        ctx = _context()
        self.timeout = timeout
        self._lock = threading.RLock()
        self._task_ids = itertools.count()
        self._results = {}      # task id -> ("ok", batch) | ("error", exc)
        self._owner = {}        # task id -> worker index, for outstanding tasks
        self._abandoned = set()
        self._load = [0] * num_workers
        self._ready = [False] * num_workers
        self.startup_times = [None] * num_workers
        self.closed = False
        self._np_array = semantics.is_np_array()
        # seeds for numpy/random/mx.random in the workers: distinct per worker, derived from
        # (not drawn from) the main process's numpy state, so shuffling is unchanged
        state = np.random.get_state()[1]
        base = int.from_bytes(np.asarray(state[:4], dtype=np.uint32).tobytes(), "little")
        base ^= next(self._seq) * 0x9E3779B1
        self.procs, self.conns = [], []
        try:
            with _worker_preparation():
                self._start(ctx, num_workers, base)
            self._finalizer = weakref.finalize(self, _stop_workers, self.procs, self.conns)
            self._started = time.monotonic()
            for i, c in enumerate(self.conns):  # the workers read it once they are up
                self._send(i, c.send_bytes, payload)
        except BaseException:
            _stop_workers(self.procs, self.conns, grace=0.0)
            raise

    def _start(self, ctx, num_workers, base):
        for i in range(num_workers):
            parent, child = ctx.Pipe(duplex=True)
            args = (child, i, (base + 7919 * i) % (2 ** 63), time.time())
            p = ctx.Process(target=runpy.run_path, args=(_w.WORKER_FILE,),
                            kwargs={"init_globals": {"_XND_WORKER_ARGS": args},
                                    "run_name": _w.RUN_NAME},
                            name=f"{WORKER_NAME}-{i}", daemon=True)
            p.start()
            child.close()
            self.procs.append(p)
            self.conns.append(parent)

    def _send(self, w, send, message):
        """``send(message)`` to worker ``w``; a closed pipe means the worker died
        (``_worker_lost`` raises, outside the pipe's error)."""
        try:
            send(message)
            return
        except (OSError, EOFError):
            pass
        self._worker_lost(w)

    # -- tasks ----------------------------------------------------------------------------
    def submit(self, indices):
        with self._lock:
            self._check_open()
            tid = next(self._task_ids)
            w = min(range(len(self.conns)), key=self._load.__getitem__)
            self._send(w, self.conns[w].send, (tid, indices))
            self._owner[tid] = w
            self._load[w] += 1
            return tid

    def abandon(self, tids):
        """Forget tasks whose results nobody will ask for (an iterator that stopped early)."""
        with self._lock:
            for tid in tids:
                if self._results.pop(tid, None) is None and tid in self._owner:
                    self._abandoned.add(tid)

    def get(self, tid):
        """The batch of task ``tid``: waits up to ``timeout`` seconds (not counting the
        worker's start), raises the worker's exception."""
        with self._lock:
            deadline = None
            while tid not in self._results:
                self._check_open()
                w = self._owner[tid]
                now = time.monotonic()
                if not self._ready[w]:
                    limit = self._started + STARTUP_TIMEOUT
                    if now > limit:
                        self.shutdown()
                        raise _WorkerStartupError(
                            f"DataLoader worker {w} did not start within {STARTUP_TIMEOUT:.0f} s",
                            f"worker {w} did not start within {STARTUP_TIMEOUT:.0f} s")
                    wait = limit - now
                else:
                    if deadline is None:
                        deadline = now + self.timeout
                    wait = deadline - now
                    if wait <= 0:
                        pid = self.procs[w].pid
                        self.shutdown(grace=0.0)  # that worker is stuck
                        raise DataLoaderTimeoutError(
                            f"DataLoader worker {w} (pid {pid}) timed out after {self.timeout} "
                            f"seconds. This might be caused by a slow transform or batchify_fn: "
                            f"increase `timeout` to allow slower data loading in each worker. The "
                            f"workers were shut down; the next iteration starts new ones.")
                self._poll(min(wait, 1.0))
            kind, value = self._results.pop(tid)
            if kind == "error":
                raise value
            return value

    # -- receiving ------------------------------------------------------------------------
    def _poll(self, wait):
        ready = multiprocessing.connection.wait(self.conns + [p.sentinel for p in self.procs],
                                                wait)
        for obj in ready:
            if obj in self.conns:
                self._receive(self.conns.index(obj))
        for obj in ready:
            if not isinstance(obj, multiprocessing.connection.Connection):
                w = [p.sentinel for p in self.procs].index(obj)
                while self.conns[w].poll():
                    self._receive(w)
                self._check_alive(w)

    def _receive(self, w):
        conn = self.conns[w]
        try:
            header = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            header = None
        if header is None:  # the worker closed its pipe: it exited or is exiting
            self._worker_lost(w)
        kind = header[0]
        if kind == "ready":
            self._ready[w] = True
            self.startup_times[w] = header[1]
            _log.debug("xnd DataLoader worker %d ready in %.3f s", w, header[1])
            return
        if kind == "init_error":
            self.shutdown()
            last = [ln for ln in header[1].strip().splitlines() if ln.strip()]
            raise _WorkerStartupError(
                "a DataLoader worker could not load the dataset (worker traceback below). "
                "Everything the dataset and batchify_fn use must be importable in a fresh "
                "interpreter.\n\n" + header[1],
                f"worker {w} could not load the dataset: {last[-1] if last else '?'}")
        tid = header[1]
        if kind == "ok":
            try:
                body = conn.recv_bytes()
                buffers = []
                for n in header[2]:
                    buf = bytearray(n)
                    if n:
                        conn.recv_bytes_into(buf)
                    else:
                        conn.recv_bytes()
                    buffers.append(buf)
            except BaseException:  # e.g. Ctrl-C half way: the stream is out of step
                self.shutdown(grace=0.0)
                raise
            result = ("ok", (body, buffers))
        else:
            result = ("error", _worker_exception(w, *header[2:]))
        self._owner.pop(tid, None)
        self._load[w] -= 1
        if tid in self._abandoned:
            self._abandoned.discard(tid)
            return
        if kind == "ok":
            result = ("ok", _ResultUnpickler(io.BytesIO(result[1][0]), result[1][1],
                                             self._np_array).load())
        self._results[tid] = result

    def _check_alive(self, w):
        if not self.procs[w].is_alive():
            self._worker_lost(w)

    def _worker_lost(self, w):
        p = self.procs[w]
        p.join(1.0)
        code = p.exitcode
        if self.closed:
            raise DataLoaderWorkerError("the DataLoader's workers were shut down")
        self.shutdown(grace=0.0)
        how = f"was killed by signal {-code}" if code is not None and code < 0 else \
            f"exited with code {code}" if code is not None else "closed its pipe"
        if not self._ready[w]:
            raise _WorkerStartupError(
                f"DataLoader worker {w} (pid {p.pid}) {how} while starting; see its output "
                f"above", f"worker {w} {how} while starting; its output is above")
        raise DataLoaderWorkerError(
            f"DataLoader worker {w} (pid {p.pid}) {how} unexpectedly; see the worker's output "
            f"above. The next iteration starts new workers.")

    def _check_open(self):
        if self.closed:
            raise DataLoaderWorkerError("the DataLoader's workers were shut down")

    def shutdown(self, grace=1.0):
        """Stop the workers: ``grace`` seconds to exit, then terminate."""
        if not self.closed:
            self.closed = True
            if self._finalizer.detach() is not None:
                _stop_workers(self.procs, self.conns, grace)


def _worker_exception(w, data, tb, summary):
    """The worker's exception, with its traceback text as __cause__ (as multiprocessing.Pool,
    which MXNet uses, does)."""
    exc = None
    if data is not None:
        try:
            exc = pickle.loads(data)
        except Exception:  # noqa: BLE001
            exc = None
    if not isinstance(exc, BaseException):
        exc = DataLoaderWorkerError(f"DataLoader worker {w} raised {summary}\n\n{tb}")
    exc.__cause__ = multiprocessing.pool.RemoteTraceback(tb)
    return exc


class _MultiWorkerIter:
    """Batches of one epoch from a worker pool, in sampler order. Like MXNet's, it sends
    ``prefetch`` tasks when made and one more with each batch it returns."""

    def __init__(self, pool, batch_sampler, prefetch, pin_memory=False, pin_device_id=0,
                 on_startup_error=None):
        self._pool = pool
        self._iter = iter(batch_sampler)
        # (task, indices) in order; task: a task id (process pool) or a Future (threads)
        self._pending = []
        self._pin = cpu_pinned(pin_device_id) if pin_memory else None
        self._done = False
        # (pool, _WorkerStartupError) -> the thread pool that takes over, or None
        self._on_startup_error = on_startup_error
        for _ in range(prefetch):
            self._push_next()

    def _push_next(self):
        r = next(self._iter, None)
        if r is None:
            return
        try:
            task = self._pool.submit(r)
        except _WorkerStartupError as e:  # a worker died while starting
            self._switch_pool(e)
            task = self._pool.submit(r)
        self._pending.append((task, r))

    def _switch_pool(self, exc):
        """The worker processes did not start: continue on the loader's thread pool, which
        makes every pending batch again, in order (or raise ``exc``)."""
        pool = None
        if self._on_startup_error is not None:
            try:
                pool = self._on_startup_error(self._pool, exc)
            except BaseException:
                self.close()
                raise
        if pool is None:
            self.close()
            raise exc
        self._pool = pool
        self._pending = [(pool.submit(r), r) for _, r in self._pending]

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        self._push_next()
        if not self._pending:
            self._done = True
            raise StopIteration
        while True:
            try:
                batch = self._pool.get(self._pending[0][0])
                break
            except _WorkerStartupError as e:
                self._switch_pool(e)
            except BaseException:
                self.close()
                raise
        self._pending.pop(0)
        if self._pin is not None:
            batch = _as_in_context(batch, self._pin)
        return batch

    next = __next__

    def close(self):
        if not self._done:
            self._done = True
            pending, self._pending = self._pending, []
            if pending:
                try:
                    self._pool.abandon([task for task, _ in pending])
                except Exception:  # noqa: BLE001 - interpreter shutdown
                    pass

    def __del__(self):
        self.close()


class _ThreadPool:
    """MXNet's ThreadPool path: the same tasks run in ``num_workers`` threads of this process,
    which see the NumPy-semantics flags of the thread that made the DataLoader (MXNet's
    ``_thread_worker_initializer``). The threads are daemons (a hung transform never blocks
    exit), so a live one would be killed mid-call at interpreter finalization, when it tries
    to take the GIL back after a C++ call (jax, numpy): glibc unwinds its stack with a forced
    unwind that a C++ ``catch (...)`` swallows, and the process aborts ("FATAL: exception not
    rethrown") instead of exiting with the script's status. So ``_stop_all_at_exit`` cancels
    the queued batches and joins every pool's threads (each finishes its current batch)
    before finalization starts."""

    _live = weakref.WeakSet()

    def __init__(self, num_workers, dataset, batchify_fn, default, timeout):
        self._dataset = dataset
        self._batchify_fn = batchify_fn
        self._default = default
        self.timeout = timeout
        self.closed = False
        self._queue = queue.SimpleQueue()   # (future, indices) | None: the thread stops
        flags = (semantics.is_np_shape(), semantics.is_np_array())
        self._threads = [threading.Thread(target=_thread_worker, args=(self._queue, self, flags),
                                          name=f"{WORKER_NAME}Thread-{i}", daemon=True)
                         for i in range(num_workers)]
        for t in self._threads:
            _THREADS.add(t)
            t.start()
        _ThreadPool._live.add(self)

    def run(self, indices):
        return _batch(self._dataset, self._batchify_fn, self._default, indices, True)

    def submit(self, indices):
        if self.closed:
            raise DataLoaderWorkerError("the DataLoader's worker threads were shut down")
        fut = concurrent.futures.Future()
        self._queue.put((fut, indices))
        return fut

    def abandon(self, tasks):
        for fut in tasks:
            fut.cancel()

    def get(self, task):
        try:
            return task.result(self.timeout)
        except concurrent.futures.TimeoutError:
            raise DataLoaderTimeoutError(
                f"DataLoader worker thread timed out after {self.timeout} seconds. This might "
                f"be caused by a slow transform or batchify_fn: increase `timeout` to allow "
                f"slower data loading.") from None

    def shutdown(self, join=None):
        """Queued batches are cancelled; each thread finishes its current batch and exits
        (waited for up to ``join`` seconds in all, when given)."""
        if self.closed:
            return
        self.closed = True
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].cancel()
        for _ in self._threads:
            self._queue.put(None)
        if join is not None:
            end = time.monotonic() + join
            for t in self._threads:
                t.join(max(0.0, end - time.monotonic()))

    def __del__(self):
        try:
            self.shutdown()
        except Exception:  # noqa: BLE001 - interpreter shutdown: the exit hook stopped it
            pass


def _thread_worker(q, pool, flags):
    """One worker thread: runs queued batches until it gets None. Holds the pool only while
    running a batch, so an unused pool can be collected (and its __del__ stop the threads)."""
    semantics.set_flag("np_shape", flags[0])
    semantics.set_flag("np_array", flags[1])
    ref = weakref.ref(pool)
    del pool
    while True:
        item = q.get()
        if item is None:
            _THREADS.discard(threading.current_thread())
            return
        fut, indices = item
        if not fut.set_running_or_notify_cancel():
            continue
        owner = ref()
        try:
            if owner is None:
                raise DataLoaderWorkerError("the DataLoader was deleted")
            fut.set_result(owner.run(indices))
        except BaseException as e:  # noqa: BLE001 - delivered to the iterator's get()
            fut.set_exception(e)
        finally:
            del owner, item, fut


_THREADS = set()  # every worker thread not yet stopped, also those of collected pools


@atexit.register
def _stop_all_at_exit():
    """Before finalization: stop every live thread pool, and join every worker thread (each
    finishes its current batch; a pool's ``timeout`` bounds the wait, 120 s by default)."""
    pools = list(_ThreadPool._live)
    limit = max([p.timeout for p in pools] + [120.0])
    for pool in pools:
        pool.shutdown()
    end = time.monotonic() + limit
    for t in list(_THREADS):
        t.join(max(0.0, end - time.monotonic()))
