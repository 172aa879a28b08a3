import mxnet as mx
import numpy as np
from mxnet import nd

# A tour of MXNet's NDArray, from three introductory articles, written as a
# plain MXNet 1.x script: `python -m xnd` runs it on xnd, and real MXNet 1.9.1
# prints the same thing.  Random arrays show only their shape, dtype and range.


def section(title):
    print("\n== " + title + " ==")


section("creating arrays")
x = nd.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
print(x)
y = nd.array([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15]])
print(y)
print(nd.full((2, 3), 8.0, ctx=mx.cpu()))
print(nd.zeros((3, 4), ctx=mx.cpu()))
print(nd.ones((2, 5), ctx=mx.cpu()))
a = nd.empty((2, 3))
print("empty:", a.shape, a.dtype, a.context)
print(nd.array([[1, 2], [3, 4]], dtype=np.int8))

section("attributes")
mx.random.seed(42)
r = nd.random.normal(loc=0, scale=1, shape=(3, 4), ctx=mx.cpu())
print("Shape of r:", r.shape)
print("Size of r (total number of elements):", r.size)
print("Data type of r:", r.dtype)
print("Context of r:", r.context)
u = nd.random.uniform(0, 1, shape=(8, 3, 28, 28))
print("uniform:", u.shape, bool((u >= 0).min().asscalar()), bool((u < 1).min().asscalar()))

section("element-wise operations")
x = nd.ones((2, 3))
y = nd.arange(6).reshape((2, 3))
print('result (x + y) =\n', x + y)
a = nd.array([1, 2, 3, 4])
b = nd.array([2, 2, 2, 1])
print('product (a * b) =', a * b)
print('exp_c =', nd.exp(nd.array([1, 2, 3])))
data_a = mx.nd.array([1, 2, 3])
data_b = mx.nd.array([4, 5, 6])
data_c = mx.nd.array([2, 3, 4])
print(data_c * (data_a + data_b))

section("matrix product and broadcasting")
mat1 = nd.arange(6).reshape((2, 3))
mat2 = nd.arange(3).reshape((3, 1))
print('Using nd.dot:\n', nd.dot(mat1, mat2))
x = nd.ones((3, 4))
y = nd.arange(12).reshape((3, 4)) / 4
print(nd.dot(x, y.T))
a = nd.arange(3).reshape((3, 1))
b = nd.arange(2).reshape((1, 2))
print('a+b', a + b)

section("in-place updates")
x = nd.ones((3, 4))
y = nd.ones((3, 4))
before = id(y)
y = y + x
print("y = y + x keeps id(y):", id(y) == before)
z = nd.zeros_like(y)
before = id(z)
z[:] = x + y
print("z[:] = x + y keeps id(z):", id(z) == before)
nd.elemwise_add(x, y, out=z)
print("nd.elemwise_add(x, y, out=z) keeps id(z):", id(z) == before)
z += x
print("z += x keeps id(z):", id(z) == before)
print(z)

section("slicing")
x = nd.arange(0, 9).reshape((3, 3))
print(x[1:3])
x[1, 2] = 9.
print(x[1:2, 1:3])
x[1:2, 1:3] = 9.
print(x)
c = mx.nd.array([[1, 2, 3, 4], [5, 6, 7, 8]])
print(c[0, 1:3])

section("copy() and aliasing")
f = c.copy()
f[0, 0] = -1
print(f)
print(c)
e = c
e[0, 0] = -1
print(c)

section("NumPy")
g = e.asnumpy()
print(type(g), g.dtype)
print(g)
print(mx.nd.array(g))
np_data = np.array([[4, 5], [6, 7]])
nd_data = nd.array(np_data, ctx=mx.cpu())
print(nd_data, nd_data.dtype)
nd_x = nd.ones_like(nd.arange(5)) * 10
print("equal:", np.array_equal(np.full_like(np.arange(5), 10), nd_x.asnumpy()))
print("sum:", nd_x.sum().asscalar())

section("layers")
data = mx.nd.arange(0, 28).reshape((1, 1, 4, 7))
conv1 = mx.nd.Convolution(data=data, weight=mx.nd.ones((10, 1, 3, 3)),
                          bias=mx.nd.zeros((10)), num_filter=10, kernel=(3, 3),
                          name='conv1')
print(conv1[0, 0])
print(conv1.shape)

section("contexts")
print(e.context, mx.cpu() == mx.cpu(0))
ctx = mx.gpu(0) if mx.context.num_gpus() > 0 else mx.cpu(0)
moved = e.as_in_context(ctx)
print((moved.copyto(mx.cpu()) == e).min().asscalar() == 1)
nd.waitall()
print("done")
