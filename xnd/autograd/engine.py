"""Backward: the part of the tape reachable from the heads as ONE jitted ``jax.vjp``.

``run()`` walks the tape from the heads, turns the reachable nodes into a
*plan* -- a hashable tuple of (node kind, input references) in topological
order, plus the head references, the number of external values (variables
and constants) and the groups of external values whose gradients are wanted
-- and calls a ``jax.jit`` of

    vjp(replay(externals, dynamic attributes), head gradients)

cached by the plan. Values never appear in the plan: externals, dynamic
attributes (scalars), rng keys and head gradients are arguments of the
jitted function, so a training loop traces and compiles its backward once
and every later step is one cached call.

The forward pass is replayed inside the compiled function (``op.fn`` with the
recorded attributes), which lets XLA fuse it with the backward pass; no
intermediate value is kept alive by the tape between forward and backward.
"""
import jax
import jax.numpy as jnp
import numpy as np

from ..base import MXNetError
from ..ndarray import STATE, _wrap
from .tape import ExtNode, OpNode, grad_req, live_entry, var_entry

NOT_IN_GRAPH_MSG = ("Cannot differentiate node because it is not in a computational graph. You need "
                    "to set is_recording to true or use autograd.record() to save computational "
                    "graphs for backward. If you want to differentiate the same graph twice, you "
                    "need to pass retain_graph=True to backward.")
NO_INPUTS_MSG = "There are no inputs in computation graph that require gradients."

# Counters for tests and benchmarks: how often a backward plan was traced (== compiled,
# for a fixed input signature) and how many distinct plans were built.
STATS = {"traces": 0, "plans": 0, "calls": 0}

_CALLERS = {}   # node kind -> fn(input values, dyn) -> tuple of outputs
_PURE = {}      # plan -> pure vjp function
_JITTED = {}    # plan -> jax.jit of the backward
_MAX_PLANS = 1024


# ---- replaying nodes ------------------------------------------------------------------------
def caller(kind):
    c = _CALLERS.get(kind)
    if c is None:
        c = _CALLERS[kind] = _make_caller(kind)
    return c


def _make_caller(kind):
    tag = kind[0]
    if tag == "op":
        op, skey = kind[1], kind[2]
        static = dict(zip(op.static, skey))
        names, fn = op.dynamic, op.fn

        def call(ins, dyn):
            r = fn(*ins, **static, **dict(zip(names, dyn)))
            return tuple(r) if isinstance(r, (tuple, list)) else (r,)
        return call
    if tag == "grad":
        plan = kind[1]
        pure, n_ext = pure_vjp(plan), plan[2]

        def call(ins, dyn):
            return pure(ins[:n_ext], dyn, ins[n_ext:])
        return call
    if tag == "func":
        from .function import func_caller
        return func_caller
    raise MXNetError(f"autograd: unknown node kind {tag!r}")


def pure_vjp(plan):
    """fn(ext values, dyn values, given head grads) -> tuple of gradients, one per group."""
    f = _PURE.get(plan)
    if f is None:
        f = _PURE[plan] = _make_pure(plan)
    return f


def _make_pure(plan):
    nodes, heads, n_ext, groups, hg_given = plan
    callers = [caller(kind) for kind, _ in nodes]
    wanted = sorted({i for g in groups for i in g})

    def replay(ext, dyn):
        outs = []
        for (_, refs), call, d in zip(nodes, callers, dyn):
            ins = [None if r is None else (ext[r[1]] if r[0] == 0 else outs[r[1]][r[2]])
                   for r in refs]
            outs.append(call(ins, d))
        return [ext[h[1]] if h[0] == 0 else outs[h[1]][h[2]] for h in heads]

    def pure(ext_vals, dyn_vals, head_grads):
        ext_vals = list(ext_vals)
        diff = [i for i in wanted if jnp.issubdtype(ext_vals[i].dtype, jnp.inexact)]

        def f(*dv):
            ev = list(ext_vals)
            for i, v in zip(diff, dv):
                ev[i] = v
            return replay(ev, dyn_vals)

        outs, pull = jax.vjp(f, *[ext_vals[i] for i in diff])
        given = iter(head_grads)
        cts = [next(given) if g else jnp.ones(o.shape, o.dtype) for o, g in zip(outs, hg_given)]
        per = dict(zip(diff, pull(cts)))
        res = []
        for group in groups:
            acc = None
            for i in group:
                # integer variables get zero gradients (MXNet computes integer gradients)
                g = per[i] if i in per else jnp.zeros_like(ext_vals[i])
                acc = g if acc is None else acc + g
            res.append(acc)
        return tuple(res)
    return pure


def _jitted(plan):
    f = _JITTED.get(plan)
    if f is None:
        if len(_JITTED) >= _MAX_PLANS:
            _JITTED.clear()
            _PURE.clear()
        pure = pure_vjp(plan)

        def run(ext_vals, dyn_vals, head_grads, olds):
            STATS["traces"] += 1
            grads = pure(ext_vals, dyn_vals, head_grads)
            return [g if o is None else o + g.astype(o.dtype) for g, o in zip(grads, olds)]
        f = _JITTED[plan] = jax.jit(run)
        STATS["plans"] += 1
    return f


# ---- the tape walk ----------------------------------------------------------------------------
def _collect(head_entries):
    ops, exts, seen = [], [], set()
    stack = [e[0] for e in head_entries]
    while stack:
        n = stack.pop()
        if n.id in seen:
            continue
        seen.add(n.id)
        if type(n) is ExtNode:
            exts.append(n)
            continue
        if n.cleared:
            raise MXNetError(NOT_IN_GRAPH_MSG + " (Part of this graph was freed by an earlier "
                             "backward without retain_graph=True.)")
        ops.append(n)
        for e in n.inputs:
            if e is not None and e[0].id not in seen:
                stack.append(e[0])
    ops.sort(key=lambda n: n.id)
    exts.sort(key=lambda n: n.id)
    return ops, exts


def _ref(e, opos, epos):
    n = e[0]
    if type(n) is ExtNode:
        return (0, epos[n.id])
    return (1, opos[n.id], e[1])


def _as_list(x, what):
    from ..ndarray import NDArray
    if isinstance(x, NDArray):
        return [x], True
    if isinstance(x, (list, tuple)):
        return list(x), False
    raise TypeError(f"{what} must be an NDArray or a list of NDArrays, got {type(x).__name__}")


def run(heads, head_grads=None, variables=None, retain_graph=False, create_graph=False,
        train_mode=True):
    """backward (variables None: into the variables' .grad) or grad (returns new arrays)."""
    from ..ndarray import NDArray
    heads, _ = _as_list(heads, "heads")
    if head_grads is not None:
        head_grads, _ = _as_list(head_grads, "head_grads")
        if len(head_grads) != len(heads):
            raise MXNetError("heads and head_grads must be lists of the same length")
    else:
        head_grads = [None] * len(heads)

    # heads: each must be in a graph (a marked variable counts)
    hentries = []
    for h in heads:
        if not isinstance(h, NDArray):
            raise TypeError(f"heads must be NDArrays, got {type(h).__name__}")
        e = live_entry(h)
        if e is None:
            if grad_req(h) is None:
                raise MXNetError(NOT_IN_GRAPH_MSG)
            e = var_entry(h)
        hentries.append(e)

    if variables is not None:
        for i, v in enumerate(variables):
            if not isinstance(v, NDArray):
                raise TypeError(f"variables must be NDArrays, got {type(v).__name__}")
            if grad_req(v) in (None, "null"):
                raise MXNetError(f"Cannot differentiate with respect to the {i + 1}-th variable "
                                 "because it does not require gradient.")

    ops, exts = _collect(hentries)
    epos = {n.id: k for k, n in enumerate(exts)}
    opos = {n.id: k for k, n in enumerate(ops)}

    # which externals get gradients, grouped per target
    targets, groups, nulls = [], [], []
    if variables is None:
        index = {}
        for k, n in enumerate(exts):
            if not n.is_var:
                continue
            req = grad_req(n.handle)
            if req in ("write", "add"):
                j = index.get(id(n.handle))
                if j is None:
                    index[id(n.handle)] = len(groups)
                    targets.append(n.handle)
                    groups.append([k])
                else:
                    groups[j].append(k)
            else:
                nulls.append(n.handle)
        if not groups:
            raise MXNetError(NO_INPUTS_MSG)
    else:
        for i, v in enumerate(variables):
            g = [k for k, n in enumerate(exts) if n.is_var and n.handle is v]
            if not g:
                raise MXNetError(f"Cannot differentiate with respect to the {i + 1}-th variable "
                                 "because it is unreachable from the outputs.")
            targets.append(v)
            groups.append(g)

    # head gradients: MXNet's shape (not checked by MXNet: it reads garbage) and dtype
    hg_given, hg_vals = [], []
    for i, (h, g) in enumerate(zip(heads, head_grads)):
        if g is None:
            hg_given.append(False)
            continue
        if not isinstance(g, NDArray):
            raise TypeError(f"head_grads must be NDArrays, got {type(g).__name__}")
        if g.shape != h.shape:
            raise MXNetError(f"backward: head gradient {i} has shape {g.shape} but head {i} has "
                             f"shape {h.shape}")
        if g.dtype != h.dtype:
            raise MXNetError(f"backward: head gradient {i} has dtype {np.dtype(g.dtype).name} but "
                             f"head {i} has dtype {np.dtype(h.dtype).name}")
        hg_given.append(True)
        hg_vals.append(g._val())

    plan = (tuple((n.kind, tuple(None if e is None else _ref(e, opos, epos) for e in n.inputs))
                  for n in ops),
            tuple(_ref(e, opos, epos) for e in hentries),
            len(exts), tuple(tuple(g) for g in groups), tuple(hg_given))
    ext_vals = [n.current() for n in exts]
    dyn_vals = tuple(n.dyn for n in ops)
    if variables is None:
        olds = [t._grad._val() if grad_req(t) == "add" and t._grad is not None else None
                for t in targets]
    else:
        olds = [None] * len(targets)

    has_func = any(n.kind[0] == "func" for n in ops)
    prev = (STATE.recording, STATE.training)
    STATE.recording, STATE.training = False, bool(train_mode)
    try:
        grads = _jitted(plan)(ext_vals, dyn_vals, hg_vals, olds)
        STATS["calls"] += 1
        if has_func:  # Function.backward runs in a host callback: finish it under these flags
            grads = jax.block_until_ready(grads)
    except MXNetError:
        raise
    except Exception as e:  # noqa: BLE001  (an error from a custom Function.backward)
        if has_func and "Function.backward" in str(e):
            raise MXNetError(str(e)) from None
        raise
    finally:
        STATE.recording, STATE.training = prev

    result = None
    if variables is None:
        for t, g in zip(targets, grads):
            dst = t._grad
            if dst is None:
                continue
            if g.dtype != dst.dtype:
                g = g.astype(dst.dtype)
            dst._write(g)
    else:
        result = []
        for v, g in zip(targets, grads):
            if g.dtype != v.dtype:
                g = g.astype(v.dtype)
            result.append(_wrap(g, v._ctx))
        if create_graph:
            ins = [(n, 0) for n in exts]
            for g in head_grads:
                if g is not None:
                    e = live_entry(g)
                    ins.append(e if e is not None else (ExtNode(g, g._val(), False), 0))
            node = OpNode(("grad", plan), tuple(ins), dyn_vals, len(result))
            for i, r in enumerate(result):
                r._ag = (node, i)

    if not retain_graph:
        _clear(ops, exts, nulls)
    return result


def _clear(ops, exts, nulls):
    """Free the graph as MXNet does: intermediate history goes, marked variables stay marked."""
    for n in ops:
        n.cleared = True
        n.inputs = ()
        n.dyn = ()
        n.extra = None
    for n in exts:
        n.value = None  # later uses read the handle's current buffer
        if not n.is_var or grad_req(n.handle) == "null":
            n.cleared = True
    for h in nulls:
        h._grad = None  # MXNet: a 'null' variable's grad reads None once its graph is freed
