"""Check that symbol JSON written by xnd loads in real MXNet 1.9.1 as the same graph.

Not a pytest test (it needs the reference interpreter).  Run it with xnd's
Python:

    python tests/check_json_with_mxnet.py [--mxref /work/mxref/bin/python] [--keep DIR]

It builds several graphs with xnd (and loads the MXNet-written fixtures with
xnd), writes xnd's ``tojson()`` of each to a temporary directory, then runs
this same file under the reference interpreter (``--mxnet-side DIR``), which
for every graph

* loads xnd's JSON with ``mx.sym.load`` and reports list_arguments /
  list_outputs / list_auxiliary_states / get_internals().list_outputs() /
  infer_shape(**shapes);
* builds the same graph natively with MXNet (same builder function) or loads
  the original fixture, and reports the same lists, its infer_shape and its
  own parsed JSON.

Back in xnd's process the results are compared: MXNet(xnd JSON) must equal
MXNet(native) for every list and for infer_shape, xnd's own lists must equal
MXNet's, and xnd's JSON nodes/heads/arg_nodes must equal MXNet's native JSON
(node_row_ptr is reported, not required, for graphs with Pooling: MKLDNN
builds give Pooling an extra workspace output).  Exit status 0 when every
required check passes.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")
MXREF = "/work/mxref/bin/python"


# ---------------------------------------------------------------------------
# graph builders: functions of the mxnet-like module (run on both sides)
# ---------------------------------------------------------------------------

def g_mlp(mx):
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=16, name="fc1")
    a = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    fc2 = mx.sym.FullyConnected(a, num_hidden=4, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def g_cnn_bn(mx):
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=8, pad=(1, 1), name="conv1")
    b = mx.sym.BatchNorm(c, fix_gamma=False, eps=1e-5, name="bn1")
    a = mx.sym.Activation(b, act_type="relu", name="relu1")
    p = mx.sym.Pooling(a, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    d = mx.sym.Dropout(p, p=0.25, name="drop")
    f = mx.sym.Flatten(d, name="flat")
    fc = mx.sym.FullyConnected(f, num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def g_auto_names_arith(mx):
    with mx.name.NameManager():
        x = mx.sym.var("x")
        y = mx.sym.var("y")
        z = (x + y) * 2 - 1 / (y + 3) + x ** 2
        r = mx.sym.relu(z)
        s = mx.sym.sigmoid(mx.sym.FullyConnected(r, num_hidden=5))
        return mx.sym.Group([s, z > 0, -x])


def g_split_group(mx):
    data = mx.sym.var("data")
    sp = mx.sym.split(data, num_outputs=3, axis=1, name="sp")
    bn = mx.sym.BatchNorm(sp[0], name="bn", output_mean_var=True)
    return mx.sym.Group([sp[2], mx.sym.relu(sp[1], name="r"), bn[1],
                         mx.sym.Concat(sp[0], sp[1], dim=1, name="cat")])


def g_attrs_scope(mx):
    with mx.AttrScope(ctx_group="dev1", wd_mult="0.5"):
        data = mx.sym.var("data", shape=(2, 3), lr_mult=0.5)
        w = mx.sym.var("w", wd_mult=0.1, dtype="float32")
        fc = mx.sym.FullyConnected(data, weight=w, num_hidden=4, no_bias=True, name="fc")
    e = mx.sym.Embedding(mx.sym.var("idx"), input_dim=10, output_dim=4, name="emb")
    lr = mx.sym.LeakyReLU(fc + e, act_type="prelu", name="prelu")
    return mx.sym.LinearRegressionOutput(mx.sym.Reshape(lr, shape=(0, -1)), name="lro")


GRAPHS = [
    # name, builder or fixture file, infer_shape kwargs
    ("mlp", g_mlp, {"data": (5, 7)}),
    ("cnn_bn", g_cnn_bn, {"data": (2, 3, 8, 8)}),
    ("auto_names_arith", g_auto_names_arith, {"x": (4, 6), "y": (4, 6)}),
    ("split_group", g_split_group, {"data": (2, 6, 4)}),
    ("attrs_scope", g_attrs_scope, {"data": (2, 3), "idx": (2,)}),
    ("fixture_lenet", "lenet-symbol.json", {"data": (4, 1, 28, 28)}),
    ("fixture_legacy_v0800", "legacy_v0800_lenet-symbol.json", {"data": (4, 1, 28, 28)}),
    ("fixture_attr_key", "attr_key_lenet-symbol.json", {"data": (4, 1, 28, 28)}),
    ("fixture_multi_output", "multi_output-symbol.json", {"data": (2, 6, 4)}),
    ("fixture_gluon_cnn", "gluon_cnn-symbol.json", {"data": (4, 3, 16, 16)}),
]


def _build(mx, spec):
    if isinstance(spec, str):
        return mx.sym.load(os.path.join(FIX, spec))
    with mx.name.NameManager():
        return spec(mx)


def _info(mx, sym, shapes):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            shp = sym.infer_shape(**shapes)
            shp = [None if x is None else [list(t) for t in x] for x in shp]
        except Exception as e:  # noqa: BLE001
            shp = "error %s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
    return {"args": sym.list_arguments(), "outputs": sym.list_outputs(),
            "aux": sym.list_auxiliary_states(),
            "internals": sym.get_internals().list_outputs(), "infer_shape": shp}


def _structure(js):
    doc = json.loads(js)
    nodes = []
    for n in doc["nodes"]:
        attrs = {}
        for k in ("param", "attr", "attrs"):
            attrs.update(n.get(k) or {})
        nodes.append({"op": n["op"], "name": n["name"], "attrs": attrs,
                      "inputs": [list(e[:2]) for e in n["inputs"]]})
    has_pool = any(n["op"] == "Pooling" for n in nodes)
    return {"nodes": nodes, "arg_nodes": doc.get("arg_nodes"),
            "heads": [list(h[:2]) for h in doc["heads"]],
            "node_row_ptr": doc.get("node_row_ptr"), "has_pool": has_pool}


# ---------------------------------------------------------------------------
# MXNet side
# ---------------------------------------------------------------------------

def mxnet_side(directory):
    os.environ.setdefault("MXNET_SUBGRAPH_VERBOSE", "0")
    import logging
    logging.disable(logging.CRITICAL)
    import mxnet as mx
    assert mx.__version__ == "1.9.1", mx.__version__
    out = {}
    for name, spec, shapes in GRAPHS:
        entry = {}
        try:
            loaded = mx.sym.load(os.path.join(directory, name + ".json"))
            entry["from_xnd"] = _info(mx, loaded, shapes)
        except Exception as e:  # noqa: BLE001
            entry["from_xnd"] = "error %s: %s" % (type(e).__name__,
                                                  str(e).strip().splitlines()[-1][:300])
        native = _build(mx, spec)
        entry["native"] = _info(mx, native, shapes)
        entry["native_json"] = _structure(native.tojson())
        out[name] = entry
    json.dump(out, sys.stdout)


# ---------------------------------------------------------------------------
# xnd side
# ---------------------------------------------------------------------------

def _diff(a, b):
    if a == b:
        return None
    where = ""
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        i = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
        where, a, b = "first difference at [%d]: " % i, a[i], b[i]
    return "%sxnd-side %s\n      mxnet   %s" % (where, json.dumps(a)[:500], json.dumps(b)[:500])


def xnd_side(mxref, keep):
    sys.path.insert(0, os.path.dirname(HERE))
    import xnd as mx
    directory = keep or tempfile.mkdtemp(prefix="xnd_json_check_")
    os.makedirs(directory, exist_ok=True)
    mine = {}
    for name, spec, shapes in GRAPHS:
        sym = _build(mx, spec)
        js = sym.tojson()
        with open(os.path.join(directory, name + ".json"), "w") as f:
            f.write(js)
        mine[name] = {"info": _info(mx, sym, shapes), "json": _structure(js)}
    env = dict(os.environ, MXNET_SUBGRAPH_VERBOSE="0")
    proc = subprocess.run([mxref, os.path.abspath(__file__), "--mxnet-side", directory],
                          capture_output=True, text=True, env=env, cwd=HERE)
    if proc.returncode != 0:
        print(proc.stderr[-3000:])
        sys.exit("MXNet side failed (exit %d)" % proc.returncode)
    theirs = json.loads(proc.stdout)
    failures = 0
    for name, _, _ in GRAPHS:
        m, t = mine[name], theirs[name]
        checks = []
        fx = t["from_xnd"]
        if isinstance(fx, str):
            checks.append(("MXNet loads xnd's JSON", fx, True))
        else:
            for key in ("args", "outputs", "aux", "internals", "infer_shape"):
                checks.append(("MXNet(xnd json).%s == MXNet(native).%s" % (key, key),
                               _diff(fx[key], t["native"][key]), True))
        for key in ("args", "outputs", "aux", "internals"):
            checks.append(("xnd.%s == MXNet.%s" % (key, key),
                           _diff(m["info"][key], t["native"][key]), True))
        checks.append(("xnd.infer_shape == MXNet.infer_shape",
                       _diff(m["info"]["infer_shape"], t["native"]["infer_shape"]), True))
        nj = t["native_json"]
        for key in ("nodes", "arg_nodes", "heads"):
            checks.append(("xnd JSON %s == MXNet JSON %s" % (key, key),
                           _diff(m["json"][key], nj[key]), True))
        checks.append(("xnd JSON node_row_ptr == MXNet's" +
                       (" (Pooling: informational)" if nj["has_pool"] else ""),
                       _diff(m["json"]["node_row_ptr"], nj["node_row_ptr"]), not nj["has_pool"]))
        bad = [c for c in checks if c[1] is not None and c[2]]
        info = [c for c in checks if c[1] is not None and not c[2]]
        failures += len(bad)
        print("%-22s %s (%d checks, %d failed%s)" % (
            name, "OK  " if not bad else "FAIL", len(checks), len(bad),
            ", %d informational differences" % len(info) if info else ""))
        for what, d, _ in bad + info:
            print("    - %s\n      %s" % (what, d))
    if not keep:
        shutil.rmtree(directory, ignore_errors=True)
    print("\n%d graphs, %d failed checks" % (len(GRAPHS), failures))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mxnet-side", metavar="DIR", help=argparse.SUPPRESS)
    ap.add_argument("--mxref", default=MXREF, help="reference interpreter with mxnet 1.9.1")
    ap.add_argument("--keep", metavar="DIR", help="write the JSON files here and keep them")
    a = ap.parse_args()
    if a.mxnet_side:
        mxnet_side(a.mxnet_side)
        return 0
    return xnd_side(a.mxref, a.keep)


if __name__ == "__main__":
    sys.exit(main())
