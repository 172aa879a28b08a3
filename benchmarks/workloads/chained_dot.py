"""200 chained 512x512 float32 dot products, one wait at the end: matmul throughput."""
import functools

import numpy as np

N, N_QUICK = 200, 20              # number of dots
SIZE = 512
METRICS = {"GFLOP/s": "higher"}
GOAL = "xnd GFLOP/s within 5% of the jitted JAX twin (xnd/JAX >= 0.95)"
CHECKS = [("GFLOP/s", "jax", ">=", 0.95)]


def _inputs():
    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.standard_normal((SIZE, SIZE)))   # orthogonal: norms stay put
    return rng.standard_normal((SIZE, SIZE)).astype("float32"), q.astype("float32")


def metrics(seconds, n, out):
    return {"GFLOP/s": 2 * SIZE ** 3 * n / seconds / 1e9}


def run_mx(mx, n):
    x, w = (mx.nd.array(v) for v in _inputs())
    for _ in range(n):
        x = mx.nd.dot(x, w)
    mx.nd.waitall()
    return {"check": float(np.abs(x.asnumpy()).astype("float64").sum())}


@functools.cache
def _jax_dot():
    import jax
    import jax.numpy as jnp
    return jax.jit(jnp.dot)


def run_jax(n):
    import jax.numpy as jnp
    dot = _jax_dot()
    x, w = (jnp.asarray(v) for v in _inputs())
    for _ in range(n):
        x = dot(x, w)
    x.block_until_ready()
    return {"check": float(np.abs(np.asarray(x, "float64")).sum())}
