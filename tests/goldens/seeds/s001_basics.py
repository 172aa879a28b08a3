# Seed 001 ("Mxnet: Basic knowledge and a simple example"): initialization,
# element-wise operators, nd.dot, broadcasting, NumPy conversion.
# The article does not say what x and y are in its operator section; here
# x = ones and y = a fixed array, so the printed values are deterministic.
import mxnet as mx
import numpy as np
from mxnet import ndarray as nd

print(nd.zeros((3, 4)))
print(nd.ones((3, 4)))
print(nd.array([[1, 2], [3, 4]]))

mx.random.seed(7)
y = nd.random_normal(0, 1, shape=(3, 4))  # standard normal
print(y.shape)
print(y.size)

x = nd.ones((3, 4))
y = nd.arange(12).reshape((3, 4)) / 4
print(x + y)
print(x * y)
print(nd.exp(x))
print(nd.dot(x, y.T))

a = nd.arange(3).reshape((3, 1))
b = nd.arange(2).reshape((1, 2))
print('a+b', a + b)

x = np.ones((2, 3))
y = nd.array(x)  # numpy->mxnet
z = y.asnumpy()  # mxnet->numpy
print(y)
print(z)
print(type(z), z.dtype)
