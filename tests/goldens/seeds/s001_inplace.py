# Seed 001 ("Mxnet: Basic knowledge and a simple example"): y = y + x makes a
# new array; z[:] = ... and out= write into the existing one.
from mxnet import ndarray as nd

x = nd.ones((3, 4))
y = nd.ones((3, 4))
before = id(y)
y = y + x
print(id(y) == before)  # False

z = nd.zeros_like(y)
before = id(z)
z[:] = x + y
print(id(z) == before)  # True
print(z)

nd.elemwise_add(x, y, out=z)
print(id(z) == before)  # True
print(z)
