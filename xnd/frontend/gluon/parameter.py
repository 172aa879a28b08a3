"""Gluon parameters: Parameter, Constant, ParameterDict (MXNet 1.9.1 semantics).

A Parameter holds one NDArray per context (``_data``) and, unless its
``grad_req`` is ``'null'``, one gradient NDArray per context, marked for
autograd with ``mark_variables`` so that ``backward`` writes into the same
gradient handles every step. Shapes may contain 0 (unknown) until the first
forward pass infers them (deferred initialization).
"""
import uuid
import warnings
from collections import OrderedDict

import numpy as np

from ... import _transfer
from ...base import MXNetError
from ...context import Context, cpu, current_context
from ...ndarray import NDArray, _wrap, copy_buffer
from .utils import _brief_print_list, _indent, shape_is_known
# names MXNet's module holds by importing them (its users import them from here)
from ..util import is_np_array, is_np_shape  # noqa: E402,F401
from .. import initializer  # noqa: E402,F401
from .. import ndarray  # noqa: E402,F401
from ... import autograd  # noqa: E402,F401
from ... import context  # noqa: E402,F401
from ... import symbol  # noqa: E402,F401

__all__ = ["DeferredInitializationError", "Parameter", "Constant", "ParameterDict",
           "tensor_types"]

tensor_types = (NDArray,)


class DeferredInitializationError(MXNetError):
    """Error for unfinished deferred initialization."""


def _load_named(filename, what):
    """The {name: NDArray} of a parameters file (an empty file: {}); a file of an unnamed
    list raises MXNetError naming `what` (load, load_parameters)."""
    loaded = _nd().load(filename)
    if isinstance(loaded, list):
        if loaded:
            raise MXNetError(f"{what}: '{filename}' holds a list of arrays, not named "
                             f"parameters")
        loaded = {}
    return loaded


def _nd():
    from .. import ndarray as nd
    return nd


def _autograd():
    from ... import autograd
    return autograd


def _default_init():
    from .. import initializer
    return initializer.Uniform()


def _run_init(name, init, default_init, arr):
    """MXNet's Gluon path: ``create(default_init)(InitDesc(name, {'__init__': init}), arr)``:
    the parameter's own initializer (``init``) wins, else the global one."""
    from .. import initializer
    initializer.create(default_init)(initializer.InitDesc(name, {"__init__": init}), arr)


class Parameter:
    """A container of one weight (per context) of a Block; see the module doc."""

    def __init__(self, name, grad_req="write", shape=None, dtype=np.float32, lr_mult=1.0,
                 wd_mult=1.0, init=None, allow_deferred_init=False, differentiable=True,
                 stype="default", grad_stype="default"):
        self._var = None
        self._data = None
        self._grad = None
        self._ctx_list = None
        self._ctx_map = None
        self._trainer = None
        self._deferred_init = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = None
        if isinstance(shape, int):
            shape = (shape,)
        self._shape = shape
        self.name = name
        self._dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.grad_req = grad_req
        self.init = init
        valid = ("default", "row_sparse", "csr")
        assert grad_stype in valid, (f"grad_stype for Parameter '{name}' must be one of 'default',"
                                     f" 'row_sparse', or 'csr', but got '{grad_stype}'")
        assert stype in valid, (f"stype for Parameter '{name}' must be one of 'default', "
                                f"'row_sparse', or 'csr', but got '{stype}'")
        self._grad_stype = grad_stype
        self._stype = stype
        self._uuid = str(uuid.uuid4())
        self._const_value = None
        self._stale = {}  # id(grad NDArray) -> the buffer it held at the last Trainer step

    def __repr__(self):
        return f"Parameter {self.name} (shape={self.shape}, dtype={self.dtype})"

    # ---- attributes -------------------------------------------------------------------
    @property
    def grad_req(self):
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        assert req in ("write", "add", "null"), \
            f"grad_req must be one of 'write', 'add', or 'null', but got '{req}'"
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == "null" and self._grad is not None:
            self._grad = None
            self._data = [_fresh_handle(d) for d in self._data]
        elif self._data is not None:
            self._init_grad()

    @property
    def dtype(self):
        return self._dtype

    @dtype.setter
    def dtype(self, dtype):
        """Setting the dtype casts the value (MXNet's setter is ``cast``)."""
        self.cast(dtype)

    @property
    def shape(self):
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        if new_shape is not None:
            new_shape = tuple(int(d) for d in new_shape)
        if self._shape is None:
            self._shape = new_shape
            return
        assert len(self._shape) == len(new_shape) and \
            all(j in (-1, 0, i) for i, j in zip(new_shape, self._shape)), \
            f"Expected shape {new_shape} is incompatible with given shape {self._shape}."
        self._shape = new_shape

    @property
    def stype(self):
        return self._stype

    # ---- storage ----------------------------------------------------------------------
    def _set_trainer(self, trainer):
        """The trainer this parameter belongs to; only a sparse parameter refuses a second
        one (MXNet: a dense parameter simply follows the latest Trainer)."""
        if self._stype != "default" and self._trainer and trainer and \
                self._trainer is not trainer:
            raise RuntimeError(
                f"Failed to set the trainer for Parameter '{self.name}' because it was already "
                f"set. More than one trainers for a single Parameter is not supported.")
        self._trainer = trainer

    def _check_and_get(self, arr_list, ctx):
        if arr_list is not None:
            if ctx is list:
                return arr_list
            if ctx is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                ctx = current_context()
            ctx_list = self._ctx_map[ctx.device_typeid & 1]
            if ctx.device_id < len(ctx_list):
                idx = ctx_list[ctx.device_id]
                if idx is not None:
                    return arr_list[idx]
            raise RuntimeError(f"Parameter '{self.name}' was not initialized on context {ctx}. "
                               f"It was only initialized on {self._ctx_list}.")
        if self._deferred_init:
            raise DeferredInitializationError(
                f"Parameter '{self.name}' has not been initialized yet because initialization "
                f"was deferred. Actual initialization happens during the first forward pass. "
                f"Please pass one batch of data through the network before accessing "
                f"Parameters. You can also avoid deferred initialization by specifying in_units, "
                f"num_features, etc., for network layers.")
        raise RuntimeError(
            f"Parameter '{self.name}' has not been initialized. Note that you should initialize "
            f"parameters and create Trainer with Block.collect_params() instead of Block.params "
            f"because the later does not include Parameters of nested child Blocks")

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source="current"):
        """Initialize (or overwrite) from a loaded array, checking shape and dtype."""
        if cast_dtype:
            assert dtype_source in ("current", "saved")
        if self.shape:
            assert len(self.shape) == len(data.shape) and all(
                s in (0, -1, d) for s, d in zip(self.shape, data.shape)), \
                (f"Failed loading Parameter '{self.name}' from saved params: shape incompatible "
                 f"expected {self.shape} vs saved {data.shape}")
            self.shape = tuple(d if s in (0, -1) else s for s, d in zip(self.shape, data.shape))
        if self.dtype:
            if cast_dtype and np.dtype(self.dtype).type != data.dtype:
                if dtype_source == "current":
                    data = data.astype(self.dtype, copy=False)
                else:
                    self.dtype = data.dtype
            else:
                assert np.dtype(self.dtype).type == data.dtype, (
                    f"Failed loading Parameter '{self.name}' from saved params: dtype "
                    f"incompatible expected {self.dtype} vs saved {data.dtype}. Set "
                    f"cast_dtype=True to cast the dtype of saved params.")
        if self._stype != data.stype:
            data = data.tostype(self._stype)
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data is None:
            if self._deferred_init:
                assert ctx is None or set(ctx) == set(self._deferred_init[1]), (
                    f"Failed to load Parameter '{self.name}' on {ctx} because it was previous "
                    f"initialized on {self.list_ctx()}.")
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [cpu()]
            self._init_impl(data, ctx)
        else:
            assert ctx is None or set(ctx) == set(self.list_ctx()), (
                f"Failed to load Parameter '{self.name}' on {ctx} because it was previous "
                f"initialized on {self.list_ctx()}.")
            self.set_data(data)
        self._deferred_init = ()

    def _finish_deferred_init(self):
        """Create the arrays once the shape is known."""
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        assert shape_is_known(self.shape), (
            f"Cannot initialize Parameter '{self.name}' because it has invalid shape: "
            f"{self.shape}. Please specify in_units, in_channels, etc for `Block`s.")
        with _autograd().pause():
            if data is None:
                if self._const_value is not None:
                    data = self._const_value.astype(self.dtype)
                else:
                    data = _nd().zeros(self.shape, ctx=cpu(), dtype=self.dtype)
                    _run_init(self.name, init, default_init, data)
            self._init_impl(data, ctx)

    def _init_impl(self, data, ctx_list):
        self._ctx_list = list(ctx_list)
        self._ctx_map = [[], []]
        for i, ctx in enumerate(self._ctx_list):
            dev_list = self._ctx_map[ctx.device_typeid & 1]
            while len(dev_list) <= ctx.device_id:
                dev_list.append(None)
            dev_list[ctx.device_id] = i
        if not isinstance(data, NDArray):
            data = _nd().array(data, dtype=self.dtype)
        self._data = _np_faces([_copy_to(data, c, self.dtype) for c in self._ctx_list])
        if self._stype != "default":
            self._data = [d.tostype(self._stype) for d in self._data]
        self._init_grad()

    def _init_grad(self):
        if self.grad_req == "null":
            self._grad = None
            return
        nd = _nd()
        self._grad = _np_faces([nd.zeros(d.shape, ctx=d.context, dtype=d.dtype,
                                         stype=self._grad_stype) for d in self._data])
        _autograd().mark_variables(self._data, self._grad, self.grad_req)
        for g in self._grad:
            self._mark_stale(g)

    def _reduce(self):
        """The value averaged over contexts, on the CPU."""
        block = self._check_and_get(self._data, list)
        if len(block) > 1:
            nd = _nd()
            return nd.add_n(*(w.copyto(cpu()) for w in block)) / len(block)
        return block[0].copyto(cpu())

    # ---- public API ---------------------------------------------------------------------
    def initialize(self, init=None, ctx=None, default_init=None, force_reinit=False):
        """Allocate and fill the arrays (deferred when the shape is not known yet)."""
        if default_init is None:
            default_init = _default_init()
        if self._data is not None and not force_reinit:
            warnings.warn(f"Parameter '{self.name}' is already initialized, ignoring. Set "
                          f"force_reinit=True to re-initialize.", stacklevel=2)
            return
        self._data = self._grad = None
        if ctx is None:
            ctx = [current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if init is None:
            init = default_init if self.init is None else self.init
        if not shape_is_known(self.shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise ValueError(f"Cannot initialize Parameter '{self.name}' because it has invalid "
                             f"shape: {self.shape}.")
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def reset_ctx(self, ctx):
        """Move the parameter (and its gradient) to other contexts."""
        if ctx is None:
            ctx = [current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data:
            data = self._reduce()
            with _autograd().pause():
                self._init_impl(data, ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise ValueError(f"Cannot reset context for Parameter '{self.name}' because it has "
                             f"not been initialized.")

    def set_data(self, data):
        """Set the value on every context."""
        self.shape = data.shape
        if self._data is None:
            assert self._deferred_init, f"Parameter '{self.name}' has not been initialized"
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        # a store that updates the weights holds them too: it starts again from these values
        trainer = self._trainer
        if trainer and trainer._kv_initialized and trainer._update_on_kvstore:
            if self not in trainer._params_to_init:
                trainer._reset_kvstore()
        for arr in self._check_and_get(self._data, list):
            arr[:] = data

    def _row_sparse(self, row_id, ctx, what):
        if self._stype != "row_sparse":
            raise RuntimeError(f"Cannot return a copy of Parameter {self.name} via {what}() "
                               f"because its storage type is {self._stype}. Please use data() "
                               f"instead.")
        if not self._trainer:
            raise RuntimeError(f"Cannot get row_sparse data for Parameter '{self.name}' when "
                               f"no Trainer is created with it.")
        results = self._check_and_get(self._data, ctx)
        self._trainer._row_sparse_pull(self, results, row_id)
        return results

    def row_sparse_data(self, row_id):
        """The rows ``row_id`` of a row_sparse parameter, on ``row_id``'s context (through
        its Trainer's store)."""
        return self._row_sparse(row_id, row_id.context, "row_sparse_data")

    def list_row_sparse_data(self, row_id):
        """The rows ``row_id`` of a row_sparse parameter on every context."""
        return self._row_sparse(row_id, list, "list_row_sparse_data")

    def _dense_only(self, what, ctx):
        if self._stype != "default":
            raise RuntimeError(f"Cannot return a copy of Parameter '{self.name}' on ctx {ctx} "
                               f"via {what}() because its storage type is {self._stype}. "
                               f"Please use row_sparse_data() instead.")

    def data(self, ctx=None):
        """The value on ``ctx`` (the only context when there is one)."""
        self._dense_only("data", ctx)
        d = self._data
        if d is not None and ctx is None and len(d) == 1:
            return d[0]
        return self._check_and_get(d, ctx)

    def list_data(self):
        self._dense_only("list_data", list)
        return self._check_and_get(self._data, list)

    def grad(self, ctx=None):
        if self._data is not None and self._grad is None:
            raise RuntimeError(f"Cannot get gradient array for Parameter '{self.name}' because "
                               f"grad_req='null'")
        return self._check_and_get(self._grad, ctx)

    def list_grad(self):
        if self._data is not None and self._grad is None:
            raise RuntimeError(f"Cannot get gradient array for Parameter '{self.name}' because "
                               f"grad_req='null'")
        return self._check_and_get(self._grad, list)

    def list_ctx(self):
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise RuntimeError(f"Parameter '{self.name}' has not been initialized")
        return self._ctx_list

    def zero_grad(self):
        """Set the gradient buffers to 0 (needed with grad_req='add')."""
        if self._grad is None:
            return
        for g in self._grad:
            fresh = self._fresh_grad(g)
            g._write(_transfer.zeros(g.shape, g._val().dtype, g.context.jax_device()))
            if not fresh:
                self._mark_stale(g)

    def var(self):
        """The symbol variable of this parameter (cached)."""
        if self._var is None:
            from ... import symbol
            self._var = symbol.var(self.name, shape=self.shape, dtype=self.dtype,
                                   lr_mult=self.lr_mult, wd_mult=self.wd_mult,
                                   init=_init_attr(self.init), stype=self._stype)
        return self._var

    def cast(self, dtype):
        """Cast data and gradient to ``dtype``."""
        self._dtype = dtype
        self._var = None
        if self._data is None:
            return
        with _autograd().pause():
            self._data = [d.astype(dtype) for d in self._data]
            if self._grad is None:
                return
            self._grad = [g.astype(dtype) for g in self._grad]
            _autograd().mark_variables(self._data, self._grad, self.grad_req)
            for g in self._grad:
                self._mark_stale(g)

    # ---- Trainer support: was the gradient written by backward since the last step? ------
    def _fresh_grad(self, g):
        old = self._stale.get(id(g))
        return old is None or old() is not _buffer_of(g, read=False)

    def _mark_stale(self, g):
        import weakref
        try:
            self._stale[id(g)] = weakref.ref(_buffer_of(g, read=True))
        except TypeError:  # pragma: no cover
            self._stale.pop(id(g), None)


def _buffer_of(g, read):
    """What a write replaces: a dense array's buffer, a sparse array's stored values."""
    if g.stype != "default":
        return g._comp["data"]
    return g._val() if read else g._data


def _init_attr(init):
    if init is None or isinstance(init, str):
        return init
    dumps = getattr(init, "dumps", None)
    return dumps() if callable(dumps) else str(init)


def _np_faces(arrays):
    """In numpy mode (npx.set_np()) a parameter's data and gradients are mx.np.ndarrays, as in
    MXNet 1.9.1 (the same handles, with the numpy face)."""
    from ..util import is_np_array
    if is_np_array():
        from ..numpy.multiarray import ndarray
        for a in arrays:
            a.__class__ = ndarray
    return arrays


def _fresh_handle(d):
    return _wrap(d._val(), d.context)


def _copy_to(data, ctx, dtype):
    """A new root NDArray holding a private copy of ``data``'s value on ``ctx`` (never the
    same buffer: the Trainer donates parameter buffers)."""
    import jax
    v = data._val()
    if dtype is not None and v.dtype != np.dtype(dtype):
        v = v.astype(np.dtype(dtype))
    dev = ctx.jax_device()
    if v.devices() == {dev}:
        v = copy_buffer(v, dev)       # a copy without a compiled kernel per shape
    # committed to the context's device: every parameter array then has the same placement,
    # so compiled graphs are not specialised again when a parameter is later set_data'd
    return _wrap(jax.device_put(v, dev), ctx)


class Constant(Parameter):
    """A parameter that is never updated (grad_req 'null'), initialized to ``value``."""

    def __init__(self, name, value):
        if not isinstance(value, NDArray):
            value = _nd().array(value)
        self.value = value
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype,
                         init=f"constant_{id(self)}")
        self._const_value = value

    def __repr__(self):
        return f"Constant {self.name} (shape={self.shape}, dtype={self.dtype})"

    @property
    def grad_req(self):
        return "null"

    @grad_req.setter
    def grad_req(self, req):
        if req != "null":
            warnings.warn(f"Constant parameter \"{self.name}\" does not support grad_req other "
                          f"than \"null\", and new value \"{req}\" is ignored.")
        self._grad_req = "null"


class ParameterDict:
    """A dictionary of Parameters sharing a name prefix (a Block's ``params``)."""

    def __init__(self, prefix="", shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        name = self._prefix + " " if self._prefix else ""
        content = "\n".join(_indent(f"  {v}", 2) for v in self.values())
        return f"{name}(\n{content}\n)"

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self):
        return self._prefix

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._shared._params[name]
        return None

    def get(self, name, **kwargs):
        """The Parameter ``prefix + name``, created with ``kwargs`` if it does not exist."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for k, v in kwargs.items():
            if hasattr(param, k) and getattr(param, k) is not None:
                existing = getattr(param, k)
                if k == "shape" and v is not None and len(v) == len(existing):
                    inferred, matched = [], True
                    for d1, d2 in zip(v, existing):
                        if d1 != d2 and d1 > 0 and d2 > 0:
                            matched = False
                            break
                        inferred.append(d1 if d1 == d2 or d1 not in (0, -1) else d2)
                    if matched:
                        param._shape = tuple(inferred)
                        continue
                elif k == "dtype" and v is not None and np.dtype(v) == np.dtype(existing):
                    continue
                assert v is None or v == existing, (
                    f"Cannot retrieve Parameter '{name}' because desired attribute does not match "
                    f"with stored for attribute '{k}': desired '{v}' vs stored "
                    f"'{getattr(param, k)}'.")
            else:
                setattr(param, k, v)
        return param

    def get_constant(self, name, value=None):
        """The Constant ``prefix + name`` (created from ``value`` if it does not exist)."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError(f"No constant named '{name}'. Please specify value if you want "
                               f"to create a new constant.")
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            assert isinstance(param, Constant), \
                f"Parameter '{name}' already exists but it is not a constant."
            if isinstance(value, NDArray):
                value = value.asnumpy()
            assert param.shape == np.shape(value) and \
                (param.value.asnumpy() == value).all(), \
                f"Constant '{name}' already exists but it's value doesn't match new value"
        return param

    def update(self, other):
        """Add the Parameters of ``other`` (same name must mean the same Parameter)."""
        for k, v in other.items():
            if k in self._params:
                assert self._params[k] is v, (
                    f"Cannot update self with other because they have different Parameters with "
                    f"the same name '{k}'")
        for k, v in other.items():
            self._params[k] = v

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False):
        """Initialize every Parameter (``init`` defaults to ``Uniform(0.07)``)."""
        if init is None:
            init = _default_init()
        if verbose and hasattr(init, "set_verbosity"):
            init.set_verbosity(verbose=verbose)
        for v in self.values():
            v.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        for v in self.values():
            v.zero_grad()

    def reset_ctx(self, ctx):
        for v in self.values():
            v.reset_ctx(ctx)

    def list_ctx(self):
        s = set()
        for v in self.values():
            s.update(v.list_ctx())
        return list(s)

    def setattr(self, name, value):
        """Set an attribute (``grad_req``, ``lr_mult``...) on every Parameter."""
        for v in self.values():
            setattr(v, name, value)

    def save(self, filename, strip_prefix=""):
        """Write every Parameter (full names, ``strip_prefix`` removed) to an MXNet file."""
        arg_dict = {}
        for param in self.values():
            weight = param._reduce()
            if not param.name.startswith(strip_prefix):
                raise ValueError(
                    f"Prefix '{strip_prefix}' is to be striped before saving, but Parameter's "
                    f"name '{param.name}' does not start with '{strip_prefix}'. this may be due "
                    f"to your Block shares parameters from other Blocks or you forgot to use "
                    f"'with name_scope()' when creating child blocks. For more info on naming, "
                    f"please see https://mxnet.io/api/python/docs/tutorials/packages/gluon/"
                    f"blocks/naming.html")
            arg_dict[param.name[len(strip_prefix):]] = weight
        _nd().save(filename, arg_dict)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
             restore_prefix="", cast_dtype=False, dtype_source="current"):
        """Load from an MXNet file of full names (``arg:``/``aux:`` prefixes are stripped,
        ``restore_prefix`` is prepended)."""
        if restore_prefix:
            for name in self.keys():
                assert name.startswith(restore_prefix), (
                    f"restore_prefix is '{restore_prefix}' but Parameters name '{name}' does not "
                    f"start with '{restore_prefix}'")
        loaded = _load_named(filename, "load")
        self.load_dict(loaded, ctx, allow_missing, ignore_extra, restore_prefix, filename,
                       cast_dtype, dtype_source)

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False,
                  restore_prefix="", filename=None, cast_dtype=False, dtype_source="current"):
        """Load from a dict of name -> NDArray (see ``load``)."""
        lprefix = len(restore_prefix)
        param_dict = {restore_prefix + (k[4:] if k.startswith(("arg:", "aux:")) else k): v
                      for k, v in param_dict.items()}
        where = f"file '{filename}'" if filename else "'param_dict'"
        if not allow_missing:
            for name in self.keys():
                assert name in param_dict, (
                    f"Parameter '{name[lprefix:]}' is missing in {where}, which contains "
                    f"parameters: {_brief_print_list(param_dict.keys())}. Please make sure source "
                    f"and target networks have the same prefix.For more info on naming, please "
                    f"see https://mxnet.io/api/python/docs/tutorials/packages/gluon/blocks/"
                    f"naming.html")
        for name, value in param_dict.items():
            if name not in self._params:
                assert ignore_extra, (
                    f"Parameter '{name[lprefix:]}' loaded from {where} is not present in "
                    f"ParameterDict, choices are: {_brief_print_list(self._params.keys())}. Set "
                    f"ignore_extra to True to ignore. Please make sure source and target "
                    f"networks have the same prefix.For more info on naming, please see "
                    f"https://mxnet.io/api/python/docs/tutorials/packages/gluon/blocks/"
                    f"naming.html")
                continue
            self[name]._load_init(value, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)
