"""Common subexpression elimination, as ``Executor.get_optimized_symbol()`` shows it.

MXNet 1.9.1 merges op nodes that have the same op, the same attributes and the same inputs
when it binds (``MXNET_ELIMINATE_COMMON_EXPR``, on unless set to ``0``). Nodes that draw
random numbers or write their inputs are never merged (two Dropouts of one input stay two).
Where merging leaves one entry as several outputs of the graph, each repeat is given a
``_copy`` node (``<name>_<output>_copy``), so that every output stays an array of its own.

XLA eliminates common subexpressions in the program it compiles anyway; this pass exists for
what the user reads back: the optimized graph.
"""
import os

from ..lowering import registry
from .graph import Node, graph_pass, topo


def enabled(environ=os.environ):
    """MXNet reads the switch when a graph is bound."""
    return environ.get("MXNET_ELIMINATE_COMMON_EXPR", "1") != "0"


def _mergeable(node):
    return node.op is not None and not node.op.rng and not node.op.mutates


@graph_pass
def eliminate_common_expr(outputs):
    """The output entries of an equivalent graph with common subexpressions merged."""
    new = {}    # id(old node) -> node of the new graph
    seen = {}   # (op, attributes, input entries) -> node
    for n in topo(outputs):
        if n.op is None:
            new[id(n)] = n
            continue
        ins = [(new[id(src)], i) for src, i in n.inputs]
        key = (n.op.name, tuple(sorted(n.attrs.items())), tuple((id(s), i) for s, i in ins))
        if _mergeable(n) and key in seen:
            new[id(n)] = seen[key]
            continue
        same = all(a is b for (a, _), (b, _) in zip(ins, n.inputs))
        m = n if same else Node(n.op, n.name, n.attrs, ins)
        if _mergeable(n):
            seen[key] = m
        new[id(n)] = m
    result, used = [], set()
    for src, i in outputs:
        entry = (new[id(src)], i)
        if (id(entry[0]), i) in used:  # an output twice: isolated by a copy
            entry = (Node(registry.get("_copy"), f"{entry[0].name}_{i}_copy", {}, [entry]), 0)
        used.add((id(entry[0]), entry[1]))
        result.append(entry)
    return result
