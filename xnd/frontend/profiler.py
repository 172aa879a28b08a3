"""mx.profiler on JAX's profiler.

MXNet's profiler records every operator and writes a Chrome trace
(``profile.json``) and aggregate tables (`dumps`). xnd's operators are XLA
computations, so the useful trace is JAX's:

* ``set_config(filename='profile.json', ...)`` is accepted (every MXNet key);
  the file name decides where the JAX trace goes: the folder
  ``<filename without .json>_jax_trace/`` (TensorBoard's profile plugin or
  Perfetto read it).
* ``set_state('run')`` starts ``jax.profiler.start_trace`` into that folder;
  ``set_state('stop')`` (or `dump`) stops it. `pause`/`resume` stop and start a
  new trace in the same folder.
* ``dump()`` stops the trace and writes ``filename`` as a small Chrome-trace
  JSON file (no events) that says where the JAX trace is, so scripts that
  open the file still find one.
* ``dumps()`` returns a table header with a note instead of MXNet's aggregate
  statistics, which xnd does not collect.
* `Domain`, `Task`, `Frame`, `Event` map to ``jax.profiler.TraceAnnotation``
  (they show as named ranges in the JAX trace); `Counter` keeps its value;
  `Marker.mark` is accepted.

The first call that cannot do what MXNet would logs one INFO line saying so.
If the JAX profiler cannot start (another trace running, no profiler in
this jaxlib), the calls become no-ops after one WARNING.
"""
import json
import logging
import os
import warnings

__all__ = ["set_config", "profiler_set_config", "set_state", "profiler_set_state", "dump",
           "dump_profile", "dumps", "pause", "resume", "Domain", "Task", "Frame", "Event",
           "Counter", "Marker", "set_kvstore_handle"]

_log = logging.getLogger("xnd")

_CONFIG_KEYS = {"filename", "profile_all", "profile_symbolic", "profile_imperative",
                "profile_memory", "profile_api", "continuous_dump", "dump_period",
                "aggregate_stats", "profile_process"}

_state = {"config": {"filename": "profile.json"}, "running": False, "paused": False,
          "trace_dir": None, "failed": False}
_said = set()


def _once(key, level, msg, *args):
    if key not in _said:
        _said.add(key)
        _log.log(level, msg, *args)


def _trace_dir():
    filename = str(_state["config"].get("filename", "profile.json"))
    root, ext = os.path.splitext(filename)
    return (root if ext.lower() == ".json" else filename) + "_jax_trace"


def _start():
    if _state["failed"]:
        return
    import jax

    d = _trace_dir()
    try:
        jax.profiler.start_trace(d)
    except Exception as e:  # another trace running, or a jaxlib without the profiler
        _state["failed"] = True
        _log.warning("xnd: mx.profiler could not start the JAX profiler (%s); profiler calls are "
                     "accepted and do nothing", e)
        return
    _state["running"], _state["trace_dir"] = True, d
    _once("start", logging.INFO, "xnd: mx.profiler traces with the JAX profiler into %s "
          "(open it with TensorBoard's profile plugin or Perfetto)", d)


def _stop():
    if not _state["running"]:
        return
    import jax

    try:
        jax.profiler.stop_trace()
    except Exception as e:
        _log.warning("xnd: stopping the JAX profiler failed: %s", e)
    _state["running"] = False


def set_kvstore_handle(handle):
    """Accepted (xnd has no parameter-server processes to profile)."""


def set_config(**kwargs):
    """Set up the profiler (keyword arguments only, MXNet's keys: filename, profile_all,
    profile_symbolic, profile_imperative, profile_memory, profile_api, continuous_dump,
    dump_period, aggregate_stats, profile_process). Only ``filename`` changes anything."""
    unknown = set(kwargs) - _CONFIG_KEYS
    if unknown:
        from ..base import MXNetError
        raise MXNetError(f"profiler.set_config: unknown parameter(s) {sorted(unknown)}; "
                         f"known: {sorted(_CONFIG_KEYS)}")
    _state["config"].update(kwargs)
    ignored = sorted(k for k in kwargs if k != "filename")
    if ignored:
        _once("config", logging.INFO, "xnd: mx.profiler traces everything JAX runs; the options "
              "%s are accepted and ignored", ", ".join(ignored))


def profiler_set_config(mode="symbolic", filename="profile.json"):
    """Deprecated form of set_config."""
    warnings.warn("profiler.profiler_set_config() is deprecated. Please use profiler.set_config() instead")
    set_config(**{"profile_" + mode: True, "filename": filename})


def set_state(state="stop", profile_process="worker"):
    """'run' starts tracing, 'stop' stops it."""
    if state not in ("run", "stop"):
        raise KeyError(state)
    if profile_process not in ("worker", "server"):
        raise KeyError(profile_process)
    if state == "run":
        if not _state["running"]:
            _state["paused"] = False
            _start()
    else:
        _stop()
        _state["paused"] = False


def profiler_set_state(state="stop"):
    """Deprecated form of set_state."""
    warnings.warn("profiler.profiler_set_state() is deprecated. Please use profiler.set_state() instead")
    set_state(state)


def dump(finished=True, profile_process="worker"):
    """Stop the JAX trace (when `finished`) and write ``filename``: a Chrome-trace JSON
    file without events that names the folder of the JAX trace."""
    if profile_process not in ("worker", "server"):
        raise KeyError(profile_process)
    if finished:
        _stop()
    filename = str(_state["config"].get("filename", "profile.json"))
    note = {"traceEvents": [], "displayTimeUnit": "ms",
            "otherData": {"xnd": "operator events are in the JAX trace, not in this file",
                          "jax_trace": os.path.abspath(_state["trace_dir"] or _trace_dir())}}
    try:
        with open(filename, "w") as f:
            json.dump(note, f, indent=1)
    except OSError as e:
        _log.warning("xnd: mx.profiler.dump could not write %s: %s", filename, e)
    _once("dump", logging.INFO, "xnd: mx.profiler.dump writes no operator events to %s; the JAX "
          "trace is in %s", filename, _state["trace_dir"] or _trace_dir())


def dump_profile():
    """Deprecated form of dump."""
    warnings.warn("profiler.dump_profile() is deprecated. Please use profiler.dump() instead")
    dump(True)


def dumps(reset=False, format="table", sort_by="total", ascending=False):
    """MXNet's aggregate statistics are not collected by xnd: returns a table (or JSON)
    without rows that says where the JAX trace is."""
    assert format in ("table", "json"), \
        "Invalid value provided for format: {0}. Support: 'table', 'json'".format(format)
    assert sort_by in ("total", "avg", "min", "max", "count"), \
        "Invalid value provided for sort_by: {0}. Support: 'total', 'avg', 'min', 'max', 'count'" \
        .format(sort_by)
    assert ascending in (False, True), \
        "Invalid value provided for ascending: {0}. Support: False, True".format(ascending)
    assert reset in (False, True), \
        "Invalid value provided for reset: {0}. Support: False, True".format(reset)
    where = _state["trace_dir"] or _trace_dir()
    _once("dumps", logging.INFO, "xnd: mx.profiler.dumps has no aggregate statistics (see the JAX "
          "trace in %s)", where)
    if format == "json":
        return json.dumps({"Time": {}, "Unit": {"Time": "ms"},
                           "xnd": f"no aggregate statistics; the JAX trace is in {where}"})
    return ("\nProfile Statistics:\n\tNote the difference in units for different entries.\n"
            f"xnd collects no aggregate statistics; the JAX trace is in {where}\n")


def pause(profile_process="worker"):
    """Pause profiling (stops the JAX trace; resume starts a new one in the same folder)."""
    if _state["running"]:
        _stop()
        _state["paused"] = True


def resume(profile_process="worker"):
    """Resume paused profiling."""
    if _state["paused"]:
        _state["paused"] = False
        _start()


class Domain:
    """Profiling domain: groups tasks, frames, counters and markers under a name."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name

    def new_task(self, name):
        return Task(self, name)

    def new_frame(self, name):
        return Frame(self, name)

    def new_counter(self, name, value=None):
        return Counter(self, name, value)

    def new_marker(self, name):
        return Marker(self, name)


class _Range:
    """A named time range: a jax.profiler.TraceAnnotation between start() and stop()."""

    def __init__(self, name):
        self.name = name
        self._annotation = None

    def start(self):
        import jax

        if self._annotation is None:
            self._annotation = jax.profiler.TraceAnnotation(self._label())
            self._annotation.__enter__()

    def stop(self):
        if self._annotation is not None:
            self._annotation.__exit__(None, None, None)
            self._annotation = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def __del__(self):
        try:
            self.stop()
        except Exception:
            pass

    def _label(self):
        return self.name

    def __str__(self):
        return self.name


class Task(_Range):
    """Profiling Task: a named range in `domain`."""

    def __init__(self, domain, name):
        super().__init__(name)
        self.domain = domain

    def _label(self):
        return f"{self.domain}::{self.name}"


class Frame(Task):
    """Profiling Frame: a named range in `domain` (per-iteration work)."""


class Event(_Range):
    """Profiling Event: a named range."""


class Counter:
    """Profiling Counter: a named integer value (kept; not written to the JAX trace)."""

    def __init__(self, domain, name, value=None):
        self.domain, self.name = domain, name
        self.value = 0 if value is None else int(value)

    def set_value(self, value):
        self.value = int(value)

    def increment(self, delta=1):
        self.value += int(delta)

    def decrement(self, delta=1):
        self.value -= int(delta)

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return self.name


class Marker:
    """Profiling Marker: an instant event (accepted; not written to the JAX trace)."""

    def __init__(self, domain, name):
        self.domain, self.name = domain, name

    def mark(self, scope="process"):
        if scope not in ("global", "process", "thread", "task", "marker"):
            raise KeyError(scope)
