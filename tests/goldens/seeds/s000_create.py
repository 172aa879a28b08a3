# Seed 000 ("Apache MXNet - NDArray"): creating NDArrays.
import mxnet as mx
from mxnet import nd

x = nd.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
print(x)

y = nd.array([
    [1, 2, 3, 4, 5],
    [6, 7, 8, 9, 10],
    [11, 12, 13, 14, 15]
])
print(y)

a = nd.empty((2, 3), ctx=mx.cpu())  # Uninitialized 2x3 array on CPU
print("Uninitialized array (a):")
print(a.shape, a.dtype, a.context)  # its values are arbitrary

b = nd.full((2, 3), 8.0, ctx=mx.cpu())  # 2x3 array filled with 8.0 on CPU
print("\nArray filled with 8.0 (b):")
print(b)

z = nd.zeros((3, 4), ctx=mx.cpu())
print(z)

o = nd.ones((2, 5), ctx=mx.cpu())
print(o)

# Sample from a normal distribution with mean 0 and standard deviation 1
mx.random.seed(42)
r = nd.random.normal(loc=0, scale=1, shape=(3, 4), ctx=mx.cpu())
print("Shape of r:", r.shape)
print("Size of r (total number of elements):", r.size)
print("Data type of r:", r.dtype)
print("Context of r:", r.context)
