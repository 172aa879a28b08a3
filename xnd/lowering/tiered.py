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

Programs whose one call runs a long loop (``Module.fit``'s compiled run of batches) opt out
(``xla_options.jit(quick_first=False)``).  ``XND_TIERED=0`` compiles every signature
optimized at its first call (xnd before tiering); ``XND_TIERED_CALLS`` sets ``QUICK_CALLS``.
``STATS`` counts quick calls and switches (tests).
"""
import collections
import os

import jax

ENABLED = os.environ.get("XND_TIERED", "1") != "0"
QUICK_CALLS = int(os.environ.get("XND_TIERED_CALLS", "4"))
QUICK_OPTIONS = {"xla_backend_optimization_level": 0}
STATS = collections.Counter()


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
        try:
            sig = _signature(args, kwargs or {}, *self._static)
            n = QUICK_CALLS if sig is None else self._calls.get(sig, 0)
        except TypeError:   # an unhashable static argument: jax.jit will say so
            return False
        if n >= QUICK_CALLS:
            return False
        self._calls[sig] = n + 1
        STATS["quick"] += 1
        if n + 1 == QUICK_CALLS:
            STATS["switches"] += 1
        return True


class Tiered:
    """A program with a quickly compiled first tier (see the module doc)."""

    def __init__(self, quick, full, static_argnums=(), static_argnames=()):
        self.quick, self.full = quick, full
        self.calls = Calls(static_argnums, static_argnames)

    def __call__(self, *args, **kwargs):
        if self.calls.quick(args, kwargs):
            return self.quick(*args, **kwargs)
        return self.full(*args, **kwargs)

    @property
    def _calls(self):
        return self.calls._calls

    def _cache_size(self):
        return self.quick._cache_size() + self.full._cache_size()

    @property
    def lower(self):
        return self.full.lower
