"""MLP training with ``Module.fit`` (issue 6's workload): samples/s.

The symbol: FullyConnected(128) relu, FullyConnected(64) relu, FullyConnected(10),
SoftmaxOutput, on a 20,000x784 random ``NDArrayIter`` (batch 100, last_batch_handle 'pad',
no shuffle), 2 epochs: ``mod.fit(train, num_epoch=2, eval_metric='acc')`` with 'sgd' (lr 0.01,
momentum 0.9, wd 1e-4 on the weights -- Module's optimizer gives biases wd_mult 0 -- and
Module's default ``rescale_grad`` 1/100).  Per batch MXNet's fit loop runs the iterator,
``forward_backward``, ``update`` and ``update_metric`` (accuracy); at each epoch's end it
logs the metric and does ``get_params``/``set_params``.  The module is bound, initialized
(from the same numpy weights on every implementation) and given its optimizer, and the
``NDArrayIter`` over the 20,000 rows is built, by the warm-up call: a ``fit`` over the
iterator's first batches (``ResizeIter``); the timed call is a second ``fit`` on both.  The
JAX twin is the same step hand-written as one jitted function (forward, ``jax.grad`` of the
summed softmax cross-entropy, rescale 1/100, momentum SGD with weight decay, and the
accuracy count) with donated buffers, over the batches pre-split on the device (also
outside the timed call).  ``n`` counts batches: 400 = 2 epochs of 200; a run shorter than an
epoch takes the first ``n`` batches.  Checksum: sum of |weights| after the run.
"""
import functools
import logging
import sys
import warnings

import numpy as np

N, N_QUICK = 400, 4               # training batches (samples: x BATCH): 2 epochs of 200
WARMUP = 200                       # one epoch: every program of the timed run compiles here
ROWS = 20000
QUICK = "--quick" in sys.argv
BATCH = 100
LAYERS = (784, 128, 64, 10)
EPOCH = ROWS // BATCH
LR, MOMENTUM, WD = 0.01, 0.9, 1e-4
METRICS = {"samples/s": "higher"}
GOAL = ("xnd samples/s >= 3x MXNet's (xnd/MXNet >= 3) and >= 0.9x the jitted JAX twin's "
        "(xnd/jax >= 0.9)")
CHECKS = [("samples/s", "mxnet", ">=", 3.0), ("samples/s", "jax", ">=", 0.9)]

NAMES = ["fc1", "fc2", "fc3"]


def metrics(seconds, n, out):
    return {"samples/s": n * BATCH / seconds}


@functools.cache
def _data():
    rng = np.random.default_rng(0)
    params = {}
    for name, (a, b) in zip(NAMES, zip(LAYERS[:-1], LAYERS[1:])):
        w = rng.standard_normal((b, a)) * np.sqrt(2.0 / a)
        params[name + "_weight"] = w.astype("float32")
        params[name + "_bias"] = np.zeros((b,), "float32")
    x = rng.standard_normal((ROWS, LAYERS[0])).astype("float32")
    y = rng.integers(0, LAYERS[-1], ROWS).astype("float32")
    return params, x, y


def _plan(n):
    """(batches per epoch, epochs) of a run of ``n`` batches: whole epochs, or one shorter
    one (the first ``n`` batches)."""
    return (EPOCH, n // EPOCH) if n >= EPOCH else (n, 1)


def _check(arrays):
    return float(sum(np.abs(np.asarray(a, "float64")).sum() for a in arrays))


_STATE = {}


def _build(mx, head=None):
    """The module, its initial parameters and the iterator; ``head(mx, h)`` makes the
    network's output from the last layer (SoftmaxOutput when None)."""
    params, _, _ = _data()
    h = mx.sym.Variable("data")
    for i, name in enumerate(NAMES):
        h = mx.sym.FullyConnected(h, num_hidden=LAYERS[i + 1], name=name)
        if i < len(NAMES) - 1:
            h = mx.sym.Activation(h, act_type="relu")
    net = head(mx, h) if head is not None else mx.sym.SoftmaxOutput(h, name="softmax")
    logger = logging.getLogger("mlp_module_bench")
    logger.setLevel(logging.ERROR)      # fit's "already bound/initialized" and epoch lines
    mod = mx.mod.Module(net, context=mx.cpu(), logger=logger)
    arg_params = {k: mx.nd.array(v) for k, v in params.items()}
    _, x, y = _data()
    it = mx.io.NDArrayIter(x, y, batch_size=BATCH, shuffle=False, last_batch_handle="pad",
                           label_name="softmax_label")
    return mod, arg_params, it


def fit(mx, st, n):
    """``n`` batches of ``Module.fit`` on a ``_build`` state; the checksum of the weights."""
    mod, arg_params, it = st
    batches, epochs = _plan(n)
    it.reset()
    train = it if batches == EPOCH else mx.io.ResizeIter(it, batches)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mod.fit(train, num_epoch=epochs, eval_metric="acc", kvstore="local", optimizer="sgd",
                optimizer_params={"learning_rate": LR, "momentum": MOMENTUM, "wd": WD},
                arg_params=arg_params, aux_params={})
    mx.nd.waitall()
    arg, _ = mod.get_params()
    return {"check": _check([arg[k].asnumpy() for k in sorted(arg)])}


def run_mx(mx, n):
    st = _STATE.get("mx")
    if st is None:
        st = _STATE["mx"] = _build(mx)
    return fit(mx, st, n)


@functools.cache
def _jax_step():
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x, y):
        h = x
        for i in range(len(NAMES)):
            h = h @ p[2 * i].T + p[2 * i + 1]
            if i < len(NAMES) - 1:
                h = jax.nn.relu(h)
        logp = jax.nn.log_softmax(h)
        nll = -jnp.take_along_axis(logp, y.astype(jnp.int32)[:, None], axis=1).sum()
        return nll, h

    def step(p, mom, correct, x, y):
        g, logits = jax.grad(loss_fn, has_aux=True)(p, x, y)
        new_p, new_m = [], []
        for k, (w, m, gw) in enumerate(zip(p, mom, g)):
            # Module's optimizer: weight decay on the weights only (wd_mult 0 for biases)
            gw = gw / BATCH + (WD * w if k % 2 == 0 else 0.0)
            m = MOMENTUM * m - LR * gw
            new_p.append(w + m)
            new_m.append(m)
        hit = (jnp.argmax(logits, axis=1) == y.astype(jnp.int32)).sum()
        return new_p, new_m, correct + hit

    params, x, y = _data()
    p = []
    for name in NAMES:
        p += [jnp.asarray(params[name + "_weight"]), jnp.asarray(params[name + "_bias"])]
    m = [jnp.zeros_like(v) for v in p]
    batches = [(jnp.asarray(x[i:i + BATCH]), jnp.asarray(y[i:i + BATCH]))
               for i in range(0, ROWS, BATCH)]
    return (jax.jit(step, donate_argnums=(0, 1, 2)),
            {"p": p, "m": m, "correct": jnp.zeros((), jnp.int32)}, batches)


def run_jax(n):
    f, st, batches = _jax_step()
    per_epoch, epochs = _plan(n)
    p, m, c = st["p"], st["m"], st["correct"]
    for _ in range(epochs):
        for x, y in batches[:per_epoch]:
            p, m, c = f(p, m, c, x, y)
    st["p"], st["m"], st["correct"] = p, m, c
    p[0].block_until_ready()
    return {"check": _check(p)}
