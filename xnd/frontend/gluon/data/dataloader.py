"""DataLoader: mini-batches from a Dataset (MXNet 1.9.1 batching rules and worker pools).

Batches are NDArrays that keep numpy dtypes (int64 labels stay int64).

Where ``num_workers > 0`` runs: processes or threads
------------------------------------------------------
MXNet 1.9.1 forks its workers on Linux, so legacy scripts send lambdas to them and often
have no ``if __name__ == '__main__':`` guard. xnd cannot fork (JAX is not fork-safe) and
starts workers with ``spawn``, which pickles the dataset and re-runs the main script's
top-level code in every worker. So that such scripts still run unchanged, a DataLoader with
``num_workers > 0`` (and ``thread_pool=False``) picks, when it is made:

* **worker processes** (spawn) when the dataset and ``batchify_fn`` pickle and worker
  processes can import what they need, and the main script (if any) is guarded: the
  loader is made from code under a top-level ``if __name__ == '__main__':`` (either quote,
  either operand order), or from a function called from there;
* **threads of this process** (MXNet's ``thread_pool=True`` path) otherwise, with one
  ``DataLoaderFallbackWarning`` (a UserWarning) per cause that says why and how to get
  processes:

  - the dataset or ``batchify_fn`` does not pickle (lambdas, local functions, open handles),
    or refers to a function or class of ``__main__`` that a worker cannot import (an
    interactive session or notebook, ``python -c``, or a name that a script defines only
    under its ``__main__`` guard);
  - the loader is made from unguarded top-level code of a script (``python script.py``,
    ``python -m pkg.mod``, ``python -m xnd run script.py``): a spawned worker would run that
    code again. The script is found with ``sys.modules['__main__'].__file__``, parsed with
    ``ast`` (once per file), and the line that the main thread executes in it (the
    ``<module>`` frame of ``__main__``) decides; a loader made after that top level ended (in
    a thread, at exit) counts as guarded if the script has such a block. A main script that
    cannot be read or parsed counts as unguarded (threads: always correct, never re-run it);
  - this process is itself a worker that is still importing the main module
    (multiprocessing's bootstrapping), or is daemonic (cannot have children);
  - the worker processes failed to start or to load the dataset (the batches they were
    asked for are redone in threads, in order).

  ``python -m pytest``, notebooks and interactive sessions have no script for workers to
  re-run, so they get processes whenever the dataset pickles.

Both give the same batches (values, dtypes, order, ``cpu_shared(0)`` context); only speed
and the random streams of random transforms differ. ``XND_DATALOADER_START_METHOD``
(``spawn``, the default, or ``forkserver``) chooses how processes start. With processes:

* The dataset and ``batchify_fn`` are pickled once, when the loader is made, and sent to
  each worker, which keeps them for the loader's lifetime (as MXNet's ``multiprocessing.Pool``).
* A worker runs ``xnd/_dataloader_worker.py`` by path and imports numpy only: xnd's datasets
  and transform wrappers are shipped as numpy mirrors, and the default batchify makes numpy
  batches (MXNet's ``default_mp_batchify_fn``, without the shared-memory NDArrays). xnd is
  imported in a worker only for datasets that hold NDArrays behind a transform, for
  transforms that use mx.nd, or because the (guarded) script it re-runs imports mxnet; XLA
  and BLAS there run on one thread, on the CPU. When ``mxnet`` is xnd by alias in the main
  process (``python -m xnd run``), it is in the workers too.
* Batches come back over pipes as numpy (pickle protocol 5, buffers out of band) and the
  main process makes them NDArrays on ``cpu_shared(0)`` (the context MXNet's workers give).

``thread_pool=True`` runs the same work in threads of this process (no pickling, no warning).
``loader.fallback_reason`` says why a loader uses threads (None when it uses processes or was
asked for threads).
"""
import ast
import contextlib
import io
import itertools
import logging
import multiprocessing
import multiprocessing.connection
import multiprocessing.pool
import os
import pickle
import re
import runpy
import sys
import threading
import time
import types
import warnings
import weakref

import numpy as np

from .... import _dataloader_worker as _w
from ....context import Context, cpu_pinned
from ....ndarray import NDArray
from . import dataset as _dataset
from . import sampler as _sampler

__all__ = ["DataLoader", "DataLoaderFallbackWarning", "default_batchify_fn",
           "default_mp_batchify_fn"]

_log = logging.getLogger("xnd")

START_METHOD_ENV = "XND_DATALOADER_START_METHOD"
# How long a worker may take to start and load the dataset (not counted in ``timeout``).
STARTUP_TIMEOUT = 300.0


def default_batchify_fn(data):
    """Collate samples into a batch: stack NDArrays, recurse into tuples, else numpy."""
    from ... import nd
    if isinstance(data[0], NDArray):
        return nd.stack(*data)
    if isinstance(data[0], tuple):
        data = zip(*data)
        return [default_batchify_fn(i) for i in data]
    data = np.asarray(data)
    return nd.array(data, dtype=data.dtype)


def _shared_ctx():
    return Context("cpu_shared", 0)


def default_mp_batchify_fn(data):
    """default_batchify_fn for workers: the batch lives on ``cpu_shared(0)`` (as MXNet's)."""
    from ... import nd
    if isinstance(data[0], NDArray):
        return nd.stack(*data).as_in_context(_shared_ctx())
    if isinstance(data[0], tuple):
        data = zip(*data)
        return [default_mp_batchify_fn(i) for i in data]
    data = np.asarray(data)
    return nd.array(data, dtype=data.dtype, ctx=_shared_ctx())


def _as_in_context(data, ctx):
    """Move data into new context."""
    if isinstance(data, NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(d, ctx) for d in data]
    return data


def _fast_batch_fn(dataset):
    """``dataset._batch`` (one gather per array, what default_batchify_fn would make of the
    samples) unless a subclass overrides ``__getitem__`` below the class defining it."""
    return _w.fast_batch_fn(dataset)


def _batch(dataset, batchify_fn, default, indices, mp=False):
    if default:
        fast = _fast_batch_fn(dataset)
        if fast is not None:
            out = fast(indices)
            if out is not None:
                return _as_in_context(out, _shared_ctx()) if mp else out
    return batchify_fn([dataset[idx] for idx in indices])


class DataLoaderTimeoutError(multiprocessing.TimeoutError):
    """A worker did not deliver a batch within ``timeout`` seconds (a
    ``multiprocessing.TimeoutError``, the error MXNet raises)."""


class DataLoaderWorkerError(RuntimeError):
    """A worker process died, or could not load the dataset."""


class _WorkerStartupError(DataLoaderWorkerError):
    """The worker processes did not start or could not load the dataset (before they were
    ready): the DataLoader redoes their batches in threads. ``summary``: one line."""

    def __init__(self, message, summary):
        super().__init__(message)
        self.summary = summary


# ---- shipping the dataset to worker processes --------------------------------------------------
class _WorkerPickler(pickle.Pickler):
    """Pickles (dataset, batchify_fn) for the workers. xnd objects become persistent ids that
    the worker loads without xnd (see _dataloader_worker._load_persistent): the chain of
    xnd datasets from the top (transform / sample wrappers down to an ArrayDataset or
    SimpleDataset) as numpy mirrors, NDArray columns of those as numpy, the default batchify
    as a marker; any other NDArray as numpy that the worker turns back into an NDArray."""

    def __init__(self, file, dataset, batchify_fn):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._chain = set()
        self._columns = set()
        self._batchify_fn = batchify_fn
        self._walk(dataset)

    def _walk(self, ds):
        # only the exact xnd classes with the attributes the mirrors read; anything else
        # (a subclass, a changed class) is pickled as it is
        while True:
            t = type(ds)
            if t is _LAZY_TRANSFORM and _has(ds, "_data", "_fn"):
                self._chain.add(id(ds))
                ds = ds._data
            elif t is _SAMPLED and _has(ds, "_dataset", "_indices"):
                self._chain.add(id(ds))
                ds = ds._dataset
            elif t is _ARRAY and isinstance(getattr(ds, "_data", None), list):
                self._chain.add(id(ds))
                self._columns.update(id(c) for c in ds._data if isinstance(c, NDArray))
                return
            elif t is _SIMPLE and _has(ds, "_data"):
                self._chain.add(id(ds))
                if isinstance(ds._data, NDArray):
                    self._columns.add(id(ds._data))
                return
            else:
                return

    def reducer_override(self, obj):
        # functions and classes go by reference: a worker must be able to import them
        if isinstance(obj, (type, types.FunctionType)):
            _check_importable_in_workers(obj)
        return NotImplemented

    def persistent_id(self, obj):
        if isinstance(obj, NDArray):
            return ("ndcol" if id(obj) in self._columns else "nd", obj.asnumpy())
        t = type(obj)
        if id(obj) in self._chain:
            if t is _LAZY_TRANSFORM:
                return ("Transform", obj._data, obj._fn)
            if t is _SAMPLED:
                return ("Sampled", obj._dataset, list(obj._indices))
            if t is _ARRAY:
                return ("ArrayDataset", list(obj._data))
            if t is _SIMPLE:
                return ("SimpleDataset", obj._data)
        if t is _TRANSFORM_FIRST and _has(obj, "_fn"):
            return ("TransformFirst", obj._fn)
        if obj is self._batchify_fn and obj in (default_batchify_fn, default_mp_batchify_fn):
            return _w.DEFAULT_BATCHIFY
        return None


# the xnd classes shipped as numpy mirrors (looked up softly: dataset.py may change)
_ARRAY = getattr(_dataset, "ArrayDataset", None)
_SIMPLE = getattr(_dataset, "SimpleDataset", None)
_LAZY_TRANSFORM = getattr(_dataset, "_LazyTransformDataset", None)
_SAMPLED = getattr(_dataset, "_SampledDataset", None)
_TRANSFORM_FIRST = getattr(_dataset, "_TransformFirstClosure", None)


def _has(obj, *names):
    return all(hasattr(obj, n) for n in names)


class UnpicklableDatasetError(pickle.PicklingError, TypeError):
    """The dataset or batchify_fn cannot be sent to worker processes. DataLoader does not
    raise it: it catches it and runs its workers as threads (see the module docstring);
    ``what`` says what could not be sent."""

    def __init__(self, message, what=None):
        super().__init__(message)
        self.what = what or message


class _NotForWorkers(pickle.PicklingError):
    """A function or class that pickles by reference but that a worker cannot import."""

    def __init__(self, what):
        super().__init__(what)
        self.what = what


def _check_importable_in_workers(obj):
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", "?")
    kind = "class" if isinstance(obj, type) else "function"
    name = f"{module}.{qualname}" if module else qualname
    if "<lambda>" in qualname or "<locals>" in qualname:
        raise _NotForWorkers(f"the {kind} {name} is a lambda or a local {kind}, which pickle "
                             f"cannot send")
    if module not in ("__main__", "__mp_main__"):
        return
    path = _main_script()
    if path is None:
        raise _NotForWorkers(
            f"the {kind} {qualname} is defined in __main__ of an interactive session, a "
            f"notebook or `python -c`, which worker processes cannot import")
    info = _script_info(path)
    if isinstance(info, str):
        raise _NotForWorkers(f"the {kind} {qualname} is defined in the main script {path}, "
                             f"which xnd could not read or parse ({info})")
    if qualname.split(".")[0] not in info.names:
        raise _NotForWorkers(
            f"the {kind} {qualname} is not defined by top-level code of the main script {path} "
            f"outside `if __name__ == '__main__':`, so worker processes, which import the "
            f"script without running that block, would not find it")


def _worker_payload(dataset, batchify_fn):
    f = io.BytesIO()
    try:
        _WorkerPickler(f, dataset, batchify_fn).dump((dataset, batchify_fn))
    except Exception as e:
        what = e.what if isinstance(e, _NotForWorkers) else \
            f"pickling them failed with {type(e).__name__}: {e}"
        raise UnpicklableDatasetError(
            f"DataLoader with worker processes sends the dataset and batchify_fn to them, so "
            f"they must be picklable, and they are not: {what}", what) from e
    return f.getbuffer()  # no copy of a large dataset


# ---- processes or threads (see the module docstring) ---------------------------------------
class DataLoaderFallbackWarning(UserWarning):
    """A DataLoader with ``num_workers > 0`` runs its workers as threads of this process
    instead of worker processes (the batches are the same); the message says why and how to
    get processes. Issued once per cause."""


_warned = set()


def _warn_once(key, message):
    if key in _warned:
        return
    _warned.add(key)
    f, level = sys._getframe(0), 1  # point at the first frame outside this file
    while f is not None and f.f_code.co_filename == __file__:
        f, level = f.f_back, level + 1
    warnings.warn(message, DataLoaderFallbackWarning, stacklevel=level)


_PROCESS_REMEDY = ("define the dataset's transforms, Dataset classes and batchify_fn at "
                   "module level (not as lambdas or local functions) in a module or script "
                   "that worker processes can import")
_GUARD_REMEDY = ("put the script's entry code under `if __name__ == '__main__':`, as "
                 "multiprocessing requires for 'spawn'")
_SILENCE = "(num_workers=0 or thread_pool=True ask for no processes and do not warn)"


def _fallback_message(num_workers, why, remedy):
    return (f"DataLoader(num_workers={num_workers}) runs its workers as threads of this "
            f"process, not as worker processes: {why}. The batches are the same. To get worker "
            f"processes, {remedy} {_SILENCE}.")


def _main_script():
    """The file that a spawned worker re-runs as the main module before it does anything else
    (what multiprocessing.spawn.get_preparation_data / _fixup_main_* do), or None when
    workers re-run nothing: an interactive session, a notebook, ``python -c``, ``python -m
    pkg`` (a ``__main__`` module: ``python -m pytest``)."""
    main = sys.modules.get("__main__")
    if main is None:
        return None
    spec_name = getattr(getattr(main, "__spec__", None), "name", None)
    path = getattr(main, "__file__", None)
    if spec_name is not None:
        if spec_name == "__main__" or spec_name.endswith(".__main__"):
            return None
        return path or f"<module {spec_name}>"
    if not isinstance(path, str):
        return None
    if os.path.splitext(os.path.basename(path))[0] == "ipython":
        return None
    if not os.path.isabs(path) and multiprocessing.process.ORIGINAL_DIR is not None:
        path = os.path.join(multiprocessing.process.ORIGINAL_DIR, path)
    return os.path.normpath(path)


def _is_main_test(test):
    """``__name__ == '__main__'`` (either operand order)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)):
        return False
    a, b = test.left, test.comparators[0]

    def name(n):
        return isinstance(n, ast.Name) and n.id == "__name__"

    def main(n):
        return isinstance(n, ast.Constant) and n.value == "__main__"

    return (name(a) and main(b)) or (main(a) and name(b))


class _ScriptInfo:
    """What a parsed main script tells: ``guards``, the line ranges of the bodies of its
    top-level ``if __name__ == '__main__':`` blocks (also inside top-level try/with/if...),
    and ``names``, the names that its top-level code outside those bodies binds (what a
    worker that re-runs the script as ``__mp_main__`` has)."""

    def __init__(self, tree):
        self.guards = []
        self.names = set()
        self._visit(tree.body)

    def guarded(self, line):
        return any(first <= line <= last for first, last in self.guards)

    def _visit(self, stmts):
        for st in stmts:
            if isinstance(st, ast.If) and _is_main_test(st.test):
                self.guards.append((st.body[0].lineno,
                                    max(getattr(b, "end_lineno", b.lineno) or b.lineno
                                        for b in st.body)))
                self._visit(st.orelse)  # the else branch runs in workers
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.names.add(st.name)
            elif isinstance(st, (ast.Import, ast.ImportFrom)):
                for alias in st.names:
                    self.names.add((alias.asname or alias.name).partition(".")[0])
            else:
                nested = []
                for child in ast.iter_child_nodes(st):
                    if isinstance(child, ast.stmt):
                        continue
                    if isinstance(child, ast.ExceptHandler) or \
                            type(child).__name__ == "match_case":
                        nested.append(child)
                        continue
                    for node in ast.walk(child):
                        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                            self.names.add(node.id)
                for field in ("body", "orelse", "finalbody"):
                    body = getattr(st, field, None)
                    if isinstance(body, list):
                        self._visit(body)
                for child in nested:
                    if getattr(child, "name", None):
                        self.names.add(child.name)
                    self._visit(child.body)


_scripts = {}  # path -> ((mtime_ns, size), _ScriptInfo or why it could not be read)


def _script_info(path):
    """The _ScriptInfo of ``path`` (parsed once per version of the file), or the error (a
    string) that kept it from being read or parsed."""
    try:
        st = os.stat(path)
        key = (st.st_mtime_ns, st.st_size)
    except (OSError, ValueError) as e:
        return f"{type(e).__name__}: {e}"
    hit = _scripts.get(path)
    if hit is not None and hit[0] == key:
        return hit[1]
    try:
        with open(path, "rb") as f:
            info = _ScriptInfo(ast.parse(f.read(), filename=path))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError) as e:
        info = f"{type(e).__name__}: {e}"
    _scripts[path] = (key, info)
    return info


def _main_line(main):
    """The line of the main module's top-level code that this thread (else the main thread)
    is executing, 0 if unknown, None when neither is executing it (it has finished)."""
    g = getattr(main, "__dict__", None)
    frames = [sys._getframe(1)]
    main_thread = threading.main_thread()
    if threading.current_thread() is not main_thread:
        frames.append(sys._current_frames().get(main_thread.ident))
    for f in frames:
        while f is not None:
            if f.f_globals is g and f.f_code.co_name == "<module>":
                return f.f_lineno or 0
            f = f.f_back
    return None


def _importing_main_in_child():
    """True while this process is a multiprocessing child that is still importing the main
    module (the bootstrapping in which starting processes raises RuntimeError)."""
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        return True
    if multiprocessing.parent_process() is None:
        return False
    f = sys._getframe(1)
    while f is not None:
        if f.f_code.co_name == "<module>" and f.f_globals.get("__name__") == "__mp_main__":
            return True
        f = f.f_back
    return False


def _process_hazard():
    """None when worker processes may start; else ``(key, why, remedy)``: threads."""
    if _importing_main_in_child():
        return (("bootstrap",), "this process is itself a worker process that is still "
                "importing the main script (multiprocessing cannot start processes then)",
                _GUARD_REMEDY)
    if multiprocessing.current_process().daemon:
        return (("daemon",), "this process is daemonic, and multiprocessing does not let "
                "daemonic processes have children", "make the DataLoader in a non-daemonic "
                "process")
    path = _main_script()
    if path is None:
        return None
    info = _script_info(path)
    if isinstance(info, str):
        return (("unreadable", path), f"xnd could not read or parse the main script {path} "
                f"({info}), so it cannot tell whether the DataLoader is made under "
                f"`if __name__ == '__main__':`, and worker processes (started with spawn) re-run "
                f"the script's top-level code", _GUARD_REMEDY + " in a readable .py file")
    line = _main_line(sys.modules["__main__"])
    if line is None:  # made after the script's top level ended (a thread, atexit)
        if info.guards:
            return None
        return (("unguarded", path), f"the main script {path} has no top-level "
                f"`if __name__ == '__main__':` block, and worker processes (started with "
                f"spawn) would run its top-level code again", _GUARD_REMEDY)
    if info.guarded(line):
        return None
    return (("unguarded", path), f"it is made by top-level code of the main script {path} "
            f"(line {line}) that is not under `if __name__ == '__main__':`, and worker "
            f"processes (started with spawn) re-run that code, so each would run the script "
            f"again", _GUARD_REMEDY)


# ---- the process pool ------------------------------------------------------------------------
class _ResultUnpickler(pickle.Unpickler):
    def persistent_load(self, pid):
        if pid[0] != "nd":
            raise pickle.UnpicklingError(f"unknown DataLoader result id {pid[0]!r}")
        from ... import nd
        arr = pid[1]
        return nd.array(arr, dtype=arr.dtype, ctx=_shared_ctx())


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
            result = ("ok", _ResultUnpickler(io.BytesIO(result[1][0]),
                                             buffers=result[1][1]).load())
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
        # (task, indices) in order; task: a task id (process pool) or AsyncResult (threads)
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
    """MXNet's ThreadPool path: the same tasks run in threads of this process."""

    def __init__(self, num_workers, dataset, batchify_fn, default, timeout):
        self._pool = multiprocessing.pool.ThreadPool(num_workers)
        self._dataset = dataset
        self._batchify_fn = batchify_fn
        self._default = default
        self.timeout = timeout
        self.closed = False

    def submit(self, indices):
        return self._pool.apply_async(_batch, (self._dataset, self._batchify_fn, self._default,
                                               indices, True))

    def abandon(self, tasks):
        pass

    def get(self, task):
        try:
            return task.get(self.timeout)
        except multiprocessing.TimeoutError:
            raise DataLoaderTimeoutError(
                f"DataLoader worker thread timed out after {self.timeout} seconds. This might "
                f"be caused by a slow transform or batchify_fn: increase `timeout` to allow "
                f"slower data loading.") from None

    def shutdown(self):
        if not self.closed:
            self.closed = True
            self._pool.close()  # threads finish their current task; no join, no hang


_STARTUP_REMEDY = ("make sure that a fresh interpreter can import the main script and "
                   "everything the dataset and batchify_fn use")


def _startup_why(exc):
    return (f"the worker processes did not start ({exc.summary}), so the batches asked of "
            f"them are made again, in order")


def _startup_hook(loader):
    """``_MultiWorkerIter``'s on_startup_error for ``loader`` (a weak reference: no cycle)."""
    ref = weakref.ref(loader)

    def hook(pool, exc):
        ld = ref()
        return None if ld is None else ld._startup_failed(pool, exc)

    return hook


class DataLoader:
    """Loads mini-batches from ``dataset`` (see MXNet's gluon.data.DataLoader).

    ``num_workers > 0``: worker processes (``thread_pool=False``) or threads load and batch
    the samples; ``prefetch`` (default ``2 * num_workers``) batches are requested ahead;
    ``timeout`` seconds is how long one batch may take in a worker. Worker processes are
    used when the dataset and ``batchify_fn`` pickle and the main script is guarded;
    otherwise threads give the same batches, with a ``DataLoaderFallbackWarning`` (see the
    module docstring). ``fallback_reason`` is why threads are used, or None.
    ``auto_reload``: start prefetching the next epoch when one ends (and at creation).
    ``try_nopython`` (MXNet 2.0) is accepted and ignored.
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False,
                 pin_device_id=0, prefetch=None, thread_pool=False, timeout=120,
                 auto_reload=False, try_nopython=None):
        self._worker_pool = None
        self.fallback_reason = None
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        self._timeout = timeout
        assert timeout > 0, f"timeout must be positive, given {timeout}"
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be specified unless batch_sampler is specified")
            if sampler is None:
                if shuffle:
                    sampler = _sampler.RandomSampler(len(dataset))
                else:
                    sampler = _sampler.SequentialSampler(len(dataset))
            elif shuffle:
                raise ValueError("shuffle must not be specified if sampler is specified")
            batch_sampler = _sampler.BatchSampler(sampler, batch_size,
                                                  last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise ValueError("batch_size, shuffle, sampler and last_batch must not be specified "
                             "if batch_sampler is specified.")
        self._batch_sampler = batch_sampler
        self._num_workers = num_workers if num_workers >= 0 else 0
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * self._num_workers)
        self._default_batchify = batchify_fn is None
        if batchify_fn is None:
            batchify_fn = default_mp_batchify_fn if self._num_workers > 0 else default_batchify_fn
        self._batchify_fn = batchify_fn
        if self._num_workers > 0:
            self._worker_pool = self._new_pool()
        self.auto_reload = auto_reload
        self._iter = None
        if self.auto_reload:
            self.refresh()

    def __iter__(self):
        if self._iter is None:
            self.refresh()
        t = self._iter
        self._iter = None  # an iterator is used once
        try:
            for item in t:
                yield item
        finally:
            if isinstance(t, _MultiWorkerIter):
                t.close()
        if self._iter is None and self.auto_reload:
            self.refresh()

    def _new_pool(self):
        """Worker processes when they are safe (the dataset is pickled here, once), else
        threads with a warning (see the module docstring)."""
        if not self._thread_pool and self.fallback_reason is None:
            hazard = _process_hazard()
            if hazard is None:
                try:
                    payload = _worker_payload(self._dataset, self._batchify_fn)
                except UnpicklableDatasetError as e:
                    key = re.sub(r" at 0x[0-9a-fA-F]+", "", e.what)
                    hazard = (("pickle", key), e.what, _PROCESS_REMEDY)
                else:
                    try:
                        return _ProcessPool(self._num_workers, payload, self._timeout)
                    except _WorkerStartupError as e:
                        hazard = (("startup", e.summary), _startup_why(e), _STARTUP_REMEDY)
            self._fall_back(hazard)
        return self._new_thread_pool()

    def _new_thread_pool(self):
        return _ThreadPool(self._num_workers, self._dataset, self._batchify_fn,
                           self._default_batchify, self._timeout)

    def _fall_back(self, hazard):
        key, why, remedy = hazard
        self.fallback_reason = why
        _warn_once(key, _fallback_message(self._num_workers, why, remedy))

    def _startup_failed(self, pool, exc):
        """The worker processes of ``pool`` did not start: threads from now on."""
        pool.shutdown(grace=0.0)
        current = self._worker_pool
        if isinstance(current, _ThreadPool):
            return current
        if current is not pool:  # another iterator restarted it: it goes the same way
            current.shutdown(grace=0.0)
        self._fall_back((("startup", exc.summary), _startup_why(exc), _STARTUP_REMEDY))
        self._worker_pool = self._new_thread_pool()
        return self._worker_pool

    def _pool(self):
        """The worker pool, restarted when a timeout or a dead worker shut it down."""
        pool = self._worker_pool
        if pool.closed and isinstance(pool, _ProcessPool):
            pool = self._worker_pool = self._new_pool()
        return pool

    def _prefetch_iter(self):
        if self._num_workers == 0:
            return self._same_process_iter()
        return _MultiWorkerIter(self._pool(), self._batch_sampler, self._prefetch,
                                self._pin_memory, self._pin_device_id,
                                _startup_hook(self))

    def _same_process_iter(self):
        pin = cpu_pinned(self._pin_device_id) if self._pin_memory else None
        for batch in self._batch_sampler:
            ret = _batch(self._dataset, self._batchify_fn, self._default_batchify, batch)
            if pin is not None:
                ret = _as_in_context(ret, pin)
            yield ret

    def refresh(self):
        """Refresh its iter, fetch data again from its dataset"""
        if isinstance(self._iter, _MultiWorkerIter):
            self._iter.close()
        self._iter = self._prefetch_iter()

    def clean(self):
        """Remove its prefetched iter, the prefetch step will start after call its __iter__()"""
        if isinstance(self._iter, _MultiWorkerIter):
            self._iter.close()
        self._iter = None

    def __len__(self):
        return len(self._batch_sampler)

    def __del__(self):
        pool = getattr(self, "_worker_pool", None)
        if pool is not None:
            try:
                pool.shutdown()
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass
