"""mx.operator: operators written in Python (CustomOp / CustomOpProp / register).

MXNet 1.9.1 behaviour matched: ``register(name)`` records a CustomOpProp subclass;
``nd.Custom``/``sym.Custom``/``F.Custom(*inputs, op_type=name, **kwargs)`` build the prop with
the keywords as strings, take its ``list_arguments`` then ``list_auxiliary_states`` as inputs
and its ``list_outputs`` as outputs; shapes and dtypes come from ``infer_shape`` (2 or 3
lists, the counts checked) and ``infer_type``; ``create_operator(ctx, shapes, dtype codes)``
gives the CustomOp whose ``forward(is_train, req, in_data, out_data, aux)`` and
``backward(req, out_grad, in_data, out_data, in_grad, aux)`` fill NDArrays (``assign``
honours 'null'/'write'/'inplace'/'add'). One operator instance serves a given prop and input
signature, so state kept on ``self`` in forward is there in backward; aux arrays written in
forward are the ones backward sees.

The JAX side (host callback inside compiled graphs, custom gradient) is
``xnd.lowering.custom``; this module is the Python host it calls.
"""
import collections
import ctypes
import itertools
import threading
import traceback
import warnings
from array import array

import numpy as np

from .. import engine as _engine
from .. import base as _base
from .. import context as _context
from .. import symbol as _symbol
from ..ndarray import NDArray as _NDArray
from ..base import MXNetError
from ..context import current_context
from ..lowering import custom as _custom
from ..serialization import DTYPE_CODES
# names MXNet's module holds by importing them (its users import them from here)
from .util import is_np_array  # noqa: E402,F401

__all__ = ["CustomOp", "CustomOpProp", "register", "get_all_registered_operators",
           "get_operator_arguments", "OperatorArguments",
           "PythonOp", "NumpyOp", "NDArrayOp"]
# MXNet's operator.py has no __all__, so `from mxnet.operator import *` also gives the names
# it imports; MXNet's tests use them (test_operator's monitor callback calls ctypes.cast)
_STAR_IMPORTED = {
    "traceback": traceback, "warnings": warnings, "collections": collections, "array": array,
    "Lock": threading.Lock, "ctypes": ctypes, **{n: getattr(ctypes, n) for n in (
        "CFUNCTYPE", "POINTER", "Structure", "pointer", "c_void_p", "c_int", "c_char",
        "c_char_p", "cast", "c_bool")},
    **{n: getattr(_base, n) for n in (
        "check_call", "c_array", "c_array_buf", "mx_int", "OpHandle", "c_str", "mx_uint",
        "mx_float", "ctypes2numpy_shared", "NDArrayHandle", "py_str")},
    "NDArray": _NDArray, "symbol": _symbol, "context": _context}
globals().update(_STAR_IMPORTED)
__all__ += sorted(_STAR_IMPORTED)

_PROPS = {}  # registered name -> CustomOpProp subclass


class CustomOp:
    """Base class of a Python operator's computation."""

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        pass

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        pass

    def assign(self, dst, req, src):
        """dst[:] = src ('write'/'inplace'), dst[:] += src ('add'), nothing for 'null'."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] += src
        else:
            raise MXNetError(f"CustomOp.assign: unknown req {req!r} "
                             f"(expected 'null', 'write', 'inplace' or 'add')")


class CustomOpProp:
    """Base class of a Python operator's declaration (names, shapes, dtypes, operator)."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        return in_type, [in_type[0]] * len(self.list_outputs()), \
            [in_type[0]] * len(self.list_auxiliary_states())

    def infer_storage_type(self, in_stype):
        return in_stype, ["default"] * len(self.list_outputs()), \
            ["default"] * len(self.list_auxiliary_states())

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype,
                                    aux_stype):
        return tuple([["default"] * len(s) for s in
                      (ograd_stype, in_stype, out_stype, igrad_stype, aux_stype)])

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def list_auxiliary_states(self):
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = list(out_grad) if self.need_top_grad_ else []
        return deps + list(in_data) + list(out_data)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return CustomOp()


def register(reg_name):
    """Class decorator: make a CustomOpProp subclass available as ``op_type=reg_name``."""
    def do_register(prop_cls):
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise TypeError(f"mx.operator.register({reg_name!r}) expects a CustomOpProp "
                            f"subclass, got {prop_cls!r}")
        _PROPS[reg_name] = prop_cls
        _HOST.forget(reg_name)
        return prop_cls
    return do_register


OperatorArguments = collections.namedtuple("OperatorArguments", ["narg", "names", "types"])

_TYPE_WORDS = {"Int": "int", "Float": "float", "Bool": "boolean", "Shape": "Shape(tuple)",
               "OptShape": "Shape(tuple)", "IntOrShape": "Shape(tuple)", "Dtype": "dtype"}


def _default_text(v):
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, tuple):
        return "[" + ",".join(map(str, v)) + "]"
    return "'%s'" % v if isinstance(v, str) else str(v)


def _type_text(param):
    """MXNet's dmlc parameter description: ``"int, required"``, ``"{'a', 'b'}, required"``,
    ``"float, optional, default=0.5"``, ``"{'a', 'b'},optional, default='a'"``."""
    from ..lowering.attrs import REQUIRED
    parse = getattr(param.parse, "parse", param.parse)
    options = getattr(parse, "options", None)
    if options is not None:
        kind = "{" + ", ".join("'%s'" % o for o in sorted(options)) + "}"
        sep = ","
    else:
        name = getattr(parse, "__name__", "")
        kind = _TYPE_WORDS.get(name.split("(")[-1].rstrip(")"), "string")
        if getattr(param.parse, "accepts_none", False) and kind != "Shape(tuple)":
            kind += " or None"
        sep = ", "
    if param.default is REQUIRED:
        return kind + ", required"
    return "%s%soptional, default=%s" % (kind, sep, _default_text(param.default))


def get_operator_arguments(op_name):
    """MXNet's (narg, names, types) of an operator: its inputs (``NDArray-or-Symbol``, with
    ``[]`` for a variadic one) then its parameters, described as MXNet's parameter docs write
    them (xnd's wording for a parameter kind can differ from MXNet's, as "long (non-negative)")."""
    from ..lowering import registry
    op = registry.get(op_name)
    names = list(op.inputs) + list(op.params)
    types = ["NDArray-or-Symbol[]" if op.variadic and i == len(op.inputs) - 1
             else "NDArray-or-Symbol" for i in range(len(op.inputs))]
    types += [_type_text(p) for p in op.params.values()]
    return OperatorArguments(len(names), names, types)


def get_all_registered_operators():
    """The names of the registry's operators (MXNet lists its C++ operators here)."""
    from ..lowering import registry
    return sorted(registry.all_ops())


def _lists(op_type, what, ret, counts):
    """infer_shape/infer_type results as (inputs, outputs, aux), counts checked."""
    if not isinstance(ret, (list, tuple)) or len(ret) not in (2, 3):
        raise MXNetError(f"Custom operator {op_type!r}: {what} must return 2 or 3 lists, "
                         f"got {ret!r}")
    ret = list(ret) + [[]] * (3 - len(ret))
    for got, (kind, n) in zip(ret, zip(("input", "output", "aux state"), counts)):
        if len(got) != n:
            raise MXNetError(f"Custom operator {op_type!r}: {what} error: expecting {n} entries "
                             f"in returned {kind} {'shapes' if what == 'infer_shape' else 'types'},"
                             f" got {len(got)}")
    return ret


class _Entry:
    """One prop (op_type + keywords): its names; per input signature an operator instance."""

    def __init__(self, op_type, extra):
        cls = _PROPS.get(op_type)
        if cls is None:
            raise MXNetError(f"Custom operator {op_type!r} is not registered "
                             f"(registered: {', '.join(sorted(_PROPS)) or 'none'})")
        try:
            self.prop = cls(**dict(extra))
        except TypeError as e:
            raise MXNetError(f"Custom operator {op_type!r}: cannot create its CustomOpProp "
                             f"with {dict(extra)}: {e}") from None
        self.op_type = op_type
        self.args = list(self.prop.list_arguments())
        self.outputs = list(self.prop.list_outputs())
        self.aux = list(self.prop.list_auxiliary_states())
        self.counts = (len(self.args), len(self.outputs), len(self.aux))

    def shapes(self, in_shapes):
        ret = self.prop.infer_shape([list(s) for s in in_shapes[:len(self.args)]])
        return _lists(self.op_type, "infer_shape", ret, self.counts)

    def types(self, in_types):
        ret = self.prop.infer_type([np.dtype(t).type for t in in_types[:len(self.args)]])
        return _lists(self.op_type, "infer_type", ret, self.counts)


class _Instance:
    __slots__ = ("entry", "op", "out_shapes", "out_dtypes", "ctx", "aux")

    def __init__(self, entry, op, out_shapes, out_dtypes, ctx):
        self.entry, self.op, self.ctx = entry, op, ctx
        self.out_shapes, self.out_dtypes = out_shapes, out_dtypes
        self.aux = None  # the aux NDArrays of the last forward (backward sees its writes)


class _Host:
    """What xnd.lowering.custom calls: signatures, and forward/backward on numpy arrays."""

    def __init__(self):
        self._entries, self._sigs, self._insts = {}, {}, {}
        self._tokens = itertools.count()
        self._lock = threading.Lock()

    def forget(self, op_type):  # re-registration replaces the prop
        with self._lock:
            for k in [k for k in self._entries if k[0] == op_type]:
                del self._entries[k]
            for k in [k for k in self._sigs if k[0] == op_type]:
                del self._sigs[k]

    def entry(self, op_type, extra):
        key = (op_type, extra)
        e = self._entries.get(key)
        if e is None:
            e = self._entries[key] = _Entry(op_type, extra)
        return e

    def num_outputs(self, op_type, extra):
        return len(self.entry(op_type, extra).outputs)

    def input_names(self, op_type, extra):
        e = self.entry(op_type, extra)
        return e.args + [_custom.AUX] * len(e.aux)

    def need_top_grad(self, op_type, extra):
        return bool(getattr(self.entry(op_type, extra).prop, "need_top_grad_", True))

    def output_names(self, op_type, extra):
        return self.entry(op_type, extra).outputs  # '<node>_<name>', as MXNet names them

    def input_shapes(self, op_type, extra, given):
        """Symbol shape inference: the argument shapes infer_shape fills in (label from data)."""
        e = self.entry(op_type, extra)
        try:
            ins, _, aux = e.shapes([list(s) if s is not None else [] for s in given])
        except MXNetError:
            raise
        except Exception:  # a prop that needs every shape: wait for them
            return list(given)
        full = list(ins) + list(aux)
        return [tuple(full[k]) if g is None and k < len(full) and full[k] else g
                for k, g in enumerate(given)]

    def signature(self, op_type, extra, avals):
        key = (op_type, extra, tuple((tuple(a.shape), np.dtype(a.dtype)) for a in avals))
        sig = self._sigs.get(key)
        if sig is None:
            sig = self._sigs[key] = self._new_signature(op_type, extra, avals)
        return sig

    def _new_signature(self, op_type, extra, avals):
        import jax
        e = self.entry(op_type, extra)
        n_in = e.counts[0] + e.counts[2]
        if len(avals) != n_in:
            raise MXNetError(f"Custom operator {op_type!r} takes {n_in} inputs "
                             f"({', '.join(e.args + e.aux) or 'none'}), got {len(avals)}")
        shapes = [list(a.shape) for a in avals]
        _, out_shapes, _ = e.shapes(shapes)
        _, out_types, _ = e.types([a.dtype for a in avals])
        out_shapes = [tuple(int(d) for d in s) for s in out_shapes]
        out_dtypes = [np.dtype(t) for t in out_types]
        ctx = current_context()
        op = e.prop.create_operator(ctx, shapes, [DTYPE_CODES[np.dtype(a.dtype)] for a in avals])
        token = next(self._tokens)
        self._insts[token] = _Instance(e, op, out_shapes, out_dtypes, ctx)
        out_avals = tuple(jax.ShapeDtypeStruct(s, d) for s, d in zip(out_shapes, out_dtypes))
        return token, out_avals, e.counts[2]

    @staticmethod
    def _arrays(values, ctx):
        from . import ndarray as nd
        return [nd.array(v, ctx=ctx, dtype=v.dtype) for v in values]

    def forward(self, token, is_train, values):
        from . import ndarray as nd
        inst = self._insts[token]
        n_arg = inst.entry.counts[0]
        in_data = self._arrays(values[:n_arg], inst.ctx)
        aux = self._arrays(values[n_arg:], inst.ctx)
        out_data = [nd.zeros(s, ctx=inst.ctx, dtype=d)
                    for s, d in zip(inst.out_shapes, inst.out_dtypes)]
        self._run(inst, "forward", is_train=bool(is_train), req=["write"] * len(out_data),
                  in_data=in_data, out_data=out_data, aux=aux)
        inst.aux = aux
        return [o.asnumpy() for o in out_data]

    def backward(self, token, out_grads, in_values, out_values):
        from . import ndarray as nd
        inst = self._insts[token]
        n_arg = inst.entry.counts[0]
        in_data = self._arrays(in_values[:n_arg], inst.ctx)
        aux = inst.aux if inst.aux is not None else self._arrays(in_values[n_arg:], inst.ctx)
        in_grad = [nd.zeros(x.shape, ctx=inst.ctx, dtype=x.dtype) for x in in_data]
        self._run(inst, "backward", req=["write"] * n_arg,
                  out_grad=self._arrays(out_grads, inst.ctx), in_data=in_data,
                  out_data=self._arrays(out_values, inst.ctx), in_grad=in_grad, aux=aux)
        return [g.asnumpy() for g in in_grad]

    @staticmethod
    def _run(inst, method, **kwargs):
        with inst.ctx, _engine.custom_scope(inst.entry.op_type, backward=method == "backward"):
            try:
                getattr(inst.op, method)(**kwargs)
            except MXNetError:
                raise
            except Exception as e:
                raise MXNetError(f"Error in CustomOp.{method} of {inst.entry.op_type!r}: "
                                 f"{type(e).__name__}: {e}") from e


_HOST = _custom.HOST = _Host()


# ---- the legacy NumpyOp / NDArrayOp: a Python op as a symbol, through Custom ---------------

class PythonOp:
    """Base of NumpyOp and NDArrayOp: ``op.get_symbol(*args, **kwargs)`` or ``op(...)``."""
    _ids = itertools.count()

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad
        self._name = None

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def need_top_grad(self):
        return self.need_top_grad_

    _numpy = False

    def get_symbol(self, *args, **kwargs):
        from .. import symbol
        if self._name is None:
            self._name = f"_python_op{next(PythonOp._ids)}"
            register(self._name)(_python_prop(self))
        return symbol.Custom(*args, op_type=self._name, **kwargs)


def _python_prop(pyop):
    numpy = pyop._numpy

    class Op(CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            if numpy:
                outs = [o.asnumpy() for o in out_data]
                pyop.forward([x.asnumpy() for x in in_data], outs)
                for o, v in zip(out_data, outs):
                    o[:] = v
            else:
                pyop.forward(in_data, out_data)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            if numpy:
                grads = [g.asnumpy() for g in in_grad]
                pyop.backward([g.asnumpy() for g in out_grad], [x.asnumpy() for x in in_data],
                              [y.asnumpy() for y in out_data], grads)
                for g, v in zip(in_grad, grads):
                    g[:] = v
            else:
                pyop.backward(out_grad, in_data, out_data, in_grad)

    class Prop(CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=pyop.need_top_grad())

        def list_arguments(self):
            return pyop.list_arguments()

        def list_outputs(self):
            return pyop.list_outputs()

        def infer_shape(self, in_shape):
            ins, outs = pyop.infer_shape(in_shape)[:2]
            return ins, outs, []

        def create_operator(self, ctx, in_shapes, in_dtypes):
            return Op()
    return Prop


class NumpyOp(PythonOp):
    """A Python op whose forward/backward fill numpy arrays in place."""
    _numpy = True


class NDArrayOp(PythonOp):
    """A Python op whose forward/backward fill NDArrays."""

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = list(out_grad) if self.need_top_grad() else []
        return deps + list(in_data) + list(out_data)


# ---- nd.Custom / sym.Custom: inputs by position or by the prop's argument names ------------

def _split(op_type, args, kwargs, kind):
    """(inputs in the prop's order, the remaining keywords) of a Custom call."""
    if op_type is None:
        raise MXNetError("Custom: the op_type argument is required")
    attrs = {k: v for k, v in kwargs.items() if not isinstance(v, kind)}
    e = _HOST.entry(str(op_type), tuple(sorted((k, str(v)) for k, v in attrs.items())))
    names = e.args + e.aux
    named = {k: v for k, v in kwargs.items() if isinstance(v, kind)}
    for k in named:
        if k not in names:
            raise MXNetError(f"Custom operator {op_type!r}: unknown input {k!r}; its inputs are "
                             f"{', '.join(names) or '(none)'}")
    if len(args) > len(names):
        raise MXNetError(f"Custom operator {op_type!r} takes {len(names)} inputs "
                         f"({', '.join(names) or 'none'}), got {len(args)}")
    inputs = list(args) + [named.get(n) for n in names[len(args):]]
    return inputs, names, attrs


def nd_custom(*args, op_type=None, out=None, name=None, **kwargs):
    """nd.Custom: run the registered Python operator ``op_type`` on NDArrays."""
    from ..lowering import registry
    from ..ndarray import NDArray, invoke
    inputs, names, attrs = _split(op_type, args, kwargs, NDArray)
    missing = [n for n, x in zip(names, inputs) if x is None]
    if missing:
        raise MXNetError(f"Custom operator {op_type!r}: missing input(s) {', '.join(missing)}")
    op = registry.get("Custom")
    return invoke(op, inputs, op.parse_attrs(dict(attrs, op_type=op_type)), out=out)


def sym_custom(*args, op_type=None, name=None, attr=None, **kwargs):
    """sym.Custom: a node of the Python operator; absent inputs become ``<name>_<arg>``
    variables, as in MXNet."""
    from .. import name as _name
    from ..symbol.symbol import Symbol, Variable, _create
    inputs, names, attrs = _split(op_type, args, kwargs, Symbol)
    node_name = _name.current().get(name, "custom")
    inputs = [Variable(f"{node_name}_{n}") if x is None else x for n, x in zip(names, inputs)]
    return _create("Custom", inputs, dict(attrs, op_type=op_type), node_name, "custom", attr)


def _install():
    from .. import symbol
    from . import ndarray as nd
    nd.Custom = nd_custom
    symbol.Custom = sym_custom


_install()
