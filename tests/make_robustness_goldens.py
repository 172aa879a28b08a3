"""Record what MXNet 1.9.1 does with the bad and extreme input of tests/robustness_cases.py.

    /work/mxref/bin/python tests/make_robustness_goldens.py

Writes tests/goldens/robustness/robustness.{json,npz}: the arrays of each value case, and for
each raise case the first line of MXNet's error (so the test knows MXNet raised); for each
symbol-JSON mutation whether MXNet loads it (and its arguments and outputs) or raises.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402
import robustness_cases as rc  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "robustness")


def _first_line(e):
    lines = [ln for ln in str(e).splitlines() if "Check failed" in ln or "MXNetError:" in ln]
    return (lines or str(e).splitlines() or [""])[0][:300]


def main():
    import mxnet as mx
    meta, arrays = {"value": {}, "raise": {}}, {}
    for case in rc.VALUE_CASES:
        outs = rc.run(mx, case)
        meta["value"][case[0]] = [{"shape": list(o.shape), "dtype": o.dtype.name} for o in outs]
        for i, o in enumerate(outs):
            arrays[f"{case[0]}/{i}"] = o
    for case in rc.RAISE_CASES + rc.HUGE_CASES:
        try:
            rc.run(mx, case)
        except mx.base.MXNetError as e:
            meta["raise"][case[0]] = _first_line(e)
        except Exception as e:  # nd.full's huge shape raises a bare Exception in MXNet
            meta["raise"][case[0]] = f"{type(e).__name__}: {_first_line(e)}"
        else:
            raise SystemExit(f"MXNet did not raise for {case[0]}")
    x = mx.sym.var("data")
    base = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=3, name="fc"), name="r").tojson()
    meta["json_base"] = base
    meta["json"] = {n: rc.load_outcome(mx, rc.mutated_json(base, n)) for n in rc.JSON_CASES}
    meta["json_stricter"] = {n: rc.load_outcome(mx, rc.mutated_json(base, n))
                             for n in rc.JSON_STRICTER}
    golden_files.write(os.path.join(OUT, "robustness.json"), os.path.join(OUT, "robustness.npz"),
                       meta, arrays)


if __name__ == "__main__":
    main()
