"""Timing shared by the plain-MXNet pattern scripts (pattern_*.py): process CPU seconds and
wall seconds per stage, the longest single call, and one JSON line at the end.

The scripts import only ``mxnet`` and this module, so they run unchanged on MXNet 1.9.1 and
on xnd (``import mxnet`` resolves to xnd there)."""
import json
import resource
import statistics
import time


def cpu():
    """User + system CPU seconds of this process (all threads)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class Stages:
    """``with stages.call(name): ...`` times one call of stage ``name``."""

    def __init__(self, workload):
        self.workload = workload
        self.totals = {}
        self.calls = []          # (stage, cpu_s, wall_s) per call

    def call(self, stage):
        return _Call(self, stage)

    def report(self, checksum, steady):
        """Prints the one JSON line. ``steady``: CPU seconds of calls repeated on signatures
        seen before (a warm loop), whose median is the steady per-call CPU."""
        longest = max((w for _, _, w in self.calls[1:]), default=0.0)
        out = {"workload": self.workload,
               "stages": {k: {"cpu_s": round(c, 4), "wall_s": round(w, 4)}
                          for k, (c, w) in self.totals.items()},
               "longest_call_s": round(longest, 4),
               "steady_call_cpu_s": round(statistics.median(steady), 5) if steady else None,
               "checksum": float(checksum)}
        print(json.dumps(out), flush=True)
        return out


class _Call:
    def __init__(self, stages, stage):
        self.stages, self.stage = stages, stage

    def __enter__(self):
        self.c0, self.w0 = cpu(), time.perf_counter()
        return self

    def __exit__(self, *exc):
        c, w = cpu() - self.c0, time.perf_counter() - self.w0
        self.cpu_s, self.wall_s = c, w
        tc, tw = self.stages.totals.get(self.stage, (0.0, 0.0))
        self.stages.totals[self.stage] = (tc + c, tw + w)
        self.stages.calls.append((self.stage, c, w))
        return False
