"""The AdamW update operators (nd.contrib.adamw_update & co, as GluonNLP's BERTAdam calls
them) run three steps with ``out=``; shared by make_adamw_goldens.py on MXNet 1.9.1 and
test_adamw.py."""
import numpy as np


def _inputs():
    rs = np.random.RandomState(3)
    w = rs.randn(3, 4).astype("float32")
    g = rs.randn(3, 4).astype("float32")
    m = rs.rand(3, 4).astype("float32") * 0.1
    v = rs.rand(3, 4).astype("float32") * 0.1 + 0.01
    w2 = rs.randn(5).astype("float32")
    g2 = rs.randn(5).astype("float32")
    return w, g, m, v, w2, g2


def run_all(mx):
    """{case: [arrays]} after three in-place steps of each form."""
    nd = mx.nd
    W, G, M, V, W2, G2 = _inputs()
    out = {}
    for case, rescale, extra in (
            ("plain", 0.5, {}),
            ("array_scale", "array", dict(wd=0.01, clip_gradient=0.4)),
            ("skip_inf", float("inf"), {}), ("skip_nan", float("nan"), {}),
            ("skip_zero", 0.0, {})):
        w, m, v = nd.array(W), nd.array(M), nd.array(V)
        r = nd.array([0.25]) if rescale == "array" else rescale
        for _ in range(3):
            nd.contrib.adamw_update(w, nd.array(G), m, v, rescale_grad=r, out=w, lr=0.9,
                                    eta=0.05, beta1=0.8, beta2=0.99, epsilon=1e-6, **extra)
        out["adamw." + case] = [w.asnumpy(), m.asnumpy(), v.asnumpy()]
    w16, w32, m, v = nd.array(W, dtype="float16"), nd.array(W), nd.array(M), nd.array(V)
    for _ in range(3):
        nd.contrib.mp_adamw_update(w16, nd.array(G, dtype="float16"), m, v, w32,
                                   rescale_grad=nd.array([2.0]), out=w16, lr=1.0, eta=0.01,
                                   wd=0.1)
    out["mp_adamw"] = [w16.asnumpy().astype("float32"), m.asnumpy(), v.asnumpy(), w32.asnumpy()]
    ws = [nd.array(W), nd.array(W2)]
    ms = [nd.array(M), nd.zeros(5)]
    vs = [nd.array(V), nd.zeros(5)]
    for _ in range(3):
        nd.contrib.multi_adamw_update(ws, [nd.array(G), nd.array(G2)], ms, vs, 0.5, out=ws,
                                      lrs=(1.0, 0.5), wds=(0.0, 0.1), etas=(0.1, 0.2),
                                      clip_gradient=0.3)
    out["multi_adamw"] = [x.asnumpy() for x in ws + ms + vs]
    ws = [nd.array(W, dtype="float16"), nd.array(W2, dtype="float16")]
    w32s = [nd.array(W), nd.array(W2)]
    ms = [nd.array(M), nd.zeros(5)]
    vs = [nd.array(V), nd.zeros(5)]
    for step in range(3):
        scale = float("nan") if step == 1 else 1.5  # the middle step is skipped
        nd.contrib.multi_mp_adamw_update(
            ws, [nd.array(G, dtype="float16"), nd.array(G2, dtype="float16")], ms, vs, w32s,
            nd.array([scale]), out=ws, lrs=(1.0, 1.0), wds=(0.01, 0.0), etas=(0.1, 0.3))
    out["multi_mp_adamw"] = [x.asnumpy().astype("float32") for x in ws + w32s + ms + vs]
    # one step, which the symbol face (test_adamw.py) must give too
    w, m, v = nd.array(W), nd.array(M), nd.array(V)
    new = nd.contrib.adamw_update(w, nd.array(G), m, v, 0.5, lr=1.0, eta=0.1, wd=0.05)
    out["one_step"] = [new.asnumpy(), m.asnumpy(), v.asnumpy()]
    return out


def inputs():
    """The arrays the cases start from (weight, grad, mean, var)."""
    return _inputs()[:4]
