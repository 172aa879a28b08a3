"""The generated symbol functions (MXNet's ``mxnet/symbol/register.py``): one factory
that turns a registry operator into ``mx.sym.<Op>(*inputs, name=, attr=, **attributes)``,
used for ``mx.sym``, ``mx.sym.contrib``, ``mx.sym.image``, ``mx.sym.random`` and the
fluent Symbol methods alike."""
from ..op_function import signature
from .symbol import Symbol, _create


def _symbol_function(op, pyname):
    """MXNet's generated symbol function: Symbols positional or by input name, attributes by
    keyword, ``name=`` and ``attr=``; auto-named ``<pyname lower-cased><k>``."""
    def fn(*args, name=None, attr=None, out=None, **kwargs):
        if not op.inputs and "ctx" not in op.params:
            kwargs.pop("ctx", None)  # MXNet's creation ops take ctx=; a Symbol is placed at bind
        inputs = {}
        for slot in op.inputs:
            if slot in kwargs and isinstance(kwargs[slot], (Symbol, list, tuple)):
                inputs[slot] = kwargs.pop(slot)
        if op.variadic and len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = tuple(args[0])
        if op.variadic:  # leading Symbols are inputs, positional values after them attributes
            n_sym = 0
            while n_sym < len(args) and isinstance(args[n_sym], Symbol):
                n_sym += 1
        else:  # MXNet's signature order: inputs (None for an absent one), then attributes
            n_sym = len(args) if len(args) < len(op.inputs) else len(op.inputs)  # (min is an op here)
        syms, rest = args[:n_sym], args[n_sym:]
        if len(rest) > len(op.params):
            raise TypeError(f"{pyname}: too many positional arguments ({len(args)})")
        for pname, v in zip(op.params, rest):
            if pname in kwargs:
                raise TypeError(f"{pyname}: got multiple values for argument {pname!r}")
            kwargs[pname] = v
        if op.variadic:
            pos = list(syms) + list(inputs.pop(op.inputs[-1], []))
            return _create(op.name, pos, kwargs, name, pyname.lower(), attr)
        if len(syms) > len(op.inputs):
            raise TypeError(f"{pyname}: too many positional inputs ({len(syms)})")
        for slot, a in zip(op.inputs, syms):
            if a is None:
                continue
            if slot in inputs:
                raise TypeError(f"{pyname}: got multiple values for input {slot!r}")
            inputs[slot] = a
        return _create(op.name, inputs, kwargs, name, pyname.lower(), attr)
    fn.__name__ = pyname
    fn.__doc__ = op.doc
    fn.__signature__ = signature(op, ("name", "attr", "out"))  # (out: accepted and unused, as on MXNet)
    fn._xnd_op = op  # which operator it runs (mx.sym.gen_* bind the same function)
    return fn


def _late_names(contrib):
    """The names MXNet's module holds beyond the generator (bound once mx.sym and its
    `contrib` exist)."""
    import sys
    from ..attribute import AttrScope
    from ..base import check_call, py_str
    from ..name import NameManager
    g = sys.modules[__name__].__dict__
    g.update(AttrScope=AttrScope, NameManager=NameManager, SymbolBase=Symbol,
             check_call=check_call, py_str=py_str)
    for n in ("adamw_update", "mp_adamw_update"):
        if hasattr(contrib, n):
            g[n] = getattr(contrib, n)
