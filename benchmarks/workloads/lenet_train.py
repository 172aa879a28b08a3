"""LeNet training, batch 64, 1x28x28: hybridized Gluon, steps/s.

The network: Conv2D(20, 5) relu, MaxPool 2/2, Conv2D(50, 5) relu, MaxPool 2/2, Flatten,
Dense(500) relu, Dense(10); SoftmaxCrossEntropyLoss; Trainer 'sgd' (lr 0.05, momentum 0.9,
wd 1e-4).  Each step: ``autograd.record()`` forward + loss, ``backward()``,
``trainer.step(64)``, on one of 4 fixed random batches (round robin).  Weights start from the
same numpy values on every implementation.  The JAX twin is the same step hand-written as one
jitted function (forward, ``jax.grad``, momentum SGD; NCHW like MXNet) with donated buffers.
Checksum: sum of |weights| after the run.
"""
import functools
import sys

import numpy as np

from . import _gluon_train

N, N_QUICK = 200, 3               # training steps
WARMUP = 5
QUICK = "--quick" in sys.argv
BATCH = 64
LR, MOMENTUM, WD = 0.05, 0.9, 1e-4
METRICS = {"steps/s": "higher"}
GOAL = "xnd steps/s >= 1.2x MXNet's (xnd/MXNet >= 1.2); colleague: MXNet ~50, JAX ~46 steps/s"
CHECKS = [("steps/s", "mxnet", ">=", 1.2)]

SHAPES = [(20, 1, 5, 5), (20,), (50, 20, 5, 5), (50,), (500, 800), (500,), (10, 500), (10,)]


def metrics(seconds, n, out):
    return {"steps/s": n / seconds}


@functools.cache
def _data():
    rng = np.random.default_rng(0)
    params = []
    for s in SHAPES:
        fan_in = int(np.prod(s[1:])) if len(s) > 1 else 1
        params.append((rng.standard_normal(s) * (np.sqrt(2.0 / fan_in) if len(s) > 1 else 0.01))
                      .astype("float32"))
    xs = [rng.standard_normal((BATCH, 1, 28, 28)).astype("float32") for _ in range(4)]
    ys = [rng.integers(0, 10, BATCH).astype("float32") for _ in range(4)]
    return params, xs, ys


def _check(arrays):
    return float(sum(np.abs(np.asarray(a, "float64")).sum() for a in arrays))


_STATE = {}


def _build(mx):
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(20, 5, in_channels=1, activation="relu"), nn.MaxPool2D(2, 2),
            nn.Conv2D(50, 5, in_channels=20, activation="relu"), nn.MaxPool2D(2, 2),
            nn.Flatten(), nn.Dense(500, in_units=800, activation="relu"),
            nn.Dense(10, in_units=500))
    net.initialize(mx.init.Xavier(), ctx=mx.cpu())
    params, xs, ys = _data()
    plist = list(net.collect_params().values())
    for p, v in zip(plist, params):
        p.set_data(mx.nd.array(v))
    net.hybridize()
    loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": LR,
                                                             "momentum": MOMENTUM, "wd": WD})
    batches = [(mx.nd.array(x), mx.nd.array(y)) for x, y in zip(xs, ys)]
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
    from jax import lax

    def conv(x, w, b):
        y = lax.conv_general_dilated(x, w, (1, 1), [(0, 0), (0, 0)],
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return jax.nn.relu(y + b.reshape(1, -1, 1, 1))

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def loss_fn(p, x, y):
        h = pool(conv(x, p[0], p[1]))
        h = pool(conv(h, p[2], p[3]))
        h = h.reshape(h.shape[0], -1)
        h = jax.nn.relu(h @ p[4].T + p[5])
        logits = h @ p[6].T + p[7]
        logp = jax.nn.log_softmax(logits)
        return -jnp.take_along_axis(logp, y.astype(jnp.int32)[:, None], axis=1).sum()

    def step(p, mom, x, y):
        g = jax.grad(loss_fn)(p, x, y)
        new_p, new_m = [], []
        for w, m, gw in zip(p, mom, g):
            gw = gw / BATCH + WD * w
            m = MOMENTUM * m - LR * gw
            new_p.append(w + m)
            new_m.append(m)
        return new_p, new_m

    params, xs, ys = _data()
    p = [jnp.asarray(v) for v in params]
    m = [jnp.zeros_like(v) for v in p]
    batches = [(jnp.asarray(x), jnp.asarray(y)) for x, y in zip(xs, ys)]
    return jax.jit(step, donate_argnums=(0, 1)), {"p": p, "m": m, "step": 0}, batches


def run_jax(n):
    f, st, batches = _jax_step()
    p, m = st["p"], st["m"]
    for _ in range(n):
        x, y = batches[st["step"] % len(batches)]
        st["step"] += 1
        p, m = f(p, m, x, y)
    st["p"], st["m"] = p, m
    p[0].block_until_ready()
    return {"check": _check(p)}
