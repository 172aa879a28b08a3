"""Samplers given ``out=`` (mx.random.* / mx.nd.random.* / the generated mx.nd.random_*
functions): the shape and dtype they fill, whether they return ``out``, and the error where
MXNet raises one; shared by make_sampler_out_goldens.py (MXNet 1.9.1) and
test_sampler_out.py. Values are random (streams differ from MXNet's): each case also reports
whether every drawn value lies in the sampler's support."""
import numpy as np


def _cases(mx):
    nd, r = mx.nd, mx.random
    z = nd.zeros
    p = nd.array([[0.5, 0.5], [0.2, 0.8]])
    lo, hi = nd.array([0, 1]), nd.array([1, 2])
    return [  # (name, out, call(out), support check of the values)
        ("random.uniform", z((2, 3)), lambda o: r.uniform(-1, 1, out=o),
         lambda v: (v >= -1).all() and (v < 1).all()),
        ("nd.random.uniform", z((4,)), lambda o: nd.random.uniform(2, 3, out=o),
         lambda v: (v >= 2).all() and (v < 3).all()),
        ("random.normal", z((3, 2)), lambda o: r.normal(0, 1, out=o),
         lambda v: np.isfinite(v).all()),
        ("nd.random.normal f16", z((2, 3), dtype="float16"),
         lambda o: nd.random.normal(0, 1, out=o), lambda v: np.isfinite(v).all()),
        ("random.randn", z((2, 2)), lambda o: r.randn(out=o), lambda v: np.isfinite(v).all()),
        ("random.gamma", z((2, 3)), lambda o: r.gamma(2, 1, out=o), lambda v: (v > 0).all()),
        ("nd.random.exponential f64", z((5,), dtype="float64"),
         lambda o: nd.random.exponential(2.0, out=o), lambda v: (v >= 0).all()),
        ("random.poisson", z((2, 3)), lambda o: r.poisson(3, out=o),
         lambda v: (v >= 0).all() and (v == np.round(v)).all()),
        ("nd.random.negative_binomial", z((2, 3)),
         lambda o: nd.random.negative_binomial(3, 0.5, out=o),
         lambda v: (v >= 0).all() and (v == np.round(v)).all()),
        ("random.generalized_negative_binomial", z((2, 3)),
         lambda o: r.generalized_negative_binomial(2, 0.5, out=o),
         lambda v: (v >= 0).all() and (v == np.round(v)).all()),
        ("random.randint", z((2, 3), dtype="int32"), lambda o: r.randint(0, 5, out=o),
         lambda v: (v >= 0).all() and (v < 5).all()),
        ("nd.random.randint int64", z((4,), dtype="int64"),
         lambda o: nd.random.randint(-3, 3, out=o), lambda v: (v >= -3).all() and (v < 3).all()),
        ("nd.random_uniform generated", z((2, 3), dtype="float64"),
         lambda o: nd.random_uniform(out=o), lambda v: (v >= 0).all() and (v < 1).all()),
        ("uniform shape given", z((2, 3)), lambda o: r.uniform(0, 1, shape=(2, 3), out=o),
         lambda v: (v >= 0).all() and (v < 1).all()),
        ("uniform array params f64", z((2,), dtype="float64"),
         lambda o: nd.random.uniform(lo, hi, out=o), lambda v: (v >= [0, 1]).all()),
        ("uniform array params shape", z((2, 4)),
         lambda o: nd.random.uniform(lo, hi, shape=4, out=o), lambda v: (v < 2).all()),
        ("multinomial int32", z((2, 3), dtype="int32"),
         lambda o: nd.random.multinomial(p, shape=3, out=o),
         lambda v: ((v == 0) | (v == 1)).all()),
        # errors
        ("uniform shape mismatch", z((2, 3)), lambda o: r.uniform(0, 1, shape=(4,), out=o), None),
        ("uniform dtype mismatch", z((2, 3)),
         lambda o: nd.random.uniform(0, 1, dtype="float16", out=o), None),
        ("uniform int out", z((2, 3), dtype="int32"), lambda o: r.uniform(0, 1, out=o), None),
        ("randint float out", z((2, 3)), lambda o: r.randint(0, 5, out=o), None),
        ("multinomial float out", z((2,)), lambda o: nd.random.multinomial(p, out=o), None),
        ("multinomial shape mismatch", z((2, 3)), lambda o: nd.random.multinomial(p, out=o),
         None),
        ("uniform array params mismatch", z((2, 3)),
         lambda o: nd.random.uniform(lo, hi, out=o), None),
    ]


def run_all(mx):
    """{case: [shape, dtype, returns out, values in support] or ["error", type name]}."""
    res = {}
    for name, out, call, support in _cases(mx):
        try:
            got = call(out)
        except Exception as e:  # noqa: BLE001  (the error type is the result)
            res[name] = ["error", type(e).__name__]
            continue
        v = out.asnumpy()
        res[name] = [list(out.shape), np.dtype(out.dtype).name, got is out,
                     bool(support(v)) and bool((v != 0).any())]
    return res
