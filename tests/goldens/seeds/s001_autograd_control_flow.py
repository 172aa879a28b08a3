# Seed 001 ("Mxnet: Basic knowledge and a simple example"): differentiating
# through Python control flow.  `a` is random, so this prints only facts that
# hold for every `a`: f is linear in a, c == k * a, and a.grad == k, where k is
# a power of two (or 100 times one).
# golden: needs xnd.autograd
import mxnet as mx
import mxnet.ndarray as nd
import mxnet.autograd as ag


def f(a):
    b = a * 2
    while nd.norm(b).asscalar() < 1000:
        b = b * 2
    if nd.sum(b).asscalar() > 0:
        c = b
    else:
        c = 100 * b
    return c


mx.random.seed(3)
a = nd.random_normal(shape=3)
a.attach_grad()
with ag.record():
    c = f(a)
c.backward()

print(a.grad.shape, a.grad.dtype)
print(nd.norm(c).asscalar() >= 1000)
k = float(a.grad.asnumpy()[0])
print((a.grad == k).sum().asscalar())
print(k in [2.0 ** n for n in range(64)] + [100 * 2.0 ** n for n in range(64)])
print(bool((nd.abs(c - a.grad * a) <= 1e-5 * nd.abs(c)).min().asscalar()))
