"""Three steps of every optimizer update operator, run with `out=` the way scripts call
them (shared by make_optimizer_op_goldens.py on MXNet 1.9.1 and test_optimizer_ops.py)."""
import numpy as np

CASES = [  # (op, number of state inputs, attributes)
    ("sgd_update", 0, dict(lr=0.1, wd=0.01, rescale_grad=0.5, clip_gradient=0.3)),
    ("sgd_mom_update", 1, dict(lr=0.1, momentum=0.9, wd=0.01)),
    ("nag_mom_update", 1, dict(lr=0.1, momentum=0.9, wd=0.01)),
    ("signsgd_update", 0, dict(lr=0.1, wd=0.01)),
    ("signum_update", 1, dict(lr=0.1, momentum=0.9, wd=0.01, wd_lh=0.02)),
    ("adam_update", 2, dict(lr=0.01, wd=0.01, clip_gradient=1.0)),
    ("rmsprop_update", 1, dict(lr=0.01, wd=0.01)),
    ("rmspropalex_update", 3, dict(lr=0.01, wd=0.01)),
    ("ftrl_update", 2, dict(lr=0.1, wd=0.01)),
]


def inputs():
    rs = np.random.RandomState(0)
    w, g = rs.randn(3, 4).astype("float32"), rs.randn(3, 4).astype("float32")
    states = [rs.rand(3, 4).astype("float32") + 0.5 for _ in range(3)]
    return w, g, states


def run_all(nd):
    """{case name: [weight, states...] after three in-place steps}."""
    W, G, S = inputs()
    out = {}
    for name, n, kw in CASES:
        w, g, st = nd.array(W), nd.array(G), [nd.array(s) for s in S[:n]]
        for _ in range(3):
            getattr(nd, name)(w, g, *st, out=w, **kw)
        out[name] = [w.asnumpy()] + [s.asnumpy() for s in st]
    w16, w32, m = nd.array(W, dtype="float16"), nd.array(W), nd.array(S[0])
    for _ in range(3):
        nd.mp_sgd_mom_update(w16, nd.array(G, dtype="float16"), m, w32, out=w16, lr=0.1,
                             momentum=0.9, wd=0.01)
    out["mp_sgd_mom_update"] = [w16.asnumpy().astype("float32"), m.asnumpy(), w32.asnumpy()]
    w16, w32 = nd.array(W, dtype="float16"), nd.array(W)
    for _ in range(3):
        nd.mp_sgd_update(w16, nd.array(G, dtype="float16"), w32, out=w16, lr=0.1, wd=0.01)
    out["mp_sgd_update"] = [w16.asnumpy().astype("float32"), w32.asnumpy()]
    return out
