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
from .graph import Node, rebuild


def enabled(environ=os.environ):
    """MXNet reads the switch when a graph is bound."""
    return environ.get("MXNET_ELIMINATE_COMMON_EXPR", "1") != "0"


def _mergeable(node):
    return node.op is not None and not node.op.rng and not node.op.mutates


def eliminate_common_expr(outputs):
    """The output entries of an equivalent graph with common subexpressions merged."""
    seen = {}   # (op, attributes, input entries) -> node of the new graph

    def merge(n, ins):
        if not _mergeable(n):
            return None
        key = (n.op.name, tuple(sorted(n.attrs.items())), tuple((id(s), i) for s, i in ins))
        if key not in seen:
            same = all(a is b for (a, _), (b, _) in zip(ins, n.inputs))
            seen[key] = n if same else Node(n.op, n.name, n.attrs, ins)
        return seen[key]
    result, used = [], set()
    for entry in rebuild(outputs, merge):
        if (id(entry[0]), entry[1]) in used:  # an output twice: isolated by a copy
            entry = (Node(registry.get("_copy"), f"{entry[0].name}_{entry[1]}_copy", {},
                          [entry]), 0)
        used.add((id(entry[0]), entry[1]))
        result.append(entry)
    return result
