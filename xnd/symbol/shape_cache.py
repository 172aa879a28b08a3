"""Operator output shapes kept on disk between processes, next to the compilation cache.

MXNet infers a graph's shapes with per-operator C++ rules in microseconds; xnd has one
implementation of each operator and gets its output shapes by tracing it abstractly
(``jax.eval_shape``, symbol/infer.py), 2-4 ms per distinct (operator, attributes, input
shapes).  ResNet-18's deferred initialization in a fresh process traced 28 of them, 0.1 s
of a first hybridized forward that takes 0.5 s once its programs come from the compilation
cache.  So the results are also written to ``xnd-shapes-<fingerprint>.json`` in the
compilation cache's directory when the process exits, and a later process reads them there.

An entry is plain data (shapes and dtype names: loading it runs no code).  The file's name
holds a fingerprint of xnd's source files (their sizes and modification times) and of JAX's
and numpy's versions: an edited operator starts a new file, never reads an old shape.  A
key holds what an operator's shapes may depend on: its attributes, training mode, the two
NumPy-semantics flags, 64-bit mode and its inputs' shapes and dtypes.  Writes are atomic
(a reader sees the old or the new file, never a torn one), merged with what other processes
wrote meanwhile; a corrupt file is ignored.
``XND_COMPILATION_CACHE=0`` turns this off with the compilation cache; at most
``MAX_ENTRIES`` entries are kept.
"""
import atexit
import contextlib
import hashlib
import json
import os
import threading
import time

import jax
import numpy as np

from .. import serialization

MAX_ENTRIES = 50_000
_lock = threading.Lock()
_state = {"path": False, "known": None, "new": {}, "at_exit": False}


def _fingerprint():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))     # the xnd package
    h = hashlib.sha1(f"{jax.__version__} {np.__version__}".encode())
    for base, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(base, name))
                h.update(f"{os.path.relpath(os.path.join(base, name), root)} {st.st_size} "
                         f"{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def path():
    """This process's file, or None when the compilation cache is off."""
    if _state["path"] is False:
        from ..lowering import compile_cache
        d = compile_cache.cache_dir()
        _state["path"] = os.path.join(d, f"xnd-shapes-{_fingerprint()}.json") if d else None
    return _state["path"]


def _read(p):
    try:
        with open(p, encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


_USER_CODE = frozenset({"Custom"})      # shapes from the user's own infer_shape


def _plain(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return True
    return isinstance(v, (tuple, list)) and all(_plain(x) for x in v)


def key(op_name, params, is_train, in_structs):
    """The text key of one evaluation, or None where the shapes may depend on more than
    the key says (a custom operator's Python, an attribute that is not plain data)."""
    from ..semantics import is_np_array, is_np_shape
    if op_name in _USER_CODE or not all(_plain(v) for v in params.values()):
        return None
    try:
        parts = (op_name, sorted(params.items()), bool(is_train), is_np_shape(), is_np_array(),
                 bool(jax.config.jax_enable_x64),
                 [(tuple(int(d) for d in s.shape), np.dtype(s.dtype).str) for s in in_structs])
    except (TypeError, ValueError):
        return None
    return repr(parts)


def get(k):
    """The cached output structs for key ``k``, or None."""
    if k is None or path() is None:
        return None
    with _lock:
        if _state["known"] is None:
            _state["known"] = _read(path())
        hit = _state["known"].get(k)
    if not isinstance(hit, list):
        return None
    try:
        return [jax.ShapeDtypeStruct(tuple(shape), np.dtype(dt), weak_type=True) if weak
                else jax.ShapeDtypeStruct(tuple(shape), np.dtype(dt)) for shape, dt, weak in hit]
    except (TypeError, ValueError):     # (jax 0.4.30 has no weakly typed struct: traced)
        return None


def put(k, structs):
    if k is None or path() is None:
        return
    entry = [[list(map(int, s.shape)), np.dtype(s.dtype).str, bool(getattr(s, "weak_type", False))]
             for s in structs]
    with _lock:
        if len(_state["new"]) < MAX_ENTRIES:
            _state["new"][k] = entry
        if not _state["at_exit"]:
            _state["at_exit"] = True
            atexit.register(flush)


def flush():
    """Merge this process's new entries into the file (``serialization.atomic_write``: a
    reader sees the old file or the new one); a directory it cannot write keeps nothing."""
    with _lock:
        new, _state["new"] = _state["new"], {}
    p = path()
    if not new or p is None:
        return
    merged = _read(p)
    if len(merged) + len(new) > MAX_ENTRIES:
        merged = {}
    merged.update(new)
    try:
        os.makedirs(os.path.dirname(p), exist_ok=True)
        serialization.atomic_write_text(p, json.dumps(merged, separators=(",", ":")))
    except OSError:
        return
    _drop_stale(p)


STALE_S = 30 * 86400


def _drop_stale(current):
    """Files of other fingerprints (another xnd, edited sources) unused for ``STALE_S``."""
    d = os.path.dirname(current)
    for name in os.listdir(d):
        f = os.path.join(d, name)
        if name.startswith("xnd-shapes-") and f != current:
            with contextlib.suppress(OSError):
                if time.time() - os.stat(f).st_mtime > STALE_S:
                    os.unlink(f)
