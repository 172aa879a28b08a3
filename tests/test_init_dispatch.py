"""Initializer name dispatch against MXNet 1.9.1 (goldens: tests/make_init_dispatch_goldens.py):
bare InitDesc names that match no pattern raise MXNet's ValueError for every initializer,
the legacy string path and ``__init__`` attributes initialize, Mixed/Load report as MXNet."""
import json
import os
import warnings

import pytest

import golden_files
import xnd as mx

G = json.load(open(os.path.join(os.path.dirname(__file__), "goldens", "init", "dispatch.json")))


def _outcome(fn):
    a = mx.nd.ones((6, 4)) * 7
    try:
        fn(a)
    except Exception as e:  # noqa: BLE001 - compared with MXNet's error
        return {"error": type(e).__name__, "message": str(e)[:120]}
    v = a.asnumpy()
    return {"fill": float(v.flat[0]) if (v == v.flat[0]).all() else "random"}


def _run(key, a):
    kind, rest = key.split("/", 1)
    if kind == "mixed":
        return mx.init.Mixed([".*weight"], [mx.init.One()])(mx.init.InitDesc(rest), a)
    if kind == "load":
        return mx.init.Load({"arg:fc_weight": mx.nd.ones((6, 4))})(mx.init.InitDesc(rest), a)
    if kind == "load_default":
        return mx.init.Load({"arg:fc_weight": mx.nd.ones((6, 4))},
                            default_init=mx.init.Xavier())(mx.init.InitDesc(rest), a)
    if kind == "attr":
        t = {"bn_moving_mean": "zeros", "bn_moving_var": "ones"}[rest]
        return mx.init.Xavier()(mx.init.InitDesc(rest, {"__init__": t}), a)
    mode, name = rest.split("/", 1)
    ini = golden_files.initializer(mx, G["inits"][kind])
    return ini(mx.init.InitDesc(name) if mode == "desc" else name, a)


@pytest.mark.parametrize("key", sorted(G["cases"]))
def test_dispatch_matches_mxnet(key):
    want = G["cases"][key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _outcome(lambda a: _run(key, a))
    assert got == want


def test_module_batchnorm_statistics_still_initialize():
    # the __init__-attribute path: BatchNorm's moving statistics never reach the name dispatch
    data = mx.sym.Variable("data")
    net = mx.sym.BatchNorm(mx.sym.FullyConnected(data, num_hidden=3, name="fc"), name="bn")
    mod = mx.mod.Module(net, label_names=None)
    mod.bind([("data", (2, 4))])
    mod.init_params(mx.init.Xavier())
    _, aux = mod.get_params()
    assert aux["bn_moving_mean"].asnumpy().tolist() == [0.0] * 3
    assert aux["bn_moving_var"].asnumpy().tolist() == [1.0] * 3
    net = mx.gluon.nn.BatchNorm(in_channels=3)
    net.initialize(mx.init.Xavier())
    assert net.running_var.data().asnumpy().tolist() == [1.0] * 3
