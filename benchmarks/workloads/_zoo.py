"""Shared code of the model-zoo inference workloads (zoo_resnet18_v1, zoo_mobilenet1_0).

Each runs ``gluon.model_zoo.vision.get_model(NAME)`` (no download: random weights and
BatchNorm statistics from numpy, assigned in ``collect_params()`` order) at batch 8, 224x224,
two ways, timed separately inside one child process:

* ``gluon img/s``: ``net.hybridize()`` and ``net(x)`` (predict mode), the usual Gluon path;
* ``symbol img/s``: ``net(mx.sym.var('data'))`` (logits) bound with ``simple_bind(grad_req='null')``
  and ``forward(is_train=False)``, the deployment path (xnd's inference rewrites apply).

The JAX twin is the same network hand-written in NHWC under one ``jax.jit``; it reports its
time under both metric names.  Report-only (no goal).
"""
import sys
import time

import numpy as np

QUICK = "--quick" in sys.argv     # smoke run: batch 1 at 32x32, Gluon path only
BATCH, SIZE = (1, 32) if QUICK else (8, 224)
EPS = 1e-5                         # gluon BatchNorm's default
METRICS = {"gluon img/s": "higher", "symbol img/s": "higher"}
GOAL = "report only (model-zoo inference at 224x224, batch 8)"
CHECKS = []


def metrics(seconds, n, out):
    return {"gluon img/s": BATCH * n / out["gluon_s"], "symbol img/s": BATCH * n / out["sym_s"]}


def make_params(kinds, seed=0):
    """Random values for [(kind, shape)] in collect_params order: conv/dense weights
    He-scaled, BatchNorm gamma/beta/running statistics around 1/0."""
    rng = np.random.default_rng(seed)
    out = []
    for kind, shape in kinds:
        if kind == "w":
            fan_in = int(np.prod(shape[1:]))
            v = rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
        elif kind == "fc":
            v = rng.standard_normal(shape) / np.sqrt(shape[1])
        elif kind in ("gamma", "var"):
            v = rng.uniform(0.5, 1.5, shape)
        else:                                      # beta, mean, bias
            v = rng.standard_normal(shape) * 0.1
        out.append(v.astype("float32"))
    return out, rng.standard_normal((BATCH, 3, SIZE, SIZE)).astype("float32")


def bn_kinds(c):
    return [("gamma", (c,)), ("beta", (c,)), ("mean", (c,)), ("var", (c,))]


def check(logits):
    return float(np.abs(np.asarray(logits, "float64")).sum())


_STATE = {}


def run_mx(mx, n, name, kinds):
    st = _STATE.get(name)
    if st is None:
        values, data = make_params(kinds)
        net = mx.gluon.model_zoo.vision.get_model(name)
        net.initialize(mx.init.Zero(), ctx=mx.cpu())  # values are set below
        net.hybridize()
        x = mx.nd.array(data)
        net(x)                                     # deferred initialization: shapes
        params = list(net.collect_params().values())
        assert len(params) == len(values), (len(params), len(values))
        for p, v in zip(params, values):
            assert tuple(p.shape) == v.shape, (p.name, p.shape, v.shape)
            p.set_data(mx.nd.array(v))
        exe = None
        if not QUICK:                              # the smoke run skips the symbol path
            out = net(mx.sym.var("data"))
            exe = out.simple_bind(mx.cpu(), grad_req="null", data=(BATCH, 3, SIZE, SIZE))
            for p in params:
                d = exe.arg_dict if p.name in exe.arg_dict else exe.aux_dict
                d[p.name][:] = p.data()
            exe.arg_dict["data"][:] = x
        st = _STATE[name] = (net, x, exe)
    net, x, exe = st
    t0 = time.perf_counter()
    for _ in range(n):
        y = net(x)
    mx.nd.waitall()
    gluon_s = sym_s = time.perf_counter() - t0
    res = {"check": check(y.asnumpy())}
    if exe is not None:
        t0 = time.perf_counter()
        for _ in range(n):
            z = exe.forward(is_train=False)[0]
        mx.nd.waitall()
        sym_s = time.perf_counter() - t0
        res["check_sym"] = check(z.asnumpy())
    return dict(res, gluon_s=gluon_s, sym_s=sym_s)


def run_jax(n, name, kinds, net_fn):
    import jax
    import jax.numpy as jnp
    st = _STATE.get("jax_" + name)
    if st is None:
        values, data = make_params(kinds)
        vals = [jnp.asarray(v.transpose(2, 3, 1, 0) if v.ndim == 4 else v) for v in values]
        st = _STATE["jax_" + name] = (jax.jit(net_fn), vals, jnp.asarray(data))
    f, vals, x = st
    t0 = time.perf_counter()
    for _ in range(n):
        y = f(vals, x)
    y.block_until_ready()
    s = time.perf_counter() - t0
    return {"gluon_s": s, "sym_s": s, "check": check(y)}


def jax_ops():
    """NHWC building blocks of the twins: conv (HWIO weight), inference BatchNorm, pools."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def conv(x, w, stride=1, pad=0, groups=1):
        return lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad)] * 2,
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                        feature_group_count=groups)

    def bn(x, g, b, m, v):
        s = g * lax.rsqrt(v + EPS)
        return x * s + (b - m * s)

    def maxpool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                                 ((0, 0), (1, 1), (1, 1), (0, 0)))

    def head(x, w, b):
        x = jnp.mean(x, axis=(1, 2))
        return x @ w.T + b

    return conv, bn, maxpool, head, jax.nn.relu
