"""MXNet's symbol JSON (``-symbol.json``): writing in 1.9.1's layout and reading every
version back to 0.8 (FORMATS.md §2), with MXNet's upgrades of old graphs.

Attribute values are strings parsed by the registry's safe parsers; nothing
is evaluated.
"""
import json
import logging

from ..base import MXNetError
from ..lowering import registry
from ..semantics import is_np_shape
from .graph import Node, graph_pass, topo
from .subgraph import SUBGRAPH_KEY, Subgraph

MXNET_VERSION = 10901
_HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")


class _Raw(str):
    """Text already in dmlc's layout (the node list, rendered per node by `_node_text`)."""


_q = json.encoder.encode_basestring_ascii  # json.dumps of one str, json's C function


def _node_text(op, name, attrs, inputs):
    """`_dump` of one node object at its place in the file (indent 2), without the generic
    recursion: a 30,000-node graph is written in a fraction of the time."""
    if not attrs:
        a = ""
    elif len(attrs) == 1:
        (k, v), = attrs.items()
        a = f'      "attrs": {{{_q(k)}: {_q(v)}}}, \n'
    else:
        body = ", \n".join(f"        {_q(k)}: {_q(v)}" for k, v in attrs.items())
        a = f'      "attrs": {{\n{body}\n      }}, \n'
    return (f'{{\n      "op": {_q(op)}, \n      "name": {_q(name)}, \n{a}'
            f'      "inputs": {json.dumps(inputs)}\n    }}')


def _dump(v, indent):
    """dmlc's JSON style: objects one key per line, short lists inline, ', ' separators."""
    pad = "  " * indent
    if isinstance(v, _Raw):
        return v
    if isinstance(v, dict):
        if len(v) <= 1 and all(not isinstance(x, dict) for x in v.values()):
            if not any(isinstance(x, list) and any(isinstance(y, dict) for y in x)
                       for x in v.values()):
                return json.dumps(v)  # the same text, from json's C encoder (30,000 nodes)
            return "{" + ", ".join(f"{json.dumps(k)}: {_dump(x, 0)}" for k, x in v.items()) + "}"
        inner = ", \n".join(f"{pad}  {json.dumps(k)}: {_dump(x, indent + 1)}" for k, x in v.items())
        return "{\n" + inner + "\n" + pad + "}"
    if isinstance(v, list):
        if all(not isinstance(x, dict) for x in v):
            if all(not isinstance(x, list) or all(not isinstance(y, dict) for y in x) for x in v):
                return json.dumps(v)
            return "[" + ", ".join(_dump(x, 0) for x in v) + "]"
        inner = ", \n".join(pad + "  " + _dump(x, indent + 1) for x in v)
        return "[\n" + inner + "\n" + pad + "]"
    return json.dumps(v)


def _op_name(n):
    """The node's op as the file names it (a hybridized block's whole-graph op that
    autograd.get_symbol meets is MXNet's ``_CachedOp``)."""
    if n.op is None:
        return "null"
    return "_CachedOp" if n.op.graph_op is not None else n.op.name


def _subgraph(n):
    """The loop body a control-flow node holds in its ``subgraph`` attribute (an object, not
    a string: xnd/symbol/subgraph.py), or None."""
    v = n.attrs.get(SUBGRAPH_KEY)
    return None if v is None or isinstance(v, str) else v


def _inputs(n, index):
    inputs = []
    for k, (src, i) in enumerate(n.inputs):
        if n.versions is not None and k < len(n.versions):
            version = n.versions[k]
        else:  # freshly built graphs: 1 on auxiliary-state inputs (BatchNorm), else 0
            version = int(n.op is not None and n.input_slot(k) in n.op.aux)
        inputs.append([index[id(src)], i, version])
    return inputs


def _node_doc(n, index):
    """One node as a JSON object, with its body as ``"subgraphs"`` (MXNet's layout)."""
    d = {"op": _op_name(n), "name": n.name}
    # sorted, as nnvm writes them (its node attributes are a std::map)
    attrs = {str(k): str(v) for k, v in sorted(n.attrs.items()) if k != SUBGRAPH_KEY}
    if attrs:
        d["attrs"] = attrs
    d["inputs"] = _inputs(n, index)
    sub = _subgraph(n)
    if sub is not None:
        d["subgraphs"] = [_graph_doc(sub._outputs)]
    return d


def _graph_doc(outputs):
    """A subgraph as a JSON object (no "attrs": MXNet writes the version at the top only)."""
    nodes = topo(outputs)
    index = {id(n): i for i, n in enumerate(nodes)}
    row_ptr = [0]
    for n in nodes:
        row_ptr.append(row_ptr[-1] + n.num_outputs())
    return {"nodes": [_node_doc(n, index) for n in nodes],
            "arg_nodes": [i for i, n in enumerate(nodes) if n.op is None],
            "node_row_ptr": row_ptr, "heads": [[index[id(n)], i, 0] for n, i in outputs]}


@graph_pass
def to_json(sym):
    nodes = topo(sym._outputs)
    index = {id(n): i for i, n in enumerate(nodes)}
    out_nodes, row_ptr = [], [0]
    for n in nodes:
        if _subgraph(n) is not None:  # the generic writer: a nested graph
            out_nodes.append(_dump(_node_doc(n, index), 2))
        else:
            out_nodes.append(_node_text(_op_name(n), n.name,
                                        {str(k): str(v) for k, v in sorted(n.attrs.items())},
                                        _inputs(n, index)))
        row_ptr.append(row_ptr[-1] + n.num_outputs())
    text = "[\n" + ", \n".join("    " + t for t in out_nodes) + "\n  ]" if out_nodes else "[]"
    doc = {
        "nodes": _Raw(text),
        "arg_nodes": [i for i, n in enumerate(nodes) if n.op is None],
        "node_row_ptr": row_ptr,
        "heads": [[index[id(n)], i, 0] for n, i in sym._outputs],
        "attrs": {"mxnet_version": ["int", MXNET_VERSION]},
    }
    if is_np_shape():  # MXNet marks graphs saved under numpy shape semantics (0: zero-size)
        doc["attrs"] = {"is_np_shape": ["int", 1], **doc["attrs"]}
    return _dump(doc, 0)


_TOP_KEYS = frozenset(("nodes", "arg_nodes", "node_row_ptr", "heads", "attrs"))
_NODE_KEYS = frozenset(("op", "name", "inputs", "attrs", "attr", "param", "control_deps",
                        "subgraphs", "backward_source_id"))  # the last: 0.8-era files


def _bad(msg):
    return MXNetError(f"Invalid symbol JSON: {msg}")


def _index(v, what):
    if type(v) is not int:  # not a bool, float or string: MXNet's reader wants a number
        raise _bad(f"{what} must be an integer, got {v!r}")
    return v


def _entry(e, n_nodes, what):
    """A [node_id, output_index(, version)] entry. The node must come earlier in the list and
    both indices be non-negative: -1 does not wrap to the last node as a Python index would."""
    if not isinstance(e, list) or len(e) not in (2, 3):
        raise _bad(f"{what} {e!r} must be [node_id, output_index, version]")
    nid, out = _index(e[0], f"{what} node id"), _index(e[1], f"{what} output index")
    if not 0 <= nid < n_nodes:
        raise _bad(f"{what} {e!r}: Check failed: e.node_id < jgraph.nodes.size() "
                   f"(node id {nid} of {n_nodes} nodes)")
    if out < 0:
        raise _bad(f"{what} {e!r}: output index {out} is negative")
    return nid, out, _index(e[2], f"{what} version") if len(e) > 2 else 0


def _check_fields(d, required, known, where, unknown_what, expected=""):
    """dmlc::JSONReader's checks of one object: every required field, no unknown one."""
    missing = next((k for k in required if k not in d), None)
    if missing is not None:
        raise _bad(f'{where}Missing field "{missing}"')
    unknown = sorted(set(d) - known)
    if unknown:
        raise _bad(f"{where}{unknown_what} {unknown}{expected}")


def _check_doc(doc):
    """The checks MXNet's JSON reader makes (dmlc::JSONReader's missing/unknown fields)."""
    if not isinstance(doc, dict):
        raise _bad(f"the top level must be an object, got {type(doc).__name__}")
    _check_fields(doc, ("nodes", "arg_nodes", "heads"), _TOP_KEYS, "",
                  "unknown top-level field(s)", f"; expected {sorted(_TOP_KEYS)}")
    for k in ("nodes", "arg_nodes", "heads"):
        if not isinstance(doc[k], list):
            raise _bad(f'"{k}" must be a list, got {type(doc[k]).__name__}')


@graph_pass
def read_json(json_str):
    """The output entries of the graph in MXNet's JSON text (``mx.sym.load_json`` wraps them
    in a Symbol)."""
    if not isinstance(json_str, str):
        raise TypeError("fname required to be string")
    try:
        doc = json.loads(json_str)
    except (ValueError, TypeError, RecursionError) as e:
        raise MXNetError(f"Failed to parse symbol JSON: {e}") from None
    _check_doc(doc)
    version = _version(doc)
    if version < MXNET_VERSION:
        logging.info("Loading symbol saved by previous version v%d.%d.%d. Attempting to upgrade...",
                     version // 10000, version // 100 % 100, version % 100)
    return _read_doc(doc, version)


def _read_subgraphs(d, k, name, version):
    """The loop body of a control-flow node's ``"subgraphs"`` (one graph), or None."""
    subs = d.get("subgraphs")
    if not subs:
        return None
    if not isinstance(subs, list) or len(subs) != 1:
        raise _bad(f"node {k} ({name}): subgraphs must be a list of one graph")
    _check_doc(subs[0])
    return Subgraph(_read_doc(subs[0], version))


def _read_doc(doc, version):
    """The output entries of one checked graph object (a subgraph's carries its file's
    version)."""
    nodes = []
    for k, d in enumerate(doc["nodes"]):
        if not isinstance(d, dict):
            raise _bad(f"node {k} must be an object, got {type(d).__name__}")
        _check_fields(d, ("op", "name", "inputs"), _NODE_KEYS, f"node {k}: ", "unknown field(s)")
        op_name, name = d["op"], d["name"]
        if not isinstance(op_name, str) or not isinstance(name, str) \
                or not isinstance(d["inputs"], list):
            raise _bad(f"node {k}: op and name must be strings and inputs a list")
        attrs = {}
        for key in ("param", "attr", "attrs"):
            a = d.get(key) or {}
            if not isinstance(a, dict):
                raise _bad(f"node {k} ({name}): {key} must be an object")
            attrs.update({str(a_): str(b) for a_, b in a.items()})
        entries = [_entry(e, k, f"node {k} ({name}) input") for e in d["inputs"]]
        inputs = [_output(nodes, nid, out, f"node {k} ({name}) input") for nid, out, _ in entries]
        versions = [v for _, _, v in entries]
        op = None if op_name == "null" else registry.get(op_name)
        if version < MXNET_VERSION:
            attrs = _hide_keys(attrs)
        sub = _read_subgraphs(d, k, name, version)
        if sub is not None:
            attrs[SUBGRAPH_KEY] = sub
        node = Node(op, name, attrs, inputs)
        node.versions = versions
        if op is not None:
            if version < 905 and op.name in ("argmax", "argmin") and attrs.get("axis") == "-1":
                del node.attrs["axis"]
            _move_input_attrs(node)
            node.params()  # unknown attributes fail here, as in MXNet
            if version < 900 and not op.variadic:
                _add_missing_inputs(node)
        nodes.append(node)
    for nid in doc["arg_nodes"]:
        if not 0 <= _index(nid, "arg_nodes entry") < len(nodes):
            raise _bad(f"arg_nodes entry {nid}: Check failed: nid < jgraph.nodes.size() "
                       f"({len(nodes)} nodes)")
        if nodes[nid].op is not None:
            raise _bad(f"arg_nodes entry {nid} ({nodes[nid].name}) is an operator, not a "
                       f"variable")
    heads = [_entry(h, len(nodes), "head") for h in doc["heads"]]
    return [_output(nodes, nid, out, "head") for nid, out, _ in heads]


def _output(nodes, nid, out, what):
    src = nodes[nid]
    n = src.num_outputs()
    if out >= n:
        raise _bad(f"{what} [{nid}, {out}]: node {src.name} has {n} output(s)")
    return src, out


def _version(doc):
    a = doc.get("attrs") or {}
    v = a.get("mxnet_version") if isinstance(a, dict) else None
    if isinstance(v, list) and len(v) == 2:
        return _index(v[1], "mxnet_version")
    return 800


def _hide_keys(attrs):
    return {(f"__{k}__" if k in _HIDDEN_KEYS else k): v for k, v in attrs.items()}


def _move_input_attrs(node):
    """``weight_lr_mult`` on an op node becomes ``__lr_mult__`` on its ``<name>_weight`` input."""
    for key in list(node.attrs):
        for hk in _HIDDEN_KEYS:
            if key.endswith("_" + hk) and not key.startswith("__"):
                slot = key[:-len(hk) - 1]
                for k, (src, _) in enumerate(node.inputs):
                    if src.op is None and node.input_slot(k) == slot:
                        src.attrs[f"__{hk}__"] = node.attrs.pop(key)
                        break


def _add_missing_inputs(node):
    """Pre-0.9 graphs lack inputs added later (BatchNorm's moving statistics)."""
    op = node.op
    if len(node.inputs) >= len(op.inputs):
        return
    params = {k: v for k, v in node.attrs.items() if not k.startswith("__")}
    for slot in op.inputs[len(node.inputs):]:
        attrs = dict(params)
        init = (op.input_init or {}).get(slot)
        if init is not None:
            attrs["__init__"] = init
        node.inputs.append((Node(None, f"{node.name}_{slot}", attrs), 0))
        if node.versions is not None:
            node.versions.append(0)


def read_file(fname):
    """`read_json` of a ``-symbol.json`` file."""
    try:
        with open(fname, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise MXNetError(f'Open "{fname}": {e.strerror or e}') from e
    return read_json(text)
