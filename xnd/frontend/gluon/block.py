"""Gluon blocks: Block, HybridBlock, SymbolBlock (MXNet 1.9.1 naming and behaviour).

Hybridization: ``hybrid_forward(F, ...)`` is traced once with ``F = mx.sym``
into a Symbol (MXNet's node names, so ``export`` writes files MXNet loads);
the Symbol is evaluated by the executor's pure graph function, wrapped as ONE
registry-style operator (``_GraphOp``) and run through ``ndarray.invoke``:
one jitted call per forward, recorded on the autograd tape as a single node
(so backward is one vjp of the whole graph), with BatchNorm's running
statistics returned as extra outputs and written back by autograd at
backward time, exactly as for the imperative BatchNorm.
"""
import copy
import inspect
import re
import threading
import warnings
from collections import OrderedDict, defaultdict

import jax
import numpy as np

from ... import name as _name
from ...base import MXNetError
from ...ndarray import NDArray, _wrap_results, invoke
from ...symbol import rewrite as _rewrite
from .parameter import (Constant, DeferredInitializationError, Parameter,  # noqa: F401
                        ParameterDict)
from .utils import (HookHandle, _brief_print_list, _flatten, _indent, _regroup,
                    shape_is_known)

__all__ = ["Block", "HybridBlock", "SymbolBlock"]

# Counters for tests: traces of hybridized graphs (forward and backward traces both call
# the graph function) and graph ops built.
STATS = {"graph_traces": 0, "graph_ops": 0}
# A recorded forward of a hybridized block saves its residuals for backward (True), or the
# backward pass runs the forward again (False: less memory held between forward and backward).
SAVE_RESIDUALS = True


def _nd():
    from .. import ndarray as nd
    return nd


def _sym():
    from ... import symbol
    return symbol


def _Symbol():
    from ...symbol import Symbol
    return Symbol


class _BlockScope:
    """The name scope of a block: children made inside get ``<parent prefix><hint><k>_``."""

    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix, params, hint):
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = _name.current().get(None, hint) + "_"
            if params is None:
                params = ParameterDict(prefix)
            else:
                params = ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = f"{hint}{count}_"
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, ptype, value, trace):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(ptype, value, trace)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope


class Block:
    """Base class of all layers and models (see MXNet's gluon.Block)."""

    _container = False  # Sequential/HybridSequential (nn/): summary() shows their children only

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def __repr__(self):
        modstr = "\n".join(f"  ({key}): {_indent(repr(block), 2)}"
                           for key, block in self._children.items())
        return f"{self.__class__.__name__}(\n{modstr}\n)"

    def __setattr__(self, name, value):
        """Registers Blocks as children and Parameters as this block's parameters."""
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError(f"Changing attribute type for {name} from {type(existing)} to "
                                f"{type(value)}is not allowed.")
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            assert name not in self._reg_params, (
                f"Overriding Parameter attribute {name} is not allowed. If you want to share "
                f"parameters between blocks, please set 'params' at Block construction instead.")
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _check_container_with_block(self):
        children = set(self._children.values())

        def _find(data):
            if isinstance(data, (list, tuple)):
                return any(_find(v) for v in data)
            if isinstance(data, dict):
                return any(_find(v) for v in data.values())
            return isinstance(data, Block) and data not in children
        for k, v in self.__dict__.items():
            if isinstance(v, (list, tuple, dict)) and not (k.startswith("__") or k == "_children"):
                if _find(v):
                    warnings.warn(f'"{self.name}.{k}" is an unregistered container with Blocks. '
                                  f'Note that Blocks inside the list, tuple or dict will not be '
                                  f'registered automatically. Make sure to register them using '
                                  f'register_child() or switching to nn.Sequential/'
                                  f'nn.HybridSequential instead. ', stacklevel=3)

    def _alias(self):
        return self.__class__.__name__.lower()

    @property
    def prefix(self):
        """Prefix of this block's names (``dense0_``)."""
        return self._prefix

    @property
    def name(self):
        """Name of this block without the trailing ``_``."""
        return self._name

    def name_scope(self):
        """Scope in which children get names under this block's prefix."""
        return self._scope

    @property
    def params(self):
        """This block's own ParameterDict (children not included)."""
        return self._params

    def collect_params(self, select=None):
        """A ParameterDict of this block's and all children's Parameters; ``select`` is a
        regular expression that names must match (``'.*weight|.*bias'``)."""
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        if not select:
            ret.update(self.params)
        else:
            pattern = re.compile(select)
            ret.update({n: p for n, p in self.params.items() if pattern.match(n)})
        for cld in self._children.values():
            ret.update(cld.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix=""):
        if prefix:
            prefix += "."
        ret = {prefix + key: val for key, val in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    # ---- saving and loading -------------------------------------------------------------
    def save_parameters(self, filename, deduplicate=False):
        """Save with structural names (``0.weight``, ``features.1.bias``)."""
        params = self._collect_params_with_prefix()
        if deduplicate:
            reverse = {v: k for k, v in params.items()}
            params = {v: k for k, v in reverse.items()}
        arg_dict = {key: val._reduce() for key, val in params.items()}
        _nd().save(filename, arg_dict)

    def save_params(self, filename):
        """Deprecated: save with full names, this block's prefix stripped."""
        warnings.warn("save_params is deprecated. Please use save_parameters. Note that if you "
                      "want load from SymbolBlock later, please use export instead. For details, "
                      "see https://mxnet.apache.org/tutorials/gluon/save_load_params.html")
        try:
            self.collect_params().save(filename, strip_prefix=self.prefix)
        except ValueError as e:
            raise ValueError(f"{e}\nsave_params is deprecated. Using save_parameters may resolve "
                             f"this error.") from None

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
                        cast_dtype=False, dtype_source="current"):
        """Load a file of ``save_parameters`` (or, when no name has a '.', of ``save_params``)."""
        loaded = _nd().load(filename)
        if isinstance(loaded, list):
            if loaded:
                raise MXNetError(f"load_parameters: '{filename}' holds a list of arrays, not "
                                 f"named parameters")
            loaded = {}
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not any("." in k for k in loaded):
            del loaded
            self.collect_params().load(filename, ctx, allow_missing, ignore_extra, self.prefix,
                                       cast_dtype=cast_dtype, dtype_source=dtype_source)
            return
        if not allow_missing:
            inv = defaultdict(list)
            for k, v in params.items():
                inv[v].append(k)
            for name, param in params.items():
                assert any(p in loaded for p in inv[param]), (
                    f"Parameter '{name}' is missing in file '{filename}', which contains "
                    f"parameters: {_brief_print_list(loaded.keys())}. Set allow_missing=True to "
                    f"ignore missing parameters.")
        for name in loaded:
            if not ignore_extra and name not in params:
                raise ValueError(
                    f"Parameter '{name}' loaded from file '{filename}' is not present in "
                    f"ParameterDict, which contains parameters "
                    f"{_brief_print_list(self._params.keys())}. Set ignore_extra=True to ignore. ")
            if name in params:
                params[name]._load_init(loaded[name], ctx, cast_dtype=cast_dtype,
                                        dtype_source=dtype_source)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """Deprecated alias of ``load_parameters``."""
        warnings.warn("load_params is deprecated. Please use load_parameters.")
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False,
                  cast_dtype=False, dtype_source="current"):
        """Load from a dict of structural (or full) names -> NDArray."""
        params = self._collect_params_with_prefix()
        if param_dict and not any("." in k for k in param_dict):
            self.collect_params().load_dict(param_dict, ctx, allow_missing, ignore_extra,
                                            self.prefix, None, cast_dtype, dtype_source)
            return
        if not allow_missing:
            for name in params:
                assert name in param_dict, (
                    f"Parameter '{name}' is missing in 'param_dict', which contains parameters: "
                    f"{_brief_print_list(param_dict.keys())}. Set allow_missing=True to ignore "
                    f"missing parameters.")
        for name, v in param_dict.items():
            if name not in params:
                if not ignore_extra:
                    raise ValueError(f"Parameter '{name}' loaded from 'param_dict' is not present "
                                     f"in ParameterDict. Set ignore_extra=True to ignore. ")
                continue
            params[name]._load_init(v, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)

    # ---- structure --------------------------------------------------------------------------
    def register_child(self, block, name=None):
        """Register ``block`` as a child (named by its position when ``name`` is None)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook):
        """``hook(block, inputs)`` before each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook):
        """``hook(block, inputs, outputs)`` after each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn):
        """Call ``fn(block)`` on every child (recursively), then on this block."""
        for cld in self._children.values():
            cld.apply(fn)
        fn(self)
        return self

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False):
        """Initialize all Parameters (``init`` defaults to ``mx.init.Uniform()``, +-0.07)."""
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs):
        """Hybridize every HybridBlock child (a plain Block itself runs imperatively)."""
        for cld in self._children.values():
            cld.hybridize(active, **kwargs)

    def cast(self, dtype):
        """Cast all Parameters to ``dtype``."""
        for child in self._children.values():
            child.cast(dtype)
        for _, param in self.params.items():
            param.cast(dtype)

    def zero_grad(self):
        self.collect_params().zero_grad()

    def reset_ctx(self, ctx):
        self.collect_params().reset_ctx(ctx)

    def __call__(self, *args):
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = self.forward(*args)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        return out

    def forward(self, *args):
        """Override to implement the computation."""
        raise NotImplementedError

    def register_op_hook(self, callback, monitor_all=False):
        for cld in self._children.values():
            cld.register_op_hook(callback, monitor_all)

    def summary(self, *inputs):
        """Print a table of the layers' output shapes and parameter counts (runs a forward)."""
        summary = OrderedDict()
        seen = set()
        hooks = []

        def _shape_str(args):
            flat, fmt = _flatten_any(args)
            shapes = _regroup_any([x.shape if isinstance(x, NDArray) else x for x in flat], fmt)
            s = str(shapes)[1:-1] if isinstance(shapes, list) else str(shapes)
            return s.replace("L", "")

        def _register(block):
            assert not isinstance(block, HybridBlock) or not block._active, \
                f'"{block.name}" must not be hybridized to print summary.'

            def _hook(block, _, outputs):
                key = f"{block.__class__.__name__}-{len(summary)}"
                row = summary[key] = OrderedDict()
                row["output_shape"] = _shape_str(outputs)
                n = trainable = shared = 0
                for p in block.params.values():
                    size = p.data().size
                    n += size
                    trainable += 0 if p.grad_req == "null" else size
                    if p in seen:
                        shared += size
                    else:
                        seen.add(p)
                row.update(n_params=n, trainable=trainable, shared=shared)
            if not block._container:
                hooks.append(block.register_forward_hook(_hook))

        summary["Input"] = OrderedDict(output_shape=_shape_str(inputs), n_params=0, trainable=0,
                                       shared=0)
        try:
            self.apply(_register)
            self(*inputs)
            fmt = "{:>20}  {:>42} {:>15}"
            print("-" * 80)
            print(fmt.format("Layer (type)", "Output Shape", "Param #"))
            print("=" * 80)
            total = trainable = shared = 0
            for layer, row in summary.items():
                print(fmt.format(layer, str(row["output_shape"]), row["n_params"]))
                total += row["n_params"]
                trainable += row["trainable"]
                shared += row["shared"]
            print("=" * 80)
            print("Parameters in forward computation graph, duplicate included")
            print("   Total params: " + str(total))
            print("   Trainable params: " + str(trainable))
            print("   Non-trainable params: " + str(total - trainable))
            print("Shared params in forward computation graph: " + str(shared))
            print("Unique parameters in model: " + str(total - shared))
            print("-" * 80)
        finally:
            for h in hooks:
                h.detach()


def _flatten_any(args):
    if isinstance(args, NDArray):
        return [args], 0
    if isinstance(args, (list, tuple)):
        flat, fmts = [], []
        for a in args:
            f, m = _flatten_any(a)
            flat.extend(f)
            fmts.append(m)
        return flat, fmts
    return [args], 0


def _regroup_any(args, fmt):
    def merge(args, fmt):
        if isinstance(fmt, int):
            return args[0], args[1:]
        ret = []
        for f in fmt:
            r, args = merge(args, f)
            ret.append(r)
        return ret, args
    return merge(args, fmt)[0]


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


def _infer_graph(sym, known, dtypes, params):
    """{variable name: ShapeDtypeStruct} for every variable whose shape can be inferred from
    the input shapes ``known`` (name -> shape), parameters' known shapes and op rules."""
    from ...symbol.infer import behind_casts, eval_chain, eval_node
    from ...symbol.symbol import topo
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
            filled = _param_shapes(n, [None if s is None else tuple(s.shape) for s in ins])
            for k, (src, i) in enumerate(n.inputs):
                var, chain = behind_casts(src)  # AMP's casts between weights and ops
                if ins[k] is None and filled[k] is not None and var.op is None:
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


def _zero_cotangent(x):
    if jax.numpy.issubdtype(x.dtype, jax.numpy.inexact):
        return jax.numpy.zeros(x.shape, x.dtype)
    return np.zeros(x.shape, jax.dtypes.float0)


@jax.custom_jvp
def _first_order_only(x):
    return jax.numpy.zeros((), x.dtype)


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
        guard = sum((_first_order_only(x) for x in xs[:n_vals]
                     if jax.numpy.issubdtype(x.dtype, jax.numpy.inexact)),
                    jax.numpy.zeros((), np.float32))
        grads = tuple(gr + guard.astype(gr.dtype)
                      if jax.numpy.issubdtype(gr.dtype, jax.numpy.inexact) else gr
                      for gr in grads)
        return grads + tuple(_zero_cotangent(r) for r in leaves)

    g.defvjp(g_fwd, g_bwd)
    return g(*vals, *res) + tuple(res)


class _GraphOp:
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

    def __init__(self, name, data_syms, out_sym, params):
        from ...lowering.registry import Dynamic, Op
        from ...symbol.executor import GraphFunction
        self.sym = out_sym
        g = self.graph = GraphFunction(out_sym)  # the executor's pure evaluation of the graph
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
                return _from_saved(vals, saved[0], meta[sig][1], n_out)

            def f(*xs):
                o, a = run(list(xs[:n_args]), list(xs[n_args:]), key, is_train, updating)
                return tuple(o), tuple(a)
            outs, pullback, new_aux = jax.vjp(f, *vals, has_aux=True)
            leaves, treedef = jax.tree_util.tree_flatten(pullback)
            meta[sig] = (treedef, [jax.ShapeDtypeStruct(v.shape, v.dtype)
                                   for v in tuple(outs) + tuple(new_aux)])
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
        self.op.convolutional = g.convolutional
        self.params = [p for is_arg, p in self.arg_slots if not is_arg] + self.aux_params
        self._fold_state = _rewrite.new_state()
        STATS["graph_ops"] += 1

    def _predict(self, ins, ctx):
        """Inference outside ``autograd.record``/``train_mode``: the graph through the
        executor's inference rewrites (``xnd.symbol.rewrite``: BatchNorm folded into the
        convolutions once per parameter version, Dropout dropped)."""
        from ...frontend import random as _random
        n_args = len(self.arg_slots)
        vals = [x._val() for x in ins]
        key = _random.next_key() if self.op.rng else _NO_KEY
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

    def __call__(self, flat_args):
        from ...ndarray import STATE
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
        if not STATE.recording and not STATE.training and _rewrite.ENABLED:
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


class HybridBlock(Block):
    """A Block whose ``hybrid_forward(F, x, *args, **params)`` works with ``F = nd`` and
    ``F = sym``; ``hybridize()`` compiles the whole block into one graph."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []
        self._out_format = None
        self._in_format = None
        self._active = False
        self._flags = []
        self._callback = None
        self._monitor_all = False
        self._backend = None
        self._backend_opts = {}

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    def _get_graph(self, *args):
        if not self._cached_graph:
            sym = _sym()
            flat, self._in_format = _flatten(args, "input")
            real = sum(a is not None for a in flat)
            if real == 0:
                raise ValueError("All args are None and we do not support such a case. "
                                 f"Received args: {args}")
            inputs, data_syms, cnt = [], [], 0
            np_mode = _is_np_array()  # numpy mode: numpy-faced Symbols (mx.sym.np)
            for a in flat:
                if a is None:
                    inputs.append(None)
                    continue
                s = sym.var(f"data{cnt}" if real > 1 else "data")
                if np_mode:
                    s = s.as_np_ndarray()
                cnt += 1
                inputs.append(s)
                data_syms.append(s)
            grouped = _regroup(inputs, self._in_format)
            params = {i: j.var().as_np_ndarray() if np_mode else j.var()
                      for i, j in self._reg_params.items()}
            with self.name_scope():
                out = self.hybrid_forward(sym, *grouped, **params)
            out, self._out_format = _flatten(out, "output")
            self._cached_graph = data_syms, sym.Group(out)
        return self._cached_graph

    def _build_cache(self, *args):
        data, out = self._get_graph(*args)
        params = dict(self.collect_params().items())
        data_names = {d.name for d in data}
        inputs = set(out.list_inputs())
        for name in inputs:
            if name not in params and name not in data_names:
                raise ValueError(f"Unknown input to HybridBlock: {name}")
        for d in data:
            if d.name not in inputs:
                warnings.warn(f"The {d.name} input to HybridBlock is not used by any "
                              f"computation. Is this intended?", stacklevel=4)
        unused = [n for n in params if n not in inputs]
        if unused:
            warnings.warn(f"Parameter {', '.join(unused)} is not used by any computation. "
                          f"Is this intended?", stacklevel=4)
        self._cached_op = _GraphOp(f"_hybrid_{self.name}", data, out, params)
        self._cached_op_args = [(is_arg, p) for is_arg, p in self._cached_op.arg_slots] + \
            [(False, p) for p in self._cached_op.aux_params]

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except Exception as e:
            raise ValueError(f"Deferred initialization failed because shape cannot be inferred. "
                             f"{e}") from e

    def _call_cached_op(self, *args):
        if self._cached_op is None:
            self._build_cache(*args)
        flat, fmt = _flatten(args, "input")
        if fmt != self._in_format:
            raise ValueError("The argument structure of HybridBlock does not match the cached "
                             f"version. Stored format = {self._in_format}, input format = {fmt}")
        flat = [a for a in flat if a is not None]
        gop = self._cached_op
        for p in gop.params:
            if p._data is None:
                if p._deferred_init:
                    self._deferred_infer_shape(*args)
                    for q in gop.params:
                        q._finish_deferred_init()
                    break
                p.data()  # raises MXNet's not-initialized error
        out = gop(flat)
        return _regroup(out, self._out_format)

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise ValueError(f"Children of HybridBlock must also be HybridBlock, but {block} has "
                             f"type {type(block)}. If you are using Sequential, please try "
                             f"HybridSequential instead.")
        super().register_child(block, name)
        self._clear_cached_op()

    def hybridize(self, active=True, backend=None, backend_opts=None, clear=True,
                  partition_if_dynamic=True, **kwargs):
        """Compile this block (and children) into one graph at the next call.

        ``static_alloc``/``static_shape`` are accepted; XLA always plans memory
        statically per input shape."""
        self._backend = backend
        self._backend_opts = backend_opts or {}
        self._active = active
        self._flags = list(kwargs.items())
        if clear:
            self._clear_cached_op()
        if active and (self._forward_hooks or self._forward_pre_hooks):
            warnings.warn(f'"{self}" is being hybridized while still having forward hook/pre-hook.'
                          f' If "{self}" is a child of HybridBlock, the hooks will not take '
                          f'effect.', stacklevel=2)
        super().hybridize(active, **kwargs)

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)

    def _infer_attrs(self, attr, *args):
        inputs, out = self._get_graph(*args)
        flat, _ = _flatten(args, "input")
        flat = [a for a in flat if a is not None]
        params = dict(self.collect_params().items())
        known = {s.name: tuple(a.shape) for s, a in zip(inputs, flat)}
        dtypes = {s.name: a.dtype for s, a in zip(inputs, flat)}
        found = _infer_graph(out, known, dtypes, params)
        missing = [n for n, s in found.items() if s is None and n in params and
                   not shape_is_known(params[n].shape)]
        if missing:
            raise MXNetError("Cannot decide shape for the following arguments (0s in shape means "
                             "unknown dimensions). Consider providing them as input:\n" +
                             "\n".join(f"\t{m}: {params[m].shape}" for m in missing))
        for name, p in params.items():
            s = found.get(name)
            if s is None:
                continue
            if attr == "shape":
                p.shape = tuple(s.shape)
            else:
                p.dtype = s.dtype.type

    def infer_shape(self, *args):
        """Infer the shapes of deferred Parameters from the inputs."""
        self._infer_attrs("shape", *args)

    def infer_type(self, *args):
        """Infer the dtypes of Parameters from the inputs."""
        self._infer_attrs("dtype", *args)

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Write ``path-symbol.json`` and ``path-%04d.params`` (``arg:``/``aux:`` names)."""
        if not self._cached_graph:
            raise RuntimeError("Please first call block.hybridize() and then run forward with "
                               "this block at least once before calling export.")
        sym = self._cached_graph[1]
        sym.save(f"{path}-symbol.json", remove_amp_cast=remove_amp_cast)
        arg_names = set(sym.list_arguments())
        aux_names = set(sym.list_auxiliary_states())
        arg_dict = {}
        for name, param in self.collect_params().items():
            if name in arg_names:
                arg_dict[f"arg:{name}"] = param._reduce()
            elif name in aux_names:
                arg_dict[f"aux:{name}"] = param._reduce()
            else:
                warnings.warn(f'Parameter "{name}" is not found in the graph. ', stacklevel=2)
        _nd().save("%s-%04d.params" % (path, epoch), arg_dict)

    def optimize_for(self, x, *args, backend=None, backend_opts=None, clear=True, **kwargs):
        """Subgraph backends are not part of xnd: hybridize and run one forward."""
        self.hybridize(True, backend=backend, backend_opts=backend_opts, clear=clear, **kwargs)
        self(x, *args)

    def register_op_hook(self, callback, monitor_all=False):
        self._callback = callback
        self._monitor_all = monitor_all
        super().register_op_hook(callback, monitor_all)

    def forward(self, x, *args):
        """Run ``hybrid_forward`` with ``F = nd`` (or the compiled graph when hybridized), or
        with ``F = sym`` when called on Symbols."""
        if isinstance(x, NDArray) and not args:
            has_nd, has_sym = True, False
        else:
            has_nd = has_sym = False
            for a in _flat_leaves([x, args]):
                if isinstance(a, NDArray):
                    has_nd = True
                elif isinstance(a, _Symbol()):
                    has_sym = True
        if has_sym and has_nd:
            raise ValueError("In HybridBlock, we do not support mixed NDArrays and Symbols types "
                             "for the input. Please check the type of the args.")
        if not has_sym and not has_nd:
            raise ValueError("In HybridBlock, there must be one NDArray or one Symbol in the "
                             "input. Please check the type of the args.")
        if has_nd:
            if self._active:
                return self._call_cached_op(x, *args)
            ctx = _first_ctx(x, args)
            try:
                params = {k: v.data(ctx) for k, v in self._reg_params.items()}
            except DeferredInitializationError:
                self._deferred_infer_shape(x, *args)
                for _, v in self.params.items():
                    v._finish_deferred_init()
                params = {k: v.data(ctx) for k, v in self._reg_params.items()}
            return self.hybrid_forward(_nd(), x, *args, **params)
        params = {i: j.var() for i, j in self._reg_params.items()}
        with self.name_scope():
            return self.hybrid_forward(_sym(), x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Override to implement the computation with ``F`` (nd or sym)."""
        raise NotImplementedError


def _flat_leaves(args):
    if isinstance(args, (list, tuple)):
        for a in args:
            yield from _flat_leaves(a)
    else:
        yield args


def _is_np_array():
    from ..util import is_np_array
    return is_np_array()


def _first_ctx(x, args):
    if isinstance(x, NDArray):
        return x.context
    for a in _flat_leaves(args):
        if isinstance(a, NDArray):
            return a.context
    return None


def _common_prefix(names):
    if not names:
        return ""
    prefix = names[0]
    for name in names:
        i = 0
        while i < len(prefix) and i < len(name) and prefix[i] == name[i]:
            i += 1
        prefix = prefix[:i]
    return prefix


class SymbolBlock(HybridBlock):
    """A block made from a Symbol (``outputs``) and its input variables (``inputs``);
    the symbol's other arguments and auxiliary states become Parameters."""

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False,
                ignore_extra=False):
        """Load an exported model (``-symbol.json`` and optional ``.params``)."""
        sym = _sym()
        loaded = sym.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:
            inputs = [sym.var(i, dtype=np.float32) for i in input_names]
        else:
            inputs = [sym.var(i) for i in input_names]
        ret = SymbolBlock(loaded, inputs)
        if param_file is not None:
            ret.collect_params().load(param_file, ctx, allow_missing, ignore_extra,
                                      cast_dtype=True, dtype_source="saved")
        return ret

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix=None, params=None)
        self._prefix = ""
        self._params = ParameterDict("", params)
        sym = _sym()
        if isinstance(inputs, sym.Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = _flatten(inputs, "input")
        out, self._out_format = _flatten(outputs, "output")
        out = sym.Group(out)
        input_names = set()
        for s in syms:
            assert len(s.get_internals().list_outputs()) == 1, \
                f"Input symbols must be variable, but {s} is an output of operators"
            input_names.add(s.name)
        arg_params = out.list_arguments()
        aux_params = out.list_auxiliary_states()
        arg_types, aux_types = _infer_param_types(syms, out, arg_params, aux_params)
        for i, arg in enumerate(arg_params):
            if arg not in input_names:
                self.params.get(arg, allow_deferred_init=True, dtype=arg_types[i])
        for i, aux in enumerate(aux_params):
            if aux not in input_names:
                self.params.get(aux, grad_req="null", allow_deferred_init=True,
                                dtype=aux_types[i])
        self._cached_graph = syms, out
        plen = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {key[plen:]: val for key, val in self._params.items()}

    def forward(self, x, *args):
        if isinstance(x, NDArray):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return self._call_cached_op(x, *args)
        sym = _sym()
        assert isinstance(x, sym.Symbol), \
            f"HybridBlock requires the first argument to forward be either Symbol or NDArray, " \
            f"but got {type(x)}"
        flat, in_fmt = _flatten([x] + list(args), "input")
        assert in_fmt == self._in_format, "Invalid input format"
        ret = copy.copy(self._cached_graph[1])
        ret._compose(**{k.name: v for k, v in zip(self._cached_graph[0], flat)})
        return _regroup(list(ret), self._out_format)

    def _clear_cached_op(self):
        tmp = self._cached_graph
        super()._clear_cached_op()
        self._cached_graph = tmp

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


def _infer_param_types(in_params, out_params, arg_params, aux_params, default=np.float32):
    """dtypes of the arguments and aux states, from the inputs' declared dtypes."""
    from ...symbol.infer import _declared_dtype
    known = {}
    for s in in_params:
        node = s._outputs[0][0]
        dt = _declared_dtype(node)
        if dt is not None:
            known[s.name] = dt
    arg_types = aux_types = None
    if known:
        try:
            arg_types, _, aux_types = out_params.infer_type(**known)
        except Exception:  # noqa: BLE001
            arg_types = aux_types = None
    if arg_types is None or len(arg_types) != len(arg_params):
        arg_types = [default] * len(arg_params)
    if aux_types is None or len(aux_types) != len(aux_params):
        aux_types = [default] * len(aux_params)
    return arg_types, aux_types
