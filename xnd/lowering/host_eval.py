"""Eager ops on a new shape, computed by numpy (``host_jaxpr``), not XLA.

Every eager call of a new (op, attributes, input shapes) costs a whole XLA compilation
(30-70 ms on 2 cores, more under load), where MXNet runs a ready kernel in microseconds:
scripts and tests that call ``broadcast_to``, ``reshape``, ``sum``, ``dot``, ``softmax``...
on ever new shapes crawl, and every Parameter starts from ``zeros`` of its own shape.
The first calls of one (op, attributes, input avals) run on the host (how many: the
``eager`` row of xnd/tiers' table, ``tiers.decide``):

* the most frequent data-movement ops have a numpy twin (``TWINS``, checked against the
  kernel by tests/test_compile_cache.py) that gives up (``_NotHost``, numpy's error) wherever
  the registry function raises, so that call compiles and reports MXNet's error; they move
  numbers only, so they give the kernel's values bit for bit;
* any other op (``eligible``) is traced (``jax.make_jaxpr`` of the registry function: no
  compilation, ~1-4 ms) and its jaxpr runs on numpy when ``host_jaxpr`` follows every
  primitive in it and its estimated host time is within the eager budget; arithmetic then
  agrees with the compiled kernel to float tolerance (``host_jaxpr``'s doc);
* an elementwise op (``+``, ``*``, ``relu``, ``x * 2.0``...) only where that jaxpr's numbers
  are the kernel's bit for bit (``host_jaxpr.exact``: no transcendental, no product feeding
  a sum); the others run at a bucketed length (``bucket``), which is XLA's own loop.

Run-time attributes (``_mul_scalar``'s scalar) are inputs of the traced plan, so one plan
serves every value.  Later calls compile the kernel (a loop over one shape then runs XLA's
kernel, which, unlike the host path, does not wait for its inputs).  Only arrays up to
``MAX_ELEMENTS`` in and out take it, so a host copy costs less than the compile it saves.
Samplers draw XLA's streams, and convolutions and pooling run as tiered programs
(``tiered``); none of them comes here.

``plan(fn, vals, max_seconds=None)`` with ``run_committed`` also runs the quick tier's
parameter fold of hybridized inference (symbol/rewrite.py): a ResNet's BatchNorm fold is a
0.4 s compile at XLA's level 0 and tens of ms here.
"""
import functools
import logging

import numpy as np

import jax
import jax.numpy as jnp

from .. import _compat_jax, _transfer
from .. import tiers
from . import compile_cache, host_jaxpr

_log = logging.getLogger("xnd.host")

MAX_ELEMENTS = 1 << 22
# elementwise calls up to this many elements (bucket's too); a larger one compiles: its
# loop's results are then XLA's own buffers, which ``z[:] = z + y`` donates in place
ELEMENTWISE_MAX = 1 << 16

# MXNet ops whose lowering is pure data movement for every attribute value
OPS = frozenset((
    "Reshape", "reshape_like", "Flatten", "expand_dims", "squeeze", "transpose", "SwapAxis",
    "broadcast_to", "broadcast_axis", "broadcast_like", "tile", "repeat", "Concat", "stack",
    "SliceChannel", "slice", "slice_axis", "slice_like", "reverse", "depth_to_space",
    "space_to_depth", "_copy", "identity", "diag", "_zeros", "_ones", "_full", "reset_arrays"))


def eligible(op, device):
    """Whether eager calls of registry ``op`` on JAX ``device`` may run on the host: data
    movement anywhere; other ops on a CPU device only (an accelerator's arrays would cross
    to the host and back), when no tiered convolution or pooling and no Python kernel
    (attributes passed at run time, a sampler's key too, are inputs of the plan: the host
    draws the kernel's bits, host_random.py).  An elementwise op runs
    here where its results are the kernel's bit for bit (``plan(exact=True)``), else at a
    bucketed length (``bucket``)."""
    ok = _ELIGIBLE.get(op.name)
    if ok is None:
        ok = _ELIGIBLE[op.name] = "data" if op.name in OPS else not (
            op.tuned or getattr(op.fn, "eager_kernel", None) is not None)
    return ok == "data" or (ok and device.platform == "cpu")


_ELIGIBLE = {}


def _bcast_to(x, shape):
    if len(shape) != x.ndim:
        raise _NotHost                   # the kernel raises MXNet's error
    return np.broadcast_to(x, tuple(s if t == 0 else t for s, t in zip(x.shape, shape)))


def _reshape(x, shape, reverse, target_shape=(), keep_highest=False):
    if target_shape and not shape:
        raise _NotHost                   # the deprecated form: the kernel's rules
    from .shape import infer_reshape
    return x.reshape(infer_reshape("Reshape", x.shape, shape, reverse))


def _concat(*xs, dim, num_args=None):
    if len({x.dtype for x in xs}) != 1 or len({x.ndim for x in xs}) != 1:
        raise _NotHost
    return np.concatenate(xs, axis=dim)


def _expand_dims(x, axis):
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise _NotHost
    return np.expand_dims(x, axis)


def _full(shape, value, dtype):
    dt = jnp.dtype(dtype)
    if not jnp.issubdtype(dt, jnp.floating):
        raise _NotHost                   # the kernel's float-to-integer rules
    with np.errstate(over="ignore"):     # out of range: +-inf, as XLA's conversion gives
        return np.full(shape, value, np.float64).astype(dt)


# Host twins of the most frequent data-movement ops: numpy functions of (*inputs, **attrs)
# with the registry entry's semantics (tests/test_compile_cache.py checks each against its
# kernel); they raise _NotHost (or numpy's own error) where the registry function raises,
# and that call then compiles and reports MXNet's error.  Other ``OPS`` are traced instead.
TWINS = {
    "broadcast_to": _bcast_to,
    "Reshape": _reshape,
    "transpose": lambda x, axes: np.transpose(x, axes or None),
    "expand_dims": _expand_dims,
    "Flatten": lambda x: x.reshape((x.shape[0], -1)),
    "SwapAxis": lambda x, dim1, dim2: np.swapaxes(x, dim1, dim2),
    "Concat": _concat,
    "_zeros": lambda shape, dtype: np.zeros(shape, jnp.dtype(dtype)),
    "_ones": lambda shape, dtype: np.ones(shape, jnp.dtype(dtype)),
    "_full": _full,
}


class _NotHost(Exception):
    pass


_EAGER = object()


def plan(fn, vals, max_seconds=_EAGER, exact=False):
    """A closed jaxpr of ``fn(*vals)`` that numpy runs as XLA would (``host_jaxpr``), or
    None.  ``max_seconds`` defaults to the eager budget (``tiers.host_budget``); with
    ``max_seconds=None`` its size and time are not bounded (the caller's arrays
    are on the host's memory already: parameters).  ``exact``: only a jaxpr whose results
    are XLA's bit for bit (``host_jaxpr.exact``)."""
    try:
        closed = jax.make_jaxpr(fn)(*vals)
    except Exception as e:  # noqa: BLE001  (the op's own error: its compiled path raises it)
        _log.debug("xnd host tier: no plan, tracing raised %s: %s", type(e).__name__, e)
        return None
    if host_jaxpr.unsupported(closed.jaxpr) or any(
            getattr(v.aval, "weak_type", False) for v in closed.jaxpr.outvars) \
            or (exact and not host_jaxpr.exact(closed.jaxpr)):
        return None
    if max_seconds is _EAGER:
        max_seconds = tiers.host_budget(tiers.EAGER)
    if max_seconds is not None and (
            sum(int(np.prod(v.aval.shape)) for v in closed.jaxpr.outvars) > MAX_ELEMENTS
            or host_jaxpr.seconds(closed.jaxpr) > max_seconds):
        return None                      # big (or absurd: tile by 2**31) results compile, and
    return closed                        # the compiled path's size check raises MXNet's error


def run_committed(closed, vals, device):
    """Run a ``plan`` on the host: its results committed to ``device``."""
    outs = host_jaxpr.evaluate(closed, [np.asarray(v) for v in vals])
    return _transfer.to_device_all(outs, device, True)


def put(outs, dtypes, device, vals):
    """The host results as jax.Arrays on `device`, committed to it exactly when the compiled
    kernel's would be (when an input is): a jitted step then sees the same arrays either
    way and compiles once.  ``dtypes``: the results' dtypes, or None where they are
    ``host_jaxpr.evaluate``'s (already C-contiguous arrays of the program's dtypes)."""
    if sum(o.size for o in outs) > MAX_ELEMENTS:
        return None
    if dtypes is not None:
        outs = [host_jaxpr.c_order(o, d) for o, d in zip(outs, dtypes)]
    return _transfer.to_device_all(outs, device, any(_compat_jax.committed(v) for v in vals))


def run(plan_, vals, device, recording=False, dyn=()):
    """Evaluate a plan (``Seen.plan_for``) on the host and put its results on ``device``:
    a list of jax.Arrays, or None when this call must compile instead.  While ``recording``,
    an input still being computed compiles (``_compat_jax.computing``): reading it here would
    wait for it, and a training step's loss waited for its forward before the backward could
    trace and compile (0.9 s of a first ResNet-18 step).  ``dyn``: the op's run-time
    attribute values, further inputs of the plan.  A plan that serves while its kernel compiles
    in the background (``_Waiting``) waits for its inputs instead: compiling now is what the
    worker is there to avoid."""
    waiting = type(plan_) is _Waiting
    if waiting:
        plan_ = plan_.plan
    elif recording and _compat_jax.computing(vals):
        return None
    host = [np.asarray(v) for v in vals]
    if dyn:
        try:        # (in the dtypes the kernel's trace gave them: weakly typed scalars)
            host += [np.asarray(d, dtype=v.aval.dtype)
                     for d, v in zip(dyn, plan_.jaxpr.invars[len(vals):])]
        except (OverflowError, ValueError, TypeError):
            return None
    if callable(plan_):                                    # a twin with its attributes
        try:
            out = plan_(*host)
        except (_NotHost, ValueError, IndexError, TypeError):
            return None
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        return put(outs, [o.dtype for o in outs], device, vals)
    try:
        outs = host_jaxpr.evaluate(plan_, host)
    except host_jaxpr.Unsupported:     # (counted and logged by evaluate): the kernel runs
        return None
    return put(outs, None, device, vals)


_NUMBERS = frozenset((bool, int, float, np.bool_, np.int32, np.int64, np.float32, np.float64))


def _with_dynamic(op, attrs):
    """``op.fn`` with its static ``attrs`` bound, taking its dynamic ones after the arrays."""
    names = op.dynamic

    def fn(*args):
        n = len(args) - len(names)
        return op.fn(*args[:n], **attrs, **dict(zip(names, args[n:])))
    return fn


SERVED = "served"    # plan_for: this combination had its host calls; its kernel compiles now


class _Waiting:
    """plan_for's answer while the combination's kernel compiles on a worker: its plan."""

    __slots__ = ("plan",)

    def __init__(self, plan_):
        self.plan = plan_


class Seen:
    """Counts eager calls per (op, static key, input avals): ``plan_for`` returns a host plan
    (a twin with its attributes bound, or a jaxpr) while ``tiers.decide("eager", n,
    host=True)`` says ``HOST`` and the host can run it, then ``SERVED`` (compile, not another
    uncompiled path: a loop's kernels compile after its host calls), else None."""

    LIMIT = 1 << 14                   # combinations remembered (then forgotten all at once)

    def __init__(self):
        self._seen = {}               # combination -> [calls so far, plan or None]

    def plan_for(self, op, key, vals, dyn=()):
        """``dyn``: the run-time attribute values (numbers, a sampler's key array: the plan
        takes them as inputs, traced as the kernel's jit traces them)."""
        k = (op.name, key, tuple([None if v is None else (v.shape, v.dtype) for v in vals]),
             tuple(map(type, dyn)))
        e = self._seen.get(k)
        if e is not None and (e[1] is None or e[1] is SERVED):
            return e[1]                  # (a loop's steady state: one lookup, nothing else)
        if tiers.is_pinned():
            return None
        if e is None:
            if len(self._seen) >= self.LIMIT:
                self._seen.clear()
            p = None
            if all(type(d) in _NUMBERS or type(d) is np.ndarray for d in dyn) \
                    and all(v is not None and v.ndim and v.size for v in vals) and sum(
                    v.size for v in vals) <= (ELEMENTWISE_MAX if op.elementwise else MAX_ELEMENTS):
                attrs = dict(zip(op.static, key))        # (else the kernel raises MXNet's error)
                twin = None if dyn else TWINS.get(op.name)
                p = functools.partial(twin, **attrs) if twin else \
                    plan(_with_dynamic(op, attrs), list(vals) + list(dyn),
                         exact=bool(op.elementwise))
            e = self._seen[k] = [0, p]
        p = e[1]
        if p is None:
            return None
        e[0] += 1
        # (a creation op waits for nothing: always host); at its last host call the jaxpr
        # is let go, or (the background switch) kept until a worker has compiled the kernel
        if vals:
            tier = tiers.decide(tiers.EAGER, e[0] + 1, host=True)
            if tier == tiers.BACKGROUND and len(e) == 2:
                e.append(True)
                if not _warm(op, key, vals, dyn, e):
                    e[1] = SERVED
            elif tier == tiers.OPTIMIZED:
                e[1] = SERVED
            if len(e) == 3 and e[1] is not SERVED:
                return _Waiting(p)
        return p


def _warm(op, key, vals, dyn, entry):
    """Compile ``op``'s kernel for this call on a background worker (lowered here: tracing
    stays on the calling thread); its host plan serves until then (``entry[1]`` becomes
    ``SERVED`` when the worker is done).  Only where JAX's persistent cache is on: the
    worker's executable reaches the kernel's own jit through it (a millisecond's load at
    its next call).  False: nothing started (the kernel compiles at the next call)."""
    if compile_cache.cache_dir() is None:
        return False
    try:
        lowered = op.kernel(key).lower(*vals, *dyn)
    except Exception:  # noqa: BLE001  (the kernel's own call reports the op's error)
        return False

    def done(_exe):
        entry[1] = SERVED
    tiers.background.submit(lowered, done, tiers.EAGER, op.name)
    return True
