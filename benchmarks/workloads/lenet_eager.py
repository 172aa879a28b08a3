"""LeNet forward+backward through the eager nd path under autograd (issue 4): Conv 20@5x5,
relu, maxpool 2, Conv 50@5x5, relu, maxpool 2, FC 500, relu, FC 10, softmax cross-entropy,
batch 64 on 1x28x28; plain SGD applied with nd ops. Steps/s."""
import functools

import numpy as np

N, N_QUICK = 30, 3                # training steps
BATCH = 64
METRICS = {"steps/s": "higher"}
GOAL = "report the ratios (correct operators, no avoidable overhead around XLA's kernels)"
CHECKS = []


def _params():
    rs = np.random.RandomState(0)
    shapes = [(20, 1, 5, 5), (20,), (50, 20, 5, 5), (50,), (500, 800), (500,), (10, 500), (10,)]
    return [(rs.randn(*s) * 0.05).astype("float32") for s in shapes]


def _batch():
    rs = np.random.RandomState(1)
    return rs.rand(BATCH, 1, 28, 28).astype("float32"), rs.randint(0, 10, BATCH).astype("float32")


def metrics(seconds, n, out):
    return {"steps/s": n / seconds}


def run_mx(mx, n):
    nd, ag = mx.nd, mx.autograd
    params = [nd.array(p) for p in _params()]
    for p in params:
        p.attach_grad()
    x, y = (nd.array(v) for v in _batch())
    c1w, c1b, c2w, c2b, f1w, f1b, f2w, f2b = params
    for _ in range(n):
        with ag.record():
            h = nd.relu(nd.Convolution(x, c1w, c1b, kernel=(5, 5), num_filter=20))
            h = nd.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max")
            h = nd.relu(nd.Convolution(h, c2w, c2b, kernel=(5, 5), num_filter=50))
            h = nd.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max")
            h = nd.relu(nd.FullyConnected(h, f1w, f1b, num_hidden=500))
            out = nd.FullyConnected(h, f2w, f2b, num_hidden=10)
            loss = nd.softmax_cross_entropy(out, y)
        loss.backward()
        for p in params:
            p[:] = p - 0.01 / BATCH * p.grad
    nd.waitall()
    return {"check": float(loss.asnumpy().sum())}


@functools.cache
def _jax_step():
    import jax
    import jax.numpy as jnp

    def conv(x, w, b):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "VALID") + b[None, :, None, None]

    def pool(x):
        return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def loss_fn(params, x, y):
        c1w, c1b, c2w, c2b, f1w, f1b, f2w, f2b = params
        h = pool(jax.nn.relu(conv(x, c1w, c1b)))
        h = pool(jax.nn.relu(conv(h, c2w, c2b)))
        h = jax.nn.relu(h.reshape(h.shape[0], -1) @ f1w.T + f1b)
        out = h @ f2w.T + f2b
        logp = jax.nn.log_softmax(out)
        return -jnp.take_along_axis(logp, y.astype(jnp.int32)[:, None], 1).sum()

    @jax.jit
    def step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return [p - 0.01 / BATCH * g for p, g in zip(params, grads)], loss
    return step


def run_jax(n):
    import jax.numpy as jnp
    step = _jax_step()
    params = [jnp.asarray(p) for p in _params()]
    x, y = (jnp.asarray(v) for v in _batch())
    for _ in range(n):
        params, loss = step(params, x, y)
    loss.block_until_ready()
    return {"check": float(loss)}
