"""mx.viz / mx.visualization: print_summary and plot_network for Symbols.

Both read the graph from ``symbol.tojson()`` (MXNet's node list) and the
shapes from ``get_internals().infer_shape``, as MXNet 1.9.1 does, so the
summary table (its layout, its parameter counts for Convolution,
FullyConnected, BatchNorm and Embedding, and its quirks) is MXNet's.
`plot_network` returns a ``graphviz.Digraph``; it needs the ``graphviz``
Python package (``pip install graphviz``; rendering to a file also needs the
Graphviz programs), which xnd does not depend on.
"""
import copy
import json
import re
import warnings

from ..symbol import Symbol

__all__ = ["print_summary", "plot_network"]


def _str2tuple(string):
    """The numbers in a shape string: '(3, 3)' -> ['3', '3']."""
    return re.findall(r"\d+", string)


def _print_row(fields, positions):
    line = ""
    for i, field in enumerate(fields):
        line += str(field)
        line = line[:positions[i]]
        line += " " * (positions[i] - len(line))
    print(line)


def print_summary(symbol, shape=None, line_length=120, positions=(.44, .64, .74, 1.)):
    """Print a table of the layers of `symbol`: name(op), output shape, parameter count and
    the layers feeding it, then the total parameter count.

    symbol: Symbol; shape: dict name -> input shape, optional (without it the shape column is
    empty and only the counts that do not need shapes are given); line_length: width of the
    table; positions: where each column ends, as fractions of line_length or as columns.
    """
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be Symbol")
    show_shape = shape is not None
    shape_dict = _inferred(symbol.get_internals(), "shape", shape) if show_shape else {}
    conf = json.loads(symbol.tojson())
    nodes = conf["nodes"]
    # MXNet takes the *first* head entry [node, index, version] as a set of numbers, so node 0
    # (the first input) always counts as a head; the table keeps that.
    heads = set(conf["heads"][0])
    positions = list(positions)
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    print("_" * line_length)
    _print_row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"], positions)
    print("=" * line_length)

    def layer(node, out_shape):
        op = node["op"]
        attrs = node.get("attrs", node.get("param", {})) or {}
        pre_node = []
        pre_filter = 0
        if op != "null":
            for item in node["inputs"]:
                input_node = nodes[item[0]]
                input_name = input_node["name"]
                if input_node["op"] != "null" or item[0] in heads:
                    pre_node.append(input_name)
                    if show_shape:
                        key = input_name + "_output" if input_node["op"] != "null" else input_name
                        if key in shape_dict:
                            pre_filter += int(shape_dict[key][1:][0])
        cur_param = 0
        if op == "Convolution":
            num_group = int(attrs.get("num_group", "1"))
            cur_param = pre_filter * int(attrs["num_filter"]) // num_group
            for k in _str2tuple(attrs["kernel"]):
                cur_param *= int(k)
            if not ("no_bias" in attrs and attrs["no_bias"] == "True"):
                cur_param += int(attrs["num_filter"])
        elif op == "FullyConnected":
            if "no_bias" in attrs and attrs["no_bias"] == "True":
                cur_param = pre_filter * int(attrs["num_hidden"])
            else:
                cur_param = (pre_filter + 1) * int(attrs["num_hidden"])
        elif op == "BatchNorm":
            if show_shape:
                cur_param = int(shape_dict[node["name"] + "_output"][1]) * 2
        elif op == "Embedding":
            cur_param = int(attrs["input_dim"]) * int(attrs["output_dim"])
        first_connection = pre_node[0] if pre_node else ""
        _print_row([node["name"] + "(" + op + ")", "x".join(str(x) for x in out_shape), cur_param,
                    first_connection], positions)
        for name in pre_node[1:]:
            _print_row(["", "", "", name], positions)
        return cur_param

    total_params = 0
    for i, node in enumerate(nodes):
        out_shape = []
        op = node["op"]
        if op == "null" and i > 0:
            continue
        if op != "null" or i in heads:
            if show_shape:
                key = node["name"] + "_output" if op != "null" else node["name"]
                if key in shape_dict:
                    out_shape = shape_dict[key][1:]
        total_params += layer(node, out_shape)
        print("=" * line_length if i == len(nodes) - 1 else "_" * line_length)
    print("Total params: {params}".format(params=total_params))
    print("_" * line_length)


_COLORS = ("#8dd3c7", "#fb8072", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69", "#fccde5")
_WEIGHT_LIKE = ("_weight", "_bias", "_beta", "_gamma", "_moving_var", "_moving_mean",
                "_running_var", "_running_mean")


def _inferred(internals, what, given):
    """{output name: its inferred shape (or type)} of a symbol's internals, from the input
    shapes (types) `given`; MXNet's ValueError when they do not decide every output."""
    _, outs, _ = getattr(internals, "infer_" + what)(**given)
    if outs is None:
        raise ValueError(f"Input {what} is incomplete")
    return dict(zip(internals.list_outputs(), outs))


def _digraph_class():
    try:
        from graphviz import Digraph
    except ImportError:
        raise ImportError("mx.viz.plot_network needs the 'graphviz' Python package, which xnd "
                          "does not install: pip install graphviz (rendering to a file also "
                          "needs the Graphviz programs, e.g. apt-get install graphviz)") from None
    return Digraph


def plot_network(symbol, title="plot", save_format="pdf", shape=None, dtype=None, node_attrs={},
                 hide_weights=True):
    """A graphviz Digraph of the graph of `symbol` (MXNet's node labels and colours); edge
    labels give the shapes (and dtypes) when `shape` (and `dtype`) dicts of the inputs are given.
    Needs the ``graphviz`` Python package."""
    Digraph = _digraph_class()
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be a Symbol")
    internals = symbol.get_internals()
    draw_shape = shape is not None
    if draw_shape:
        shape_dict = _inferred(internals, "shape", shape)
    draw_type = dtype is not None
    if draw_type:
        type_dict = _inferred(internals, "type", dtype)
    conf = json.loads(symbol.tojson())
    nodes = conf["nodes"]
    names = [node["name"] for node in nodes]
    if len(names) != len(set(names)):
        seen, repeated = set(), []
        for n in names:
            if n in seen and n not in repeated:
                repeated.append(n)
            seen.add(n)
        warnings.warn("There are multiple variables with the same name in your graph, this may "
                      "result in cyclic graph. Repeated names: " + ",".join(repeated), RuntimeWarning)
    node_attr = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034",
                 "style": "filled"}
    node_attr.update(node_attrs)
    dot = Digraph(name=title, format=save_format)

    hidden_nodes = set()
    for node in nodes:
        op = node["op"]
        name = node["name"]
        attrs = node.get("attrs", node.get("param", {})) or {}
        attr = copy.deepcopy(node_attr)
        label = name
        if op == "null":
            if name.endswith(_WEIGHT_LIKE):
                if hide_weights:
                    hidden_nodes.add(name)
                continue  # shown weights are drawn as the empty ovals of their edges
            attr["shape"] = "oval"
            attr["fillcolor"] = _COLORS[0]
        elif op == "Convolution":
            label = "Convolution\n{kernel}/{stride}, {filter}".format(
                kernel="x".join(_str2tuple(attrs["kernel"])),
                stride="x".join(_str2tuple(attrs["stride"])) if "stride" in attrs else "1",
                filter=attrs["num_filter"])
            attr["fillcolor"] = _COLORS[1]
        elif op == "FullyConnected":
            label = "FullyConnected\n{hidden}".format(hidden=attrs["num_hidden"])
            attr["fillcolor"] = _COLORS[1]
        elif op == "BatchNorm":
            attr["fillcolor"] = _COLORS[3]
        elif op == "Activation":
            label = "Activation\n{activation}".format(activation=attrs["act_type"])
            attr["fillcolor"] = _COLORS[2]
        elif op == "LeakyReLU":
            label = "LeakyReLU\n{activation}".format(activation=attrs.get("act_type", "Leaky"))
            attr["fillcolor"] = _COLORS[2]
        elif op == "Pooling":
            label = "Pooling\n{pooltype}, {kernel}/{stride}".format(
                pooltype=attrs["pool_type"],
                kernel="x".join(_str2tuple(attrs["kernel"])) if "kernel" in attrs else "[]",
                stride="x".join(_str2tuple(attrs["stride"])) if "stride" in attrs else "1")
            attr["fillcolor"] = _COLORS[4]
        elif op in ("Concat", "Flatten", "Reshape"):
            attr["fillcolor"] = _COLORS[5]
        elif op == "Softmax":
            attr["fillcolor"] = _COLORS[6]
        else:
            attr["fillcolor"] = _COLORS[7]
            if op == "Custom":
                label = attrs["op_type"]
        dot.node(name=name, label=label, **attr)

    def output_key(input_node):
        key = input_node["name"] + "_output"
        params = input_node.get("attrs") or {}
        if "num_outputs" in params:
            key += str(int(params["num_outputs"]) - 1)
        return key

    for node in nodes:
        if node["op"] == "null":
            continue
        inputs = node["inputs"]
        if node["op"] == "_contrib_BilinearResize2D":
            inputs = [inputs[0]]
        for item in inputs:
            input_node = nodes[item[0]]
            input_name = input_node["name"]
            if input_name in hidden_nodes:
                continue
            attr = {"dir": "back", "arrowtail": "open", "label": ""}
            key = output_key(input_node) if input_node["op"] != "null" else input_name
            if draw_shape:
                attr["label"] = "x".join(str(x) for x in shape_dict[key][1:])
            if draw_type:
                attr["label"] += "(" + type_dict[key].__name__ + ")"
            dot.edge(tail_name=node["name"], head_name=input_name, **attr)
    return dot
