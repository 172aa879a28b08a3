"""The symbolic numpy face (MXNet's ``mx.sym.np`` / ``mx.sym.npx``), for hybridized blocks.

In numpy mode a HybridBlock traces ``hybrid_forward(F, ...)`` with ``F = mx.sym`` and
inputs that are numpy-faced Symbols (`_Symbol`): their operators broadcast like numpy
(the ``_npi_*`` registry operators, as the eager face), and ``F.np.<fn>`` / ``F.npx.<op>``
build the same operators' graph nodes, so the compiled graph and the exported JSON hold
exactly the operators the eager code runs.
"""
import numbers
import types

import numpy as onp

from ...lowering import numpy as _lnp
from ...lowering import numpy_random as _lnr
from ...lowering import registry as _registry
from ...ndarray import NDArray
from ...symbol.symbol import Symbol, _create


class _Symbol(Symbol):
    """A Symbol with numpy semantics (mx.sym.np._Symbol)."""

    __slots__ = ()
    _np_face = True

    def as_nd_ndarray(self):
        return Symbol(self._outputs)

    def as_np_ndarray(self):
        return self

    def __iter__(self):
        return (_face(Symbol([o])) for o in self._outputs)

    def __getitem__(self, key):
        if isinstance(key, (str, slice)) and len(self._outputs) > 1 or isinstance(
                key, numbers.Integral) and len(self._outputs) > 1:
            return _face(Symbol.__getitem__(self, key))
        k = key if isinstance(key, tuple) else (key,)
        frozen = []
        for e in k:
            if isinstance(e, slice):
                frozen.append(("s", e.start, e.stop, e.step))
            elif e is Ellipsis:
                frozen.append("...")
            elif e is None or isinstance(e, numbers.Integral):
                frozen.append(None if e is None else int(e))
            else:
                raise TypeError(f"symbolic numpy indexing supports ints, slices, None and "
                                f"Ellipsis, got {type(e).__name__}")
        return _F["getitem"](self, index=tuple(frozen))

    def reshape(self, *shape, order="C", **kwargs):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = kwargs.pop("newshape", kwargs.pop("shape", shape))
        return _F["reshape"](self, tuple(shape))

    def astype(self, dtype, **kwargs):
        return _F["astype"](self, dtype=onp.dtype(dtype if dtype is not None else "float32"))

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return _F["transpose"](self, tuple(axes) if axes else None)

    @property
    def T(self):
        return self.transpose()

    def __matmul__(self, other):
        return _F["matmul"](self, other)


def _face(s):
    if isinstance(s, Symbol) and type(s) is Symbol:
        s.__class__ = _Symbol
    elif isinstance(s, (list, tuple)):
        for v in s:
            _face(v)
    return s


def sym_func(name, opname=None):
    """``F.np.<name>`` for Symbols: a node of registry operator ``_npi_<name>``."""
    # functions of several results return a Python list of Symbols, as MXNet's mx.sym.np does
    opname, listed, fname = opname or "_npi_" + name, name in _lnp.LISTS, name

    def fn(*args, out=None, ctx=None, device=None, name=None, **kwargs):
        inputs = []

        def enc(v):
            if isinstance(v, Symbol):
                inputs.append(v)
                return ("a", len(inputs) - 1)
            if isinstance(v, (list, tuple)) and any(isinstance(e, Symbol) for e in v):
                return ("l", tuple(enc(e) for e in v))
            return ("v", _lnp.freeze_value(v))
        args, kwargs = _lnp.static_arrays(fname, args, kwargs, NDArray, symbolic=True)
        pos = tuple(enc(a) for a in args)
        kw = tuple((k, enc(v)) for k, v in kwargs.items())
        out = _face(_create(opname, inputs, {"call": (pos, kw)}, name, opname))
        if fname in _lnp.STACKED:  # one array of the results stacked, as MXNet's graphs give
            return _F["stack"](list(out), axis=0)
        return list(out) if listed or len(out._outputs) > 1 else out
    fn.__name__ = fn.__qualname__ = name
    return fn


_F = {n: sym_func(n) for n in _lnp.NP_FUNCS}
# functions whose result shape depends on the values: nodes that make a hybridized block run
# imperatively (lowering/numpy.py's _host_node)
_F.update({n: sym_func(n) for n in _lnp.HOST_FUNCS if n != "histogram"})
_RAW = dict(_F)


def _f32(dtype):
    return "float32" if dtype is None else dtype


# creation functions: MXNet's float32 default and signatures (ctx= is ignored in a graph)
_F.update({
    "zeros": lambda shape, dtype=None, order="C", ctx=None: _RAW["zeros"](
        shape, dtype=_f32(dtype)),
    "ones": lambda shape, dtype=None, order="C", ctx=None: _RAW["ones"](
        shape, dtype=_f32(dtype)),
    "full": lambda shape, fill_value, dtype=None, order="C", ctx=None, out=None: _RAW["full"](
        shape, fill_value, dtype=_f32(dtype)),
    "arange": lambda start, stop=None, step=1, dtype=None, ctx=None: _RAW["arange"](
        start, stop, step, dtype=_f32(dtype)),
    "eye": lambda N, M=None, k=0, dtype=None, ctx=None, **kw: _RAW["eye"](
        N, M, k, dtype=_f32(dtype)),
    "identity": lambda n, dtype=None, ctx=None: _RAW["identity"](n, dtype=_f32(dtype)),
    "linspace": lambda start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0,
    ctx=None: _RAW["linspace"](start, stop, num, endpoint, dtype=_f32(dtype), axis=axis),
})


def _binop(name, reflected=False):
    def op(self, other):
        if not isinstance(other, (Symbol, numbers.Number, onp.number, onp.bool_)):
            return NotImplemented
        return _F[name](other, self) if reflected else _F[name](self, other)
    return op


for _d, _name in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                  ("truediv", "true_divide"), ("mod", "mod"), ("pow", "power")):
    setattr(_Symbol, f"__{_d}__", _binop(_name))
    setattr(_Symbol, f"__r{_d}__", _binop(_name, True))
for _d, _name in (("eq", "equal"), ("ne", "not_equal"), ("gt", "greater"),
                  ("ge", "greater_equal"), ("lt", "less"), ("le", "less_equal")):
    setattr(_Symbol, f"__{_d}__", _binop(_name))
for _d, _name in (("neg", "negative"), ("abs", "absolute")):
    setattr(_Symbol, f"__{_d}__", (lambda n: lambda self: _F[n](self))(_name))
_Symbol.__hash__ = Symbol.__hash__

_METHODS = ("sum prod max min mean std var argmax argmin argsort sort cumsum clip round "
            "squeeze swapaxes repeat tile all any dot diagonal trace take ravel abs sign "
            "sqrt square exp log sin cos tan tanh floor ceil trunc rint expand_dims flip").split()
for _n in _METHODS:
    setattr(_Symbol, _n, (lambda f: lambda self, *a, **k: f(self, *a, **k))(_F[_n]))
_Symbol.flatten = lambda self, order="C": _F["reshape"](self, (-1,))


def _namespace(modname, funcs):
    mod = types.ModuleType(modname)
    mod.__dict__.update(funcs)
    mod._Symbol = _Symbol
    return mod


np = _namespace("mxnet.symbol.numpy", dict(_F))
np.linalg = _namespace("mxnet.symbol.numpy.linalg", {
    n[len("linalg_"):]: f for n, f in _F.items() if n.startswith("linalg_")})
np.random = _namespace("mxnet.symbol.numpy.random", {
    n: sym_func(n, "_npi_random_" + n) for n in _lnr.SAMPLERS})


def _sym_bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None):
    from ..numpy_extension.random import check_bernoulli
    size = check_bernoulli(prob, logit, size)
    return _npx_random["_bernoulli"](prob=prob, logit=logit, size=size, dtype=dtype)


_npx_random = {"_bernoulli": sym_func("bernoulli", "_npi_random_bernoulli"),
               "normal_n": sym_func("normal_n", "_npi_random_normal_n"),
               "uniform_n": sym_func("uniform_n", "_npi_random_uniform_n"),
               "bernoulli": _sym_bernoulli}


def _npx_op(opname, rename):
    from ... import symbol as _sym

    def fn(*args, **kwargs):
        for k in [k for k in kwargs if k in rename]:
            kwargs[rename[k]] = kwargs.pop(k)
        args = [a.as_nd_ndarray() if isinstance(a, _Symbol) else a for a in args]
        kwargs = {k: v.as_nd_ndarray() if isinstance(v, _Symbol) else v for k, v in kwargs.items()}
        # (an operator whose name starts with '_' is in mx.sym._internal, as MXNet puts it)
        op = getattr(_sym._internal if opname.startswith("_") else _sym, opname)
        return _face(op(*args, **kwargs))
    return fn


def npx_namespace(table):
    funcs = {n: _npx_op(op, rn) for n, (op, rn, _) in table.items()}
    funcs["reshape"] = lambda a, newshape, reverse=False, order="C": _F["npx_reshape"](
        a, tuple(newshape), bool(reverse))
    funcs["masked_softmax"] = lambda data, mask, axis=-1, temperature=1.0, normalize=True: \
        _F["masked_softmax"](data, mask, axis=axis, temperature=temperature)
    funcs["constraint_check"] = _F["constraint_check"]
    funcs["nonzero"] = _F["argwhere"]  # npx.nonzero: (N, ndim) indices, as np.argwhere
    mod = _namespace("mxnet.symbol.numpy_extension", funcs)
    mod.random = _namespace("mxnet.symbol.numpy_extension.random", _npx_random)
    mod.image = _namespace("mxnet.symbol.numpy_extension.image", {   # the _image_* operators
        n[len("_image_"):]: _npx_op(n, {}) for n in _registry.all_ops() if n.startswith("_image_")})
    return mod


def _as_np(self):
    return _Symbol(self._outputs)


# the hooks of the core Symbol class: Symbol.as_np_ndarray / as_nd_ndarray
Symbol.as_np_ndarray = _as_np
Symbol.as_nd_ndarray = lambda self: self
