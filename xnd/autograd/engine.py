"""mx.autograd's backward (MXNet does it in C++, Imperative::Backward): the part of the tape
reachable from the heads as ONE jitted call.

``run()`` walks the tape from the heads, turns the reachable nodes into a
*plan* -- a hashable tuple of (node kind, input references) in topological
order, plus the head references, the number of external values (variables
and constants), the groups of external values whose gradients are wanted and
which head gradients were given -- and calls a ``jax.jit`` compiled for that
plan. Values never appear in the plan: externals, dynamic attributes
(scalars), rng keys, saved forward values and head gradients are arguments
of the jitted function, so a training loop traces and compiles its backward
once and every later step is one cached call.

Two ways to build the compiled function from a plan (``MODE``):

* ``"saved"`` (default): the forward values computed eagerly while recording
  are passed in, and the function runs the reverse sweep only: for each node,
  in reverse order, ``jax.vjp`` of ``op.fn`` at its recorded inputs. XLA drops
  the forward halves it does not need (a matmul's product, for instance), so
  nothing of the forward pass is computed twice. Costs the memory of the
  forward values between forward and backward -- which MXNet holds too.
* ``"replay"``: ``jax.vjp`` of the whole forward replayed from the external
  values (one pure function of the leaves). Nothing but the leaves is kept
  alive, but the forward pass runs again inside the backward. Used for the
  differentiable gradient nodes of ``grad(create_graph=True)``, and whenever a
  saved value is gone (donated).

Measured on the 784-512-256-10 MLP loop (CPU): see the closing note of issue 3.
"""
import os

import jax
import jax.numpy as jnp
import numpy as np

from ..base import MXNetError
from ..engine import awaited_node
from ..ndarray import STATE, _wrap
from .. import tiers
from ..lowering import xla_options
from ..lowering.dtypes import NOT_REAL_ERRORS, as_real, real_run
from . import devices, pieces
from .sweep import aux_update_fn, get, inexact, integer, op_caller, reverse_node, sum_groups
from .tape import ExtNode, OpNode, grad_req, live_entry, var_entry

NOT_IN_GRAPH_MSG = ("Cannot differentiate node because it is not in a computational graph. You need "
                    "to set is_recording to true or use autograd.record() to save computational "
                    "graphs for backward. If you want to differentiate the same graph twice, you "
                    "need to pass retain_graph=True to backward.")
NO_INPUTS_MSG = "There are no inputs in computation graph that require gradients."

# Counters for tests and benchmarks: how often a backward plan was traced (== compiled,
# for a fixed input signature) and how many distinct plans were built.
STATS = {"traces": 0, "plans": 0, "calls": 0}
MODE = os.environ.get("XND_AUTOGRAD_MODE", "saved")  # "saved" or "replay" (module doc)

_CALLERS = {}   # node kind -> fn(input values, dyn) -> tuple of outputs
_PURE = {}      # plan -> pure vjp function
_JITTED = {}    # plan -> jax.jit of the backward
_AUX = {}       # plan -> auxiliary-state updates (see aux_plan)
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
        return op_caller(kind)
    if tag == "grad":
        plan = kind[1]
        pure, n_ext = pure_vjp(plan), plan[2]

        def call(ins, dyn):
            return pure(ins[:n_ext], dyn, ins[n_ext:])[0]
        return call
    if tag == "func":
        from .function import func_caller
        return func_caller
    raise MXNetError(f"autograd: unknown node kind {tag!r}")


def _memo(cache, plan, make):
    value = cache.get(plan)
    if value is None:
        value = cache[plan] = make(plan)
    return value


def pure_vjp(plan):
    """fn(ext values, dyn values, given head grads) -> tuple of gradients, one per group."""
    return _memo(_PURE, plan, _make_pure)


def aux_plan(plan):
    return _memo(_AUX, plan, _aux_plan)


def _aux_plan(plan):
    """[(node position, [(input position, ext index)...]), ...] in reverse topological order, and
    the ext indices written: ops with auxiliary states (BatchNorm's moving statistics) update
    them when the backward pass runs, as MXNet does."""
    nodes = plan[0]
    todo, slots = [], []
    for j in range(len(nodes) - 1, -1, -1):
        kind, refs = nodes[j]
        if kind[0] != "op" or not kind[1].aux or aux_update_fn(kind[1]) is None:
            continue
        op = kind[1]
        pairs = []
        for name in op.aux:
            pos = op.inputs.index(name)
            r = refs[pos] if pos < len(refs) else None
            if r is not None and r[0] == 0:
                pairs.append((pos, r[1]))
                if r[1] not in slots:
                    slots.append(r[1])
        if pairs:
            todo.append((j, pairs))
    return todo, slots


def _aux_values(nodes, aux_todo, aux_slots, ext, outs, dyn):
    """New values of the auxiliary states, chained in reverse topological order (MXNet's
    backward order, so an array used by two BatchNorms gets both updates)."""
    cur = {}
    for j, pairs in aux_todo:
        kind, refs = nodes[j]
        op = kind[1]
        ins = [get(r, ext, outs) for r in refs]
        for pos, k in pairs:
            if k in cur:
                ins[pos] = cur[k]
        attrs = dict(zip(op.static, kind[2]))
        attrs.update(zip(op.dynamic, dyn[j]))
        new = aux_update_fn(op)(attrs, ins, outs[j])
        for pos, k in pairs:
            cur[k] = jax.lax.stop_gradient(new[op.aux.index(op.inputs[pos])])
    return tuple(cur[k] for k in aux_slots)


def _make_pure(plan):
    """Replay mode: vjp of the forward replayed from the external values."""
    nodes, heads, n_ext, groups, hg_given = plan
    callers = [caller(kind) for kind, _ in nodes]
    wanted = sorted({i for g in groups for i in g})
    aux_todo, aux_slots = aux_plan(plan)

    def replay(ext, dyn):
        outs = []
        for (_, refs), call, d in zip(nodes, callers, dyn):
            outs.append(call([get(r, ext, outs) for r in refs], d))
        heads_out = [get(h, ext, outs) for h in heads]
        aux = _aux_values(nodes, aux_todo, aux_slots, ext, outs, dyn) if aux_todo else ()
        return heads_out, aux

    def pure(ext_vals, dyn_vals, head_grads):
        """(gradients per group, new auxiliary-state values per aux slot)."""
        ext_vals = list(ext_vals)

        def vjp(diff):
            def f(*dv):
                ev = list(ext_vals)
                for i, v in zip(diff, dv):
                    ev[i] = v
                return replay(ev, dyn_vals)
            with real_run():
                return jax.vjp(f, *[as_real(ext_vals[i]) for i in diff], has_aux=True)

        diff = [i for i in wanted if inexact(ext_vals[i]) or integer(ext_vals[i])]
        try:
            outs, pull, aux = vjp(diff)
        except NOT_REAL_ERRORS:
            diff = [i for i in diff if inexact(ext_vals[i])]
            outs, pull, aux = vjp(diff)
        given = iter(head_grads)
        cts = [jnp.asarray(next(given)).astype(o.dtype) if g else jnp.ones(o.shape, o.dtype)
               for o, g in zip(outs, hg_given)]
        return sum_groups(groups, dict(zip(diff, pull(cts))), ext_vals), aux
    return pure


def _make_saved(plan):
    """Saved mode: the reverse sweep only, from the forward values recorded eagerly."""
    nodes, heads, n_ext, groups, hg_given = plan
    callers = [caller(kind) for kind, _ in nodes]
    wanted = sorted({i for g in groups for i in g})
    aux_todo, aux_slots = aux_plan(plan)

    def sweep(ext_vals, out_vals, dyn_vals, head_grads):
        diff = {i for i in wanted if inexact(ext_vals[i]) or integer(ext_vals[i])}
        n = len(nodes)
        need = [False] * n  # node j's outputs depend on a wanted external

        def live(r):
            if r is None:
                return False
            return r[1] in diff if r[0] == 0 else need[r[1]]

        for j, (_, refs) in enumerate(nodes):
            need[j] = any(live(r) for r in refs)
        ct_out = [[None] * len(out_vals[j]) for j in range(n)]
        ct_ext = {}

        def add(r, c):
            if r[0] == 0:
                if r[1] in diff:
                    old = ct_ext.get(r[1])
                    ct_ext[r[1]] = c if old is None else old + c
            elif need[r[1]]:
                row = ct_out[r[1]]
                old = row[r[2]]
                row[r[2]] = c if old is None else old + c

        given = iter(head_grads)
        for h, g in zip(heads, hg_given):
            v = get(h, ext_vals, out_vals)
            add(h, next(given) if g else jnp.ones(v.shape, v.dtype))
        for j in range(n - 1, -1, -1):
            if not need[j]:
                continue
            cts = ct_out[j]
            if all(c is None for c in cts):
                continue
            refs = nodes[j][1]
            reverse_node(callers[j], refs, [get(r, ext_vals, out_vals) for r in refs],
                         dyn_vals[j], cts, live, add)
        grads = sum_groups(groups, ct_ext, ext_vals)
        aux = _aux_values(nodes, aux_todo, aux_slots, ext_vals, out_vals, dyn_vals) \
            if aux_todo else ()
        return grads, aux
    return sweep


def _jitted(plan, mode):
    f = _JITTED.get((plan, mode))
    if f is None:
        if len(_JITTED) >= _MAX_PLANS:
            _JITTED.clear()
            _PURE.clear()
            _AUX.clear()
            _CALLERS.clear()
        if mode == "saved":
            sweep = _make_saved(plan)

            def run(ext_vals, out_vals, dyn_vals, head_grads, olds):
                STATS["traces"] += 1
                grads, aux = sweep(ext_vals, out_vals, dyn_vals, head_grads)
                return [g if o is None else o + g.astype(o.dtype) for g, o in zip(grads, olds)], aux
        else:
            pure = pure_vjp(plan)

            def run(ext_vals, out_vals, dyn_vals, head_grads, olds):
                STATS["traces"] += 1
                grads, aux = pure(ext_vals, dyn_vals, head_grads)
                return [g if o is None else o + g.astype(o.dtype) for g, o in zip(grads, olds)], aux
        conv = xla_options.classic_fusion(kind[1] for kind, _ in plan[0] if kind[0] == "op")
        f = _JITTED[(plan, mode)] = xla_options.jit(run, classic_fusion=conv, kind=tiers.TAPE)
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
        if h._data is None and awaited_node(h) is not None:
            h._val()  # a head behind a SyncBatchNorm barrier: its call records it now
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
    gather = None  # several devices: one backward per device, or all on the first head's
    if devices.several(ops, exts):
        into_grads = variables is None and not create_graph
        if into_grads and devices.meet(heads, head_grads, ops, lambda hs, hgs: run(
                hs, hgs, None, retain_graph, False, train_mode)):
            return None  # the devices' backward calls met; one ran them all
        parts = devices.split(hentries, ops, exts)
        if len(parts) > 1 and into_grads:
            for idx, _ in parts:
                run([heads[i] for i in idx], [head_grads[i] for i in idx], None, retain_graph,
                    False, train_mode)
            return None
        gather = heads[0]._ctx.jax_device() if parts[0][1] is None else None
    epos = {n.id: k for k, n in enumerate(exts)}
    opos = {n.id: k for k, n in enumerate(ops)}

    # which externals get gradients, grouped per target (an entry for some rows of a
    # variable, whose gradient is row_sparse, is a group of its own: xnd/sparse/tape.py)
    targets, groups, nulls = [], [], []
    if variables is None:
        index = {}
        for k, n in enumerate(exts):
            if not n.is_var:
                continue
            req = grad_req(n.handle)
            if req in ("write", "add"):
                key = id(n.handle) if n.rows is None else ("rows", k)
                j = index.get(key)
                if j is None:
                    index[key] = len(groups)
                    targets.append(n.handle)
                    groups.append([k])
                else:
                    groups[j].append(k)
            elif n.handle is not None:     # (a variable nobody holds: nothing to write)
                nulls.append(n.handle)
        if not groups:
            raise MXNetError(NO_INPUTS_MSG)
    else:
        for i, v in enumerate(variables):
            g = [k for k, n in enumerate(exts) if n.is_var and n.handle is v]
            if not g:
                raise MXNetError(f"Cannot differentiate with respect to the {i + 1}-th variable "
                                 "because it is unreachable from the outputs.")
            whole = [k for k in g if exts[k].rows is None]
            for part in ([whole] if whole else []) + [[k] for k in g if exts[k].rows is not None]:
                targets.append(v)
                groups.append(part)
    rows = [exts[g[0]].rows for g in groups]   # per group: None, or the rows it holds
    sparse_rows = any(r is not None for r in rows)
    if sparse_rows and create_graph:
        from ..sparse.tape import no_higher_order
        no_higher_order(ops)

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
        olds = [t._grad._val() if grad_req(t) == "add" and t._grad is not None and r is None
                else None for t, r in zip(targets, rows)]
    else:
        olds = [None] * len(targets)

    has_func = any(n.kind[0] == "func" for n in ops)
    prev = (STATE.recording, STATE.training)
    STATE.recording, STATE.training = False, bool(train_mode)
    try:
        mode, out_vals = MODE, ()
        if mode == "saved":
            out_vals = [n.outs for n in ops]
            if any(v is None or v.is_deleted() for o in out_vals for v in o):
                mode, out_vals = "replay", ()  # a forward value is gone: recompute it
        args = (ext_vals, out_vals, dyn_vals, hg_vals, olds)
        if gather is None and pieces.splits(plan, mode):  # a long tape: pieces by structure
            grads, aux = pieces.run(plan, *args)
        else:
            grads, aux = _jitted(plan, mode)(
                *(args if gather is None else devices.to(gather, args)))
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

    if gather is not None:
        grads = [devices.back(g, t) for g, t in zip(grads, targets)]
        aux = [v if exts[k].handle is None else devices.back(v, exts[k].handle)
               for k, v in zip(aux_plan(plan)[1], aux)]
    if aux:
        for k, v in zip(aux_plan(plan)[1], aux):
            h = exts[k].handle
            if h is not None:          # (a running statistic nobody holds any more: dropped)
                h._write(v.astype(h.dtype) if v.dtype != h.dtype else v)

    result = None
    if sparse_rows:   # one gradient per target: row_sparse where it is rows only
        from ..sparse.tape import combine
        targets, grads = combine(targets, rows, grads, variables is None)
    if variables is None:
        for t, g in zip(targets, grads):
            dst = t._grad
            if dst is None:
                continue
            if sparse_rows and not isinstance(g, jax.Array):
                dst._assign(g.astype(dst.dtype))  # (a row_sparse gradient into its buffer)
            else:
                dst._write(g if g.dtype == dst.dtype else g.astype(dst.dtype))
            t._fresh = True
    else:
        result = []
        for v, g in zip(targets, grads):
            if sparse_rows and not isinstance(g, jax.Array):
                result.append(g.astype(v.dtype))
                continue
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
            node.outs = tuple(r._data for r in result)
            for i, r in enumerate(result):
                r._ag = (node, i)
                r._shared = True  # the node keeps this buffer

    if not retain_graph:
        _clear(ops, exts, nulls)
    return result


def _clear(ops, exts, nulls):
    """Free the graph as MXNet does: intermediate history goes, marked variables stay marked."""
    for n in ops:
        n.cleared = True
        n.inputs = ()
        n.dyn = ()
        n.outs = ()
        n.extra = None
    for n in exts:
        n.value = None  # later uses read the handle's current buffer
        if not n.is_var or grad_req(n.handle) == "null":
            n.cleared = True
    for h in nulls:
        h._grad = None  # MXNet: a 'null' variable's grad reads None once its graph is freed

