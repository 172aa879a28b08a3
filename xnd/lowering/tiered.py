"""Tiered compilation of xnd's whole-graph programs: a signature's first calls run a program
compiled quickly (XLA's backend at optimization level 0), and the optimized program is
compiled only when the same signature comes back again.

MXNet has no compile step: its executors run a graph operator by operator, so a graph's first
forward costs what its arithmetic costs.  xnd compiles each bound graph, hybridized block,
backward plan and training step into one XLA program, and most of XLA:CPU's compile time is
LLVM optimizing the generated loops.  A test that binds a graph to check it once, a script
that runs a few batches, or an evaluation pass paid the optimized compile in full (measured
here with an empty cache, docs/performance.md: a 10-layer convolutional ``Module.fit`` of two
batches 10.9 s -> 1.8 s, model-zoo ResNet-18's first hybridized forward 7.6 s -> 3.1 s and
its first training step 14 s -> 7.6 s).  The level-0 program runs the same operations; its
element-wise loops run several times slower (a ResNet-18 training step about 2x), while
convolutions and matrix products call the same library kernels.

``Tiered(quick, full)`` (made by ``xla_options.jit``) runs the first ``QUICK_CALLS`` calls of
each input signature with ``quick`` and every later one with ``full``.  The rule counts calls,
never seconds, so a script computes the same numbers on every run: LLVM contracts a multiply
and an add into one fused multiply-add only when it optimizes, so the two programs can differ
in the last bit of a result (docs/porting.md), and where the switch happens must not depend on
the machine's load.

A caller may give the quick tier a cheaper program for the same result
(``xla_options.tiers(fun, quick_fun=...)``, counted with ``Calls``): hybridized inference runs
its first calls without Winograd convolutions (symbol/rewrite.py).

Below the quick tier is the host tier (``Host``): on a CPU device, a quick call whose program
numpy can run as XLA would (``host_jaxpr``) and whose estimated host time is at most
``HOST_MAX_S`` is traced, not compiled, and its jaxpr runs on numpy and BLAS.  A small
network's training step, a test that binds a graph to check it once, and a backward plan
met a few times compile nothing at all; from the ``QUICK_CALLS + 1``-th call of a signature
the optimized program runs as before.  Counting calls, not seconds, keeps the numbers of a
run the same on every run.

Programs whose one call runs a long loop (``Module.fit``'s compiled run of batches) opt out
(``xla_options.jit(quick_first=False)``).  ``XND_TIERED=0`` compiles every signature
optimized at its first call (xnd before tiering); ``XND_TIERED_CALLS`` sets ``QUICK_CALLS``;
``XND_HOST_TIER=0`` turns the host tier off.  ``STATS`` counts quick calls, host calls and
switches (tests).
"""
import collections
import contextlib
import os
import threading

import jax
import numpy as np

from .. import _compat_jax, _transfer
from . import host_jaxpr

ENABLED = os.environ.get("XND_TIERED", "1") != "0"
QUICK_CALLS = int(os.environ.get("XND_TIERED_CALLS", "4"))
QUICK_OPTIONS = {"xla_backend_optimization_level": 0}
HOST = ENABLED and os.environ.get("XND_HOST_TIER", "1") != "0"
HOST_MAX_S = float(os.environ.get("XND_HOST_TIER_MAX_S", "3"))
# hybridized inference's quick main program compiles in a fraction of a training step's
# time (level 2, no Winograd: ResNet-18's in 0.27 s), so only much smaller ones run on the host
HOST_INFER_MAX_S = float(os.environ.get("XND_HOST_TIER_INFER_MAX_S", "0.15"))
STATS = collections.Counter()
_PIN = threading.local()


@contextlib.contextmanager
def pinned():
    """Inside, every tiered program runs its optimized tier (and eager ops their compiled
    kernels, host_eval): a loop that differences its results (a finite-difference gradient,
    ``mx.test_utils.numeric_grad``) must not cross a tier switch, whose last-bit changes it
    would divide by a small step."""
    was, _PIN.on = getattr(_PIN, "on", False), True
    try:
        yield
    finally:
        _PIN.on = was


def is_pinned():
    return getattr(_PIN, "on", False)


def _signature(args, kwargs, static_argnums=(), static_argnames=()):
    """A hashable signature of a call's arguments, or None inside another trace (the call
    then belongs to the caller's program): static arguments by value, arrays by (shape,
    dtype, weak type, placement), other leaves by type (a Python float jit traces is one
    program for every value: an optimizer's learning rate changes each step)."""
    static = ()
    if static_argnums or static_argnames:
        static = (tuple(args[i] for i in static_argnums if i < len(args)),
                  tuple((k, kwargs[k]) for k in static_argnames if k in kwargs))
        args = tuple(a for i, a in enumerate(args) if i not in static_argnums)
        kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
    leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
    sig = []
    for x in leaves:
        if isinstance(x, jax.core.Tracer):
            return None
        shape = getattr(x, "shape", None)
        if shape is None:
            sig.append(type(x))
        else:
            # the dtype object itself: str() of a dtype costs 9 us, ten times the rest of a leaf;
            # the placement too: a program run on another device is a build of its own there,
            # and counts its calls afresh (two modules alike on two devices give equal numbers)
            sig.append((tuple(shape), x.dtype, bool(getattr(x, "weak_type", False)),
                        getattr(x, "sharding", None)))
    return tree, static, tuple(sig)


class Calls:
    """Calls so far per input signature: ``quick(args, kwargs)`` counts a call and says whether
    it runs the quick tier.  A caller that picks between programs of its own (the inference
    plan's fold and main, symbol/rewrite.py) counts with one of these."""

    def __init__(self, static_argnums=(), static_argnames=()):
        self._calls = {}   # signature -> calls so far
        self._static = (tuple(static_argnums), tuple(static_argnames))

    def quick(self, args, kwargs=None):
        return self.quick_signature(args, kwargs) is not None

    def quick_signature(self, args, kwargs=None):
        """Counts a call; its signature when it runs the quick tier, else None."""
        if getattr(_PIN, "on", False):
            return None
        try:
            sig = _signature(args, kwargs or {}, *self._static)
            n = QUICK_CALLS if sig is None else self._calls.get(sig, 0)
        except TypeError:   # an unhashable static argument: jax.jit will say so
            return None
        if n >= QUICK_CALLS:
            return None
        self._calls[sig] = n + 1
        STATS["quick"] += 1
        if n + 1 == QUICK_CALLS:
            STATS["switches"] += 1
        return sig


_NOT_HOST = object()


class Host:
    """The host tier of one program (see the module doc): per signature, the traced jaxpr
    numpy runs, or None where the program compiles (a primitive or dtype ``host_jaxpr``
    does not follow, a weakly typed result, inputs on several devices or on an accelerator,
    an estimate over ``HOST_MAX_S``, a failure while evaluating)."""

    def __init__(self, plain, static_argnums=(), static_argnames=(), max_seconds=None):
        self.plain = plain                      # the jax.jit of the program: traced, not run
        self._static = (tuple(static_argnums), tuple(static_argnames))
        self._plans = {}                        # signature -> (closed jaxpr, out tree) | None
        self.max_seconds = max_seconds          # None: HOST_MAX_S

    def __call__(self, sig, args, kwargs):
        leaves, device, commit = _inputs(args, kwargs, *self._static)
        if device is None:
            return _NOT_HOST
        plan = self._plans.get(sig, _NOT_HOST)
        if plan is _NOT_HOST:
            plan = self._plans[sig] = self._plan(args, kwargs, len(leaves))
        if plan is None:
            return _NOT_HOST
        closed, tree = plan
        try:
            vals = [np.asarray(x, dtype=v.aval.dtype) for x, v in zip(leaves, closed.jaxpr.invars)]
            outs = host_jaxpr.evaluate(closed, vals)
        except Exception:  # noqa: BLE001  (a rule's gap: this signature compiles from now on)
            self._plans[sig] = None
            STATS["host_failures"] += 1
            return _NOT_HOST
        STATS["host"] += 1
        return jax.tree_util.tree_unflatten(tree, _transfer.to_device_all(outs, device, commit))

    def forget(self, sig):
        self._plans.pop(sig, None)

    def _plan(self, args, kwargs, n_leaves):
        try:
            traced = self.plain.trace(*args, **kwargs)
        except Exception:  # noqa: BLE001  (the compiled path reports the program's own error)
            return None
        closed = traced.jaxpr
        if getattr(traced, "_num_consts", 0) or len(closed.jaxpr.invars) != n_leaves \
                or any(getattr(v.aval, "weak_type", False) for v in closed.jaxpr.outvars) \
                or host_jaxpr.unsupported(closed.jaxpr) \
                or host_jaxpr.seconds(closed.jaxpr) > (
                    HOST_MAX_S if self.max_seconds is None else self.max_seconds):
            return None
        return closed, _compat_jax.out_tree(traced)


def host_first(fun, fallback, max_seconds):
    """``fun`` on the host where it fits ``max_seconds`` (a signature's plan, as ``Host``), else
    ``fallback`` (its quick program): for callers that count calls themselves (hybridized
    inference, symbol/rewrite.py)."""
    host = Host(jax.jit(fun), max_seconds=max_seconds)

    def call(*args):
        try:
            sig = _signature(args, {})
        except TypeError:
            sig = None
        res = _NOT_HOST if sig is None else host(sig, args, {})
        return fallback(*args) if res is _NOT_HOST else res
    return call


def _inputs(args, kwargs, static_argnums, static_argnames):
    """The flat dynamic arguments of a call (as jit flattens them), the device jit would run
    it on (the committed inputs' one, else the default device; None: committed inputs on
    several devices, a sharded input, or an accelerator) and whether the results are
    committed to it (when an input is, as jit's are)."""
    if static_argnums or static_argnames:
        args = tuple(a for i, a in enumerate(args) if i not in static_argnums)
        kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
    leaves = jax.tree_util.tree_leaves((args, kwargs))
    device = None
    for x in leaves:
        if isinstance(x, jax.Array):
            devs = x.devices()
            if len(devs) != 1:
                return leaves, None, False
            if _compat_jax.committed(x):
                d = next(iter(devs))
                if device is None:
                    device = d
                elif d != device:
                    return leaves, None, False
    commit = device is not None
    if device is None:
        device = jax.config.jax_default_device or jax.devices()[0]
        if isinstance(device, str):                 # jax.default_device("cpu")
            device = jax.devices(device)[0]
    if getattr(device, "platform", None) != "cpu":
        return leaves, None, False
    return leaves, device, commit


class Tiered:
    """A program with a quickly compiled first tier, and a host tier below it where ``host``
    is given (see the module doc)."""

    def __init__(self, quick, full, static_argnums=(), static_argnames=(), host=None):
        self.quick, self.full = quick, full
        self.calls = Calls(static_argnums, static_argnames)
        self.host = Host(host, static_argnums, static_argnames) if host is not None else None

    def __call__(self, *args, **kwargs):
        sig = self.calls.quick_signature(args, kwargs)
        if sig is None:
            return self.full(*args, **kwargs)
        if self.host is not None:
            res = self.host(sig, args, kwargs)
            if self.calls._calls[sig] >= QUICK_CALLS:
                self.host.forget(sig)   # (its last quick call: a test suite meets thousands)
            if res is not _NOT_HOST:
                return res
        return self.quick(*args, **kwargs)

    @property
    def _calls(self):
        return self.calls._calls

    def _cache_size(self):
        if self.quick is self.full:        # (no quick options: one program for both)
            return self.full._cache_size()
        return self.quick._cache_size() + self.full._cache_size()

    @property
    def lower(self):
        return self.full.lower
