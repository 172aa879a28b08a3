"""Tiered programs: a signature's first calls on the host or a quickly compiled program, then
the optimized program, compiled in the background where ``decide`` says so.

MXNet has no compile step: its executors run a graph operator by operator, so a graph's first
forward costs what its arithmetic costs.  xnd compiles each bound graph, hybridized block,
backward plan and training step into one XLA program, and most of XLA:CPU's compile time is
LLVM optimizing the generated loops (with an empty cache, docs/performance.md: a 10-layer
convolutional ``Module.fit`` of two batches 10.9 s -> 1.8 s with tiers, model-zoo
ResNet-18's first training step 14 s -> 7.6 s).  The level-0 program runs the same
operations; its element-wise loops run several times slower, while convolutions and matrix
products call the same library kernels.

``Tiered(quick, full, host=plain, kind=...)`` (made by ``lowering/xla_options.jit``) counts the
calls of each input signature and asks ``table.decide`` which tier runs each one:

* ``HOST``: the traced jaxpr runs on numpy and BLAS (``Host``, lowering/host_jaxpr.py) where
  numpy follows every primitive as XLA would and the estimate fits the kind's budget;
* ``QUICK``: the program compiled at XLA's level 0;
* ``BACKGROUND``: the optimized program is traced and lowered on the calling thread and its
  ``.compile()`` handed to a worker (background.py); the tier that served the first calls
  keeps serving until the executable is ready, then every call of the signature runs it;
* ``OPTIMIZED``: the optimized program, compiled now if needed (``MXNET_ENFORCE_DETERMINISM=1``:
  the switch at call ``QUICK_CALLS + 1`` exactly, so every run computes the same bits; LLVM
  contracts a multiply and an add into one fused multiply-add only when it optimizes, so the
  tiers can differ in a result's last bit, docs/porting.md).

``Calls`` counts for callers with programs of their own (symbol/rewrite.py).  ``STATS`` counts
quick, host and background calls and switches (tests).
"""
import collections
import contextlib

import jax
import numpy as np

from .. import _compat_jax, _transfer
from ..lowering import host_jaxpr
from . import background, table
from .table import BACKGROUND, GRAPH, HOST, OPTIMIZED, TABLE

STATS = collections.Counter()


@contextlib.contextmanager
def pinned():
    """Inside, every tiered program runs its optimized tier (and eager ops their compiled
    kernels, host_eval): a loop that differences its results (a finite-difference gradient,
    ``mx.test_utils.numeric_grad``) must not cross a tier switch, whose last-bit changes it
    would divide by a small step."""
    was, table._PIN.on = getattr(table._PIN, "on", False), True
    try:
        yield
    finally:
        table._PIN.on = was


def _signature(args, kwargs, static_argnums=(), static_argnames=()):
    """A hashable signature of a call's arguments, or None inside another trace (the call
    then belongs to the caller's program): static arguments by value, arrays by (shape,
    dtype, weak type, placement), other leaves by type (a Python float jit traces is one
    program for every value: an optimizer's learning rate changes each step)."""
    static = ()
    if static_argnums or static_argnames:
        static = (tuple(args[i] for i in static_argnums if i < len(args)),
                  tuple((k, kwargs[k]) for k in static_argnames if k in kwargs))
        args, kwargs = _dynamic(args, kwargs, static_argnums, static_argnames)
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


def _dynamic(args, kwargs, static_argnums, static_argnames):
    """The arguments a compiled executable takes: the static ones left out."""
    if static_argnums:
        args = tuple(a for i, a in enumerate(args) if i not in static_argnums)
    if static_argnames:
        kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
    return args, kwargs


_SETTLED = -1      # Calls' count of a signature that switched to the optimized tier


class Calls:
    """Calls so far per input signature of one program of ``kind``: ``tier(args, kwargs)``
    counts a call and returns (signature, ``decide``'s tier); ``quick(args)`` says whether a
    caller with programs of its own runs its cheap ones (symbol/rewrite.py)."""

    def __init__(self, static_argnums=(), static_argnames=(), kind=GRAPH):
        self._calls = {}   # signature -> calls so far (counted while a cheap tier serves)
        self._static = (tuple(static_argnums), tuple(static_argnames))
        self.kind = kind

    def quick(self, args, kwargs=None):
        return self.tier(args, kwargs, background=False)[1] != OPTIMIZED

    def quick_signature(self, args, kwargs=None):
        """Counts a call; its signature when a cheap tier runs it, else None."""
        sig, tier = self.tier(args, kwargs, background=False)
        return None if tier == OPTIMIZED else sig

    def tier(self, args, kwargs=None, host=False, background=True):
        """(signature, tier) of this call, counted; (None, OPTIMIZED) inside another trace,
        pinned, or for an unhashable static argument (jax.jit will say so)."""
        if table.is_pinned():
            return None, OPTIMIZED
        try:
            sig = _signature(args, kwargs or {}, *self._static)
            n = 1 + (0 if sig is None else self._calls.get(sig, 0))
        except TypeError:
            return None, OPTIMIZED
        if sig is None:
            return None, OPTIMIZED
        if n == _SETTLED + 1:           # (a loop's steady state: no decision again)
            return sig, OPTIMIZED
        tier = table.decide(self.kind, n, host=host)
        if tier == BACKGROUND and not background:
            tier = OPTIMIZED
        if tier == OPTIMIZED:
            self._calls[sig] = _SETTLED
        else:
            self._calls[sig] = n if tier != BACKGROUND else min(n, TABLE.quick_calls + 1)
            STATS["quick" if tier != BACKGROUND else "background_waits"] += 1
            if n == TABLE.quick_calls:
                STATS["switches"] += 1
        return sig, tier


_NOT_HOST = object()


class Host:
    """The host tier of one program: per signature, the traced jaxpr numpy runs, or None
    where the program compiles (a primitive or dtype ``host_jaxpr`` does not follow, a weakly
    typed result, inputs on several devices or on an accelerator, an estimate over the
    kind's budget (``table.host_budget``), a failure while evaluating)."""

    def __init__(self, plain, static_argnums=(), static_argnames=(), max_seconds=None,
                 kind=GRAPH):
        self.plain = plain                      # the jax.jit of the program: traced, not run
        self._static = (tuple(static_argnums), tuple(static_argnames))
        self._plans = {}                        # signature -> (closed jaxpr, out tree) | None
        self.max_seconds = max_seconds          # None: the kind's budget
        self.kind = kind

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
        budget = table.host_budget(self.kind) if self.max_seconds is None else self.max_seconds
        if getattr(traced, "_num_consts", 0) or len(closed.jaxpr.invars) != n_leaves \
                or any(getattr(v.aval, "weak_type", False) for v in closed.jaxpr.outvars) \
                or host_jaxpr.unsupported(closed.jaxpr) \
                or host_jaxpr.seconds(closed.jaxpr) > budget:
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
    args, kwargs = _dynamic(args, kwargs, static_argnums, static_argnames)
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


_SYNC = object()   # _ready's mark of a signature that runs ``full`` itself (its jit compiles)


class Tiered:
    """A program with a quickly compiled first tier, a host tier below it where ``host`` (the
    plain jit, traced only) is given, and a background switch to ``full`` (module doc)."""

    def __init__(self, quick, full, static_argnums=(), static_argnames=(), host=None,
                 kind=GRAPH, name=None):
        self.quick, self.full = quick, full
        self.kind = kind
        self.name = name or getattr(full, "__name__", "program")
        self.calls = Calls(static_argnums, static_argnames, kind)
        self.host = Host(host, static_argnums, static_argnames, kind=kind) \
            if host is not None else None
        # signature -> the optimized executable a worker compiled, or _SYNC once the
        # signature runs ``full`` (a synchronous switch, or a worker's compile that raised):
        # a settled signature's call is one lookup, never a decision again
        self._ready = {}
        self._pending = set()  # signatures whose optimized program is compiling
        self._full_ran = set()  # signatures ``full`` ran as the quick tier (``quick is full``)

    def __call__(self, *args, **kwargs):
        if self._ready:
            try:
                exe = self._ready.get(_signature(args, kwargs, *self.calls._static))
            except TypeError:
                exe = None
            if exe is _SYNC:
                return self.full(*args, **kwargs)
            if exe is not None:
                dargs, dkwargs = _dynamic(args, kwargs, *self.calls._static)
                return exe(*dargs, **dkwargs)
        sig, tier = self.calls.tier(args, kwargs, host=self.host is not None)
        if TABLE.log:
            from . import log
            with log.program(self.kind, self.name, tier):
                return self._run(sig, tier, args, kwargs)
        return self._run(sig, tier, args, kwargs)

    def _run(self, sig, tier, args, kwargs):
        if tier == BACKGROUND and sig in self._full_ran:
            tier = OPTIMIZED               # (no quick options: full is compiled already)
        if tier == OPTIMIZED:
            if sig is not None:            # (None: inside a trace, or pinned)
                self._ready[sig] = _SYNC
                if self.host is not None:
                    self.host.forget(sig)
            return self.full(*args, **kwargs)
        if tier == BACKGROUND and sig not in self._pending:
            self._start(sig, args, kwargs)
            if self._ready.get(sig) is _SYNC:          # (lowering raised: report it now)
                return self.full(*args, **kwargs)
        if self.host is not None and tier in (HOST, BACKGROUND):
            res = self.host(sig, args, kwargs)
            if tier == HOST and table.decide(
                    self.kind, self.calls._calls[sig] + 1, host=True) == OPTIMIZED:
                self.host.forget(sig)   # (its last host call: a test suite meets thousands)
            if res is not _NOT_HOST:
                return res
        if self.quick is self.full:        # (an accelerator, or a jax without compile options)
            self._full_ran.add(sig)
        return self.quick(*args, **kwargs)

    def _start(self, sig, args, kwargs):
        """Trace and lower the optimized program here (JAX's tracing stays on the calling
        thread), and compile it on a worker; the signature switches when it is ready."""
        self._pending.add(sig)
        try:
            lowered = self.full.lower(*args, **kwargs)
        except Exception:  # noqa: BLE001  (the synchronous path reports the program's error)
            self._ready[sig] = _SYNC
            return
        STATS["background_starts"] += 1
        background.submit(lowered, lambda exe: self._done(sig, exe), self.kind, self.name)

    def _done(self, sig, exe):
        """The worker's report: the executable, or None when the compile raised (then the
        signature compiles synchronously, and reports the error, at its next call)."""
        self._ready[sig] = _SYNC if exe is None else exe
        self._pending.discard(sig)
        if self.host is not None:
            self.host.forget(sig)
        STATS["background_switches"] += 1

    def ready(self, args, kwargs=None):
        """Whether the optimized executable of this call's signature is in use (tests)."""
        sig = _signature(args, kwargs or {}, *self.calls._static)
        return self._ready.get(sig) not in (None, _SYNC)

    @property
    def _calls(self):
        return self.calls._calls

    def _cache_size(self):
        ready = sum(1 for e in self._ready.values() if e is not _SYNC)
        if self.quick is self.full:        # (no quick options: one program for both)
            return self.full._cache_size() + ready
        return self.quick._cache_size() + self.full._cache_size() + ready

    @property
    def lower(self):
        return self.full.lower
