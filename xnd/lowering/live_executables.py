"""A bound on the compiled XLA programs one process keeps alive.

MXNet runs a new shape through the same precompiled kernel; xnd compiles one XLA program per
(operator, attributes, input shapes), and JAX keeps every one of them for the life of its
``jit`` function.  A process that meets many shapes (a test suite, a notebook sweeping sizes,
variable-length inputs) piles up thousands: on Linux each XLA:CPU executable maps about six
memory regions, and near ``vm.max_map_count`` (65,530 by default, about 10,000 programs) LLVM
fails with "Cannot allocate memory" and the process dies in the next compilation.

This module counts backend compilations (JAX's public monitoring events).  Every
``CHECK_EVERY`` compilations it reads the process's map count; past ``MAP_SHARE`` of the
limit (or, where ``/proc`` is absent, past ``MAX_COMPILES`` compilations since the last
release) it marks a release as due, and the next eager operator call (``release_if_concrete``,
never inside a trace) drops JAX's in-memory caches with ``jax.clear_caches()``.  Programs
still in use are recompiled on their next call, from the persistent compilation cache when
it is on (about a millisecond each), so a release costs little and happens only when the
process would otherwise run out of mappings.  The same release is due when the process's
resident memory passes ``RSS_SHARE`` of the machine's: an XLA:CPU executable holds a few
megabytes, and MXNet's test_operator (thousands of shapes in one process) grew to 19 GB
before the map bound was near.  ``XND_MAX_LIVE_COMPILES`` overrides the
count bound (0: never release).
"""
import os

import jax

CHECK_EVERY = 256
MAP_SHARE = 0.6
RSS_SHARE = float(os.environ.get("XND_LIVE_RSS_SHARE", 0.25))
MAX_COMPILES = int(os.environ.get("XND_MAX_LIVE_COMPILES", 6000))
_EVENT = "/jax/core/compile/backend_compile_duration"
_MAPS = "/proc/self/maps"

STATE = {"since": 0, "due": False, "releases": 0}


def _map_limit():
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


LIMIT = _map_limit()


def _physical_bytes():
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


PHYSICAL = _physical_bytes()


def resident_bytes():
    """This process's resident memory, or None without ``/proc``."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def map_count():
    """Memory regions this process maps now, or None without ``/proc``."""
    try:
        with open(_MAPS, "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return None


def _over_bound():
    if MAX_COMPILES <= 0:
        return False
    rss = resident_bytes() if PHYSICAL else None
    if rss is not None and rss > RSS_SHARE * PHYSICAL:
        return True
    maps = map_count() if LIMIT else None
    if maps is not None:
        return maps > MAP_SHARE * LIMIT or STATE["since"] >= 2 * MAX_COMPILES
    return STATE["since"] >= MAX_COMPILES


def _on_event(event, *_args, **_kw):
    if event != _EVENT:
        return
    STATE["since"] += 1
    if STATE["since"] % CHECK_EVERY == 0 and _over_bound():
        STATE["due"] = True


def release_if_concrete(values):
    """Drop JAX's in-memory executables, unless ``values`` hold tracers (a trace is running)."""
    if not any(isinstance(v, jax.core.Tracer) for v in values):
        release()


def release():
    STATE.update(due=False, since=0, releases=STATE["releases"] + 1)
    jax.clear_caches()


def releases():
    """How many times this process released its compiled programs."""
    return STATE["releases"]


jax.monitoring.register_event_duration_secs_listener(_on_event)
