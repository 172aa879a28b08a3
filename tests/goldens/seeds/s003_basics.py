# Seed 003 ("MXNet 深度学习高能干货"): NDArray next to NumPy: creation, shape,
# dtype, slicing.
import mxnet as mx
import numpy as np

a = mx.nd.array([[1, 2], [3, 4]])
print(a)

b = np.array([[1, 2], [3, 4]])
print(b)

print(a.shape)
print(b.shape)
print(a.dtype)
print(b.dtype)

c = mx.nd.array([[1, 2], [3, 4]], dtype=np.int8)
print(c.dtype)
print(c)

d = np.array([[1, 2], [3, 4]], dtype=np.int8)
print(d.dtype)

c = mx.nd.array([[1, 2, 3, 4], [5, 6, 7, 8]])
print(c[0, 1:3])

d = np.array([[1, 2, 3, 4], [5, 6, 7, 8]])
print(d[0, 1:3])
