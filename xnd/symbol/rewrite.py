"""Inference rewrites of a symbol graph (``Executor.forward(is_train=False)``).

A bound graph evaluated for inference is split in two jitted programs:

* the **fold** program, a function of the parameters only (arguments that feed only
  weight-like input slots -- ``weight``, ``bias``, ``gamma``, ``beta`` -- and the auxiliary
  states).  It evaluates every parameter-only subgraph (constant folding), folds each
  BatchNorm into the Convolution before it and stores convolution weights in the kernel
  layout XLA runs them in.  It runs once per *parameter version*: its results are cached
  together with the parameter ``jax.Array`` objects they came from, and any write to a
  parameter (which rebinds the NDArray's buffer: xnd arrays are immutable underneath)
  makes the identity check fail and the fold run again.
* the **main** program, a function of the data arguments, the parameters and the folded
  constants, which evaluates the rest of the graph with

  - identity ops dropped: ``Dropout`` (mode 'training': an identity in inference),
    ``_copy``/``identity``, ``BlockGrad``/``stop_gradient``;
  - ``Convolution -> BatchNorm`` as one convolution with folded weights and bias
    (``W' = W s``, ``b' = (b - mean) s + beta``, ``s = gamma / sqrt(moving_var + eps)``):
    what MXNet's oneDNN subgraph backend does for inference, so its numbers are these;
  - the channels-last internal layout of ``xnd.symbol.layout`` (as in training), with
    bias add and ReLU after a convolution fused by XLA into one pass over its output;
  - the convolution algorithm picked by ``xnd.lowering.conv`` for the kernel the fold
    program prepared: Winograd F(2x2, 3x3) for 3x3 stride-1 convolutions (kernel
    transformed once per parameter version), shifted slices for depthwise ones, XLA's
    convolution otherwise.  A signature's first calls (the quick tier, ``xnd.tiers``'
    ``inference`` row) fold plain kernels, by numpy where the fold is float arithmetic
    (``host_eval.plan``), and run XLA's convolution everywhere.

Every rewrite keeps the un-rewritten graph's numbers within float32 rounding
(tests/test_rewrite.py).  ``XND_INFERENCE_REWRITES=0`` turns the rewrites off.
"""
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..lowering import conv as _conv
from .. import tiers
from ..lowering import host_eval, host_jaxpr, xla_options
from . import layout as _layout, rows as _rows

ENABLED = os.environ.get("XND_INFERENCE_REWRITES", "1") != "0"

_WEIGHT_SLOTS = frozenset(("weight", "bias", "gamma", "beta", "moving_mean", "moving_var"))
_FOLD_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


_key = _layout.key
# the quick tier's main program at XLA's level 2, not 0: without Winograd it is convolution
# library calls and their epilogues, which level 2 compiles in ~1.3x level 0's time and runs
# 1.4x as fast (ResNet-18's first hybridized forward: +0.07 s cold, -0.1 s warm)
QUICK_MAIN_OPTIONS = {"xla_backend_optimization_level": 2}


def _is_identity(node):
    name = node.op.name
    if name in ("_copy", "BlockGrad"):
        return True
    if name == "Dropout":
        a = node.params()
        return a["mode"] == "training" or a["p"] <= 0
    return False


def fold_batchnorm(weight, bias, gamma, beta, moving_mean, moving_var, *, eps, fix_gamma):
    """(W', b') of ``BatchNorm(conv(x, W) + b)`` as one convolution (inference statistics);
    the weight's output-channel axis is 0 in every Convolution layout."""
    dt = weight.dtype
    g = jnp.ones(gamma.shape, dt) if fix_gamma else gamma.astype(dt)
    s = g * lax.rsqrt(moving_var.astype(dt) + jnp.asarray(eps, dt))
    w = weight * s.reshape((-1,) + (1,) * (weight.ndim - 1))
    b = jnp.zeros(s.shape, dt) if bias is None else bias.astype(dt)
    return w, (b - moving_mean.astype(dt)) * s + beta.astype(dt)


class _FoldState:
    """Per-executor cache: the parameter arrays the constants were folded from."""
    __slots__ = ("params", "dtypes", "variant", "consts", "quick")

    def __init__(self):
        self.params = self.dtypes = self.variant = self.consts = self.quick = None


def new_state():
    return _FoldState()


class InferencePlan:
    """The shape-independent analysis of one graph; programs per dtype signature."""

    def __init__(self, graph):
        self.graph = graph
        nodes = graph.nodes
        self.nodes = nodes
        self.index = {id(n): k for k, n in enumerate(nodes)}
        outputs = list(graph.sym._outputs)
        alias = {}
        self.alias = alias

        # consumers of every entry (graph outputs count as consumers)
        raw_uses = {}
        for n in nodes:
            if n.op is not None:
                for e in n.inputs:
                    raw_uses[_key(e)] = raw_uses.get(_key(e), 0) + 1
        for e in outputs:
            raw_uses[_key(e)] = raw_uses.get(_key(e), 0) + 1

        # 1. identities
        self.removed = set()
        for n in nodes:
            if n.op is not None and _is_identity(n) and n.inputs and all(
                    raw_uses.get((id(n), i), 0) == 0 for i in range(1, n.num_outputs())):
                alias[(id(n), 0)] = self.resolve(n.inputs[0])
                self.removed.add(id(n))
        kept = [n for n in nodes if n.op is not None and id(n) not in self.removed]
        self.kept = kept

        uses, consumers = {}, {}
        for n in kept:
            for j, e in enumerate(n.inputs):
                r = _key(self.resolve(e))
                uses[r] = uses.get(r, 0) + 1
                consumers.setdefault(r, []).append((n, n.input_slot(j)))
        for e in outputs:
            r = _key(self.resolve(e))
            uses[r] = uses.get(r, 0) + 1
            consumers.setdefault(r, []).append((None, None))
        self.outputs = [self.resolve(e) for e in outputs]

        # 2. parameters: auxiliary states, and arguments whose every use leads only into
        #    weight-like input slots (directly or through deterministic ops)
        node_feeding = {}

        def feeding(r):  # every consumer of entry r is a weight slot or a feeding node
            return r in consumers and all(
                c is not None and (slot in _WEIGHT_SLOTS or node_feeding[id(c)])
                for c, slot in consumers[r])
        for n in reversed(kept):  # consumers come later in topological order
            outs = [feeding((id(n), i)) for i in range(n.num_outputs())
                    if (id(n), i) in consumers]
            node_feeding[id(n)] = bool(outs) and all(outs) and not n.op.rng
        aux_ids = {id(n) for n in graph.aux_nodes}
        self.param_args = [k for k, n in enumerate(graph.arg_nodes) if feeding((id(n), 0))]
        self.data_args = [k for k in range(len(graph.arg_nodes)) if k not in self.param_args]
        param_vars = [graph.arg_nodes[k] for k in self.param_args] + list(graph.aux_nodes)
        self.param_vars = param_vars
        self.param_pos = {id(n): i for i, n in enumerate(param_vars)}
        assert aux_ids <= set(self.param_pos)

        # 3. parameter-only subgraphs (constant folding)
        self.param_nodes = set()
        for n in kept:
            if not n.op.rng and all(self._is_param(self.resolve(e)) for e in n.inputs):
                self.param_nodes.add(id(n))

        # 4. Convolution -> BatchNorm pairs, and convolutions with parameter weights
        self.convs = {}     # id(conv) -> (weight entry, bias entry or None)
        for n in kept:
            if n.op.name != "Convolution" or id(n) in self.param_nodes:
                continue
            ins = [self.resolve(e) for e in n.inputs]
            if len(ins) >= 2 and all(self._is_param(e) for e in ins[1:]):
                self.convs[id(n)] = (ins[1], ins[2] if len(ins) > 2 else None)
        self.bn_pairs = {}  # id(conv) -> BatchNorm node
        for b in kept:
            if b.op.name != "BatchNorm" or id(b) in self.param_nodes:
                continue
            src = self.resolve(b.inputs[0])
            c = src[0]
            if id(c) not in self.convs or src[1] != 0 or uses.get(_key(src), 0) != 1:
                continue
            if any(uses.get((id(b), i), 0) for i in (1, 2)):
                continue
            stats = [self.resolve(e) for e in b.inputs[1:]]
            w, bias = self.convs[id(c)]
            if not all(e[0].op is None and id(e[0]) in self.param_pos
                       for e in stats + [w] + ([bias] if bias else [])):
                continue
            ca, ba = c.params(), b.params()
            ndim = len(ca["kernel"]) + 2
            chan = ndim - 1 if _conv._channel_last(ca.get("layout")) else 1
            if ba["axis"] % ndim != chan:
                continue
            self.bn_pairs[id(c)] = b
        self._variants = {}
        self.rows = _rows.Rows(self)    # a new batch size's first calls at a bucket (rows.py)

    def resolve(self, entry):
        while _key(entry) in self.alias:
            entry = self.alias[_key(entry)]
        return entry

    def _is_param(self, entry):
        n = entry[0]
        return id(n) in self.param_pos if n.op is None else id(n) in self.param_nodes

    # ---- running ----------------------------------------------------------------------
    def run(self, args, aux, key, state):
        """Outputs of the graph for inference; ``state`` (``new_state()``) holds the folded
        constants of the caller's parameters."""
        padded = self.rows.padded([args[k] for k in self.data_args])
        if padded is None:
            return self._run(args, aux, key, state)
        args = list(args)
        for k, v in zip(self.data_args, padded[0]):
            args[k] = v
        return self.rows.cut(self._run(args, aux, key, state), padded[1])

    def _run(self, args, aux, key, state):
        params = [args[k] for k in self.param_args] + list(aux)
        data = [args[k] for k in self.data_args]
        dtypes = tuple(a.dtype for a in data)
        old = state.params
        if (old is None or state.dtypes != dtypes or len(old) != len(params)
                or any(a is not b for a, b in zip(old, params))):
            sig = dtypes + tuple(a.dtype for a in params)
            variant = self._variants.get(sig)
            if variant is None:
                variant = self._variants[sig] = _Variant(self, [np.dtype(a.dtype) for a in params])
            state.params, state.dtypes, state.variant = tuple(params), dtypes, variant
            state.quick = None
        variant = state.variant
        # the tier of this call decides both programs: the quick fold prepares kernels for
        # the quick main (no Winograd transform), so a switch of tier folds again
        quick = variant.quick is not None and variant.calls.quick((data, params))
        fold, main = variant.quick if quick else (variant.fold, variant.main)
        if state.quick is not quick:
            state.consts = fold(params) if variant.n_consts else []
            state.quick = quick
        return main(data, params, state.consts, key)


class _Variant:
    """The fold and main programs for one dtype signature of the parameters."""

    def __init__(self, plan, param_dtypes):
        self.plan = p = plan
        dt = {id(n): param_dtypes[i] for i, n in enumerate(p.param_vars)}
        # BatchNorm folding only in float32/float64 with one dtype throughout
        self.folded = {}
        for cid, b in p.bn_pairs.items():
            w, bias = p.convs[cid]
            ents = [w] + ([bias] if bias else []) + [p.resolve(e) for e in b.inputs[1:]]
            kinds = {dt[id(e[0])] for e in ents}
            if len(kinds) == 1 and kinds <= set(_FOLD_DTYPES):
                self.folded[cid] = b
        self.folded_bn = {id(b): p.resolve(b.inputs[0]) for b in self.folded.values()}
        # the constants: for each parameter-weighted convolution its weight (folded, in the
        # kernel layout) and bias; every other parameter-only node output the main program reads
        slots = []
        for n in p.kept:
            if id(n) in p.convs:
                slots.append(("w", id(n)))
                if p.convs[id(n)][1] is not None or id(n) in self.folded:
                    slots.append(("b", id(n)))
        needed = set()
        for n in p.kept:
            if id(n) in p.param_nodes or id(n) in self.folded_bn:
                continue
            ins = [p.resolve(e) for e in n.inputs]
            if id(n) in p.convs:
                ins = ins[:1]
            for e in ins:
                if e[0].op is not None and id(e[0]) in p.param_nodes:
                    needed.add(_key(e))
        for e in p.outputs:
            if e[0].op is not None and id(e[0]) in p.param_nodes:
                needed.add(_key(e))
        slots += sorted(needed, key=lambda k: (p.index[k[0]], k[1]))
        self.slots = {s: i for i, s in enumerate(slots)}
        self.n_consts = len(slots)
        # a call's first tier (xnd/tiers) runs XLA's own convolutions: the Winograd
        # transforms' loops are most of a ResNet's level-0 compile and run time (first
        # hybridized ResNet-18 forward 3.9 s -> 1.4 s, docs/performance.md)
        self._qfold, self.fold = xla_options.tiers(self._fold, quick_fun=self._fold_plain)
        qmain, self.main = xla_options.tiers(self._main, quick_options=QUICK_MAIN_OPTIONS)
        if tiers.TABLE.host:   # a small graph: first calls on the host (on jax 0.4.30 too,
            # which has no quick compile options: its host misses run the optimized program)
            if qmain is None:
                self._qfold = jax.jit(self._fold_plain)
            qmain = tiers.host_first(self._main, qmain or self.main,
                                     tiers.host_budget(tiers.INFERENCE))
        self.quick = None if qmain is None else (self._host_fold, qmain)
        self.calls = tiers.Calls(kind=tiers.INFERENCE)
        self._host_plans = {}   # parameter avals -> host_eval plan of the plain fold, or None

    def _host_fold(self, params):
        """The quick tier's fold, by numpy where it is float arithmetic and data movement
        (``host_eval.plan``: ResNet-18's fold compiled 0.37 s at level 0 and runs on
        the host in tens of ms), else compiled quickly."""
        sig = tuple((a.shape, a.dtype) for a in params)
        closed = self._host_plans.get(sig, False)
        if closed is False:
            closed = self._host_plans[sig] = host_eval.plan(
                lambda *ps: self._fold_plain(list(ps)), params, max_seconds=None)
        if closed is None or not params:
            return self._qfold(params)
        try:
            return host_eval.run_committed(closed, params, next(iter(params[0].devices())))
        except host_jaxpr.Unsupported:      # a value the host declines (counted and logged)
            self._host_plans[sig] = None
            return self._qfold(params)

    # ---- the fold program ---------------------------------------------------------------
    def _fold_plain(self, params):
        return self._fold(params, winograd=False)

    def _fold(self, params, winograd=True):
        p = self.plan
        env = {(id(n), 0): v for n, v in zip(p.param_vars, params)}
        calls = p.graph._node_calls(False)
        for n in p.kept:
            if id(n) not in p.param_nodes:
                continue
            res = calls[id(n)](*[env[_key(p.resolve(e))] for e in n.inputs])
            for i, v in enumerate(res if isinstance(res, (tuple, list)) else [res]):
                env[(id(n), i)] = v
        out = [None] * self.n_consts
        for s, i in self.slots.items():
            if s[0] in ("w", "b"):
                continue
            out[i] = env[s]
        for n in p.kept:
            if id(n) not in p.convs:
                continue
            we, be = p.convs[id(n)]
            w, bias = env[_key(we)], None if be is None else env[_key(be)]
            b = self.folded.get(id(n))
            if b is not None:
                ba = b.params()
                stats = [env[_key(p.resolve(e))] for e in b.inputs[1:]]
                w, bias = fold_batchnorm(w, bias, *stats, eps=ba["eps"],
                                         fix_gamma=ba["fix_gamma"])
            a = n.params()
            out[self.slots[("w", id(n))]] = _conv.channels_last_weight(
                w, a.get("layout"), a["stride"], a["dilate"], a["num_group"], winograd)
            if ("b", id(n)) in self.slots:
                out[self.slots[("b", id(n))]] = bias
        return out

    # ---- the main program ---------------------------------------------------------------
    def _main(self, data, params, consts, key):
        p = self.plan
        g = p.graph
        env = _layout.Env()
        conv_weight = self._conv_weight(consts)
        for k, v in zip(p.data_args, data):
            env.set((g.arg_nodes[k], 0), v)
        for n, v in zip(p.param_vars, params):
            env.set((n, 0), v)
        for s, i in self.slots.items():
            if s[0] not in ("w", "b"):
                env.vals[s] = (consts[i], False)
        calls = g._node_calls(False)
        for n in p.kept:
            nid = id(n)
            if nid in p.param_nodes or nid in self.folded_bn:
                continue
            ins = [self.resolve(e) for e in n.inputs]
            res = _layout.eval_node(n, ins, env, False, conv_weight)
            if res is None:
                vals = [env.get(e) for e in ins]
                if n.op.rng:
                    vals.append(jnp.stack([key[0], key[1] * 65599 + p.index[nid]])
                                .astype(jnp.uint32))
                out = calls[nid](*vals)
                out = list(out) if isinstance(out, (tuple, list)) else [out]
                res = [(v, False) for v in out]
            for i, (v, cl) in enumerate(res):
                env.set((n, i), v, cl)
        return [env.get(self.resolve(e)) for e in p.outputs]

    def resolve(self, entry):
        """The entry whose value ``entry`` has: identities dropped, folded BatchNorms replaced
        by their convolution."""
        entry = self.plan.resolve(entry)
        if entry[1] == 0 and id(entry[0]) in self.folded_bn:
            return self.folded_bn[id(entry[0])]
        return entry

    def _conv_weight(self, consts):
        def conv_weight(n, ins):
            nid = id(n)
            if nid not in self.plan.convs:
                return None
            bi = self.slots.get(("b", nid))
            return consts[self.slots[("w", nid)]], None if bi is None else consts[bi]
        return conv_weight
