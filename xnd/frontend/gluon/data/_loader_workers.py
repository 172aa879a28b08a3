"""Processes or threads for a DataLoader with ``num_workers > 0``, and how the dataset travels
to worker processes (part of mxnet.gluon.data.dataloader; the rules are in the docstring of
xnd/frontend/gluon/data/dataloader.py): whether the main script is guarded, whether this
process may start children, and the pickling of (dataset, batchify_fn) with xnd objects
as persistent ids that a numpy-only worker (xnd/_dataloader_worker.py) loads as mirrors.
"""
import ast
import io
import multiprocessing
import os
import pickle
import sys
import threading
import types
import warnings

from .... import _dataloader_worker as _w
from ....ndarray import NDArray
from . import dataset as _dataset
from ._loader_common import default_batchify_fn, default_mp_batchify_fn


# ---- processes or threads (see the module docstring) ---------------------------------------
class DataLoaderFallbackWarning(UserWarning):
    """A DataLoader with ``num_workers > 0`` runs its workers as threads of this process
    instead of worker processes (the batches are the same); the message says why and how to
    get processes. Issued once per cause."""


_warned = set()
_HERE = os.path.dirname(os.path.abspath(__file__))


def _in_loader(filename):
    """Whether `filename` is one of the DataLoader's files (dataloader.py, _loader_*.py)."""
    return (os.path.dirname(os.path.abspath(filename)) == _HERE
            and os.path.basename(filename).startswith(("dataloader.", "_loader_")))


def _warn_once(key, message):
    if key in _warned:
        return
    _warned.add(key)
    f, level = sys._getframe(0), 1  # point at the first frame outside the DataLoader's files
    while f is not None and _in_loader(f.f_code.co_filename):
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
