"""The graph under a Symbol (xnd's own; MXNet keeps it in C++ nnvm): ``Node``s and the
passes over them.

A graph is made of ``Node``s: an op node holds a registry ``Op``, its attributes as MXNet
writes them (strings, parsed on demand) and its input entries ``(node, output_index)``; a
variable node has ``op is None``.  A Symbol (symbol.py) is a list of output entries.  The
modules that read or run a graph (infer.py, json_io.py, layout.py, rewrite.py,
executor.py) work on these entries and import only this module, so the Symbol class
above them can offer MXNet's methods (``infer_shape``, ``tojson``, ``bind``) by plain
imports, without a circle.
"""
import contextlib
import functools
import gc


class Node:
    __slots__ = ("op", "name", "attrs", "inputs", "_parsed", "versions")

    def __init__(self, op, name, attrs=None, inputs=()):
        self.op, self.name = op, name
        self.versions = None  # input entry versions read from JSON (MXNet's mutation counters)
        self.attrs = dict(attrs or {})
        self.inputs = list(inputs)
        self._parsed = None

    @property
    def is_var(self):
        return self.op is None

    def params(self):
        """The op's attributes parsed (hidden ``__x__`` keys dropped), defaults filled."""
        if self._parsed is None:
            kw = {k: v for k, v in self.attrs.items() if not (k.startswith("__") and k.endswith("__"))}
            self._parsed = self.op.parse_attrs(kw)
        return self._parsed

    def num_outputs(self):
        return 1 if self.op is None else self.op.n_outputs(self.params())

    def num_visible(self):
        return 1 if self.op is None else self.op.n_visible(self.params())

    def output_names(self):
        if self.op is None:
            return [self.name]
        names = self.op.out_names(self.params())
        return [f"{self.name}_{s}" for s in names] if self.name else names  # (an atomic symbol)

    def input_slot(self, i):
        """The op's name for input position ``i`` (variadic ops repeat their last name)."""
        names = self.op.inputs
        if self.op.input_names is not None:  # per-node names (Custom: its prop's inputs)
            names = self.op.input_names(self.params())
        return names[min(i, len(names) - 1)] if names else "data"


def graph_pass(fn):
    """Runs ``fn`` with Python's cyclic garbage collector paused. A graph pass allocates
    objects per node; with tens of thousands of live nodes every few thousand allocations
    trigger a full collection that walks all of them, which made passes over a 30,000-node
    graph quadratic. Nothing a pass allocates is cyclic garbage, so pausing loses nothing."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with _gc_paused():
            return fn(*args, **kwargs)
    return run


@contextlib.contextmanager
def _gc_paused():
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@graph_pass
def topo(entries):
    """Nodes reachable from ``entries`` in MXNet's order: DFS post-order, inputs left to right.

    One pass over the edges, each node's input iterator resumed where it stopped (a graph is
    acyclic, so marking a node when it is entered equals marking it when it is finished)."""
    order, seen = [], set()
    for node, _ in entries:
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack = [(node, iter(node.inputs))]
        while stack:
            n, it = stack[-1]
            for child, _ in it:
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, iter(child.inputs)))
                    break
            else:
                stack.pop()
                order.append(n)
    return order


@graph_pass
def rebuild(outputs, replace):
    """The output entries of a copy of a graph where ``replace(node, inputs)`` gives each op
    node's stand-in: ``inputs`` are the node's input entries in the new graph; returning
    ``None`` keeps the node (copied only when one of its inputs changed). Variables stay."""
    new = {}
    for n in topo(outputs):
        if n.op is None:
            new[id(n)] = n
            continue
        ins = [(new[id(src)], i) for src, i in n.inputs]
        m = replace(n, ins)
        if m is None:
            same = all(a is b for (a, _), (b, _) in zip(ins, n.inputs))
            m = n if same else Node(n.op, n.name, n.attrs, ins)
        new[id(n)] = m
    return [(new[id(n)], i) for n, i in outputs]


def aux_nodes(nodes):
    """Variable nodes that feed an auxiliary-state slot."""
    aux = set()
    for n in nodes:
        if n.op is not None and n.op.aux:
            for i, (src, _) in enumerate(n.inputs):
                if src.op is None and n.input_slot(i) in n.op.aux:
                    aux.add(id(src))
    return aux
