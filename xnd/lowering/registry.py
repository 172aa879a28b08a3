"""The operator registry: every MXNet operator, once, as a pure JAX function.

An operator is a Python function over JAX arrays. Its signature *is* its
declaration: positional parameters are the MXNet inputs (``*data`` for
variadic ones), keyword-only parameters are the MXNet attributes with their
MXNet defaults, annotated with a parser from ``attrs`` (so symbol-JSON
strings parse too). Two keyword names are special and filled by the
dispatcher: ``key`` (a fresh PRNG key, for random ops) and ``is_train`` (the
autograd training flag, for Dropout/BatchNorm).

Eager calls go through ``Op.kernel``: a ``jax.jit`` of the function with the
static attributes closed over, cached per frozen attribute tuple. Attributes
annotated ``Dynamic(...)`` (scalars of ``_plus_scalar`` & co.) are passed as
jit arguments instead, so a changing scalar does not recompile.
"""
import functools
import inspect
import math
import os

import jax

from ..base import MXNetError
from ..semantics import is_np_shape
from .attrs import REQUIRED, Param, parse_value
from . import xla_options

_OPS = {}


class Dynamic:
    """Marks an attribute that is passed to the kernel at run time (a scalar)."""

    def __init__(self, parse):
        self.parse = parse
        self.__name__ = f"Dynamic({parse.__name__})"

    def __call__(self, v):
        return self.parse(v)


_TUNED = frozenset(("Convolution", "Deconvolution", "Pooling"))


class Op:
    __slots__ = ("name", "aliases", "fn", "inputs", "variadic", "params", "static", "dynamic",
                 "rng", "train", "num_visible", "aux", "_kernels", "default_key", "doc",
                 "num_outputs", "output_names", "aux_update", "param_shapes", "optional", "check",
                 "kernel_check", "input_init", "loss", "mutates", "tuned", "convolutional", "extra",
                 "input_names", "elementwise", "imperative", "graph_op",
                 "__weakref__")

    def __init__(self, name, fn, aliases=(), num_visible=None, aux=(), num_outputs=1,
                 output_names=None, aux_update=None, param_shapes=None, check=None,
                 input_init=None, loss=False, mutates=(), extra=None, input_names=None,
                 elementwise=False, kernel_check=None):
        self.name, self.fn, self.aliases = name, fn, tuple(aliases)
        # each output element depends only on the same element of each (equal-shaped) input:
        # an eager call on a new shape may run at a bucketed length (lowering/bucket.py);
        # "broadcast": inputs of other shapes broadcast (numpy's rules, same rank) first;
        # "flat": an op without inputs whose output, flattened, is the first elements of its
        # output at any longer ``shape`` (the counter-based samplers)
        self.elementwise = elementwise
        # callable(attrs) -> the input names of one node of a variadic op (else ``inputs``)
        self.input_names = input_names
        # the attribute that collects unknown keywords as sorted (name, str) pairs (Custom's
        # keywords for its CustomOpProp); None: unknown keywords are an error
        self.extra = extra
        # compiled with xla_options (XLA:CPU's convolution choices): convolutions and whole
        # graphs; plain jax.jit elsewhere keeps the eager fast path as short as it can be
        self.tuned = name in _TUNED
        # XLA's classic fusion when training (xla_options.classic_fusion)
        self.convolutional = name in _TUNED
        # True, or callable(parsed attrs): no compiled graph can hold it, so a hybridized block
        # holding it runs imperatively (gluon/block.py): np.unique's output shape depends on
        # the values; a cross-device SyncBatchNorm waits for the other devices' calls
        self.imperative = False
        # a hybridized block's whole-graph op (frontend/gluon/_cached_op.py): its GraphOp
        # (files name such a node MXNet's ``_CachedOp``); None for registered ops
        self.graph_op = None
        self.inputs, self.params, self.variadic = [], {}, False
        self.rng = self.train = False
        self.optional = set()  # inputs with a None default (bias when no_bias, ...)
        for p in inspect.signature(fn).parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is None:
                self.optional.add(p.name)
            if p.kind is p.VAR_POSITIONAL:
                self.variadic = True
                self.inputs.append(p.name)
            elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                self.inputs.append(p.name)
            elif p.name == "key" and p.annotation is p.empty:  # annotated: an attribute
                self.rng = True
            elif p.name == "is_train":
                self.train = True
            elif p.kind is p.KEYWORD_ONLY:
                parse = p.annotation if p.annotation is not p.empty else (lambda v: v)
                default = REQUIRED if p.default is p.empty else p.default
                self.params[p.name] = Param(p.name, parse, default)
        self.inputs = tuple(self.inputs)
        self.static = tuple(n for n, p in self.params.items() if not isinstance(p.parse, Dynamic))
        self.dynamic = tuple(n for n, p in self.params.items() if isinstance(p.parse, Dynamic))
        if self.train:  # filled by the dispatcher from autograd's training flag
            self.static += ("is_train",)
        if self.rng:  # filled by the dispatcher with (seed, counter) of xnd's random state
            self.dynamic += ("key",)
        self.num_visible = num_visible  # None: every output is visible
        self.aux = tuple(aux)  # input names that are auxiliary states (BatchNorm moving stats)
        # Graph-level facts the symbol layer needs before shapes are known:
        self.num_outputs = num_outputs      # internal outputs: int or callable(attrs)
        self.output_names = output_names    # names after '<node>_': tuple or callable(attrs)
        self.aux_update = aux_update        # (attrs, inputs, outputs) -> new aux values (aux order)
        self.param_shapes = param_shapes    # (attrs, input shapes) -> input shapes, weights filled
        self.check = check                  # eager check (attrs, *inputs): tile's reps
        # a check MXNet makes inside the kernel (attrs, *inputs): a failure is delivered at the
        # next read of the results, as MXNet's engine rethrows it (engine.Failed)
        self.kernel_check = kernel_check
        self.input_init = input_init        # {input: '__init__' attr} of implicit variables
        self.loss = loss                    # a loss head (bool or callable(attrs)): its backward
        #                                     needs no head gradient
        # inputs updated in place from outputs 1.. (states); or callable(attrs) -> the input
        # positions that the last outputs go back into (variadic multi-weight updates)
        self.mutates = mutates if callable(mutates) else tuple(mutates)
        self._kernels = {}
        self.doc = inspect.getdoc(fn) or ""
        self.default_key = None
        if all(p.default is not REQUIRED for p in self.params.values()) and not self.train:
            self.default_key = tuple(self.params[n].default for n in self.static)

    def __repr__(self):
        return f"<Op {self.name}>"

    def parse_attrs(self, kwargs):
        """MXNet attributes (Python values or strings) -> {name: parsed value}, defaults filled."""
        params = self.params
        if not params:  # MXNet ignores unknown keywords of ops that take no attributes
            return {}
        if self.extra is not None:
            extra = {k: v for k, v in kwargs.items() if k not in params}
            if extra:
                kwargs = {k: v for k, v in kwargs.items() if k not in extra}
                kwargs[self.extra] = tuple(sorted(kwargs.get(self.extra, ()))) + tuple(
                    sorted((k, str(v)) for k, v in extra.items()))
        for k in kwargs:
            if k not in params:
                raise MXNetError(f"Operator {self.name} got an unknown argument {k!r}; "
                                 f"its arguments are {', '.join(params) or '(none)'}")
        attrs = {}
        for n, p in params.items():
            v = kwargs.get(n)
            if v is not None:
                attrs[n] = parse_value(self.name, p, v)
            elif n in kwargs and (p.default is None or getattr(p.parse, "accepts_none", False)):
                attrs[n] = None  # an explicit None is a value for optional attributes (axis=None)
            elif p.default is REQUIRED:
                raise MXNetError(f"Operator {self.name}: required parameter {n!r} is missing")
            else:
                attrs[n] = p.default
        if not self.inputs and attrs.get("shape") is not None:  # a creation op: checked first
            # (-1: a dim a graph infers from the op's consumers; running it unknown fails)
            check_size(self.name, [0 if d == -1 else d for d in attrs["shape"]],
                       attrs.get("dtype") or "float32", "requested")
        return attrs

    def n_outputs(self, attrs):
        n = self.num_outputs
        return n(attrs) if callable(n) else n

    def is_loss(self, attrs):
        """A loss head (no head gradient needed); ``loss`` may depend on the attributes."""
        return self.loss(attrs) if callable(self.loss) else self.loss

    def n_visible(self, attrs):
        v = self.num_visible
        if v is None:
            return self.n_outputs(attrs)
        return v(attrs) if callable(v) else v

    def out_names(self, attrs):
        """MXNet's output suffixes: 'output' for one output, else per-op names or 'output<i>'."""
        names = self.output_names
        if names is not None:
            names = names(attrs) if callable(names) else names
            return list(names)[:self.n_visible(attrs)]
        n = self.n_visible(attrs)
        return ["output"] if n == 1 else [f"output{i}" for i in range(n)]

    def static_key(self, attrs):
        return tuple(attrs[n] for n in self.static)

    def kernel(self, key, donate=None):
        """The jitted function for one frozen attribute tuple; inputs then dynamic attrs."""
        k = key if donate is None else (key, donate)
        f = self._kernels.get(k)
        if f is None:
            f = self._kernels[k] = self._make_kernel(key, donate)
        return f

    def _make_kernel(self, key, donate):
        static = dict(zip(self.static, key))
        fn, dyn, n_dyn, name = self.fn, self.dynamic, len(self.dynamic), self.name
        check_shapes = name not in _ANY_SHAPE

        def kern(*args):
            inputs = args[:len(args) - n_dyn]
            if check_shapes and not is_np_shape():  # NumPy shape semantics: 0-d and 0-size ok
                for a in inputs:
                    if a is not None and (a.ndim == 0 or a.size == 0):
                        raise MXNetError(
                            f"Operator {name} inferring shapes failed: input shape {a.shape} is not "
                            f"supported (legacy MXNet arrays need ndim >= 1 and no zero-size dim)")
            try:
                res = fn(*inputs, **static, **dict(zip(dyn, args[len(inputs):])))
            except (ArithmeticError, RecursionError) as e:  # Python math on attributes
                raise MXNetError(f"Operator {name}: {type(e).__name__}: {e} (attributes "
                                 f"{static})") from None
            return check_outputs(name, res)
        kern.__name__ = self.name
        eager = getattr(fn, "eager_kernel", None)
        if eager is not None:  # a Python kernel (Custom's forward), never compiled when eager
            kern = eager(static)
            return (lambda old, *args: kern(*args)) if donate == "old" else kern
        jit = functools.partial(xla_options.jit, classic_fusion=self.convolutional) \
            if self.tuned else jax.jit
        if donate is None:
            return jit(kern)
        if donate == "old":  # out= target that the op does not read: donate it, keep it alive
            return jit(lambda old, *args: kern(*args), donate_argnums=0, keep_unused=True)
        return jit(kern, donate_argnums=donate)


# MXNet 1.9.1 (built without USE_INT64_TENSOR_SIZE) refuses tensors of 2^31 - 1 elements or more
MAX_ELEMENTS = 2 ** 31 - 1


def _memory_bytes():
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 1 << 40


MAX_BYTES = _memory_bytes()  # no single result may need more than the machine's memory


def out_of_memory(e):
    """Whether ``e`` is a failed allocation: numpy's MemoryError, or XLA's "Out of memory
    allocating N bytes" (RESOURCE_EXHAUSTED), which MXNet reports as the MXNetError "Failed
    to allocate CPU Memory"."""
    return isinstance(e, MemoryError) or (not isinstance(e, MXNetError) and (
        "Out of memory" in str(e) or "RESOURCE_EXHAUSTED" in str(e)))  # jaxlib 0.4.30: a ValueError


class allocation_errors:
    """A block in which a failed allocation (``out_of_memory``) is raised as MXNet's
    MXNetError "Failed to allocate CPU Memory: <where>: ..."."""

    def __init__(self, where):
        self.where = where

    def __enter__(self):
        return self

    def __exit__(self, typ, e, tb):
        if e is not None and out_of_memory(e):
            raise MXNetError(f"Failed to allocate CPU Memory: {self.where}: {e}") from None
        return False


def check_size(op, shape, dtype, what="output"):
    """The one size check before XLA: a negative dimension or a result over MXNet's element
    limit or the machine's memory is an MXNetError naming the op, never an abort in XLA."""
    for d in shape:
        if d < 0:
            raise MXNetError(f"Operator {op}: {what} shape {tuple(shape)} is invalid: shape dim "
                             f"size must be >= 0, while received {d}")
    n = math.prod(shape)
    if n >= MAX_ELEMENTS:
        raise MXNetError(f"Operator {op}: {what} shape {tuple(shape)} has {n} elements: Size of "
                         f"tensor you are trying to allocate is larger than 2^31 elements")
    nbytes = n * jax.numpy.dtype(dtype).itemsize
    if nbytes > MAX_BYTES:
        raise MXNetError(f"Operator {op}: {what} shape {tuple(shape)} of {dtype} needs {nbytes} "
                         f"bytes, more than this machine's {MAX_BYTES} bytes of memory")


def check_outputs(op, res):
    """Checked at trace time (shapes are abstract there), so it costs nothing per call."""
    for a in (res if isinstance(res, (tuple, list)) else (res,)):
        if a is not None and hasattr(a, "shape"):
            check_size(op, a.shape, a.dtype)
    return res


_ANY_SHAPE = {"_view_read", "_view_write", "_getitem", "_setitem"}  # internal: 0-d values ok


def register(name, *aliases, num_visible=None, aux=(), num_outputs=1, output_names=None,
             aux_update=None, param_shapes=None, check=None, input_init=None, loss=False,
             mutates=(), extra=None, input_names=None, elementwise=False, kernel_check=None):
    """Decorator: register ``fn`` as MXNet operator ``name`` (and its aliases)."""
    def deco(fn):
        op = Op(name, fn, aliases, num_visible, aux, num_outputs, output_names, aux_update,
                param_shapes, check, input_init, loss, mutates, extra, input_names, elementwise,
                kernel_check)
        for n in (name, *aliases):
            if n in _OPS:
                raise ValueError(f"operator {n} registered twice")
            _OPS[n] = op
        return fn
    return deco


def get(name):
    try:
        return _OPS[name]
    except KeyError:
        raise MXNetError(f"Operator {name} is not registered") from None


def exists(name):
    return name in _OPS


def all_ops():
    """{name or alias: Op}."""
    return dict(_OPS)
