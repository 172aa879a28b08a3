"""Model-zoo mobilenet1.0 inference, batch 8, 3x224x224: Gluon hybridized and symbol
executor, images/s (report only; see _zoo.py)."""
from . import _zoo
from ._zoo import CHECKS, GOAL, METRICS, bn_kinds, metrics  # noqa: F401

N, N_QUICK = 10, 1                # batches
WARMUP = 1
NAME = "mobilenet1.0"
DW = [32, 64, 128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 1024]
PW = [64, 128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 1024, 1024]
STRIDES = [1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1]


def kinds():
    k = [("w", (32, 3, 3, 3))] + bn_kinds(32)
    for dw, pw in zip(DW, PW):
        k += [("w", (dw, 1, 3, 3))] + bn_kinds(dw) + [("w", (pw, dw, 1, 1))] + bn_kinds(pw)
    return k + [("fc", (1000, 1024)), ("bias", (1000,))]


def run_mx(mx, n):
    return _zoo.run_mx(mx, n, NAME, kinds())


def _net(p, x):
    conv, bn, _, head, relu = _zoo.jax_ops()
    import jax.numpy as jnp
    it = iter(p)

    def conv_bn_relu(y, stride, pad, groups=1):
        w = next(it)
        return relu(bn(conv(y, w, stride, pad, groups), next(it), next(it), next(it), next(it)))

    x = conv_bn_relu(jnp.transpose(x, (0, 2, 3, 1)), 2, 1)
    for dw, s in zip(DW, STRIDES):
        x = conv_bn_relu(x, s, 1, groups=dw)
        x = conv_bn_relu(x, 1, 0)
    return head(x, next(it), next(it))


def run_jax(n):
    return _zoo.run_jax(n, NAME, kinds(), _net)
