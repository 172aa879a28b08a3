"""d2l's MLP in numpy mode (``npx.set_np()``), batch 256, 784 -> 256 relu -> 10: steps/s.

As Dive into Deep Learning writes it (chapter "Concise Implementation of Multilayer
Perceptrons"): ``nn.Sequential`` of ``Dense(256, activation='relu')`` and ``Dense(10)``,
hybridized, ``gluon.loss.SoftmaxCrossEntropyLoss``, ``Trainer('sgd', lr 0.1)``; batches are
``mx.np`` arrays.  Each step: ``autograd.record()`` forward + loss, ``l.backward()``,
``trainer.step(256)``, on one of 4 fixed random batches (round robin).  Weights start from the
same numpy values everywhere.  The JAX twin is the same step as one jitted function with
donated buffers.  Checksum: sum of |weights| after the run.
"""
import functools
import sys

import numpy as np

from . import _gluon_train

N, N_QUICK = 300, 3
WARMUP = 10
QUICK = "--quick" in sys.argv
BATCH, IN, HIDDEN, OUT = 256, 784, 256, 10
LR = 0.1
METRICS = {"steps/s": "higher"}
GOAL = "xnd steps/s >= MXNet's (issue 20: the np-style training loop at least MXNet's speed)"
CHECKS = [("steps/s", "mxnet", ">=", 1.0)]

SHAPES = [(HIDDEN, IN), (HIDDEN,), (OUT, HIDDEN), (OUT,)]


def metrics(seconds, n, out):
    return {"steps/s": n / seconds}


@functools.cache
def _data():
    rng = np.random.default_rng(0)
    params = [(rng.standard_normal(s) * 0.01).astype("float32") for s in SHAPES]
    xs = [rng.random((BATCH, IN), dtype=np.float32) for _ in range(4)]
    ys = [rng.integers(0, OUT, BATCH).astype("int32") for _ in range(4)]
    return params, xs, ys


def _check(arrays):
    return float(sum(np.abs(np.asarray(a, "float64")).sum() for a in arrays))


_STATE = {}


def _build(mx):
    from mxnet import np as mnp, npx
    npx.set_np()
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    net.add(nn.Dense(HIDDEN, activation="relu"), nn.Dense(OUT))
    net.initialize(mx.init.Normal(0.01))
    params, xs, ys = _data()
    net(mnp.array(xs[0]))  # (deferred shapes)
    plist = list(net.collect_params().values())
    for p, v in zip(plist, params):
        p.set_data(mnp.array(v))
    net.hybridize()
    loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": LR})
    batches = [(mnp.array(x), mnp.array(y)) for x, y in zip(xs, ys)]
    return net, loss, trainer, batches, plist


def run_mx(mx, n):
    st = _STATE.get("mx")
    if st is None:
        st = _STATE["mx"] = _build(mx) + ([0],)
    return {"check": _check(_gluon_train.steps(mx, st, n, BATCH))}


@functools.cache
def _jax_step():
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x, y):
        h = jax.nn.relu(x @ p[0].T + p[1])
        logp = jax.nn.log_softmax(h @ p[2].T + p[3])
        return -jnp.take_along_axis(logp, y[:, None], axis=1).sum()

    def step(p, x, y):
        g = jax.grad(loss_fn)(p, x, y)
        return [w - LR * gw / BATCH for w, gw in zip(p, g)]

    params, xs, ys = _data()
    p = [jnp.asarray(v) for v in params]
    batches = [(jnp.asarray(x), jnp.asarray(y)) for x, y in zip(xs, ys)]
    return jax.jit(step, donate_argnums=(0,)), {"p": p, "step": 0}, batches


def run_jax(n):
    f, st, batches = _jax_step()
    p = st["p"]
    for _ in range(n):
        x, y = batches[st["step"] % len(batches)]
        st["step"] += 1
        p = f(p, x, y)
    st["p"] = p
    p[0].block_until_ready()
    return {"check": _check(p)}
