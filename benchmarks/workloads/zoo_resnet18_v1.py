"""Model-zoo resnet18_v1 inference, batch 8, 3x224x224: Gluon hybridized and symbol
executor, images/s (report only; see _zoo.py)."""
from . import _zoo
from ._zoo import CHECKS, GOAL, METRICS, bn_kinds, metrics  # noqa: F401

N, N_QUICK = 8, 1                 # batches
WARMUP = 1
NAME = "resnet18_v1"
STAGES = ((64, 1), (128, 2), (256, 2), (512, 2))     # (channels, stride of the first block)


def kinds():
    k = [("w", (64, 3, 7, 7))] + bn_kinds(64)
    cin = 64
    for c, s in STAGES:
        for b in range(2):
            down = b == 0 and (s != 1 or cin != c)
            k += [("w", (c, cin, 3, 3))] + bn_kinds(c) + [("w", (c, c, 3, 3))] + bn_kinds(c)
            if down:
                k += [("w", (c, cin, 1, 1))] + bn_kinds(c)
            cin = c
    return k + [("fc", (1000, 512)), ("bias", (1000,))]


def run_mx(mx, n):
    return _zoo.run_mx(mx, n, NAME, kinds())


def _net(p, x):
    conv, bn, maxpool, head, relu = _zoo.jax_ops()
    import jax.numpy as jnp
    it = iter(p)

    def conv_bn(y, stride, pad):
        w = next(it)
        return bn(conv(y, w, stride, pad), next(it), next(it), next(it), next(it))

    x = jnp.transpose(x, (0, 2, 3, 1))
    x = maxpool(relu(conv_bn(x, 2, 3)))
    cin = 64
    for c, s in STAGES:
        for b in range(2):
            stride = s if b == 0 else 1
            y = relu(conv_bn(x, stride, 1))
            y = conv_bn(y, 1, 1)
            if b == 0 and (s != 1 or cin != c):
                x = conv_bn(x, stride, 0)
            x = relu(x + y)
            cin = c
    return head(x, next(it), next(it))


def run_jax(n):
    return _zoo.run_jax(n, NAME, kinds(), _net)
