"""mx.sym.Symbol (MXNet's ``mxnet.symbol.symbol``): a DAG of registry operators with MXNet's
naming rules.

A Symbol is a list of output entries ``(node, output_index)`` of a graph of
``Node``s (graph.py). Its methods reach the modules that read and run graphs
(infer.py, json_io.py, executor.py), which import graph.py, never this module.
Arguments and auxiliary states are not marked: a variable is auxiliary iff it
feeds an input slot that its op declares as auxiliary (BatchNorm's moving
statistics), exactly as MXNet decides it.
"""
import copy as _copy
import json

import numpy as np

from .. import attribute, name as _name
from ..base import MXNetError, NotImplementedForSymbol
from ..lowering import registry
from ..lowering.dtypes import np_dtype
from ..serialization import DTYPE_CODES, atomic_write_text
from .graph import Node, aux_nodes, graph_pass, topo  # noqa: F401  (graph_pass: re-exported)
from . import executor as _executor, infer as _infer, json_io as _json_io


_AMP_CASTS = ("amp_cast", "amp_multicast")


def _without_amp_casts(sym):
    """The same graph with every amp_cast/amp_multicast bypassed (copies of the nodes that
    change; the symbol itself is untouched). A symbol without casts is returned as is."""
    nodes = topo(sym._outputs)
    if not any(n.op is not None and n.op.name in _AMP_CASTS for n in nodes):
        return sym
    new = {}

    def source(entry):
        node, i = entry
        while node.op is not None and node.op.name in _AMP_CASTS:
            node, i = node.inputs[i if node.op.name == "amp_multicast" else 0]
        return new[id(node)], i

    for n in nodes:
        if n.op is not None and n.op.name in _AMP_CASTS:
            continue
        copy = _copy.copy(n)
        copy.inputs = [source(e) for e in n.inputs]
        new[id(n)] = copy
    return Symbol([source(e) for e in sym._outputs])


class Symbol:
    """A symbolic graph output (or a group of outputs)."""

    __slots__ = ("_outputs", "__weakref__")

    def __init__(self, outputs):
        self._outputs = list(outputs)

    # ---- structure ------------------------------------------------------------------
    def _nodes(self):
        return topo(self._outputs)

    @property
    def name(self):
        """The node's name; a group has one only when all its outputs come from one node."""
        nodes = {id(n) for n, _ in self._outputs}
        return self._outputs[0][0].name if len(nodes) == 1 else None

    def __repr__(self):
        n = self.name
        if n is None:
            return f"<Symbol group [{', '.join(o[0].name for o in self._outputs)}]>"
        return f"<Symbol {n}>"

    __str__ = __repr__

    def __len__(self):
        return len(self._outputs)

    def __iter__(self):
        return (Symbol([o]) for o in self._outputs)

    def list_arguments(self):
        nodes = self._nodes()
        aux = aux_nodes(nodes)
        return [n.name for n in nodes if n.op is None and id(n) not in aux]

    def list_auxiliary_states(self):
        nodes = self._nodes()
        aux = aux_nodes(nodes)
        return [n.name for n in nodes if n.op is None and id(n) in aux]

    def list_inputs(self):
        return [n.name for n in self._nodes() if n.op is None]

    def list_outputs(self):
        out = []
        for node, i in self._outputs:
            names = node.output_names()
            out.append(names[i] if i < len(names) else f"{node.name}_output{i}")
        return out

    def _arg_nodes(self):
        nodes = self._nodes()
        aux = aux_nodes(nodes)
        return ([n for n in nodes if n.op is None and id(n) not in aux],
                [n for n in nodes if n.op is None and id(n) in aux])

    def get_internals(self):
        entries = []
        for n in self._nodes():
            entries.extend((n, i) for i in range(n.num_visible()))
        return Symbol(entries)

    def get_children(self):
        """The inputs of this symbol's node(s), as one grouped Symbol; None for a variable.
        A multi-output op (SliceChannel) has one node, whose inputs are the children."""
        nodes = list({id(n): n for n, _ in self._outputs}.values())
        entries = [e for n in nodes if n.op is not None for e in n.inputs]
        return Symbol(entries) if entries else None

    def _gen_atomic_symbol(self):
        """This symbol's operator alone: its attributes, no inputs and no name (MXNet's
        atomic symbol, the unit that subgraph and AMP passes rebuild graphs from)."""
        node = self._outputs[0][0]
        if node.op is None:
            raise MXNetError("_gen_atomic_symbol: a variable has no operator")
        atom = Node(node.op, "", dict(node.attrs), [])
        return Symbol([(atom, i) for i in range(atom.num_visible())])

    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, "bool")

    def __getstate__(self):
        """Pickles as MXNet does: the symbol's JSON."""
        return {"handle": self.tojson()}

    def __setstate__(self, state):
        self._outputs = _json_io.read_json(state["handle"])

    def __getitem__(self, index):
        if isinstance(index, str):
            names = self.list_outputs()
            if index not in names:
                raise ValueError(f"There is no output named {index!r}; outputs are {names}")
            if names.count(index) > 1:
                raise ValueError(f"There are multiple outputs with name {index!r}")
            index = names.index(index)
        if isinstance(index, slice):
            return Symbol(self._outputs[index])
        if not -len(self._outputs) <= index < len(self._outputs):
            raise IndexError(f"Symbol index {index} out of range ({len(self._outputs)} outputs)")
        return Symbol([self._outputs[index]])

    # ---- attributes -----------------------------------------------------------------
    def attr(self, key):
        if len(self._outputs) != 1:
            return None
        attrs = self._outputs[0][0].attrs
        if key in attrs:
            return attrs[key] if isinstance(attrs[key], str) else None  # (a loop body)
        return attrs.get(f"__{key}__") if key in _HIDDEN else None

    def list_attr(self, recursive=False):
        if recursive:
            raise DeprecationWarning("Symbol.list_attr with recursive=True has been deprecated. "
                                     "Please use attr_dict instead.")
        return _visible_attrs(self._outputs[0][0].attrs) if len(self._outputs) == 1 else {}

    def attr_dict(self):
        return {n.name: _visible_attrs(n.attrs) for n in self._nodes() if n.attrs}

    def _set_attr(self, **kwargs):
        for k, v in kwargs.items():
            if not isinstance(v, str):
                raise ValueError("Set Attr only accepts string values")
            for node, _ in self._outputs:
                node.attrs[k] = v
                node._parsed = None

    # ---- composition ----------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        s = self.__copy__()
        s._compose(*args, **kwargs)
        return s

    def _compose(self, *args, **kwargs):
        name = kwargs.pop("name", None)
        if name:
            for node, _ in self._outputs:
                node.name = name
        if args and kwargs:
            raise TypeError("compose only accepts input Symbols either as positional or keyword "
                            "arguments, not both")
        nodes = self._nodes()
        if args:
            raise MXNetError("compose: General composition only support kwargs (name=Symbol)")
        by_name = {n.name: n for n in nodes if n.op is None}
        subst = {}
        for k, v in kwargs.items():
            if k not in by_name:
                raise MXNetError(f"compose: argument name {k} not found; free inputs are "
                                 f"{sorted(by_name)}")
            subst[id(by_name[k])] = v
        for v in subst.values():
            if not isinstance(v, Symbol) or len(v._outputs) != 1:
                raise TypeError("compose expects single-output Symbols as inputs")
        for n in nodes:
            n.inputs = [subst[id(src)]._outputs[0] if id(src) in subst else (src, i)
                        for src, i in n.inputs]
        self._outputs = [subst[id(n)]._outputs[0] if id(n) in subst else (n, i)
                         for n, i in self._outputs]

    def __copy__(self):
        memo = {}

        def clone(n):
            c = memo.get(id(n))
            if c is None:
                c = memo[id(n)] = Node(n.op, n.name, n.attrs)
                c.inputs = [(clone(src), i) for src, i in n.inputs]
            return c
        for n in self._nodes():
            clone(n)
        return Symbol([(memo[id(n)], i) for n, i in self._outputs])

    def __deepcopy__(self, memo):
        return self.__copy__()

    copy = __copy__

    # ---- arithmetic (Symbol + Symbol does NOT broadcast, as in MXNet) ----------------
    def _bin(self, other, op, scalar_op, hint, scalar_hint):
        if isinstance(other, Symbol):
            return _create(op, [self, other], {}, None, hint)
        if isinstance(other, (int, float, np.number, bool)):
            return _create(scalar_op, [self], {"scalar": other}, None, scalar_hint)
        raise TypeError(f"type {type(other).__name__} not supported")

    def __add__(self, o):
        return self._bin(o, "elemwise_add", "_plus_scalar", "_plus", "_plusscalar")

    __radd__ = __add__

    def __sub__(self, o):
        return self._bin(o, "elemwise_sub", "_minus_scalar", "_minus", "_minusscalar")

    def __rsub__(self, o):
        return self._bin(o, None, "_rminus_scalar", None, "_rminusscalar")

    def __mul__(self, o):
        return self._bin(o, "elemwise_mul", "_mul_scalar", "_mul", "_mulscalar")

    __rmul__ = __mul__

    def __truediv__(self, o):
        return self._bin(o, "elemwise_div", "_div_scalar", "_div", "_divscalar")

    def __rtruediv__(self, o):
        return self._bin(o, None, "_rdiv_scalar", None, "_rdivscalar")

    def __mod__(self, o):
        return self._bin(o, "_mod", "_mod_scalar", "_mod", "_modscalar")

    def __rmod__(self, o):
        return self._bin(o, None, "_rmod_scalar", None, "_rmodscalar")

    def __pow__(self, o):
        return self._bin(o, "_power", "_power_scalar", "_power", "_powerscalar")

    def __rpow__(self, o):
        return self._bin(o, None, "_rpower_scalar", None, "_rpower_scalar")

    def __neg__(self):
        return self._bin(-1.0, None, "_mul_scalar", None, "_mulscalar")

    def __abs__(self):
        return _create("abs", [self], {}, None, "abs")

    def __eq__(self, o):
        return self._bin(o, "_equal", "_equal_scalar", "_equal", "_equal_scalar")

    def __ne__(self, o):
        return self._bin(o, "_not_equal", "_not_equal_scalar", "_not_equal", "_not_equal_scalar")

    def __gt__(self, o):
        return self._bin(o, "_greater", "_greater_scalar", "_greater", "_greater_scalar")

    def __ge__(self, o):
        return self._bin(o, "_greater_equal", "_greater_equal_scalar", "_greater_equal",
                         "_greater_equal_scalar")

    def __lt__(self, o):
        return self._bin(o, "_lesser", "_lesser_scalar", "_lesser", "_lesser_scalar")

    def __le__(self, o):
        return self._bin(o, "_lesser_equal", "_lesser_equal_scalar", "_lesser_equal",
                         "_lesser_equal_scalar")

    __hash__ = object.__hash__

    # ---- inference, serialisation, execution (implemented in sibling modules) ---------
    def infer_shape(self, *args, **kwargs):
        return _infer.infer_shape(self, args, kwargs, partial=False)

    def infer_shape_partial(self, *args, **kwargs):
        return _infer.infer_shape(self, args, kwargs, partial=True)

    def infer_type(self, *args, **kwargs):
        return _infer.infer_type(self, args, kwargs)

    def infer_type_partial(self, *args, **kwargs):
        """infer_type that reports None for the types it cannot decide (MXNet's partial)."""
        return _infer.infer_type(self, args, kwargs, partial=True)

    def tojson(self, remove_amp_cast=True):
        """MXNet's JSON; by default without the amp_cast/amp_multicast nodes that
        contrib.amp.convert_symbol inserted (their consumers read the cast's input), as
        MXNet writes it."""
        return _json_io.to_json(_without_amp_casts(self) if remove_amp_cast else self)

    def save(self, fname, remove_amp_cast=True):
        atomic_write_text(fname, self.tojson(remove_amp_cast))

    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
             shared_exec=None):
        return _executor.Executor.bind(self, ctx, args, args_grad, grad_req, aux_states)

    def simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None, group2ctx=None,
                    shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
        return _executor.Executor.simple_bind(self, ctx, grad_req, type_dict, kwargs, stype_dict)

    def eval(self, ctx=None, **kwargs):
        from ..context import current_context
        exe = self.bind(ctx or current_context(), kwargs)
        return exe.forward()

    def debug_str(self):
        lines = []
        for n in self._nodes():
            if n.op is None:
                lines.append(f"Variable:{n.name}")
            else:
                lines.append(f"Op:{n.op.name}, Name={n.name}")
                lines.append("Inputs:")
                for k, (src, i) in enumerate(n.inputs):
                    lines.append(f"\targ[{k}]={src.name}({i})")
                vis = {k: v for k, v in n.attrs.items() if not k.startswith("__")}
                if vis:
                    lines.append("Attrs:")
                    lines.extend(f"\t{k}={v}" for k, v in vis.items())
        return "\n".join(lines) + "\n"


def _visible_attrs(attrs):
    """MXNet's attr views list hidden ``__x__`` keys also under their bare name ``x``; a
    control-flow node's body (an object, not a string attribute) is not listed, as in MXNet
    (nnvm keeps it apart from the attributes)."""
    out = {}
    for k, v in attrs.items():
        if not isinstance(v, str):
            continue
        out[k] = v
        if k.startswith("__") and k.endswith("__") and k[2:-2] in _HIDDEN:
            out[k[2:-2]] = v
    return out


def attr_str(v):
    """How MXNet writes an attribute value into a graph: ``str`` of the Python value."""
    if isinstance(v, str):
        return v
    if isinstance(v, type) and issubclass(v, np.generic) or isinstance(v, np.dtype):
        return np.dtype(v).name
    if isinstance(v, (tuple, list)):  # numpy 2 prints np.int64(0) inside a tuple; MXNet saw 0
        v = type(v)(x.item() if isinstance(x, np.generic) else x for x in v)
    elif isinstance(v, np.generic):
        v = v.item()
    return str(v)


_HIDDEN = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")


def hidden(attrs):
    """User attributes as stored: known keys get the ``__key__`` form."""
    return {(f"__{k}__" if k in _HIDDEN else k): str(v) for k, v in (attrs or {}).items()}


# inputs that exist only under some attribute values (when not passed explicitly)
_CONDITIONAL_INPUTS = {
    "bias": lambda p: not p.get("no_bias", False),
    "gamma": lambda p: p.get("act_type", "prelu") == "prelu",
    "state_cell": lambda p: p.get("mode") == "lstm",
    "sequence_length": lambda p: p.get("use_sequence_length", False),
    "length": lambda p: p.get("use_length", False),
    "valid_length": lambda p: p.get("use_length", False),
    "data_lengths": lambda p: p.get("use_data_lengths", False),
    "label_lengths": lambda p: p.get("use_label_lengths", False),
    "bins": lambda p: p.get("bin_cnt") is None,  # _histogram: edges or bin_cnt uniform bins
    "like": lambda p: p.get("mode") == "like",  # BilinearResize2D
    "trans": lambda p: not p.get("no_trans", False),  # DeformablePSROIPooling
}


def _none_is_a_value(op, key):
    p = op.params.get(key)
    return p is not None and (p.default is None or getattr(p.parse, "accepts_none", False))


def _create(opname, inputs, kwargs, name, hint, attr=None):
    """Make the node of one op call: name it, parse and store its attributes, and create
    the implicit variables (``<name>_weight``...) for inputs not given."""
    op = registry.get(opname)
    # MXNet takes lr_mult=, wd_mult=, ctx_group= ... as keywords of any op and stores them
    # as the node's (and its implicit variables') hidden ``__key__`` attributes
    kw_hidden = {k: kwargs[k] for k in kwargs if k in _HIDDEN and k not in op.params}
    kwargs = {k: v for k, v in kwargs.items() if k not in kw_hidden}
    if not op.inputs and not op.variadic:
        # MXNet composes an operator without inputs with nothing: a Symbol passed by keyword
        # (test_random's ``sym.random.randn(data=sym)``) is dropped, not an attribute
        kwargs = {k: v for k, v in kwargs.items() if not isinstance(v, Symbol)}
    # an explicit None is stored as "None" where it is a value (sort(axis=None) flattens), as
    # MXNet's generated functions store it; elsewhere it means "not given"
    stored = {k: attr_str(v) for k, v in kwargs.items()
              if v is not None or _none_is_a_value(op, k)}
    node_name = _name.current().get(name, hint)
    user = hidden({**attribute.current().get(attr), **kw_hidden})
    node = Node(op, node_name, {**stored, **user})
    params = node.params()  # validates names and values now, as MXNet does
    entries = []
    if op.variadic:
        for s in inputs:
            entries.append(_entry(op.name, s))
        if "num_args" in op.params and "num_args" not in stored:
            node.attrs["num_args"] = str(len(inputs))
            node._parsed = None
    else:
        given = dict(inputs) if isinstance(inputs, dict) else dict(zip(op.inputs, inputs))
        for slot in op.inputs:
            s = given.get(slot)
            if s is not None:
                entries.append(_entry(op.name, s))
                continue
            if slot in op.optional and not _CONDITIONAL_INPUTS.get(slot, lambda p: True)(params):
                continue
            vattrs = dict(stored)
            vattrs.update(user)
            init = (op.input_init or {}).get(slot)
            if init is not None:
                vattrs["__init__"] = init
            entries.append((Node(None, f"{node_name}_{slot}", vattrs), 0))
    node.inputs = entries
    n_vis = node.num_visible()
    out = Symbol([(node, i) for i in range(n_vis)])
    given = inputs.values() if isinstance(inputs, dict) else inputs
    if any(getattr(s, "_np_face", False) for s in given):
        # a legacy op on numpy-faced Symbols gives one too, as on mx.np arrays (docs/porting.md)
        out = out.as_np_ndarray()
    return out


def _entry(opname, s):
    if not isinstance(s, Symbol):
        raise TypeError(f"{opname}: inputs must be Symbols, got {type(s).__name__}")
    if len(s._outputs) != 1:
        raise MXNetError(f"{opname}: an input must be a single-output Symbol, got a group of "
                         f"{len(s._outputs)}")
    return s._outputs[0]


def Variable(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None,
             stype=None, **kwargs):
    """A named graph input (data, label or parameter)."""
    if not isinstance(name, str):
        raise TypeError("Expect a string for variable `name`")
    attrs = hidden(attribute.current().get(attr))
    if shape is not None:
        # an int is a 1-d shape, kept as written (MXNet's attribute reads '3')
        attrs["__shape__"] = str(shape) if isinstance(shape, int) else str(tuple(shape))
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        attrs["__dtype__"] = str(DTYPE_CODES[np.dtype(np_dtype(dtype))])
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        attrs["__storage_type__"] = str({"default": 0, "row_sparse": 1, "csr": 2}[stype])
    for k, v in kwargs.items():
        if not (k.startswith("__") and k.endswith("__")):
            raise ValueError(f"Attribute name={k} is not supported. Additional attributes must "
                             f"start and end with double underscores, e.g, __yourattr__")
        attrs[k] = str(v)
    return Symbol([(Node(None, name, attrs), 0)])


var = Variable


def Group(symbols):
    """One symbol whose outputs are the outputs of ``symbols``, in order."""
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError("Expected a list of symbols as input")
    return Symbol([o for s in symbols for o in s._outputs])


def load_json(json_str):
    """mx.sym.load_json: the Symbol of MXNet's JSON text (every version back to 0.8)."""
    return Symbol(_json_io.read_json(json_str))


def load(fname):
    """mx.sym.load: the Symbol of a ``-symbol.json`` file."""
    return Symbol(_json_io.read_file(fname))


def dumps_attrs(attrs):
    return json.dumps(attrs)


assert _copy
