# Seed 001 ("Mxnet: Basic knowledge and a simple example"): slicing.
from mxnet import ndarray as nd

x = nd.arange(0, 9).reshape((3, 3))
print(x[1:3])
# change the value at a given position
x[1, 2] = 9.
print(x)
# multi-dimensional slice
print(x[1:2, 1:3])
# multi-dimensional write
x[1:2, 1:3] = 9.
print(x)
