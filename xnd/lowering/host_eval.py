"""Data-movement and constant-creation ops on a new shape, computed by numpy, not XLA.

Every eager call of a new (op, attributes, input shapes) costs a whole XLA compilation
(30-70 ms on 2 cores, more under load), where MXNet runs a ready kernel in microseconds:
scripts and tests that call ``broadcast_to``, ``reshape``, ``transpose``, ``concat``...
on ever new shapes crawl, and every Parameter starts from ``zeros`` of its own shape.
These ops (``OPS``) only move numbers or fill constants, so the host gives MXNet's values
bit for bit:

* the most frequent have a numpy twin (``TWINS``, checked against the kernel by
  tests/test_compile_cache.py) that gives up (``_NotHost``, numpy's error) wherever the
  registry function raises, so that call compiles and reports MXNet's error;
* the others are traced (``jax.make_jaxpr`` of the registry function: no compilation,
  ~1-4 ms) and the jaxpr is run by numpy if all its primitives move data
  (``PRIMITIVES``); anything else (arithmetic, a dtype cast) compiles as before.

``ARITHMETIC`` adds float arithmetic, each operation rounded once as XLA rounds it, for the
quick tier's parameter fold of hybridized inference (``plan(..., arithmetic=True)``,
symbol/rewrite.py): a ResNet's BatchNorm fold is a 0.4 s compile at XLA's level 0 and
tens of ms here.

``Seen`` decides when: the first ``HOST_CALLS`` calls of one (op, attributes, input avals)
run on the host (creation ops: every call), later ones compile the kernel (a loop over one shape then runs XLA's
kernel, which, unlike the host path, does not wait for its inputs).  Only arrays up to
``MAX_ELEMENTS`` in and out take it, so a host copy costs less than the compile it saves.
"""
import functools

import numpy as np

import jax
import jax.numpy as jnp

from .. import _compat_jax, _transfer

HOST_CALLS = 8
MAX_ELEMENTS = 1 << 22

# MXNet ops whose lowering is pure data movement for every attribute value
OPS = frozenset((
    "Reshape", "reshape_like", "Flatten", "expand_dims", "squeeze", "transpose", "SwapAxis",
    "broadcast_to", "broadcast_axis", "broadcast_like", "tile", "repeat", "Concat", "stack",
    "SliceChannel", "slice", "slice_axis", "slice_like", "reverse", "depth_to_space",
    "space_to_depth", "_copy", "identity", "diag", "_zeros", "_ones", "_full", "reset_arrays"))


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


def _slice(x, start_indices, limit_indices, strides=None, **_):
    strides = strides or (1,) * x.ndim
    return x[tuple(slice(a, b, s) for a, b, s in zip(start_indices, limit_indices, strides))]


def _broadcast_in_dim(x, shape, broadcast_dimensions, **_):
    expanded = [1] * len(shape)
    for d, s in zip(broadcast_dimensions, x.shape):
        expanded[d] = s
    return np.broadcast_to(x.reshape(expanded), shape)


def _split(x, sizes, axis, **_):
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


# primitive name -> numpy function of (*operands, **params); one result unless it returns a list
PRIMITIVES = {
    "broadcast_in_dim": _broadcast_in_dim,
    "reshape": lambda x, new_sizes, **_: x.reshape(new_sizes),
    "transpose": lambda x, permutation, **_: np.transpose(x, permutation),
    "squeeze": lambda x, dimensions, **_: np.squeeze(x, tuple(dimensions)),
    "expand_dims": lambda x, dimensions, **_: np.expand_dims(x, tuple(dimensions)),
    "slice": _slice,
    "concatenate": lambda *xs, dimension, **_: np.concatenate(xs, axis=dimension),
    "rev": lambda x, dimensions, **_: np.flip(x, tuple(dimensions)) if dimensions else x,
    "split": _split,
    "tile": lambda x, reps, **_: np.tile(x, reps),
    "copy": lambda x, **_: x,
    "copy_p": lambda x, **_: x,
    "convert_element_type": lambda x, **_: x,   # only where the dtype stays (_check)
}
_CALLS = ("pjit", "jit", "closed_call", "core_call")


def _rounded(f):
    """A float operation as XLA's: numpy may compute a float32 one in float64 (numpy 1's
    value-based casting of 0-d operands), and one +, -, *, / or sqrt in float64 rounded to
    float32 is the correctly rounded float32 result."""
    def op(*xs, _dtype, **_):
        return np.asarray(f(*xs), dtype=_dtype)
    return op


# float arithmetic of parameter folding (symbol/rewrite.py's quick tier; ``plan(...,
# arithmetic=True)``): each an IEEE operation, rounded as XLA rounds it; rsqrt is 1/sqrt
# rounded once (XLA:CPU's may differ in the last bit: the quick tier's numbers may)
ARITHMETIC = dict(PRIMITIVES, **{
    "add": _rounded(np.add), "sub": _rounded(np.subtract), "mul": _rounded(np.multiply),
    "div": _rounded(np.divide), "neg": _rounded(np.negative), "sqrt": _rounded(np.sqrt),
    "rsqrt": _rounded(lambda x: 1.0 / np.sqrt(np.asarray(x, np.float64))),
    "max": _rounded(np.maximum), "min": _rounded(np.minimum),
    "convert_element_type": lambda x, new_dtype, **_: np.asarray(x, dtype=new_dtype),
})
_ROUNDING = frozenset(ARITHMETIC) - frozenset(PRIMITIVES)   # the operations _rounded wraps


class _NotHost(Exception):
    pass


def _check(jaxpr, table=PRIMITIVES):
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in _CALLS:
            inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")
            if inner is None or not _check(getattr(inner, "jaxpr", inner), table):
                return False
        elif name not in table:
            return False
        elif table is PRIMITIVES and name == "convert_element_type" and \
                np.dtype(eqn.params["new_dtype"]) != eqn.invars[0].aval.dtype:
            return False                 # a real cast: XLA's rounding and overflow rules
        elif table is not PRIMITIVES and (name in _ROUNDING or name == "convert_element_type") \
                and not all(np.issubdtype(v.aval.dtype, np.floating)
                            for v in eqn.invars + eqn.outvars):
            return False                 # integer arithmetic and casts: XLA's own rules
    return True


def _run(jaxpr, consts, args, table=PRIMITIVES):
    env = {}

    def read(v):
        return v.val if hasattr(v, "val") and not hasattr(v, "count") else env[v]

    for v, c in zip(jaxpr.constvars, consts):
        env[v] = np.asarray(c)
    for v, a in zip(jaxpr.invars, args):
        env[v] = a
    for eqn in jaxpr.eqns:
        ins = [np.asarray(read(v)) for v in eqn.invars]
        name = eqn.primitive.name
        if name in _CALLS:
            inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")
            closed = getattr(inner, "jaxpr", None)
            outs = _run(closed if closed is not None else inner,
                        getattr(inner, "consts", ()), ins, table)
        elif table is not PRIMITIVES and name in _ROUNDING:
            # operands in their avals' dtypes: a literal (eps) is a Python float here
            ins = [np.asarray(x, dtype=v.aval.dtype) for x, v in zip(ins, eqn.invars)]
            r = table[name](*ins, _dtype=eqn.outvars[0].aval.dtype)
            outs = [r]
        else:
            r = table[name](*ins, **eqn.params)
            outs = r if isinstance(r, list) else [r]
        for v, o in zip(eqn.outvars, outs):
            env[v] = o
    return [read(v) for v in jaxpr.outvars]


def plan(fn, vals, arithmetic=False):
    """A closed jaxpr of ``fn(*vals)`` that numpy can run, or None.  With ``arithmetic``
    it may also compute (``ARITHMETIC``: float operations), and its size is not bounded (the
    caller's arrays are on the host's memory already: parameters)."""
    try:
        closed = jax.make_jaxpr(fn)(*vals)
    except Exception:  # noqa: BLE001  (the compiled path reports the op's own error)
        return None
    if not _check(closed.jaxpr, ARITHMETIC if arithmetic else PRIMITIVES):
        return None
    if not arithmetic and \
            sum(int(np.prod(v.aval.shape)) for v in closed.jaxpr.outvars) > MAX_ELEMENTS:
        return None                      # big (or absurd: tile by 2**31) results compile, and
    return closed                        # the compiled path's size check raises MXNet's error


def run_arithmetic(closed, vals, device):
    """Run a ``plan(..., arithmetic=True)`` on the host: its results committed to
    ``device``."""
    outs = _run(closed.jaxpr, closed.consts, [np.asarray(v) for v in vals], ARITHMETIC)
    return [_transfer.to_device(np.asarray(o, dtype=v.aval.dtype, order="C"), device)
            for o, v in zip(outs, closed.jaxpr.outvars)]


def put(outs, dtypes, device, vals):
    """The host results as jax.Arrays on `device`, committed to it exactly when the compiled
    kernel's would be (when an input is): a jitted step then sees the same arrays either
    way and compiles once."""
    if sum(o.size for o in outs) > MAX_ELEMENTS:
        return None
    # np.asarray, not np.ascontiguousarray: that one makes a 0-d result (1,)
    outs = [np.asarray(o, dtype=d, order="C") for o, d in zip(outs, dtypes)]
    if any(_compat_jax.committed(v) for v in vals):
        return [_transfer.to_device(o, device) for o in outs]
    return [_transfer.to_default(o, device) for o in outs]


def run(plan_, vals, device, recording=False):
    """Evaluate a plan (``Seen.plan_for``) on the host and put its results on ``device``:
    a list of jax.Arrays, or None when this call must compile instead.  While ``recording``,
    an input still being computed compiles (``_compat_jax.computing``): reading it here would
    wait for it, and a training step's loss waited for its forward before the backward could
    trace and compile (0.9 s of a first ResNet-18 step)."""
    if recording and _compat_jax.computing(vals):
        return None
    host = [np.asarray(v) for v in vals]
    if callable(plan_):                                    # a twin with its attributes
        try:
            out = plan_(*host)
        except (_NotHost, ValueError, IndexError, TypeError):
            return None
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        return put(outs, [o.dtype for o in outs], device, vals)
    outs = _run(plan_.jaxpr, plan_.consts, host)
    return put(outs, [v.aval.dtype for v in plan_.jaxpr.outvars], device, vals)


class Seen:
    """Counts eager calls per (op, static key, input avals): ``plan_for`` returns a host plan
    (a twin with its attributes bound, or a jaxpr) while a combination is among its first
    ``HOST_CALLS`` calls and the host can run it, else None (compile)."""

    LIMIT = 1 << 14                   # combinations remembered (then forgotten all at once)

    def __init__(self):
        self._seen = {}               # combination -> [calls so far, plan or None]

    def plan_for(self, op, key, vals):
        k = (op.name, key, tuple([(v.shape, v.dtype) for v in vals]))
        e = self._seen.get(k)
        if e is None:
            if len(self._seen) >= self.LIMIT:
                self._seen.clear()
            p = None
            if all(v.ndim and v.size for v in vals) and sum(v.size for v in vals) <= MAX_ELEMENTS:
                attrs = dict(zip(op.static, key))        # (else the kernel raises MXNet's error)
                twin = TWINS.get(op.name)
                p = functools.partial(twin, **attrs) if twin else \
                    plan(functools.partial(op.fn, **attrs), vals)
            e = self._seen[k] = [0, p]
        if e[1] is None or (e[0] >= HOST_CALLS and vals):
            return None                  # (a creation op waits for nothing: always host)
        e[0] += 1
        return e[1]
