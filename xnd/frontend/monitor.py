"""mx.mon / mx.monitor: Monitor, statistics of a network's arrays every ``interval`` batches.

MXNet 1.9.1's contract: ``install(exe)`` (what ``Module.install_monitor`` calls) registers a
callback on the executor; ``tic()`` before a batch activates the monitor when
``step % interval == 0`` and counts the step; while active, each forward reports every
operator output (``'<node>_<output>'``, e.g. ``fc1_output``, ``bn_mean``; with
``monitor_all`` also each operator's inputs) whose name matches ``pattern`` (``re.match``);
``toc()`` adds the arguments and then the auxiliary states of every installed executor, sorts
by name when ``sort``, and returns ``[(step, name, 'v\\t...')]`` where each statistic (an
NDArray or a list of them from ``stat_func``, default ``norm(x) / sqrt(x.size)``) is printed as
a scalar when its shape is ``(1,)`` and as its numpy text otherwise; ``toc_print()`` logs them.

Difference (docs/porting.md): MXNet also reports its backward nodes' internal arrays
(``fc1_backward_output0`` ...); xnd reports forward outputs, arguments and aux states only.
"""
import logging
import re
from math import sqrt

from ..ndarray import NDArray
from . import ndarray as nd
# names MXNet's module holds by importing them (its users import them from here)
from ..base import py_str  # noqa: E402,F401
from . import ndarray  # noqa: E402,F401

__all__ = ["Monitor"]


def _asum_stat(x):
    return nd.norm(x) / sqrt(x.size)


class Monitor:
    """Monitor(interval, stat_func=None, pattern='.*', sort=False, monitor_all=False)."""

    def __init__(self, interval, stat_func=None, pattern=".*", sort=False, monitor_all=False):
        self.stat_func = _asum_stat if stat_func is None else stat_func
        self.interval = interval
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all

        def stat_helper(name, array):
            name = name.decode("utf-8") if isinstance(name, bytes) else name
            if self.activated and self.re_prog.match(name):
                self.queue.append((self.step, name, self.stat_func(array)))
        stat_helper.wants = lambda: self.activated   # executors skip the internals otherwise
        self.stat_helper = stat_helper

    def install(self, exe):
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def _wait(self):
        for exe in self.exes:
            for a in list(exe.arg_arrays) + list(exe.aux_arrays):
                a.wait_to_read()

    def tic(self):
        """Start a batch: activate every ``interval`` steps."""
        if self.step % self.interval == 0:
            self._wait()
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """End a batch: the collected ``(step, name, text)`` rows (empty when inactive)."""
        if not self.activated:
            return []
        self._wait()
        for exe in self.exes:
            sym = exe._symbol
            for names, arrays in ((sym.list_arguments(), exe.arg_arrays),
                                  (sym.list_auxiliary_states(), exe.aux_arrays)):
                for name, array in zip(names, arrays):
                    if self.re_prog.match(name):
                        self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda x: x[1])
        res = []
        for step, name, stats in self.queue:
            stats = [stats] if isinstance(stats, NDArray) else stats
            assert isinstance(stats, list)
            text = ""
            for v in stats:
                assert isinstance(v, NDArray)
                text += (str(v.asscalar()) if v.shape == (1,) else str(v.asnumpy())) + "\t"
            res.append((step, name, text))
        self.queue = []
        return res

    def toc_print(self):
        for step, name, text in self.toc():
            logging.info("Batch: {:7d} {:30s} {:s}".format(step, name, text))
