"""Record what MXNet 1.9.1's initializers do with names (issue 22): every initializer on
bare ``InitDesc`` names and on legacy string names, Mixed and Load on unmatched names.

    /work/mxref/bin/python tests/make_init_dispatch_goldens.py

Writes ``tests/goldens/init/dispatch.json``: per case either ``{"error": type, "message":
first 120 characters}`` or ``{"fill": "random"}`` / ``{"fill": value}`` (the constant written).
"""
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402

mx = golden_files.real_mxnet()

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "init")

# constructors as strings: the test builds the same ones in xnd
INITS = {"xavier": "Xavier()", "uniform": "Uniform()", "normal": "Normal()",
         "orthogonal": "Orthogonal()", "msraprelu": "MSRAPrelu()", "zero": "Zero()",
         "one": "One()", "constant": "Constant(2.0)", "lstmbias": "LSTMBias()"}
NAMES = ["bn_moving_mean", "bn_moving_var", "foo", "fc_weight", "fc_bias", "x_gamma", "x_beta",
         "x_min", "x_max", "bn_running_mean", "bn_running_var", "bn_moving_inv_var",
         "bn_moving_avg", "upsampling_weight"]


def outcome(fn):
    a = mx.nd.ones((6, 4)) * 7
    try:
        fn(a)
    except Exception as e:  # noqa: BLE001 - the error is the golden
        return {"error": type(e).__name__, "message": str(e)[:120]}
    v = a.asnumpy()
    return {"fill": float(v.flat[0]) if (v == v.flat[0]).all() else "random"}


def main():
    warnings.simplefilter("ignore")
    cases = {}
    for label, ctor in INITS.items():
        for name in NAMES:
            for mode in ("desc", "str"):
                def run(a, ctor=ctor, name=name, mode=mode):
                    ini = golden_files.initializer(mx, ctor)
                    ini(mx.init.InitDesc(name) if mode == "desc" else name, a)
                cases["%s/%s/%s" % (label, mode, name)] = outcome(run)
    for name in ("fc_weight", "bn_moving_mean"):
        cases["mixed/" + name] = outcome(
            lambda a, n=name: mx.init.Mixed([".*weight"], [mx.init.One()])(mx.init.InitDesc(n), a))
        cases["load/" + name] = outcome(
            lambda a, n=name: mx.init.Load({"arg:fc_weight": mx.nd.ones((6, 4))})(
                mx.init.InitDesc(n), a))
        cases["load_default/" + name] = outcome(
            lambda a, n=name: mx.init.Load({"arg:fc_weight": mx.nd.ones((6, 4))},
                                           default_init=mx.init.Xavier())(mx.init.InitDesc(n), a))
    for name, attr in (("bn_moving_mean", "zeros"), ("bn_moving_var", "ones")):
        cases["attr/" + name] = outcome(
            lambda a, n=name, t=attr: mx.init.Xavier()(mx.init.InitDesc(n, {"__init__": t}), a))
    golden_files.write(os.path.join(OUT, "dispatch.json"), os.path.join(OUT, "dispatch.npz"),
                       {"inits": INITS, "cases": cases}, {})


if __name__ == "__main__":
    main()
