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
* With ``aggregate_stats=True``, while the state is 'run', every operator call
  is timed (waiting for its result) and counted per operator name, custom
  operators' Python code as ``<op_type>::pure_python`` and the operators it calls
  as ``<op_type>::<op>`` (MXNet's 'operator' and 'Custom Operator' domains);
  ``dumps()`` prints MXNet's table or JSON of them (Count, Total, Min, Max, Avg in
  ms), sorted as asked. Bound graphs run as one XLA program, so their operators
  are not counted one by one (custom operators inside them are); xnd keeps no
  allocator statistics, so 'Memory' is empty.
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

from .. import engine as _engine
# names MXNet's module holds by importing them (its users import them from here)
from ..base import c_str, c_str_array, check_call, py_str  # noqa: E402,F401

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
    dump_period, aggregate_stats, profile_process). ``filename`` and ``aggregate_stats`` act;
    the rest are accepted."""
    unknown = set(kwargs) - _CONFIG_KEYS
    if unknown:
        from ..base import MXNetError
        raise MXNetError(f"profiler.set_config: unknown parameter(s) {sorted(unknown)}; "
                         f"known: {sorted(_CONFIG_KEYS)}")
    _state["config"].update(kwargs)
    ignored = sorted(k for k in kwargs if k not in ("filename", "aggregate_stats"))
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
        _engine.PROFILING = bool(_state["config"].get("aggregate_stats"))
    else:
        _stop()
        _state["paused"] = False
        _engine.PROFILING = False


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
    """The aggregate statistics (``aggregate_stats=True``) as MXNet's table or JSON, rows
    sorted by ``sort_by`` (total, avg, min, max, count); ``reset`` clears them."""
    assert format in ("table", "json"), \
        "Invalid value provided for format: {0}. Support: 'table', 'json'".format(format)
    assert sort_by in ("total", "avg", "min", "max", "count"), \
        "Invalid value provided for sort_by: {0}. Support: 'total', 'avg', 'min', 'max', 'count'" \
        .format(sort_by)
    assert ascending in (False, True), \
        "Invalid value provided for ascending: {0}. Support: False, True".format(ascending)
    assert reset in (False, True), \
        "Invalid value provided for reset: {0}. Support: False, True".format(reset)
    key = {"total": "Total", "avg": "Avg", "min": "Min", "max": "Max", "count": "Count"}[sort_by]
    time = {}
    for domain, rows in _engine.stats(reset).items():
        items = [(name, {"Total": total * 1e3, "Count": count, "Min": lo * 1e3, "Max": hi * 1e3,
                         "Avg": total * 1e3 / count})
                 for name, (count, total, lo, hi) in rows.items()]
        items.sort(key=lambda kv: kv[1][key], reverse=not ascending)
        time[domain] = dict(items)
    if format == "json":
        return json.dumps({"Time": time, "Memory": {}, "Unit": {"Time": "ms", "Memory": "kB"}})
    lines = ["", "Profile Statistics:", "\tNote the difference in units for different entries."]
    for domain, rows in time.items():
        lines += [domain, "=================",
                  f"{'Name':<30}{'Total Count':>11}{'Time (ms)':>17}{'Min Time (ms)':>17}"
                  f"{'Max Time (ms)':>17}{'Avg Time (ms)':>17}",
                  f"{'----':<30}{'-----------':>11}{'---------':>17}{'-------------':>17}"
                  f"{'-------------':>17}{'-------------':>17}"]
        lines += [f"{name:<30}{r['Count']:>11}{r['Total']:>17.4f}{r['Min']:>17.4f}"
                  f"{r['Max']:>17.4f}{r['Avg']:>17.4f}" for name, r in rows.items()]
        lines.append("")
    return "\n".join(lines) + "\n"


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
