"""The Executor: a bound Symbol whose forward, and forward+backward, are each one jitted
function of (arguments, auxiliary states, random key).

MXNet semantics kept: BatchNorm's moving statistics are written back at
``backward()`` (not at a training forward); ``grad_req`` 'write' | 'add' |
'null' per argument; output and gradient arrays are persistent NDArrays that
each call overwrites in place; random ops (Dropout) draw one key per
``forward`` and the backward of that step replays the same masks.
"""
import collections
import json
import math
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from .. import _transfer
from .. import rng as _rng
from ..ndarray import NDArray, _wrap, fail_arrays
from ..base import MXNetError
from ..context import Context
from ..lowering import bucket as _bucket
from ..lowering import conv as _conv
from ..lowering import registry as _registry
from ..lowering import xla_options
from ..lowering.dtypes import NOT_REAL_ERRORS, as_real, real_run
from ..lowering.staged import staged
from . import cse as _cse
from . import monitor_names
from . import rewrite as _rewrite
from . import layout as _layout
from .infer import complete_creations, eval_node, node_call
from .graph import aux_nodes, topo

# graph json -> GraphFunction: every graph an executor still holds (weakly), and the most
# recent few (strongly, so a rebind right after the last executor is gone still reuses them)
_LIVE = weakref.WeakValueDictionary()
_RECENT = collections.OrderedDict()
KEEP_RECENT = 16


class GraphFunction:
    """A symbol as pure functions of (arg values, aux values, key)."""

    def __init__(self, sym):
        self.sym = sym
        self.nodes = topo(sym._outputs)
        aux = aux_nodes(self.nodes)
        self.arg_nodes = [n for n in self.nodes if n.op is None and id(n) not in aux]
        self.aux_nodes = [n for n in self.nodes if n.op is None and id(n) in aux]
        self._calls = {}
        self.programs = {}  # a frontend's compiled programs of this graph (Module's, by layout)
        self.convolutional = xla_options.classic_fusion(n.op for n in self.nodes if n.op)
        self.forward = xla_options.jit(self._run, static_argnums=3,
                                       classic_fusion=self.convolutional)
        self._fwd_bwd = {}
        self._plan = None
        self._attr_error = None
        # elementwise ops only: a call on a new shape may run bucketed (lowering/bucket.py)
        self.elementwise = not aux and all(n.op.elementwise and not n.op.rng
                                           for n in self.nodes if n.op is not None)
        # nodes whose kernel checks read their input values (take(mode='raise'), gather_nd):
        # a second program gives the executor those values, checked after each forward
        self.checked = [n for n in self.nodes if n.op is not None and n.inputs
                        and n.op.kernel_check is not None
                        and getattr(n.op.kernel_check, "applies", lambda a: True)(n.params())]
        self._probe = None
        # a cast to an integer dtype passes gradients in MXNet (dtypes.real_run)
        self.int_casts = any(_casts_to_int(n) for n in self.nodes)
        self._channels_last = _layout.ENABLED and any(
            _layout.channel_first_conv(n) for n in self.nodes)

    def attr_error(self):
        """The error of a node whose kernel check fails on its attributes alone (a sampler
        with a bad parameter, ``sym.random.normal(0, -1)``), else None: checked once."""
        if self._attr_error is None:
            self._attr_error = (False,)
            for n in self.nodes:
                if n.op is not None and n.op.kernel_check is not None and not n.inputs:
                    try:
                        n.op.kernel_check(n.params())
                    except (MXNetError, ValueError) as e:
                        self._attr_error = (e.with_traceback(None),)
                        break
        return self._attr_error[0] or None

    def check_error(self, args, aux, key, is_train):
        """The first error of the ``checked`` nodes' kernel checks on this call's values."""
        if not self.checked:
            return None
        if self._probe is None:
            probes = {id(n): k for k, n in enumerate(self.checked)}
            self._probe = xla_options.jit(
                lambda a, x, k, t: self._run(a, x, k, t, probes=probes), static_argnums=3)
        for n, vals in zip(self.checked, self._probe(args, aux, key, is_train)):
            try:
                n.op.kernel_check(n.params(), *vals)
            except (MXNetError, IndexError, ValueError) as e:
                return e.with_traceback(None)
        return None

    def inference_plan(self):
        """The inference rewrites of this graph (``xnd.symbol.rewrite``): its ``run(args, aux,
        key, state)`` gives the outputs of ``_run(args, aux, key, False)``, faster."""
        if self._plan is None:
            self._plan = _rewrite.InferencePlan(self)
        return self._plan

    def _node_calls(self, is_train):
        calls = self._calls.get(is_train)
        if calls is None:
            calls = self._calls[is_train] = {id(n): node_call(n, is_train) for n in self.nodes
                                             if n.op is not None}
        return calls

    def _run(self, args, aux, key, is_train, updating=None, probes=None):
        """(outputs, new aux values); with ``probes`` ({id(node): position}) instead the
        input values of those nodes, in position order."""
        env = _layout.Env()
        probed = [None] * len(probes) if probes else None
        for n, v in zip(self.arg_nodes, args):
            env.set((n, 0), v)
        for n, v in zip(self.aux_nodes, aux):
            env.set((n, 0), v)
        aux_pos = {id(n): i for i, n in enumerate(self.aux_nodes)}
        new_aux = list(aux)
        calls = self._node_calls(is_train)
        conv_weight = self._conv_weight(env) if self._channels_last else (lambda n, ins: None)
        for k, n in enumerate(self.nodes):
            if n.op is None:
                continue
            res = _layout.eval_node(n, n.inputs, env, is_train, conv_weight) \
                if self._channels_last else None
            if res is None:
                ins = [env.get(e) for e in n.inputs]
                if probed is not None and id(n) in probes:
                    probed[probes[id(n)]] = list(ins)
                if n.op.rng:
                    ins.append(jnp.stack([key[0], key[1] * 65599 + k]).astype(jnp.uint32))
                out = calls[id(n)](*ins)
                res = [(v, False) for v in (list(out) if isinstance(out, (tuple, list))
                                            else [out])]
            for i, (v, cl) in enumerate(res):
                env.set((n, i), v, cl)
            if is_train and n.op.aux_update is not None and (updating is None or id(n) in updating):
                attrs = dict(n.params(), is_train=True) if n.op.train else n.params()
                ins = [env.get(e) for e in n.inputs]
                updated = staged(_aux_update, update=n.op.aux_update, attrs=attrs,
                                 n_in=len(ins))(*ins, *[v for v, _ in res])  # op.aux order
                for j, (src, _) in enumerate(n.inputs):
                    slot = n.input_slot(j)
                    if slot in n.op.aux and id(src) in aux_pos:
                        v = updated[n.op.aux.index(slot)]
                        new_aux[aux_pos[id(src)]] = v.astype(ins[j].dtype)
        if probed is not None:
            return probed
        outs = [env.get(e) for e in self.sym._outputs]
        return outs, new_aux

    def _conv_weight(self, env):
        """Channels-last kernels of the graph's convolutions, laid out inside the program
        (``xnd.symbol.layout``); the node's own checks run on the channel-first shapes."""
        def conv_weight(n, ins):
            vals = [env.vals[_layout.key(e)] for e in ins]
            shapes = [jax.ShapeDtypeStruct(_cf_shape(v, cl), v.dtype) for v, cl in vals]
            eval_node(n, shapes)
            a = n.params()
            w = env.get(ins[1])
            kernel = staged(_conv.channels_last_weight, layout=a.get("layout"),
                            winograd=False)(w)
            return kernel, env.get(ins[2]) if len(ins) > 2 else None
        return conv_weight

    def forward_backward(self, diff_mask, is_train=True):
        """jit of (args, aux, key, head_grads) -> (outputs, new aux, grads of masked args),
        in training mode unless ``is_train`` is False (MXNet's ``backward(is_train=False)``:
        Dropout passes the gradient through)."""
        f = self._fwd_bwd.get((diff_mask, is_train))
        if f is None:
            updating = self._backward_nodes(diff_mask)

            def fb(args, aux, key, head_grads):
                def run(diff):
                    it = iter(diff)
                    full = [next(it) if m else a for a, m in zip(args, diff_mask)]
                    return self._run(full, aux, key, is_train, updating)
                diff = [a for a, m in zip(args, diff_mask) if m]
                outs, vjp, new_aux, outs_vjp = _vjp_with_integers(run, diff, self.int_casts)
                # an integer output (shape_array, argmax) has no gradient: its head is ignored
                heads = [np.zeros(o.shape, jax.dtypes.float0) if not _real(o) else
                         jnp.ones_like(o) if h is None else h.astype(o.dtype)
                         for o, h in zip(outs_vjp, head_grads)]
                (grads,) = vjp(heads)
                grads = [g if g.dtype == a.dtype else g.astype(a.dtype)
                         for g, a in zip(grads, diff)]
                return outs, new_aux, grads
            f = self._fwd_bwd[(diff_mask, is_train)] = xla_options.jit(
                fb, classic_fusion=self.convolutional)
        return f


    def check_differentiable(self, diff_mask):
        """MXNet's bind fails when a gradient it must build runs through an op that has none
        (batch_take, argmax_channel): a node below the outputs, not behind a zero-gradient op,
        whose inputs lead to an argument with grad_req != 'null'."""
        needed = self._backward_nodes(diff_mask)
        seen, stack = set(), [n for n, _ in self.sym._outputs]
        while stack:
            n = stack.pop()
            if id(n) in seen or n.op is None or n.op.name in _NO_GRAD_OPS:
                continue
            seen.add(id(n))
            if n.op.name in _NON_DIFFERENTIABLE and id(n) in needed:
                raise MXNetError(f"Operator {n.op.name} is non-differentiable because it didn't "
                                 f"register FGradient attribute.")
            stack.extend(src for src, _ in n.inputs)

    def _backward_nodes(self, diff_mask):
        """Ids of the nodes whose backward MXNet runs: some input's gradient reaches an
        argument with grad_req != 'null' (not through BlockGrad). MXNet updates BatchNorm's
        moving statistics in its backward, so only these nodes update their aux states (a
        BatchNorm on the network input with fixed gamma and beta keeps them)."""
        diff = {id(n) for n, m in zip(self.arg_nodes, diff_mask) if m}
        reach = {}
        for n in self.nodes:  # topological order: inputs first
            if n.op is None:
                reach[id(n)] = id(n) in diff
            else:
                reach[id(n)] = n.op.name not in _NO_GRAD_OPS and any(
                    reach.get(id(src), False) for src, _ in n.inputs)
        return frozenset(i for i, r in reach.items() if r)


def _real(x):
    return jnp.issubdtype(x.dtype, jnp.inexact)


def _casts_to_int(node):
    """Whether a node casts to an integer dtype: Cast/amp_cast, or a numpy op called with an
    integer ``dtype=`` (``np.astype``, ``np.mean(..., dtype='int8')``)."""
    op = node.op
    if op is None:
        return False
    p = node.params()
    if op.name in ("Cast", "amp_cast"):
        return np.issubdtype(np.dtype(p["dtype"]), np.integer)
    if op.name.startswith("_npi_") and "call" in p:
        pos, kw = p["call"]
        for key, item in kw:
            v = item[1] if key == "dtype" and item[0] == "v" else None
            v = v[1] if type(v) is tuple and len(v) == 2 and v[0] == "d" else v
            if isinstance(v, str) and np.issubdtype(np.dtype(v), np.integer):
                return True
    return False


def _vjp_with_integers(run, diff, int_casts=False):
    """``jax.vjp(run, diff, has_aux=True)`` plus the outputs of the differentiated run, with
    integer arguments differentiated as float64 as MXNet differentiates them (JAX gives
    integers no tangent; the caller truncates the gradients back). The outputs and aux values
    returned first are those of the integer run; an operator that insists on integer inputs
    leaves them without gradient, as before. ``int_casts``: the graph casts to an integer
    dtype, which also passes gradients in MXNet (see ``dtypes.real_run``)."""
    def plain():
        outs, vjp, new_aux = jax.vjp(run, diff, has_aux=True)
        return outs, vjp, new_aux, outs

    real = [as_real(a) for a in diff]
    if all(r is a for r, a in zip(real, diff)) and not int_casts:
        return plain()
    try:
        with real_run():
            outs_real, vjp, _ = jax.vjp(run, real, has_aux=True)
    except NOT_REAL_ERRORS:   # an operator insists on integer inputs: they get no gradient
        return plain()
    outs, new_aux = run(diff)
    return outs, vjp, new_aux, outs_real


def _cf_shape(v, cl):
    return (v.shape[0], v.shape[-1]) + v.shape[1:-1] if cl else v.shape


def _structure(sym):
    """A graph's JSON with its operator nodes' names blanked: what the programs compute.
    Graphs that differ only there share their programs -- MXNet's auto-generated names
    (``_plus12``, ``_rnn_param_concat3``) count up, so each newly built copy of one network
    (RNN cells unrolled again, a model constructed per test case) was traced and compiled
    anew.  Variables keep their names: they are the programs' argument order.  The result
    reads a caller's own nodes' names where it needs them (monitors, error messages)."""
    d = json.loads(sym.tojson(remove_amp_cast=False))
    for n in d["nodes"]:
        if n.get("op") != "null":
            n["name"] = ""
    return json.dumps(d, sort_keys=True, separators=(",", ":"))


def graph_function(sym):
    """The one GraphFunction (and so the one set of compiled programs) of a graph's structure
    (``_structure``).
    Graphs no executor holds, beyond the ``KEEP_RECENT`` most recent, are freed with their XLA
    executables: each executable holds memory maps, and a process that binds thousands of
    distinct graphs (MXNet's RNN tests do: unrolled cells get new auto-generated node names)
    ran out of them (65,530 per process) and crashed inside XLA's compiler."""
    key = _structure(sym)
    g = _LIVE.get(key)
    if g is None:
        g = _LIVE[key] = GraphFunction(sym)
    _RECENT[key] = g
    _RECENT.move_to_end(key)
    while len(_RECENT) > KEEP_RECENT:
        _RECENT.popitem(last=False)
    return g


def live_graphs():
    """The GraphFunctions alive now (introspection: compile counts in tests)."""
    return list(_LIVE.values())


def _as_list(name, values, names, required=True):
    if values is None:
        return [None] * len(names)
    if isinstance(values, dict):
        missing = [n for n in names if n not in values]
        if missing and required:
            raise ValueError(f"key `{missing[0]}` is missing in `{name}`")
        return [values.get(n) for n in names]
    values = list(values)
    if len(values) != len(names):
        raise ValueError(f"Length of {name} does not match the number of arguments: "
                         f"{len(values)} vs {len(names)} ({names})")
    return values


class BoundArrays:
    """MXNet's Executor surface over a binding's arrays: ``arg_dict``, ``grad_dict``,
    ``aux_dict``, ``output_dict`` (from ``arg_arrays``, ``grad_arrays``, ``aux_arrays``,
    ``outputs``, ``_arg_names``, ``_aux_names`` and ``_symbol``), ``set_monitor_callback`` and
    ``debug_str``.  Shared by Executor and the arrays a Module binds."""
    _monitor, _monitor_all = None, False

    @property
    def arg_dict(self):
        return dict(zip(self._arg_names, self.arg_arrays))

    @property
    def grad_dict(self):
        return dict(zip(self._arg_names, self.grad_arrays))

    @property
    def aux_dict(self):
        return dict(zip(self._aux_names, self.aux_arrays))

    @property
    def output_dict(self):
        return dict(zip(self._symbol.list_outputs(), self.outputs))

    def set_monitor_callback(self, callback, monitor_all=False):
        self._monitor, self._monitor_all = callback, bool(monitor_all)

    def debug_str(self):
        """The graph as Symbol.debug_str lists it, then MXNet's "Total N MB allocated": here
        xnd's estimate (``memory_estimate``), not MXNet's memory planner's figure."""
        return self._symbol.debug_str() + f"Total {self.memory_estimate() >> 20} MB allocated\n"

    def memory_estimate(self):
        """Bytes of the values a forward and backward of this binding compute besides its
        own arrays: every operator output (an operator that passes its input through --
        BlockGrad, identity, a reshape -- shares it), and the gradient of each operator
        input through which a gradient flows back to an argument with ``grad_req !=
        'null'`` (none through BlockGrad: MXNet's "zero_prop")."""
        sym = self._symbol
        shapes = dict(zip(self._arg_names, (a.shape for a in self.arg_arrays)))
        internals = sym.get_internals()
        _, out_shapes, _ = internals.infer_shape_partial(**shapes)
        _, out_types, _ = internals.infer_type_partial(
            **{n: a.dtype for n, a in zip(self._arg_names, self.arg_arrays)})
        size = {}
        for (node, k), shp, dt in zip(internals._outputs, out_shapes, out_types):
            if shp is not None and dt is not None and all(d > 0 for d in shp):
                size[(id(node), k)] = math.prod(shp) * np.dtype(dt).itemsize
        for n, a in zip(self._arg_names, self.arg_arrays):
            size[n] = a.size * np.dtype(a.dtype).itemsize
        diff = {n for n, r in zip(self._arg_names, self._reqs) if r != "null"}
        nodes = topo(sym._outputs)
        needs = set()            # nodes that depend on an argument being differentiated
        for node in nodes:
            if (node.op is None and node.name in diff) or any(
                    id(src) in needs for src, _ in node.inputs):
                needs.add(id(node))
        flows = {id(n) for n, _ in sym._outputs}     # nodes a gradient arrives at
        total = 0
        for node in reversed(nodes):
            if node.op is None:
                continue
            if node.op.name not in _PASS_THROUGH:
                total += sum(size.get((id(node), k), 0) for k in range(node.num_visible()))
            if id(node) in flows and id(node) in needs and node.op.name not in _NO_GRAD_OPS:
                for src, k in node.inputs:
                    if id(src) in needs:
                        flows.add(id(src))
                        total += size.get(src.name if src.op is None else (id(src), k), 0)
        return total

    def get_optimized_symbol(self):
        """The bound graph after MXNet's bind-time passes: common subexpressions merged
        (xnd.symbol.cse) unless ``MXNET_ELIMINATE_COMMON_EXPR=0`` was set at bind."""
        outputs = self._symbol._outputs
        return type(self._symbol)(_cse.eliminate_common_expr(outputs) if self._cse else outputs)

    _cse = True          # MXNET_ELIMINATE_COMMON_EXPR as read at bind (Executor sets it)
    _fold_state = None   # inference rewrites: constants folded from this binding's parameters

    def rewritten_forward(self, graph, args, aux, key):
        """An inference forward of ``graph`` through its rewrites (``xnd.symbol.rewrite``):
        the outputs of ``graph._run(args, aux, key, False)``, faster."""
        if self._fold_state is None:
            self._fold_state = _rewrite.new_state()
        return graph.inference_plan().run(args, aux, key, self._fold_state)


class Executor(BoundArrays):
    def __init__(self, sym, ctx, args, grads, reqs, aux):
        self._symbol = sym
        self._ctx = ctx
        # creation ops of unknown (-1) dims run at the shapes inferred from their consumers
        run = complete_creations(sym, {n: a.shape for n, a in zip(sym.list_arguments(), args)
                                       if a is not None})
        self._graph = graph_function(sym if run is sym._outputs else type(sym)(run))
        self._arg_names = sym.list_arguments()
        self._aux_names = sym.list_auxiliary_states()
        self.arg_arrays, self.grad_arrays, self.aux_arrays = args, grads, aux
        self._reqs = reqs
        self._cse = _cse.enabled()
        self._outputs = None
        self._key = None
        self._last_train = False
        if any(r != "null" for r in reqs):
            self._graph.check_differentiable(tuple(r != "null" for r in reqs))

    @property
    def outputs(self):
        """The output arrays. MXNet allocates them at bind, so before the first forward they
        exist, zero-filled, with the inferred shapes and dtypes."""
        if self._outputs is None:
            self._outputs = self._bound_outputs()
        return self._outputs

    @outputs.setter
    def outputs(self, value):
        self._outputs = value

    def _bound_outputs(self):
        try:
            _, shapes, _ = self._symbol.infer_shape(
                **{n: a.shape for n, a in zip(self._arg_names, self.arg_arrays)})
            _, types, _ = self._symbol.infer_type(
                **{n: a.dtype for n, a in zip(self._arg_names, self.arg_arrays)})
        except MXNetError:
            return []
        if shapes is None or types is None:
            return []
        return [_nd_zeros(sh, t, self._ctx) for sh, t in zip(shapes, types)]

    # ---- construction ----------------------------------------------------------------
    @classmethod
    def bind(cls, sym, ctx, args, args_grad, grad_req, aux_states):
        if not isinstance(ctx, Context):
            raise TypeError(f"bind: ctx must be a Context, got {ctx!r}")
        arg_names, aux_names = sym.list_arguments(), sym.list_auxiliary_states()
        arg_list = _as_list("args", args, arg_names)
        if any(a is None for a in arg_list):
            raise ValueError(f"bind: missing arguments {[n for n, a in zip(arg_names, arg_list) if a is None]}")
        arg_list = [_on(a, ctx) for a in arg_list]
        grad_list = _as_list("args_grad", args_grad, arg_names, required=False)
        reqs = _reqs(grad_req, arg_names)
        if args_grad is None:
            reqs = ["null"] * len(arg_names)
        reqs = [r if g is not None else "null" for r, g in zip(reqs, grad_list)]
        aux_list = _as_list("aux_states", aux_states, aux_names)
        if aux_names and any(a is None for a in aux_list):
            raise ValueError(f"bind: missing auxiliary states {aux_names}")
        return cls(sym, ctx, arg_list, grad_list, reqs, [_on(a, ctx) for a in aux_list])

    @classmethod
    def simple_bind(cls, sym, ctx, grad_req, type_dict, shapes, stype_dict=None):
        """MXNet's simple_bind: keyword arguments that are not shapes (tuples) or name no
        input are ignored, and so are ``type_dict`` entries that name no input; without
        ``type_dict`` every argument is float32 except those whose variable declares a dtype."""
        inputs = set(sym.list_inputs())
        shapes = {k: v for k, v in shapes.items() if isinstance(v, (tuple, list)) and k in inputs}
        if type_dict is not None:
            type_dict = {k: v for k, v in type_dict.items() if k in inputs}
        arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
        if arg_shapes is None:
            raise MXNetError(f"simple_bind: cannot infer all shapes from {shapes}")
        if type_dict is None:
            attrs = sym.attr_dict()
            type_dict = {k: np.float32 for k in sym.list_arguments()
                         if "__dtype__" not in attrs.get(k, {})}
        arg_types, _, aux_types = sym.infer_type(**type_dict) if type_dict or any(
            "__dtype__" in a for a in sym.attr_dict().values()) else (None, None, None)
        arg_types = arg_types or [np.float32] * len(arg_shapes)
        aux_types = aux_types or [np.float32] * len(aux_shapes)
        args = [_nd_zeros(s, t, ctx) for s, t in zip(arg_shapes, arg_types)]
        reqs = _reqs(grad_req, sym.list_arguments())
        grads = [None if r == "null" else _nd_zeros(s, t, ctx)
                 for r, s, t in zip(reqs, arg_shapes, arg_types)]
        aux = [_nd_zeros(s, t, ctx) for s, t in zip(aux_shapes, aux_types)]
        arg_st, grad_st = _storage(sym, stype_dict)
        if arg_st or grad_st:    # sparse arguments or gradients (MXNet's storage inference)
            names = sym.list_arguments()
            args = [a.tostype(arg_st[n]) if n in arg_st else a for n, a in zip(names, args)]
            grads = [g.tostype(grad_st[n]) if g is not None and n in grad_st else g
                     for n, g in zip(names, grads)]
        return cls(sym, ctx, args, grads, reqs, aux)

    # ---- running -----------------------------------------------------------------------
    def forward(self, is_train=False, **kwargs):
        arg_dict = self.arg_dict
        for k, v in kwargs.items():
            if k not in arg_dict:
                raise TypeError(f"Unknown argument {k!r}; arguments are {self._arg_names}")
            dst = arg_dict[k]
            src = v if isinstance(v, NDArray) else _nd_array(v, dst.dtype, self._ctx)
            if src.shape != dst.shape:
                raise ValueError(f"Shape not match! Argument {k}, need: {dst.shape}, received: "
                                 f"{src.shape}")
            dst._write(src._val().astype(dst.dtype))
        self._key = _rng.next_key()
        self._last_train = bool(is_train)
        args, aux = self._values(self.arg_arrays), self._values(self.aux_arrays)
        error = self._graph.attr_error() or self._graph.check_error(args, aux, self._key,
                                                                    bool(is_train))
        if error is not None:  # raised at the next read of the outputs, as MXNet's engine does
            fail_arrays(self.outputs, error)
            return self.outputs
        shape = self._bucket_shape(args)
        if shape is not None:
            length, dev = _bucket.bucket_length(math.prod(shape)), self._ctx.jax_device()
            outs, _ = self._graph.forward(_bucket.flatten(args, shape, length, dev), aux,
                                          self._key, bool(is_train))
            outs = _bucket.unflatten(outs, shape, dev, args)
        elif not is_train and _rewrite.ENABLED:
            outs = self.rewritten_forward(self._graph, args, aux, self._key)
        else:
            outs, _ = self._graph.forward(args, aux, self._key, bool(is_train))
        self._set_outputs(outs)
        if self._monitor is not None:
            run_monitor(self._symbol, self._monitor, self._monitor_all, self._arg_names, args,
                        self._aux_names, aux, self._key, is_train, self._ctx)
        return self.outputs

    def backward(self, out_grads=None, is_train=True):
        if self._key is None:  # MXNet allows backward on the bound values without a forward
            self._key = _rng.next_key()
        mask = tuple(r != "null" for r in self._reqs)
        if not any(mask) and not self.aux_arrays:
            return
        heads = _head_list(out_grads, len(self._symbol._outputs))
        # MXNet copies nothing from a zero-size head gradient, so its shape is not checked
        heads = [jnp.zeros(o.shape, h.dtype) if h is not None and o is not None and
                 h.size == 0 and o.size == 0 and tuple(h.shape) != o.shape else h
                 for h, o in zip(heads, self.outputs or [None] * len(heads))]
        # an output of a zero-gradient op (argmax, argsort) never reads its head gradient in
        # MXNet, so any head shape is accepted there
        heads = [None if n.op is not None and n.op.name in _NO_GRAD_OPS else h
                 for h, (n, _) in zip(heads, self._symbol._outputs)]
        check_heads(self._symbol, mask, heads, self._arg_names)
        args, aux = self._values(self.arg_arrays), self._values(self.aux_arrays)
        error = self._graph.attr_error() or self._graph.check_error(args, aux, self._key,
                                                                    bool(is_train))
        if error is not None:
            fail_arrays(self.outputs + [g for g, r in zip(self.grad_arrays, self._reqs)
                                        if r != "null"], error)
            return
        fb = self._graph.forward_backward(mask, bool(is_train))
        shape = self._bucket_shape(args)
        if shape is not None and all(h is None or h.shape == shape for h in heads):
            length, dev = _bucket.bucket_length(math.prod(shape)), self._ctx.jax_device()
            flat_heads = [None if h is None else _bucket.flatten([h], shape, length, dev)[0]
                          for h in heads]
            outs, new_aux, grads = fb(_bucket.flatten(args, shape, length, dev), aux,
                                      self._key, flat_heads)
            outs = _bucket.unflatten(outs, shape, dev, args)
            grads = _bucket.unflatten(grads, shape, dev, args)
        else:
            outs, new_aux, grads = fb(args, aux, self._key, heads)
        self._set_outputs(outs)
        if self._monitor is not None:
            run_backward_monitor(self._symbol, self._monitor, self._arg_names, args,
                                 self._aux_names, aux, self._key, heads, self._ctx)
        if is_train:
            for a, v in zip(self.aux_arrays, new_aux):
                a._write(v)
        it = iter(grads)
        for g, r in zip(self.grad_arrays, self._reqs):
            if r == "null":
                continue
            v = next(it)
            if r == "add":
                v = g._val() + v.astype(g.dtype)
            g._write(v.astype(g.dtype))

    def _bucket_shape(self, args):
        """The shape of a call that runs bucketed (lowering/bucket.graph_shape), else None."""
        if self._monitor is not None:
            return None
        return _bucket.graph_shape(self._graph.elementwise, args, id(self._graph))

    def _set_outputs(self, outs):
        if any(a is not None and a.stype != "default" for a in self.arg_arrays):
            from ..sparse import dispatch   # sparse inputs: outputs in the storage MXNet infers
            return self._set_sparse_outputs(outs, dispatch)
        if self._outputs is None:  # nobody holds the bound outputs yet: no zeros to fill
            self._outputs = [_wrap(v, self._ctx) for v in outs]
            return
        if len(self.outputs) == len(outs) and all(o.shape == tuple(v.shape) and o.dtype == v.dtype
                                                  for o, v in zip(self.outputs, outs)):
            for o, v in zip(self.outputs, outs):
                o._write(v)
        else:
            self.outputs = [_wrap(v, self._ctx) for v in outs]

    def _set_sparse_outputs(self, outs, dispatch):
        stypes = _graph_stypes(self._symbol, dispatch, {
            n: a.stype for n, a in zip(self._arg_names, self.arg_arrays) if a is not None})
        self.outputs = [dispatch.CLASSES[st].from_dense(np.asarray(v), self._ctx)
                        if st != "default" else _wrap(v, self._ctx)
                        for v, st in zip(outs, stypes)]

    @staticmethod
    def _values(arrays):
        return [a._val() for a in arrays]

    # ---- parameters and shapes ------------------------------------------------------------
    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        for name, src in (arg_params or {}).items():
            if name in self.arg_dict:
                dst = self.arg_dict[name]
                dst._write(_on(src, self._ctx)._val().astype(dst.dtype))
            elif not allow_extra_params:
                raise ValueError(f"Find name \"{name}\" that is not in the arguments")
        for name, src in (aux_params or {}).items():
            if name in self.aux_dict:
                dst = self.aux_dict[name]
                dst._write(_on(src, self._ctx)._val().astype(dst.dtype))
            elif not allow_extra_params:
                raise ValueError(f"Find name \"{name}\" that is not in the auxiliary states")

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes.  As in MXNet, its arrays share memory with
        this one's: an unchanged shape is the same array, a shape that fits is a view of the
        leading elements (so the new executor's outputs show in this one's), a larger one
        (``allow_up_sizing``) is a new array."""
        arg_shapes, out_shapes, aux_shapes = self._symbol.infer_shape(**kwargs)
        if arg_shapes is None:
            raise MXNetError(f"reshape: cannot infer shapes from {kwargs}")
        if not allow_up_sizing:
            for name, old, shape in zip(self._arg_names, self.arg_arrays, arg_shapes):
                if int(np.prod(shape)) > old.size:
                    raise MXNetError(f"reshape: new shape of {name} {tuple(shape)} is larger than "
                                     f"the bound {old.shape}; set allow_up_sizing=True")
        args, grads = [], []
        for name, old, g, shape in zip(self._arg_names, self.arg_arrays, self.grad_arrays, arg_shapes):
            if old.shape != tuple(shape) and name not in kwargs and not partial_shaping:
                raise MXNetError(f"reshape: shape of {name} changed from {old.shape} to {shape}; "
                                 f"pass partial_shaping=True to allow it")
            args.append(_fit(old, shape, self._ctx))
            grads.append(None if g is None else _fit(g, shape, self._ctx))
        aux = [_fit(a, s, self._ctx) for a, s in zip(self.aux_arrays, aux_shapes)]
        new = Executor(self._symbol, self._ctx, args, grads, list(self._reqs), aux)
        new.outputs = [_fit(o, sh, self._ctx) for o, sh in zip(self.outputs, out_shapes)]
        new._monitor, new._monitor_all = self._monitor, self._monitor_all  # MXNet keeps it too
        return new



def _fit(old, shape, ctx):
    """``old`` itself (same shape), a view of its leading elements (fits), or new zeros."""
    shape = tuple(shape)
    if old.shape == shape:
        return old
    size = int(np.prod(shape))
    if size <= old.size and size > 0:
        return old.reshape((-1,))[:size].reshape(shape)
    return _nd_zeros(shape, old.dtype, ctx)


def _reqs(grad_req, names):
    if isinstance(grad_req, str):
        reqs = [grad_req] * len(names)
    elif isinstance(grad_req, dict):
        reqs = [grad_req.get(n, "null") for n in names]
    else:
        reqs = list(grad_req)
    for r in reqs:
        if r not in ("write", "add", "null", "inplace"):
            raise ValueError(f"grad_req must be 'write', 'add' or 'null', got {r!r}")
    return ["write" if r == "inplace" else r for r in reqs]


# ops whose gradient never reads the head gradient of their output (MXNet's zero-gradient ops)
_CMP = ("equal", "not_equal", "greater", "greater_equal", "lesser", "lesser_equal",
        "logical_and", "logical_or", "logical_xor")
# operators whose gradient MXNet defines as zero (MakeZeroGradNodes) or cuts (BlockGrad): an
# output made by one needs no head gradient (each checked on MXNet 1.9.1: backward() with no
# head passes; sign and relu need one)
# operators whose output is their input's storage in MXNet's plans (in place or a view)
_PASS_THROUGH = frozenset(["BlockGrad", "stop_gradient", "identity", "_copy", "Reshape",
                           "reshape", "Flatten", "flatten", "expand_dims", "_identity_with_attr_like_rhs"])

_NO_GRAD_OPS = frozenset(
    ["BlockGrad", "stop_gradient", "shape_array", "size_array", "argmax", "argmin", "argsort",
     "logical_not", "round", "rint", "ceil", "floor", "trunc", "fix", "zeros_like", "ones_like",
     "_contrib_Proposal", "_contrib_MultiProposal"]
    + ["_" + c for c in _CMP] + ["broadcast_" + c for c in _CMP] + ["_%s_scalar" % c for c in _CMP])


# ops without a gradient at all in MXNet 1.9.1 (no FGradient): binding them for gradients fails
_NON_DIFFERENTIABLE = frozenset({"batch_take", "argmax_channel"})


def check_heads(symbol, mask, heads, arg_names=None):
    """MXNet's rule for a missing head gradient: only an output whose gradient reaches an
    argument with ``grad_req != 'null'`` through ops that pass it on needs one.  Loss heads
    (SoftmaxOutput, MakeLoss, ...), BlockGrad/stop_gradient outputs and outputs that depend only
    on 'null' arguments are fine without; any other output without one raises MXNet's error."""
    names = arg_names if arg_names is not None else symbol.list_arguments()
    diff = {n for n, m in zip(names, mask) if m}
    reach = {}

    def reaches(node):
        r = reach.get(id(node))
        if r is None:
            reach[id(node)] = False     # a cycle cannot occur; this also stops re-entry
            if node.op is None:
                r = node.name in diff
            elif node.op.is_loss(node.params()) or node.op.name in _NO_GRAD_OPS:
                r = False
            else:
                r = any(reaches(src) for src, _ in node.inputs)
            reach[id(node)] = r
        return r

    for (node, _), h in zip(symbol._outputs, heads):
        if h is None and reaches(node):
            raise MXNetError(
                f"backward: head_gradient is required for output of {node.name}: because the "
                f"last operator is not Loss function, head_gradient is required when calling "
                f"backward (pass out_grads, or wrap the output in MakeLoss or BlockGrad)")


def _internal_values(symbol, arg_names, args, aux_names, aux, key, is_train, hidden=False):
    """The op nodes in graph order, {(id(node), output): value} of every internal output (one
    extra jitted run of the graph's internals; the visible outputs, which the forward monitor
    lists, or with ``hidden`` every output, which the backward monitor's vjps take) and
    {variable name: value}."""
    ops = [n for n in topo(symbol._outputs) if n.op is not None]
    entries = [(n, i) for n in ops
               for i in range(n.num_outputs() if hidden else n.num_visible())]
    internals = type(symbol)(entries)  # a Symbol of the same graph (symbol.py imports us)
    g = graph_function(internals)
    by_name = dict(zip(arg_names, args))
    aux_by = dict(zip(aux_names, aux))
    outs, _ = g.forward([by_name[v.name] for v in g.arg_nodes],
                        [aux_by[v.name] for v in g.aux_nodes], key, bool(is_train))
    values = {(id(n), i): v for (n, i), v in zip(entries, outs)}
    return ops, values, {**by_name, **aux_by}


def _wanted(callback):
    wants = getattr(callback, "wants", None)
    return wants is None or wants()


def run_monitor(symbol, callback, monitor_all, arg_names, args, aux_names, aux, key, is_train,
                ctx):
    """An installed monitor callback (``Executor.set_monitor_callback``) sees every operator
    output of a forward, as ``callback(b'<node>_<output>', NDArray)`` in graph order (the
    name as bytes, as MXNet's C callback gives it; the array an NDArray, not a raw handle),
    and with ``monitor_all`` each operator's inputs first, as ``b'<node>_<input slot>'``
    (a variable's preceded by ``b'<variable>'``).  The values
    come from one extra jitted run of the graph's internals (only while the monitor wants
    them); ``run_backward_monitor`` adds MXNet's backward-node entries."""
    if not _wanted(callback):
        return
    ops, values, var_vals = _internal_values(symbol, arg_names, args, aux_names, aux, key,
                                             is_train)
    for n in ops:
        if monitor_all:
            for j, (src, k) in enumerate(n.inputs):
                v = var_vals[src.name] if src.op is None else values[(id(src), k)]
                if src.op is None:  # MXNet names a variable input by itself first
                    callback(src.name.encode(), _wrap(v, ctx))
                callback(("%s_%s" % (n.name, monitor_names.input_name(n, j))).encode(),
                         _wrap(v, ctx))
        for i, name in enumerate(n.output_names()):
            callback(name.encode(), _wrap(values[(id(n), i)], ctx))


def run_backward_monitor(symbol, callback, arg_names, args, aux_names, aux, key, heads, ctx):
    """MXNet's monitor also sees each operator's backward node after a backward: the gradients
    with respect to the node's inputs, as ``'<node>_backward_output'`` (one input) or
    ``'<node>_backward_output<j>'``, in reverse graph order. A loss head's backward needs no
    head gradient; another head takes ``heads[i]`` (ones where None). Each node's vjp runs on
    its own (the monitor is a debugging aid; the step itself stays one program). With
    ``monitor_all`` MXNet also lists each backward node's inputs, whose makeup is particular to
    each operator's C++ gradient; those rows are not reproduced."""
    if not _wanted(callback):
        return
    ops, values, var_vals = _internal_values(symbol, arg_names, args, aux_names, aux, key, True,
                                             hidden=True)
    aux_set = set(aux_names)
    cot = {}
    for i, (n, k) in enumerate(symbol._outputs):
        if n.op is not None:
            h = heads[i] if i < len(heads) else None
            v = values[(id(n), k)]
            cot[(id(n), k)] = jnp.ones_like(v) if h is None else h
    for n in reversed(ops):
        outs = [values[(id(n), i)] for i in range(n.num_outputs())]
        cts = [cot.get((id(n), i)) for i in range(len(outs))]
        if all(c is None for c in cts):
            continue
        cts = [jnp.zeros_like(o) if c is None else c.astype(o.dtype) for o, c in zip(outs, cts)]
        ins = [var_vals[src.name] if src.op is None else values[(id(src), k)]
               for src, k in n.inputs]
        call = node_call(n, True)
        fn = (lambda *xs: call(*xs, key)) if n.op.rng else call
        res, vjp = jax.vjp(fn, *ins)
        grads = vjp(tuple(cts) if isinstance(res, (tuple, list)) else cts[0])
        grads = [(src, k, g) for (src, k), g in zip(n.inputs, grads)
                 if src.op is not None or src.name not in aux_set]   # aux states: no gradient
        for j, (src, k, g) in enumerate(grads):
            name = "%s_backward_output%s" % (n.name, "" if len(grads) == 1 else j)
            callback(name.encode(), _wrap(g, ctx))
            if src.op is not None:
                e = (id(src), k)
                cot[e] = g if e not in cot else cot[e] + g


def _head_list(out_grads, n):
    if out_grads is None:
        return [None] * n
    if isinstance(out_grads, NDArray):
        out_grads = [out_grads]
    return [None if g is None else g._val() for g in out_grads]


def _on(a, ctx):
    if not isinstance(a, NDArray):
        raise TypeError(f"bind expects NDArrays, got {type(a).__name__}")
    return a


def _nd_zeros(shape, dtype, ctx):
    _registry.check_size("simple_bind", tuple(shape), dtype, "argument")  # before XLA allocates
    return _wrap(_transfer.zeros(shape, dtype, ctx.jax_device()), ctx)


def _nd_array(v, dtype, ctx):
    return _wrap(_transfer.to_device(np.asarray(v, dtype=dtype), ctx.jax_device()), ctx)


def _aux_update(*vals, update, attrs, n_in):
    """An op's ``aux_update(attrs, inputs, outputs)`` on positional values (for ``staged``)."""
    return update(dict(attrs), list(vals[:n_in]), list(vals[n_in:]))


def _storage(sym, stype_dict):
    """({argument: stype} of the sparse arguments, {argument: stype} of the sparse
    gradients): a variable's declared ``stype`` or ``stype_dict``'s; a row_sparse gradient
    for the weight of an Embedding with ``sparse_grad`` (MXNet's storage inference)."""
    codes = {"1": "row_sparse", "2": "csr"}
    args = {n.name: codes[n.attrs["__storage_type__"]] for n in sym._nodes()
            if n.op is None and n.attrs.get("__storage_type__") in codes}
    args.update({k: v for k, v in (stype_dict or {}).items() if v != "default"})
    grads = {}
    for n in sym._nodes():
        if n.op is not None and n.op.name in ("Embedding", "_contrib_SparseEmbedding") and \
                (n.op.name != "Embedding" or n.params().get("sparse_grad")):
            src, _ = n.inputs[1]
            if src.op is None:
                grads[src.name] = "row_sparse"
    return args, grads


def _graph_stypes(symbol, dispatch, var_stypes):
    """The storage types of a graph's outputs, from its variables' (a name -> stype map):
    xnd/sparse's table applied node by node, as MXNet's storage-type inference does."""
    from .graph import topo
    out = {}
    for node in topo(symbol._outputs):
        if node.op is None:
            out[(id(node), 0)] = var_stypes.get(node.name, "default")
            continue
        ins = [out.get((id(n), i), "default") for n, i in node.inputs]
        st = dispatch.output_stype(node.op.name, ins, node.params()) \
            if any(s != "default" for s in ins) else "default"
        for i in range(node.num_outputs()):
            out[(id(node), i)] = st
    return [out[(id(n), i)] for n, i in symbol._outputs]
