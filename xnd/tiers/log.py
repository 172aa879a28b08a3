"""``XND_LOG_COMPILES=1``: one line on stderr for each XLA compilation, saying which program,
which tier, how long, and whether JAX's persistent compilation cache had it::

    xnd compile: graph _run tier=quick 0.412 s cache=miss
    xnd compile: graph _run tier=optimized/background 1.870 s cache=miss
    xnd compile: other jit(_mul_scalar) tier=optimized 0.031 s cache=hit

It listens to JAX's public monitoring events, which JAX records on the thread that compiles:
a persistent-cache hit (``/jax/compilation_cache/cache_hits``) and the end of each backend
compilation (``/jax/core/compile/backend_compile_duration``, whose time includes a cache
read).  The program and tier come from ``program()``, which tiered programs and the
background workers enter around each call; a compile outside them (an eager kernel, a
user's own ``jax.jit``) is ``other`` at the optimized tier, named as JAX names it.
``cache=off`` where the persistent cache is not in use.
"""
import contextlib
import sys
import threading

import jax

_EVENT = "/jax/core/compile/backend_compile_duration"
_USE = "/jax/compilation_cache/compile_requests_use_cache"
_HIT = "/jax/compilation_cache/cache_hits"
_here = threading.local()
_installed = []
_out = []             # tests: lines go here as well as to stderr


@contextlib.contextmanager
def program(kind, name, tier):
    """Compilations on this thread inside belong to program ``name`` of ``kind`` at ``tier``."""
    was = getattr(_here, "label", None)
    _here.label = (kind, name, tier)
    try:
        yield
    finally:
        _here.label = was


def line(kind, name, tier, seconds, cache):
    """The log line of one compilation (without the newline)."""
    return f"xnd compile: {kind} {name} tier={tier} {seconds:.3f} s cache={cache}"


def _on_event(event, **_):
    if event == _USE:
        _here.cache = "miss"
    elif event == _HIT:
        _here.cache = "hit"


def _on_duration(event, duration, **kw):
    if event != _EVENT:
        return
    kind, name, tier = getattr(_here, "label", None) or (
        "other", kw.get("fun_name", "program"), "optimized")
    cache = getattr(_here, "cache", None) or "off"
    _here.cache = None
    text = line(kind, name, tier, duration, cache)
    _out.append(text)
    del _out[:-100]
    print(text, file=sys.stderr, flush=True)


def install():
    """Start logging (once; ``xnd.tiers`` calls it when ``XND_LOG_COMPILES=1``)."""
    if not _installed:
        _installed.append(True)
        jax.monitoring.register_event_listener(_on_event)
        jax.monitoring.register_event_duration_secs_listener(_on_duration)
