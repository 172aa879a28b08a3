"""mx.sym / mx.symbol: Symbol, Variable, Group, load/load_json, and every registry
operator as a symbol function (``mx.sym.FullyConnected(data=x, num_hidden=10, name='fc1')``)."""
import sys
import types

import numpy as _np  # not `np`: mx.sym.np is the numpy face (numpy_extension sets it)

from ..base import MXNetError
from ..lowering import registry
from .symbol import Group, Symbol, Variable, _create, load, load_json, var  # noqa: F401
from .register import _symbol_function
from .executor import Executor  # noqa: F401


_internal = types.ModuleType(__name__ + "._internal")
random = types.ModuleType(__name__ + ".random")
linalg = types.ModuleType(__name__ + ".linalg")


def _fluent(name):
    f = _symbol_function(registry.get(name), name)

    def method(self, *args, **kwargs):
        return f(self, *args, **kwargs)
    method.__name__ = name
    return method


def _install_methods():
    """MXNet's fluent Symbol methods (x.sum(axis=1), x.reshape((0, -1)), x.astype(...))."""
    from ..op_function import _FLUENT
    for name in _FLUENT + ["broadcast_to"]:
        setattr(Symbol, name, _fluent(name))
    reshape = _fluent("Reshape")

    def reshape_method(self, *shape, **kwargs):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        if shape:
            kwargs["shape"] = tuple(shape)
        return reshape(self, **kwargs)
    cast = _fluent("Cast")
    transpose = _fluent("transpose")
    Symbol.reshape = reshape_method
    Symbol.astype = lambda self, dtype, **kw: cast(self, dtype=dtype, **kw)
    Symbol.transpose = lambda self, *axes, **kw: transpose(
        self, axes=tuple(axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes),
        **kw) if axes else transpose(self, **kw)
    Symbol.T = property(lambda self: transpose(self))


def _install():
    mod = sys.modules[__name__]
    for name, op in registry.all_ops().items():
        f = _symbol_function(op, name)
        if name.startswith("_linalg_"):
            setattr(linalg, name[8:], _symbol_function(op, name[8:]))
        if name.startswith("_random_"):
            setattr(random, name[8:], _symbol_function(op, name[8:]))
        if name.startswith("_"):
            setattr(_internal, name, f)
        elif name not in vars(mod) and name.isidentifier():
            setattr(mod, name, f)
    for name, opname in (("multinomial", "_sample_multinomial"), ("shuffle", "_shuffle")):
        setattr(random, name, _symbol_function(registry.get(opname), name))
    for name, params in _DISTRIBUTIONS.items():
        setattr(random, name, _sampler(name, params))
    random.randn = _randn
    from ..base import numeric_types
    random.Symbol, random.numeric_types = Symbol, numeric_types  # (MXNet's module imports them)


# mx.sym.random's distributions: (parameter, default); exponential takes scale = 1 / lam
_DISTRIBUTIONS = {
    "uniform": (("low", 0), ("high", 1)), "normal": (("loc", 0), ("scale", 1)),
    "gamma": (("alpha", 1), ("beta", 1)), "exponential": (("scale", 1),),
    "poisson": (("lam", 1),), "negative_binomial": (("k", 1), ("p", 1)),
    "generalized_negative_binomial": (("mu", 1), ("alpha", 1)),
}


def _sampler(name, params):
    """mx.sym.random.<name>: ``_random_<name>`` for number parameters, ``_sample_<name>``
    (one draw per parameter element) when they are Symbols, as MXNet's helper chooses."""
    names = [p for p, _ in params]
    scalar_op, array_op = registry.get("_random_" + name), registry.get("_sample_" + name)

    def fn(*args, shape=None, dtype=None, name=None, attr=None, **kwargs):
        rest = args[len(params):]  # MXNet's positional order: parameters, shape, dtype
        if rest:
            shape = rest[0]
            dtype = rest[1] if len(rest) > 1 else dtype
        values = [kwargs.pop(p, d) for p, d in params[len(args):]]
        values = list(args[:len(params)]) + values
        if names == ["scale"]:                    # exponential: MXNet's rate parameter
            values, keys = [1.0 / values[0]], ["lam"]
        else:
            keys = names
        kwargs.pop("ctx", None)  # accepted as MXNet does: a Symbol is placed at bind
        given = {k: v for k, v in (("shape", shape), ("dtype", dtype)) if v is not None}
        syms = [isinstance(v, Symbol) for v in values]
        if any(syms):
            if not all(syms):
                raise MXNetError(f"{array_op.name}: parameters must be all Symbols or all numbers")
            return _create(array_op.name, values, {**given, **kwargs}, name,
                           array_op.name.lower(), attr)
        return _create(scalar_op.name, [], {**given, **dict(zip(keys, values)), **kwargs}, name,
                       scalar_op.name.lower(), attr)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"mx.sym.random.{name} (MXNet's signature: numbers or Symbols as parameters)."
    return fn


def _randn(*shape, loc=0, scale=1, dtype=None, **kwargs):
    """mx.sym.random.randn(*shape): normal draws of that shape (MXNet stores ``shape=()``
    when none is given: a shape its consumers then infer)."""
    return random.normal(loc, scale, shape=shape, dtype=dtype, **kwargs)


def _scalar_binary(name, op, sop, rsop, hint, scalar_fn):
    """MXNet's symbol.maximum/minimum/pow/power/hypot: the elementwise op for two Symbols
    (no broadcasting), its scalar forms for a Symbol and a number, a number for two
    numbers; nodes named after MXNet's CamelCase aliases (_maximum0, _maximumscalar0)."""
    def fn(left, right):
        if isinstance(left, Symbol) and isinstance(right, Symbol):
            return _create(op, [left, right], {}, None, hint)
        if isinstance(left, Symbol) and isinstance(right, _Number):
            return _create(sop, [left], {"scalar": right}, None, hint + "scalar")
        if isinstance(right, Symbol) and isinstance(left, _Number):
            return _create(rsop, [right], {"scalar": left}, None,
                           ("_r" + hint[1:] if rsop.startswith("_r") else hint) + "scalar")
        if isinstance(left, _Number) and isinstance(right, _Number):
            return scalar_fn(left, right)
        raise TypeError(f"types ({type(left)}, {type(right)}) not supported")
    fn.__name__ = name
    return fn


_Number = (int, float, _np.number)
maximum = _scalar_binary("maximum", "_maximum", "_maximum_scalar", "_maximum_scalar",
                         "_maximum", lambda a, b: a if a > b else b)
minimum = _scalar_binary("minimum", "_minimum", "_minimum_scalar", "_minimum_scalar",
                         "_minimum", lambda a, b: a if a < b else b)
pow = power = _scalar_binary("power", "_power", "_power_scalar", "_rpower_scalar", "_power",
                             lambda a, b: a ** b)
hypot = _scalar_binary("hypot", "_hypot", "_hypot_scalar", "_hypot_scalar", "_hypot",
                       lambda a, b: float(_np.hypot(a, b)))



def full(shape, val, dtype=None, **kwargs):
    """MXNet's symbol.full: a ``_full`` node of ``shape`` filled with ``val`` (float32 unless
    ``dtype``)."""
    name = kwargs.pop("name", None)
    return _create("_full", [], dict(kwargs, shape=shape, value=float(val),
                                     dtype=dtype or "float32"), name, "_full")


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """MXNet's symbol.split_v2: a ``_split_v2`` node, into ``sections`` equal parts (an int)
    or at the given indices (a tuple; stored with MXNet's leading 0)."""
    if isinstance(indices_or_sections, int):
        attrs = {"sections": indices_or_sections, "indices": ()}
    elif isinstance(indices_or_sections, tuple):
        attrs = {"sections": 0, "indices": (0,) + indices_or_sections}
    else:
        raise ValueError("indices_or_sections must either int or tuple of ints")
    return _create("_split_v2", [ary], dict(attrs, axis=axis, squeeze_axis=squeeze_axis),
                   None, "_split_v2")


def histogram(a, bins=10, range=None, **kwargs):
    """MXNet's symbol.histogram: a ``_histogram`` node over the edges ``bins`` (a Symbol) or
    ``bins`` uniform bins over ``range`` (required in symbol mode)."""
    if isinstance(bins, Symbol):
        return _create("_histogram", [a, bins], kwargs, kwargs.pop("name", None), "_histogram")
    if isinstance(bins, int):
        if range is None:
            raise ValueError("null range is not supported in symbol mode")
        return _create("_histogram", [a], dict(kwargs, bin_cnt=bins, range=range),
                       kwargs.pop("name", None), "_histogram")
    raise ValueError("bins argument should be either an integer or an NDArray")


_install()
_install_methods()

from . import contrib  # noqa: E402,F401  (mx.sym.contrib: the _contrib_* operators)
from . import image  # noqa: E402,F401  (mx.sym.image: the _image_* operators)
from . import sparse  # noqa: E402,F401  (mx.sym.sparse: dense operators under MXNet's names)
from . import from_tape as _from_tape  # noqa: E402
for _m in (_internal, random, linalg):  # importable by name: `import mxnet.symbol.random`
    sys.modules.setdefault(_m.__name__, _m)
# MXNet's generated operator modules: aliases of the functions above (xnd/lowering/op_groups.py)
from . import op, gen_op, gen__internal, gen_contrib  # noqa: E402,F401
from . import gen_linalg, gen_image, gen_random, gen_sparse  # noqa: E402,F401
from . import register as _register  # noqa: E402
_register._late_names(contrib)


def _share_with_class_module():
    """MXNet defines mx.sym's Python-level functions (zeros, full, maximum, hypot, ...) in
    symbol/symbol.py, the Symbol class's module: here they are that module's names too,
    with the helpers MXNet's module imports."""
    from .. import base, context, semantics
    from ..attribute import AttrScope
    from ..ndarray import NDArray
    from . import symbol as _module
    names = {n: v for n, v in globals().items() if not n.startswith("_") and callable(v)
             and getattr(v, "__module__", None) == __name__}
    names.update({n: globals()[n] for n in ("zeros", "ones", "arange", "eye", "linspace")
                  if n in globals()})                # (creation: MXNet's are Python there too)
    names.update(op=op, SymbolBase=Symbol, AttrScope=AttrScope, Executor=Executor,
                 NDArray=NDArray, Context=context.Context,
                 current_context=context.current_context, is_np_shape=semantics.is_np_shape,
                 **{n: getattr(base, n) for n in (
                     "c_array", "c_array_buf", "c_handle_array", "c_str", "c_str_array",
                     "check_call", "py_str", "string_types", "integer_types",
                     "numeric_types")})
    for n, v in names.items():
        if not hasattr(_module, n):
            setattr(_module, n, v)


_share_with_class_module()

_from_tape.install()  # autograd.get_symbol
