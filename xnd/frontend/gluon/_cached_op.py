"""A hybridized block's traced graph as ONE registry-style operator (MXNet's CachedOp).

``GraphOp`` wraps the Symbol that ``HybridBlock.hybridize()`` traced: the executor's pure
graph function (``xnd.symbol.executor.GraphFunction``) becomes the function of an ``Op``
run through ``ndarray.invoke``, so a forward is one jitted call and the autograd tape
records it as a single node (backward: one vjp of the whole graph). BatchNorm's running
statistics come back as extra outputs that autograd writes into the aux parameters at
backward time.  While recording, the forward's vjp residuals are kept as hidden outputs,
so the backward applies the saved pullback instead of running the forward again
(``SAVE_RESIDUALS``).  ``infer_graph`` infers parameter shapes over the traced graph
(deferred initialization).
"""
import inspect

import jax
import numpy as np

from ... import rng as _rng
from ...base import MXNetError
from ...lowering.dtypes import real_run
from ...ndarray import NDArray, _wrap_results, invoke
from ...symbol import rewrite as _rewrite
from .utils import shape_is_known

# Counters for tests: traces of hybridized graphs (forward and backward traces both call
# the graph function) and graph ops built.
STATS = {"graph_traces": 0, "graph_ops": 0}

# A recorded forward of a hybridized block saves its residuals for backward (True), or the
# backward pass runs the forward again (False: less memory held between forward and backward).
SAVE_RESIDUALS = True


# ---- shape inference over a traced graph ------------------------------------------------------
def _param_shapes(node, shapes):
    """Shapes of a node's inputs inferred from its data shape (weights from data, as
    MXNet's infer_shape does): the registry's ``param_shapes`` hook, or the op function's
    ``infer_shapes(attrs, data_shape) -> {input name: shape}``."""
    op, attrs = node.op, node.params()
    if op.param_shapes is not None:
        filled = list(op.param_shapes(attrs, shapes))
        return filled + [None] * (len(shapes) - len(filled))
    rule = getattr(op.fn, "infer_shapes", None)
    if rule is None:
        return [None] * len(shapes)
    by_name = rule(attrs, shapes[0])
    return [by_name.get(node.input_slot(k)) if s is None else s for k, s in enumerate(shapes)]


def _declared(src, params):
    """A deferred parameter's partly known shape ((0, 100): 0 is unknown), for shape rules that
    complete it, or None."""
    from ...symbol.infer import behind_casts
    p = params.get(behind_casts(src)[0].name)
    return tuple(p.shape) if p is not None and p.shape else None


def _unsized(node):
    from ...symbol.infer import _unsized as unsized
    return unsized(node)


def _completed(sym, known, params):
    """``sym`` with its creation ops' unknown dims (legacy 0s, -1s) inferred from the input
    shapes and the known parameter shapes; ``sym`` itself where they cannot be yet."""
    from ...symbol.infer import complete_creations
    shapes = {n: tuple(p.shape) for n, p in params.items() if shape_is_known(p.shape)}
    shapes.update({n: tuple(s) for n, s in known.items()})
    try:
        return type(sym)(complete_creations(sym, shapes))
    except MXNetError:
        return sym


def infer_graph(sym, known, dtypes, params):
    """{variable name: ShapeDtypeStruct} for every variable whose shape can be inferred from
    the input shapes ``known`` (name -> shape), parameters' known shapes and op rules."""
    from ...symbol.infer import behind_casts, eval_chain, eval_node
    from ...symbol.graph import topo
    nodes = topo(sym._outputs)
    if any(n.op is not None and _unsized(n) is not None for n in nodes):
        sym = _completed(sym, known, params)
        nodes = topo(sym._outputs)
    out = {}
    for n in nodes:
        if n.op is None:
            shape = known.get(n.name)
            dt = dtypes.get(n.name)
            p = params.get(n.name)
            if p is not None:
                dt = p.dtype
                if shape is None and shape_is_known(p.shape):
                    shape = p.shape
            if shape is None:
                dec = n.attrs.get("__shape__")
                if dec:
                    from ...lowering.attrs import Shape
                    s = Shape(dec)
                    if shape_is_known(s):
                        shape = s
            if shape is not None:
                out[(id(n), 0)] = jax.ShapeDtypeStruct(tuple(shape), np.dtype(dt or np.float32))
            continue
        ins = [out.get((id(src), i)) for src, i in n.inputs]
        if any(s is None for s in ins) and ins and ins[0] is not None:
            filled = _param_shapes(n, [tuple(s.shape) if s is not None else _declared(src, params)
                                       for s, (src, _) in zip(ins, n.inputs)])
            for k, (src, i) in enumerate(n.inputs):
                var, chain = behind_casts(src)  # AMP's casts between weights and ops
                if ins[k] is None and filled[k] is not None and var.op is None \
                        and shape_is_known(filled[k]):
                    p = params.get(var.name)
                    dt = p.dtype if p is not None else ins[0].dtype
                    out[(id(var), 0)] = jax.ShapeDtypeStruct(tuple(filled[k]), np.dtype(dt))
                    eval_chain(chain, out)
                    ins[k] = out[(id(src), 0)]
        if all(s is not None for s in ins):
            for i, s in enumerate(eval_node(n, ins)):
                out[(id(n), i)] = s
    return {n.name: out.get((id(n), 0)) for n in nodes if n.op is None}


# ---- the hybridized graph as one operator -------------------------------------------------------
_NO_KEY = np.zeros(2, np.uint32)  # graphs without random ops never read the key


def _sig(vals, is_train):
    return tuple((tuple(v.shape), np.dtype(v.dtype).name) for v in vals) + (bool(is_train),)


@jax.custom_jvp
def _first_order_only(xs):
    """A float32 zero that depends on every array of ``xs`` and cannot be differentiated."""
    return jax.numpy.zeros((), np.float32)


@_first_order_only.defjvp
def _first_order_only_jvp(primals, tangents):
    raise MXNetError("Gradients of gradients (autograd.grad(..., create_graph=True) followed by "
                     "another backward) through a hybridized block are not supported by xnd: "
                     "its backward reuses the forward's saved residuals. Call "
                     "block.hybridize(False) for higher-order gradients.")


def _from_saved(vals, pullback, avals, n_out):
    """The graph op's value in a backward pass that has the forward's residuals: outputs are
    placeholders (autograd already holds the real ones) and the gradient is the saved
    pullback applied to the output cotangents, so the forward is not computed again.

    The result is exact and linear in the cotangents; its derivative with respect to the
    inputs (a second-order gradient) would need the forward again, so differentiating it
    raises a clear error (``_first_order_only``) instead of silently giving zeros."""
    res = jax.tree_util.tree_leaves(pullback)
    treedef = jax.tree_util.tree_structure(pullback)
    n_vals = len(vals)

    @jax.custom_vjp
    def g(*xs):
        return tuple(jax.numpy.zeros(a.shape, a.dtype) for a in avals)

    def g_fwd(*xs):
        return g(*xs), xs

    def g_bwd(xs, cts):
        leaves = xs[n_vals:]
        grads = jax.tree_util.tree_unflatten(treedef, list(leaves))(tuple(cts[:n_out]))
        guard = _first_order_only(tuple(x for x in xs[:n_vals]
                                        if jax.numpy.issubdtype(x.dtype, jax.numpy.inexact)))
        grads = tuple(gr + guard.astype(gr.dtype)
                      if jax.numpy.issubdtype(gr.dtype, jax.numpy.inexact) else gr
                      for gr in grads)
        return grads + (None,) * len(leaves)      # (the residuals get no cotangent)

    g.defvjp(g_fwd, g_bwd)
    return g(*vals, *res) + tuple(res)


class GraphOp:
    """A traced graph evaluated as one registry-style op (see the module doc).

    Inputs of the op: the graph's arguments in ``list_arguments`` order (data inputs or
    parameters), then its auxiliary states. Outputs: the graph's outputs, then the new
    auxiliary states (BatchNorm running statistics in training), which autograd writes
    back into the aux parameters when it runs the backward pass (``op.aux_update``).

    While recording (``save=True``) the forward is ``jax.vjp`` of the graph: the residuals
    of its pullback come back as further hidden outputs, and the pullback (a pytree of them)
    is handed to the tape through the dynamic attribute ``saved``; the backward pass then
    applies it instead of running the forward again (see ``_from_saved``).
    """

    def __init__(self, name, data_syms, out_sym, params, inline_limit=2):
        from ...lowering.registry import Dynamic, Op
        from ...symbol.executor import GraphFunction
        self.sym = out_sym
        self._made = (name, data_syms, params, inline_limit)
        g = self.graph = GraphFunction(out_sym)  # the executor's pure evaluation of the graph
        # creation ops of unknown dims (F.zeros(shape=(0, C)): the batch size) run at the
        # shapes inferred from each call's inputs, one graph op per input shapes
        self._sized = {} if any(n.op is not None and _unsized(n) is not None
                                for n in g.nodes) else None
        rng = any(n.op is not None and n.op.rng for n in g.nodes)
        data_pos = {s.name: k for k, s in enumerate(data_syms)}
        self.arg_slots = []
        for n in g.arg_nodes:
            if n.name in data_pos:
                self.arg_slots.append((True, data_pos[n.name]))
            elif n.name in params:
                self.arg_slots.append((False, params[n.name]))
            else:
                raise ValueError(f"Unknown input to HybridBlock: {n.name}")
        self.aux_params = []
        for n in g.aux_nodes:
            if n.name not in params:
                raise ValueError(f"Unknown auxiliary input to HybridBlock: {n.name}")
            self.aux_params.append(params[n.name])
        self.n_out = n_out = len(out_sym._outputs)
        n_args, n_aux = len(g.arg_nodes), len(g.aux_nodes)
        self.n_aux = n_aux
        run = g._run
        meta = self._meta = {}  # input signature -> (pullback treedef, avals of outs + aux)

        def fn(*vals, is_train=False, save=False, saved=None, key=None, diff=None):
            STATS["graph_traces"] += 1
            # only BatchNorms whose backward runs update their statistics (as in MXNet)
            updating = g._backward_nodes(diff) if diff is not None else None
            if not save:
                outs, new_aux = run(list(vals[:n_args]), list(vals[n_args:]), key, is_train,
                                    updating)
                return tuple(outs) + tuple(new_aux)
            sig = _sig(vals, is_train)
            if saved:
                if sig in meta:
                    return _from_saved(vals, saved[0], meta[sig][1], n_out)
                # integer inputs come back as float64 (autograd differentiates them so, as
                # MXNet gives them gradients): the saved pullback has none for them, so the
                # forward runs again, differentiably
                outs, new_aux = run(list(vals[:n_args]), list(vals[n_args:]), key, is_train,
                                    updating)
                return tuple(outs) + tuple(new_aux) + tuple(jax.tree_util.tree_leaves(saved[0]))

            def f(*xs):
                o, a = run(list(xs[:n_args]), list(xs[n_args:]), key, is_train, updating)
                return tuple(o), tuple(a)
            if g.int_casts:
                # a cast to an integer dtype passes gradients (dtypes.real_run): the pullback
                # is the float run's, and so are the placeholders the backward pass gets
                with real_run():
                    outs_bwd, pullback, aux_bwd = jax.vjp(f, *vals, has_aux=True)
                outs, new_aux = f(*vals)
            else:
                outs, pullback, new_aux = jax.vjp(f, *vals, has_aux=True)
                outs_bwd, aux_bwd = outs, new_aux
            leaves, treedef = jax.tree_util.tree_flatten(pullback)
            meta[sig] = (treedef, [jax.ShapeDtypeStruct(v.shape, v.dtype)
                                   for v in tuple(outs_bwd) + tuple(aux_bwd)])
            return tuple(outs) + tuple(new_aux) + tuple(leaves)

        P = inspect.Parameter
        sig = [P(f"i{k}", P.POSITIONAL_OR_KEYWORD) for k in range(n_args)]
        sig += [P(f"a{k}", P.POSITIONAL_OR_KEYWORD) for k in range(n_aux)]
        sig.append(P("save", P.KEYWORD_ONLY, default=False, annotation=bool))
        sig.append(P("saved", P.KEYWORD_ONLY, default=None, annotation=Dynamic(lambda v: v)))
        sig.append(P("is_train", P.KEYWORD_ONLY, default=False))
        sig.append(P("diff", P.KEYWORD_ONLY, default=None))
        if rng:
            sig.append(P("key", P.KEYWORD_ONLY, default=None))
        fn.__signature__ = inspect.Signature(sig)
        fn.__name__ = name
        self.op = Op(name, fn, num_visible=n_out, aux=tuple(f"a{k}" for k in range(n_aux)),
                     num_outputs=n_out + n_aux,
                     aux_update=lambda attrs, ins, outs: outs[n_out:n_out + n_aux])
        self.op.tuned = True                       # whole graphs: xla_options
        self.op.graph_op = self                    # autograd.get_symbol reads the graph back
        self.inline_limit = inline_limit           # hybridize(inline_limit=), MXNet's default 2
        if g.checked or any(n.op is not None and n.op.kernel_check is not None and not n.inputs
                            for n in g.nodes):
            # the graph's kernel checks (take(mode='raise'), constraint_check, a sampler's
            # bad parameter) as the whole op's: its outputs fail when read, as MXNet's do
            def check(attrs, *vals):
                error = g.attr_error() or g.check_error(
                    list(vals[:n_args]), list(vals[n_args:]), attrs.get("key", _NO_KEY),
                    bool(attrs.get("is_train", False)))
                if error is not None:
                    raise error
            self.op.kernel_check = check
        self.op.convolutional = g.convolutional
        self.params = [p for is_arg, p in self.arg_slots if not is_arg] + self.aux_params
        self._fold_state = _rewrite.new_state()
        STATS["graph_ops"] += 1

    def _predict(self, ins, ctx):
        """Inference outside ``autograd.record``/``train_mode``: the graph through the
        executor's inference rewrites (``xnd.symbol.rewrite``: BatchNorm folded into the
        convolutions once per parameter version, Dropout dropped)."""
        n_args = len(self.arg_slots)
        vals = [x._val() for x in ins]
        key = _rng.next_key() if self.op.rng else _NO_KEY
        outs = self.graph.inference_plan().run(vals[:n_args], vals[n_args:], key,
                                               self._fold_state)
        outs = _wrap_results(outs, ctx)
        if type(ins[0]) is not NDArray:  # the numpy face of the input carries over, as in invoke
            for o in outs:
                o.__class__ = type(ins[0])
        return outs

    def _diff_mask(self, flat_args):
        """Which graph arguments get a gradient: parameters with grad_req != 'null', data
        inputs that autograd tracks."""
        from ...autograd import tape
        return tuple((tape.in_graph(flat_args[p]) and tape.grad_req(flat_args[p]) != "null")
                     if is_arg else p.grad_req != "null" for is_arg, p in self.arg_slots)

    def _sized_op(self, flat_args):
        """The graph op of this graph with its creation ops' unknown dims inferred from the
        shapes of this call's inputs and parameters (symbol/infer.complete_creations)."""
        from ...symbol.infer import complete_creations
        g = self.graph
        shapes = [tuple(flat_args[p].shape) if is_arg else tuple(p.shape)
                  for is_arg, p in self.arg_slots]
        shapes += [tuple(p.shape) for p in self.aux_params]
        key = tuple(shapes)
        op = self._sized.get(key)
        if op is None:
            names = [n.name for n in g.arg_nodes + g.aux_nodes]
            run = complete_creations(self.sym, dict(zip(names, shapes)))
            name, data_syms, params, inline_limit = self._made
            op = self._sized[key] = GraphOp(name, data_syms, type(self.sym)(run), params,
                                            inline_limit)
        return op

    def __call__(self, flat_args):
        from ...ndarray import STATE
        if self._sized is not None:
            return self._sized_op(flat_args)(flat_args)
        ctx = flat_args[0].context
        ins = []
        for is_arg, p in self.arg_slots:
            if is_arg:
                ins.append(flat_args[p])
            else:
                d = p._data
                ins.append(d[0] if d is not None and len(d) == 1 else p.data(ctx))
        for p in self.aux_params:
            d = p._data
            ins.append(d[0] if d is not None and len(d) == 1 else p.data(ctx))
        if not STATE.recording and not STATE.training and _rewrite.ENABLED \
                and self.op.kernel_check is None:
            return self._predict(ins, ctx)
        recording = STATE.recording and SAVE_RESIDUALS
        holder = []
        out = invoke(self.op, ins, {"save": recording, "saved": holder,
                                    "diff": self._diff_mask(flat_args) if recording else None})
        outs = out if isinstance(out, list) else [out]
        if recording:
            entry = outs[0]._ag
            if entry is not None and not entry[0].cleared:
                node = entry[0]
                treedef = self._meta[_sig(ins, STATE.training)][0]
                leaves = node.outs[self.n_out + self.n_aux:]
                holder.append(jax.tree_util.tree_unflatten(treedef, list(leaves)))
        return outs
