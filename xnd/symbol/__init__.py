"""mx.sym / mx.symbol: Symbol, Variable, Group, load/load_json, and every registry
operator as a symbol function (``mx.sym.FullyConnected(data=x, num_hidden=10, name='fc1')``)."""
import sys
import types

from ..lowering import registry
from .executor import Executor  # noqa: F401
from .json_io import load, load_json  # noqa: F401
from .symbol import Group, Symbol, Variable, _create, var  # noqa: F401


def _symbol_function(op, pyname):
    """MXNet's generated symbol function: Symbols positional or by input name, attributes by
    keyword, ``name=`` and ``attr=``; auto-named ``<pyname lower-cased><k>``."""
    def fn(*args, name=None, attr=None, **kwargs):
        inputs = {}
        for slot in op.inputs:
            if slot in kwargs and isinstance(kwargs[slot], (Symbol, list, tuple)):
                inputs[slot] = kwargs.pop(slot)
        if op.variadic:
            pos = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
            pos += list(inputs.pop(op.inputs[-1], []))
            return _create(op.name, pos, kwargs, name, pyname.lower(), attr)
        for slot, a in zip(op.inputs, args):
            if slot in inputs:
                raise TypeError(f"{pyname}: got multiple values for input {slot!r}")
            inputs[slot] = a
        if len(args) > len(op.inputs):
            raise TypeError(f"{pyname}: too many positional inputs ({len(args)})")
        return _create(op.name, inputs, kwargs, name, pyname.lower(), attr)
    fn.__name__ = pyname
    fn.__doc__ = op.doc
    return fn


_internal = types.ModuleType(__name__ + "._internal")
contrib = types.ModuleType(__name__ + ".contrib")
random = types.ModuleType(__name__ + ".random")
linalg = types.ModuleType(__name__ + ".linalg")


def _install():
    mod = sys.modules[__name__]
    for name, op in registry.all_ops().items():
        f = _symbol_function(op, name)
        if name.startswith("_contrib_"):
            setattr(contrib, name[9:], _symbol_function(op, name[9:]))
        if name.startswith("_linalg_"):
            setattr(linalg, name[8:], _symbol_function(op, name[8:]))
        if name.startswith("_random_"):
            setattr(random, name[8:], _symbol_function(op, name[8:]))
        if name.startswith("_"):
            setattr(_internal, name, f)
        elif name not in vars(mod) and name.isidentifier():
            setattr(mod, name, f)


_install()
