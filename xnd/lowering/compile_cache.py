"""xnd's persistent compilation cache: JAX's, on by default, in the user's cache directory.

MXNet has no compile step; xnd compiles every kernel and whole-step program with XLA, which
costs seconds for a training step and 30-70 ms for each small kernel on a 2-core machine.
JAX can keep compiled programs on disk (its persistent compilation cache), so a second
process loads them instead of compiling: this module turns that on for every process that
imports xnd, through JAX's public configuration only.

``XND_COMPILATION_CACHE`` picks the directory:

* unset: ``$XDG_CACHE_HOME/xnd/jax-cache`` (``~/.cache/xnd/jax-cache`` without it);
* ``0``, ``off``, ``false``, ``no`` or empty: no persistent cache;
* anything else: that directory.

A cache directory the user gave JAX (``JAX_COMPILATION_CACHE_DIR`` or
``jax.config.update('jax_compilation_cache_dir', ...)`` before importing xnd) is left as it
is.  ``XND_COMPILATION_CACHE_MAX_MB`` bounds the directory (default 2048): JAX evicts least
recently used entries when the ``filelock`` package is installed (it then also locks every
read and write, for processes sharing the directory); without it, ``setup`` deletes the
oldest entries above the bound when xnd is imported.  Every program is stored, however
fast it compiled (``jax_persistent_cache_min_compile_time_secs=0``): on 2 cores even a
one-op kernel compiles in tens of milliseconds and loads in about one.

A corrupt or half-written entry (another process writing it, a full disk) makes JAX
recompile that program, never fail (``jax_raise_persistent_cache_errors`` stays False);
its warning is silenced here, since the recompilation is the whole remedy.
"""
import os
import warnings

import jax

from .. import _compat_jax

DISABLED = {"0", "off", "false", "no", ""}
DEFAULT_MAX_MB = 2048
_ENTRY_SUFFIX = "-cache"     # JAX's file names: <key>-cache (and <key>-atime with eviction)

_state = {"dir": None, "owner": None}


def default_dir(environ=os.environ):
    """``$XDG_CACHE_HOME/xnd/jax-cache``, or ``~/.cache/xnd/jax-cache``."""
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "xnd", "jax-cache")


def configured_dir(environ=os.environ):
    """The directory ``XND_COMPILATION_CACHE`` asks for, or None when it disables the cache."""
    v = environ.get("XND_COMPILATION_CACHE")
    if v is None:
        return default_dir(environ)
    if v.strip().lower() in DISABLED:
        return None
    return os.path.abspath(os.path.expanduser(v))


def max_bytes(environ=os.environ):
    try:
        mb = float(environ.get("XND_COMPILATION_CACHE_MAX_MB", DEFAULT_MAX_MB))
    except ValueError:
        mb = DEFAULT_MAX_MB
    return max(int(mb * 2 ** 20), 1)


def _have_filelock():
    try:
        import filelock  # noqa: F401  (JAX's LRU eviction and locking need it)
        return True
    except ImportError:
        return False


def prune(path, limit):
    """Delete the least recently modified cache entries until ``path`` holds at most
    ``limit`` bytes of them; races with other processes are harmless (a vanished file is
    skipped, a deleted entry is recompiled).  Returns the number of entries deleted."""
    try:
        entries = []
        with os.scandir(path) as it:
            for e in it:
                if e.name.endswith(_ENTRY_SUFFIX) and e.is_file():
                    st = e.stat()
                    entries.append((st.st_mtime, st.st_size, e.path))
    except OSError:
        return 0
    total = sum(s for _, s, _ in entries)
    deleted = 0
    for _, size, p in sorted(entries):
        if total <= limit:
            break
        try:
            os.remove(p)
        except OSError:
            continue
        total -= size
        deleted += 1
    return deleted


def setup(environ=os.environ):
    """Point JAX's persistent cache at ``configured_dir()`` unless the user set one.  Called
    once when xnd is imported (before its first compilation); calling it again after
    changing the environment moves the cache.  Returns the directory in use, or None."""
    cfg = jax.config
    user_dir = cfg.jax_compilation_cache_dir
    if user_dir and user_dir != _state["dir"]:
        _state.update(dir=user_dir, owner="user")
        return user_dir
    # xnd's default cache only where JAX runs what it loads (xnd/_compat_jax.py)
    path = configured_dir(environ) if _compat_jax.PERSISTENT_CACHE else None
    if path is not None:
        try:
            os.makedirs(path, exist_ok=True)
        except OSError:
            path = None                    # read-only home, ...: run without a cache
    limit = max_bytes(environ)
    if path is not None and not _have_filelock():
        prune(path, limit)
    _set_dir(path)
    if path is not None:
        cfg.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        cfg.update("jax_persistent_cache_min_entry_size_bytes", -1)   # every entry, any size
        cfg.update("jax_raise_persistent_cache_errors", False)
        if _have_filelock():
            cfg.update("jax_compilation_cache_max_size", limit)
    _state.update(dir=path, owner="xnd")
    return path


def _set_dir(path):
    """Change the directory, also after JAX has opened a cache (it keeps the one it opened
    until ``reset_cache``, which ``jax.experimental.compilation_cache`` makes public)."""
    from jax.experimental.compilation_cache import compilation_cache as cc
    jax.config.update("jax_compilation_cache_dir", path)
    jax.config.update("jax_enable_compilation_cache", path is not None)
    if hasattr(cc, "reset_cache"):
        cc.reset_cache()


def cache_dir():
    """The directory in use, or None."""
    return _state["dir"]


warnings.filterwarnings("ignore", message="Error reading persistent compilation cache entry")
