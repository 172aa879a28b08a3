"""mx.nd.CachedOp: a Symbol called on NDArrays as one operator (MXNet 1.9.1's
``CachedOp(sym, flags=())``, the engine under Gluon's hybridize).

``op(*inputs, out=None)`` takes the symbol's inputs in ``sym.list_inputs()`` order
(arguments and auxiliary states as they appear in the graph) and returns its output, or a
list of outputs. The graph runs as one jitted registry op through ``ndarray.invoke``, so
autograd records it as a single node and its backward is one vjp of the whole graph.
"""
import inspect

from ...lowering.registry import Op
from ...ndarray import NDArray, invoke
from ...symbol.executor import GraphFunction


class CachedOp:
    def __init__(self, sym, flags=()):
        self._sym, self.flags = sym, tuple(flags)
        g = GraphFunction(sym)
        names = sym.list_inputs()
        n_args, n_out = len(g.arg_nodes), len(sym._outputs)
        # position in list_inputs() of each graph argument, then each auxiliary state
        self._order = [names.index(n.name) for n in g.arg_nodes + g.aux_nodes]
        self._n_in = len(names)
        rng = any(n.op is not None and n.op.rng for n in g.nodes)

        def fn(*vals, is_train=False, key=None):
            outs, _ = g._run(list(vals[:n_args]), list(vals[n_args:]), key, is_train)
            return tuple(outs) if n_out > 1 else outs[0]

        P = inspect.Parameter
        params = [P(f"i{k}", P.POSITIONAL_OR_KEYWORD) for k in range(len(self._order))]
        params.append(P("is_train", P.KEYWORD_ONLY, default=False))
        if rng:
            params.append(P("key", P.KEYWORD_ONLY, default=None))
        fn.__signature__ = inspect.Signature(params)
        fn.__name__ = "_CachedOp"
        self._op = Op("_CachedOp", fn, num_outputs=n_out)
        self._op.tuned = True                      # whole graphs: xla_options
        self._op.convolutional = g.convolutional

    def __call__(self, *args, out=None, **kwargs):
        if kwargs:
            raise TypeError(f"CachedOp: unexpected keyword arguments {sorted(kwargs)}")
        if len(args) != self._n_in:
            raise ValueError(f"CachedOp: the symbol takes {self._n_in} inputs "
                             f"({', '.join(self._sym.list_inputs())}), got {len(args)}")
        for a in args:
            if not isinstance(a, NDArray):
                raise TypeError(f"CachedOp: inputs must be NDArrays, got {type(a).__name__}")
        return invoke(self._op, [args[p] for p in self._order], {}, out=out)
