"""``mx.onnx.export_model``: an MXNet Symbol and its parameters as an ONNX model (opset 13).

MXNet 1.9.1's signature and rules: `sym` and `params` are objects (a Symbol and a dict, or
a list ``[arg_params, aux_params]``) or file names (``-symbol.json`` and ``.params``); the
graph inputs are the symbol's inputs that are not parameters, in graph order, minus the
label of the final output (``<last node>_label``), and take `in_shapes`/`in_types` (old
names `input_shape`/`input_type`); ONNX outputs are named after their MXNet nodes.  With
`dynamic`, the input dimensions are symbolic (`dynamic_input_shapes` gives a shape per input
with None where a dimension is free).  Shapes are inferred by xnd's symbol inference, and
parameters become initializers.  An operator without a translation makes the export fail
with MXNetError naming it (and the nodes using it).  Needs the ``onnx`` package
(``pip install 'xnd[onnx]'``)."""
import logging

import numpy as np

from ....base import MXNetError
from .._common import require_onnx as _onnx
from ._translations import CONVERTERS

__all__ = ["export_model", "get_operator_support"]

OPSET = 13


def get_operator_support(opset_version=None):
    """The MXNet operators that `export_model` translates (opset 13 and later)."""
    if opset_version is not None and opset_version < OPSET:
        return []
    return sorted(CONVERTERS)


class _Graph:
    """The ONNX graph being built: nodes, initializers and unique names."""

    def __init__(self, onnx, infer_out, name_of, params, dynamic):
        self.onnx, self.h = onnx, onnx.helper
        self.nodes, self.initializers = [], []
        self._names = set(name_of.values())
        self._infer, self._name_of, self._params = infer_out, name_of, params
        self.dynamic = dynamic

    def fresh(self, base):
        name, k = base, 0
        while name in self._names:
            k += 1
            name = "%s_%d" % (base, k)
        self._names.add(name)
        return name

    def add(self, op_type, inputs, outputs, **attrs):
        self.nodes.append(self.h.make_node(op_type, list(inputs), list(outputs),
                                           name=self.fresh(outputs[0] + "_" + op_type), **attrs))

    def const(self, value, base):
        name = self.fresh(base)
        self.initializers.append(self.onnx.numpy_helper.from_array(np.asarray(value), name))
        return name

    def onnx_type(self, dtype):
        return self.h.np_dtype_to_tensor_dtype(np.dtype(dtype))

    def _struct(self, entry):
        s = self._infer.get((id(entry[0]), entry[1]))
        if s is None:
            raise MXNetError("export_model: the shape of %s could not be inferred; give "
                             "in_shapes for every input" % self._name_of.get(
                                 (id(entry[0]), entry[1]), entry[0].name))
        return s

    def shape_of(self, node, i):
        return tuple(self._struct((node, i)).shape)

    def dtype_of(self, node, i):
        return np.dtype(self._struct((node, i)).dtype)

    def shape_of_input(self, node, k):
        return tuple(self._struct(node.inputs[k]).shape)

    def dtype_of_input(self, node, k):
        return np.dtype(self._struct(node.inputs[k]).dtype)

    def param_value(self, node, k):
        """The value of input `k` when it is computed from parameters alone (Gluon's RNN
        layers concatenate their weights into one vector in the graph), else None."""
        from .... import symbol as _sym
        from ....symbol.symbol import topo
        from ... import ndarray as nd
        entry = node.inputs[k]
        if entry[0].op is None:
            return self._params.get(entry[0].name)
        leaves = [n for n in topo([entry]) if n.op is None]
        if any(n.name not in self._params for n in leaves):
            return None
        feed = {n.name: nd.array(self._params[n.name], dtype=self._params[n.name].dtype)
                for n in leaves}
        return _sym.Symbol([entry]).eval(**feed)[0].asnumpy()


def _reachable(nodes, initializers, outputs):
    """The nodes and initializers the outputs depend on (a weight folded into an RNN's
    constants leaves its graph-side copy unused)."""
    needed, kept = set(outputs), []
    for node in reversed(nodes):
        if any(o in needed for o in node.output):
            kept.append(node)
            needed.update(i for i in node.input if i)
    return kept[::-1], [t for t in initializers if t.name in needed]


def _load(sym, params):
    from .... import symbol as _sym
    from ... import ndarray as nd
    if isinstance(sym, str) and isinstance(params, str):
        logging.info("Converting json and weight file to sym and params")
        sym = _sym.load(sym)
        loaded = nd.load(params)
        params = {k.split(":", 1)[-1]: v for k, v in loaded.items()}
    elif isinstance(sym, _sym.Symbol) and isinstance(params, dict):
        params = dict(params)
    elif isinstance(sym, _sym.Symbol) and isinstance(params, list) and len(params) == 2:
        params = {**params[0], **params[1]}
    else:
        raise ValueError("Input sym and params should either be files or objects")
    arrays = {}
    for k, v in params.items():
        arrays[k.split(":", 1)[-1]] = v.asnumpy() if hasattr(v, "asnumpy") else np.asarray(v)
    return sym, arrays


def export_model(sym, params, in_shapes=None, in_types=np.float32, onnx_file_path="model.onnx",
                 verbose=False, dynamic=False, dynamic_input_shapes=None,
                 run_shape_inference=False, input_type=None, input_shape=None):
    """Write `sym` with `params` to `onnx_file_path` as an ONNX model; returns the path."""
    onnx = _onnx()
    from ....symbol import infer
    from ....symbol.symbol import topo
    if input_type is not None:
        in_types = input_type
    if input_shape is not None:
        in_shapes = input_shape
    if in_shapes is None:
        raise ValueError("export_model: in_shapes (the shapes of the model's inputs) is "
                         "required")
    in_shapes = [tuple(s) for s in in_shapes]
    if not isinstance(in_types, list):
        in_types = [in_types for _ in in_shapes]
    assert len(in_types) == len(in_shapes), "The lengths of in_types and in_shapes must equal"
    sym, arrays = _load(sym, params)
    nodes = topo(sym._outputs)
    missing = {}
    for n in nodes:
        if n.op is not None and n.op.name not in CONVERTERS:
            missing.setdefault(n.op.name, []).append(n.name)
    if missing:
        raise MXNetError("export_model: no ONNX translation for the MXNet operator(s) %s; "
                         "supported: mx.onnx.get_operator_support()" % "; ".join(
                             "%r (nodes %s)" % (op, ", ".join(names[:3]) +
                                                (" ..." if len(names) > 3 else ""))
                             for op, names in sorted(missing.items())))
    label = nodes[-1].name + "_label"
    data_vars = [n for n in nodes if n.op is None and n.name not in arrays and n.name != label]
    if len(data_vars) != len(in_shapes):
        raise MXNetError("export_model: the model has %d input(s) %s but in_shapes gives %d"
                         % (len(data_vars), [n.name for n in data_vars], len(in_shapes)))
    shapes = {n.name: s for n, s in zip(data_vars, in_shapes)}
    dtypes = {n.name: np.dtype(t) for n, t in zip(data_vars, in_types)}
    for k, v in arrays.items():
        shapes[k], dtypes[k] = v.shape, v.dtype
    _, out = infer.propagate(sym, shapes, dtypes)

    name_of, used = {}, set()
    for n in nodes:
        base = n.name if n.name not in used else "idx_%d_%s" % (len(used), n.name)
        used.add(base)
        for i in range(n.num_outputs()):
            name_of[(id(n), i)] = base if i == 0 else "%s%d" % (base, i)
    g = _Graph(onnx, out, name_of, arrays, dynamic)
    h = onnx.helper
    graph_inputs = []
    if dynamic_input_shapes is None:
        dynamic_input_shapes = [(None,) * len(s) for s in in_shapes]
    for k, n in enumerate(data_vars):
        shape = [d if d is not None else "%s_dim%d" % (n.name, j) for j, d in
                 enumerate(dynamic_input_shapes[k])] if dynamic else list(in_shapes[k])
        graph_inputs.append(h.make_tensor_value_info(n.name, g.onnx_type(dtypes[n.name]), shape))
    referenced = {n.name for n in nodes if n.op is None}
    for name in sorted(referenced & set(arrays)):
        g.initializers.append(onnx.numpy_helper.from_array(np.ascontiguousarray(arrays[name]),
                                                           name))
    for n in nodes:
        if n.op is None:
            continue
        if verbose:
            logging.info("Converting op: %s, name: %s", n.op.name, n.name)
        ins = ["" if src is None else name_of[(id(src), i)] for src, i in n.inputs]
        outs = [name_of[(id(n), i)] for i in range(n.num_outputs())]
        CONVERTERS[n.op.name](g, n, ins, outs, n.params())
    graph_outputs = []
    for src, i in sym._outputs:
        s = out.get((id(src), i))
        shape = None if s is None else ([None] * len(s.shape) if dynamic else list(s.shape))
        dt = np.float32 if s is None else s.dtype
        graph_outputs.append(h.make_tensor_value_info(name_of[(id(src), i)], g.onnx_type(dt),
                                                      shape))
    nodes_kept, inits_kept = _reachable(g.nodes, g.initializers, [o.name for o in graph_outputs])
    graph = h.make_graph(nodes_kept, "mxnet_converted_model", graph_inputs, graph_outputs,
                         initializer=inits_kept)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", OPSET)],
                         producer_name="xnd (MXNet 1.9.1 API)")
    model.ir_version = 8  # what opset 13 runtimes read
    onnx.checker.check_model(model)
    if run_shape_inference:
        try:
            model = onnx.shape_inference.infer_shapes(model)
        except Exception:  # noqa: BLE001  (as MXNet: keep the export when inference fails)
            logging.info("Shape inference failed, original export is kept.")
    with open(onnx_file_path, "wb") as f:
        f.write(model.SerializeToString())
    logging.info("Input shape of the model %s ", in_shapes)
    logging.info("Exported ONNX file %s saved to disk", onnx_file_path)
    return onnx_file_path
