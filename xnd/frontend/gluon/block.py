"""mx.gluon.block: Block, HybridBlock, SymbolBlock (MXNet 1.9.1 naming and behaviour).

Hybridization: ``hybrid_forward(F, ...)`` is traced once with ``F = mx.sym``
into a Symbol (MXNet's node names, so ``export`` writes files MXNet loads);
the Symbol is evaluated by the executor's pure graph function, wrapped as ONE
registry-style operator (``GraphOp``, _cached_op.py) and run through ``ndarray.invoke``:
one jitted call per forward, recorded on the autograd tape as a single node
(so backward is one vjp of the whole graph), with BatchNorm's running
statistics returned as extra outputs and written back by autograd at
backward time, exactly as for the imperative BatchNorm.
"""
import copy
import re
import threading
import warnings
from collections import OrderedDict, defaultdict

import numpy as np

from ... import name as _name
from ...base import MXNetError
from ...ndarray import NDArray
from ._cached_op import STATS, GraphOp, infer_graph  # noqa: F401  (STATS: tests read it)
from .parameter import (Constant, DeferredInitializationError, Parameter,  # noqa: F401
                        ParameterDict, _load_named)
from .utils import (HookHandle, _brief_print_list, _check_all_np_ndarrays,
                    _check_same_symbol_type, _flatten, _indent, _regroup,
                    shape_is_known)
# names MXNet's module holds by importing them (its users import them from here)
from ...symbol import Symbol, load_json  # noqa: E402,F401
from ..util import is_np_array, np_array, np_shape  # noqa: E402,F401
from .. import initializer  # noqa: E402,F401
from .. import ndarray  # noqa: E402,F401
from ... import symbol  # noqa: E402,F401

__all__ = ["Block", "HybridBlock", "SymbolBlock"]
_BUILDING = threading.RLock()  # a hybridized block's graph and program are made once


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
        loaded = _load_named(filename, "load_parameters")
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
        if _is_np_array():
            _check_all_np_ndarrays(out)
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
            shapes = _shapes(args)
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


def _shapes(args):
    """`args` with each NDArray replaced by its shape (nested lists and tuples as lists)."""
    if isinstance(args, (list, tuple)):
        return [_shapes(a) for a in args]
    return args.shape if isinstance(args, NDArray) else args


class HybridBlock(Block):
    """A Block whose ``hybrid_forward(F, x, *args, **params)`` works with ``F = nd`` and
    ``F = sym``; ``hybridize()`` compiles the whole block into one graph."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []
        self._op_by_op = False  # the graph holds an op no program can (Op.imperative)
        self._out_format = None
        self._out_np = None   # the traced outputs' face (None: the inputs', SymbolBlock)
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
            self._out_np = _check_same_symbol_type(out)
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
        self._cached_op = GraphOp(f"_hybrid_{self.name}", data, out, params,
                                  int(dict(self._flags).get("inline_limit", 2)))
        self._cached_op_args = [(is_arg, p) for is_arg, p in self._cached_op.arg_slots] + \
            [(False, p) for p in self._cached_op.aux_params]

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except Exception as e:
            raise ValueError(f"Deferred initialization failed because shape cannot be inferred. "
                             f"{e}") from e

    def _call_cached_op(self, *args):
        if self._cached_op is None and not self._op_by_op:
            with _BUILDING:  # each device's thread may make its first call at once
                if self._cached_op is None and not self._op_by_op:
                    self._op_by_op = any(
                        n.op is not None and n.op.imperative and (
                            n.op.imperative is True or n.op.imperative(n.params()))
                        for n in self._get_graph(*args)[1]._nodes())
                    if not self._op_by_op:
                        self._build_cache(*args)
        if self._op_by_op:
            return self._imperative(*args)
        flat, fmt = _flatten(args, "input")
        if fmt != self._in_format and not _same_but_trailing_none(fmt, self._in_format):
            # MXNet's message names the two formats the other way round; kept as it reads
            raise ValueError("The argument structure of HybridBlock does not match the cached "
                             f"version. Stored format = {fmt}, input format = {self._in_format}")
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
        # each output takes the face its traced Symbol had, whatever the inputs' faces
        if self._out_np is not None:
            out = [o.as_np_ndarray() if self._out_np else o.as_nd_ndarray() for o in out]
        return _regroup(out, self._out_format)

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []
        self._op_by_op = False

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
        found = infer_graph(out, known, dtypes, params)
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
                ctxs = {a.context for a in _flat_leaves([x, args]) if isinstance(a, NDArray)}
                if len(ctxs) > 1:
                    raise ValueError("Find multiple contexts in the input, After hybridized, the "
                                     "HybridBlock only supports one input context. You can print "
                                     "the ele.ctx in the input arguments to inspect their "
                                     f"contexts. Find all contexts = {ctxs}")
                return self._call_cached_op(x, *args)
            return self._imperative(x, *args)
        params = {i: j.var() for i, j in self._reg_params.items()}
        with self.name_scope():
            return self.hybrid_forward(_sym(), x, *args, **params)

    def _imperative(self, x, *args):
        """``hybrid_forward`` with F = nd: the block not hybridized, or holding an operator
        whose result shape depends on the values (np.unique), which MXNet's graphs run
        imperatively too."""
        ctx = _first_ctx(x, args)
        try:
            params = {k: v.data(ctx) for k, v in self._reg_params.items()}
        except DeferredInitializationError:
            self._deferred_infer_shape(x, *args)
            for _, v in self.params.items():
                v._finish_deferred_init()
            params = {k: v.data(ctx) for k, v in self._reg_params.items()}
        return self.hybrid_forward(_nd(), x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Override to implement the computation with ``F`` (nd or sym)."""
        raise NotImplementedError


def _same_but_trailing_none(fmt, stored):
    """MXNet accepts a call whose top-level format differs from the cached one only by
    trailing ``None`` arguments (-1), i.e. arguments left to their default values."""
    short, long_ = (fmt, stored) if len(fmt) < len(stored) else (stored, fmt)
    if len(short) == len(long_):
        return False
    return long_[:len(short)] == short and all(f == -1 for f in long_[len(short):])


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
        stypes = {n.name: n.attrs.get("__storage_type__", "0") for n in out._nodes()
                  if n.op is None}
        for i, arg in enumerate(arg_params):
            if arg not in input_names:
                # MXNet: a SymbolBlock's parameters are dense
                assert stypes.get(arg, "0") in ("0", "-1"), \
                    f"SymbolBlock doesn't support Parameter '{arg}' because its storage type " \
                    f"is not 'default'."
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
