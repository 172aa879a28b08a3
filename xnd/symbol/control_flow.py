"""mx.sym.contrib.foreach: the user's loop body traced on fresh variables into a graph, cut
from the graph around it as MXNet 1.9.1 does, and held by one ``_foreach`` node (a
`Subgraph` in its ``subgraph`` attribute, lowered with ``jax.lax.scan`` in
xnd/lowering/control_flow.py).

MXNet's cut, kept here: nodes made inside the body carry ``__subgraph_name__`` (an
AttrScope); an input of such a node that comes from a node made outside it becomes a fresh
variable of the subgraph named after that entry (``<node>_output`` for an op, the name of a
variable), fed by that outer entry; variables made inside the body (a parameter's first
``var()``) are inputs of the subgraph and of the node as they are. Data and state variables
are named ``<name>-<output index>`` of the symbols they stand for. The node's inputs are
the data, the initial states, then the body's other inputs in the subgraph's input order;
``in_data_locs``/``in_state_locs``/``remain_locs`` place them among the subgraph's
inputs."""
import collections

from .. import _nest as nest, attribute
from .graph import Node, topo
from .subgraph import SUBGRAPH_KEY, Subgraph
from .symbol import Symbol, Variable, _create

_NAMES = collections.Counter()  # subgraph names handed out: foreach0, foreach1, ...
_MARK = "__subgraph_name__"


def _symbol_leaf(x):
    if not isinstance(x, Symbol):
        return None
    n = len(x._outputs)
    return ([x], 0) if n == 1 else ([Symbol([e]) for e in x._outputs], n)


def _flatten(args, what):
    """MXNet's (flat list, format) of a nested list of Symbols: a Symbol of one output is
    itself (format 0); one of k > 1 outputs is its k outputs (format k: `_regroup` gives
    them back as a list)."""
    return nest.flatten(args, _symbol_leaf, lambda x: AssertionError(
        f"{what} must be (nested) list of Symbol, but got {x} of type {type(x)}"))


_regroup = nest.regroup


def _unique_name(base):
    """MXNet's subgraph names: ``foreach0``...; nested in another body ``outer$foreach0``."""
    outer = attribute.current().get(None).get(_MARK, "")
    if outer:
        base = f"{outer}${base}"
    k = _NAMES[base]
    _NAMES[base] += 1
    return f"{base}{k}"


def _uniq(sym):
    (node, i), = sym._outputs
    return f"{node.name}-{i}"


def _check(syms, msg):
    assert all(isinstance(s, Symbol) for s in syms), msg


def _own(node, name):
    """Made inside the body ``name`` (an op or a variable)."""
    return node.attrs.get(_MARK) == name


def _body_outputs(outs, states, name):
    """The subgraph's heads (called inside the body's AttrScope): an output that is a
    variable or was made outside the body, or a state that is also an output, goes through
    an identity, so every head is a node of its own (MXNet's rule)."""
    out_names = {s.name for s in outs}
    heads = []
    for k, s in enumerate(outs + states):
        node = s._outputs[0][0]
        if node.op is None or not _own(node, name) or (k >= len(outs) and s.name in out_names):
            s = _create("_copy", [s], {}, None, "identity")
        heads.append(s._outputs[0])
    return heads


def _cut(heads, name):
    """Cut the body's graph off the graph around it: each entry of an outside node that a
    body node reads becomes a variable. Returns {variable name: outer entry}."""
    cuts, made = {}, {}
    for n in topo(heads):
        if n.op is None or not _own(n, name):
            continue
        for k, (src, i) in enumerate(n.inputs):
            if _own(src, name):
                continue
            var = made.get((id(src), i))
            if var is None:
                vname = src.output_names()[i]
                var = made[(id(src), i)] = Node(None, vname)
                cuts[vname] = (src, i)
            n.inputs[k] = (var, 0)
            n._parsed = None
    return cuts


def foreach(body, data, init_states, name="foreach"):
    """mx.sym.contrib.foreach: ``out, states = body(data[t], states)`` for every t along
    axis 0 of ``data``, as one ``_foreach`` node; returns (outputs stacked on axis 0, final
    states), in the nesting of ``body``'s results."""
    flat_data, data_fmt = _flatten(data, "foreach input")
    _check(flat_data, "data should be a symbol or a nested list of symbols")
    flat_init, init_fmt = _flatten(init_states, "foreach states")
    _check(flat_init, "init_states should be a symbol or a nested list of symbols")
    name = _unique_name(name)
    data_names = [_uniq(s) for s in flat_data]
    state_names = [_uniq(s) for s in flat_init]
    with attribute.AttrScope(**{_MARK: name}):
        in_eles, _ = _regroup([Variable(n) for n in data_names], data_fmt)
        states, _ = _regroup([Variable(n) for n in state_names], init_fmt)
        outs, new_states = body(in_eles, states)
        outs, out_fmt = _flatten(outs, "foreach output")
        new_states, state_fmt = _flatten(new_states, "foreach loop_vars")
        assert init_fmt == state_fmt, "The input and output loop_vars have different format"
        _check(outs, "the output should be an NDArray or a nested list of NDArrays")
        _check(new_states, "the output states should be an NDArray or a nested list of "
                           "NDArrays")
        heads = _body_outputs(outs, new_states, name)
    cuts = _cut(heads, name)
    sub = Subgraph(heads)
    names = sub.list_inputs()
    assert len(set(names)) == len(names), \
        f"The inputs of the subgraph don't have unique names: {names}"
    for group, what in ((data_names, "data"), (state_names, "state")):
        for n in group:
            if n not in names:
                raise AssertionError(f"the {what} arrays have to be used in the loop body")
    ordered = [s._outputs[0] for s in flat_data + flat_init]
    remain = []
    for k, (n, node) in enumerate(zip(names, sub.input_nodes)):
        if n in data_names or n in state_names:
            continue
        remain.append(k)
        ordered.append(cuts.get(n, (node, 0)))
    # in MXNet's (sorted) order; num_args counts the subgraph as an argument, as MXNet's does
    attrs = {"in_data_locs": [names.index(n) for n in data_names],
             "in_state_locs": [names.index(n) for n in state_names],
             "num_args": len(ordered) + 1, "num_out_data": len(outs),
             "num_outputs": len(outs) + len(new_states), "remain_locs": remain}
    ret = _create("_foreach", [Symbol([e]) for e in ordered], attrs, None, "_foreach")
    node = ret._outputs[0][0]
    node.attrs[SUBGRAPH_KEY] = sub
    node._parsed = None
    results = [Symbol([(node, i)]) for i in range(attrs["num_outputs"])]
    out_syms, _ = _regroup(results[:len(outs)], out_fmt)
    state_syms, _ = _regroup(results[len(outs):], state_fmt)
    return out_syms, state_syms

