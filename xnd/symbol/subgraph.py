"""The loop body of a control-flow node (``_foreach``): a subgraph, as the callable its
lowering runs (xnd/lowering/control_flow.py).

The node holds its body in its ``subgraph`` attribute (nnvm keeps it in
``attrs.subgraphs``); json_io.py writes and reads it as the node's ``"subgraphs"`` list,
as MXNet's files have it. xnd/symbol/control_flow.py builds bodies (mx.sym.contrib.foreach).
"""
from .executor import GraphFunction
from .graph import topo
from .infer import propagate

SUBGRAPH_KEY = "subgraph"  # the control-flow op's attribute (lowering/control_flow.py)


class Subgraph:
    """A body: output entries of a graph, run as a pure function of its inputs' values.

    BatchNorm statistics of a body are read, not updated, by the loop (no aux outputs)."""

    def __init__(self, outputs):
        self._outputs = list(outputs)
        self.input_nodes = [n for n in topo(self._outputs) if n.op is None]
        # made now, not at the first call: that one is inside a trace (the loop's, or shape
        # inference's), where nothing may compile (xla_options probes its options by compiling)
        self._graph = GraphFunction(self)

    def list_inputs(self):
        return [n.name for n in self.input_nodes]

    def __repr__(self):
        return f"<Subgraph of {len(self._outputs)} outputs, inputs {self.list_inputs()}>"

    def __call__(self, values, key, is_train):
        """The outputs of one step (the lowering's call); values in input order."""
        g = self._graph
        by_node = {id(n): v for n, v in zip(self.input_nodes, values)}
        outs, _ = g._run([by_node[id(n)] for n in g.arg_nodes],
                         [by_node[id(n)] for n in g.aux_nodes], key, is_train)
        return outs

    def input_shapes(self, shapes):
        """The inputs' shapes as shape inference finds them from the known ones (None:
        unknown; a partly known shape has 0s)."""
        known = {n.name: tuple(s) for n, s in zip(self.input_nodes, shapes) if s is not None}
        _, out = propagate(self, known, {})
        partial = propagate.partial
        return [tuple(out[(id(n), 0)].shape) if (id(n), 0) in out else partial.get(id(n))
                for n in self.input_nodes]
