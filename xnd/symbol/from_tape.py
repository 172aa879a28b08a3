"""autograd.get_symbol: the recorded history of an NDArray as a Symbol.

MXNet's names are kept: marked variables become ``var0``, ``var1`` ... in graph order,
constants ``null<k>`` (k: the node's position in the graph), operator nodes
``node_0``, ``node_1`` ... Installed into autograd as a hook, since autograd sits
below the symbol layer.
"""
from ..base import MXNetError
from ..lowering import registry
from .graph import topo
from .symbol import Node, Symbol, _create


def symbol_of(entry):
    """The Symbol of tape entry (node, output index)."""
    from ..autograd.tape import ExtNode
    built, counters = {}, {"var": 0, "node": 0, "pos": 0}

    def build(node):
        if id(node) in built:
            return built[id(node)]
        if type(node) is ExtNode:
            if node.is_var:
                name = f"var{counters['var']}"
                counters["var"] += 1
            else:
                name = f"null{counters['pos']}"
            counters["pos"] += 1
            sym = Symbol([(Node(None, name, {}), 0)])
        else:
            kind = node.kind
            if kind[0] != "op":
                raise MXNetError("autograd.get_symbol: the graph holds a custom Function or a "
                                 "higher-order gradient node, which has no Symbol form")
            op = kind[1]
            graph_op = op.graph_op
            if graph_op is None and not registry.exists(op.name):
                raise MXNetError(f"autograd.get_symbol: the graph holds {op.name}, which has "
                                 f"no Symbol form")
            ins = [None if e is None else _output(build(e[0]), e[1]) for e in node.inputs]
            if graph_op is not None:
                sym = built[id(node)] = _cached_op(graph_op, ins, counters)
                return sym
            # static attributes as MXNet stores them (the ones given, i.e. not default);
            # dynamic ones (scalars) always
            # (the mode flag ``is_train`` is no attribute: MXNet's graphs get it at run time)
            attrs = {k: v for k, v in zip(op.static, kind[2])
                     if k in op.params and v != op.params[k].default}
            attrs.update((n, float(v) if isinstance(v, int) and not isinstance(v, bool) else v)
                         for n, v in zip([n for n in op.dynamic if n != "key"], node.dyn))
            name = f"node_{counters['node']}"
            counters["node"] += 1
            counters["pos"] += 1
            inputs = [s for s in ins if s is not None] if op.variadic else \
                {slot: s for slot, s in zip(op.inputs, ins) if s is not None}
            sym = _create(op.name, inputs, attrs, name, name)
        built[id(node)] = sym
        return sym

    return _output(build(entry[0]), entry[1])


def _cached_op(graph_op, ins, counters):
    """A hybridized block's recorded call: its graph's operator nodes, renamed ``node_<k>``,
    where it has at most ``inline_limit`` of them (MXNet inlines such a CachedOp into the
    recording), else one ``_CachedOp`` node over its inputs (arguments, then auxiliary
    states)."""
    sub = graph_op.sym
    ops = [n for n in topo(sub._outputs) if n.op is not None]
    entries = [s._outputs[0] for s in ins]
    if len(ops) > graph_op.inline_limit:
        name = f"node_{counters['node']}"
        counters["node"] += 1
        counters["pos"] += 1
        node = Node(graph_op.op, name, {}, entries)
        return Symbol([(node, i) for i in range(graph_op.n_out)])
    g = graph_op.graph
    new = {id(v): e for v, e in zip(g.arg_nodes + g.aux_nodes, entries)}
    for n in topo(sub._outputs):
        if n.op is None:
            continue
        copy = Node(n.op, f"node_{counters['node']}", n.attrs,
                    [new[id(src)] if src.op is None else (new[id(src)][0], k)
                     for src, k in n.inputs])
        counters["node"] += 1
        counters["pos"] += 1
        new[id(n)] = (copy, 0)
    return Symbol([(new[id(n)][0], k) if n.op is not None else new[id(n)]
                   for n, k in sub._outputs])


def _output(sym, i):
    return Symbol([sym._outputs[i]]) if len(sym._outputs) > 1 else sym


def install():
    from .. import autograd
    autograd._SYMBOL_FROM_TAPE[0] = symbol_of
