"""MXNet's symbol JSON (``-symbol.json``): writing in 1.9.1's layout and reading every
version back to 0.8 (FORMATS.md §2), with MXNet's upgrades of old graphs.

Attribute values are strings parsed by the registry's safe parsers; nothing
is evaluated.
"""
import json
import logging

from ..base import MXNetError
from ..lowering import registry
from .symbol import Node, Symbol, topo

MXNET_VERSION = 10901
_HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")


def _dump(v, indent):
    """dmlc's JSON style: objects one key per line, short lists inline, ', ' separators."""
    pad = "  " * indent
    if isinstance(v, dict):
        if len(v) <= 1 and all(not isinstance(x, dict) for x in v.values()):
            return "{" + ", ".join(f"{json.dumps(k)}: {_dump(x, 0)}" for k, x in v.items()) + "}"
        inner = ", \n".join(f"{pad}  {json.dumps(k)}: {_dump(x, indent + 1)}" for k, x in v.items())
        return "{\n" + inner + "\n" + pad + "}"
    if isinstance(v, list):
        if all(not isinstance(x, dict) for x in v):
            return "[" + ", ".join(_dump(x, 0) for x in v) + "]"
        inner = ", \n".join(pad + "  " + _dump(x, indent + 1) for x in v)
        return "[\n" + inner + "\n" + pad + "]"
    return json.dumps(v)


def to_json(sym):
    nodes = topo(sym._outputs)
    index = {id(n): i for i, n in enumerate(nodes)}
    out_nodes, row_ptr = [], [0]
    for n in nodes:
        d = {"op": "null" if n.op is None else n.op.name, "name": n.name}
        if n.attrs:
            d["attrs"] = dict(n.attrs)
        inputs = []
        for k, (src, i) in enumerate(n.inputs):
            if n.versions is not None and k < len(n.versions):
                version = n.versions[k]
            else:  # freshly built graphs: 1 on auxiliary-state inputs (BatchNorm), else 0
                version = int(n.op is not None and n.input_slot(k) in n.op.aux)
            inputs.append([index[id(src)], i, version])
        d["inputs"] = inputs
        out_nodes.append(d)
        row_ptr.append(row_ptr[-1] + n.num_outputs())
    doc = {
        "nodes": out_nodes,
        "arg_nodes": [i for i, n in enumerate(nodes) if n.op is None],
        "node_row_ptr": row_ptr,
        "heads": [[index[id(n)], i, 0] for n, i in sym._outputs],
        "attrs": {"mxnet_version": ["int", MXNET_VERSION]},
    }
    return _dump(doc, 0)


def load_json(json_str):
    if not isinstance(json_str, str):
        raise TypeError("fname required to be string")
    try:
        doc = json.loads(json_str)
    except (ValueError, TypeError) as e:
        raise MXNetError(f"Failed to parse symbol JSON: {e}") from None
    if not isinstance(doc, dict) or any(k not in doc for k in ("nodes", "arg_nodes", "heads")):
        raise MXNetError("Invalid symbol JSON: 'nodes', 'arg_nodes' and 'heads' are required")
    version = _version(doc)
    if version < MXNET_VERSION:
        logging.info("Loading symbol saved by previous version v%d.%d.%d. Attempting to upgrade...",
                     version // 10000, version // 100 % 100, version % 100)
    nodes = []
    for k, d in enumerate(doc["nodes"]):
        try:
            op_name, name = d["op"], d["name"]
            attrs = {}
            for key in ("param", "attr", "attrs"):
                attrs.update({str(a): str(b) for a, b in (d.get(key) or {}).items()})
            inputs = [(nodes[e[0]], int(e[1])) for e in d.get("inputs", [])]
            versions = [int(e[2]) if len(e) > 2 else 0 for e in d.get("inputs", [])]
        except (KeyError, IndexError, TypeError) as e:
            raise MXNetError(f"Invalid symbol JSON: node {k} is malformed ({e!r})") from None
        op = None if op_name == "null" else registry.get(op_name)
        if version < MXNET_VERSION:
            attrs = _hide_keys(attrs)
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
    try:
        heads = [(nodes[h[0]], int(h[1])) for h in doc["heads"]]
    except (IndexError, TypeError) as e:
        raise MXNetError(f"Invalid symbol JSON: bad heads ({e!r})") from None
    return Symbol(heads)


def _version(doc):
    v = (doc.get("attrs") or {}).get("mxnet_version")
    if isinstance(v, list) and len(v) == 2:
        return int(v[1])
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


def load(fname):
    try:
        with open(fname, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise MXNetError(f'Open "{fname}": {e.strerror or e}') from e
    return load_json(text)
