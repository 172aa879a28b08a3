# Seed 000 ("Apache MXNet - NDArray"): converting between NDArray and NumPy.
import mxnet as mx
import numpy as np
from mxnet import nd

nd_arr = nd.array([1, 2, 3], ctx=mx.cpu())
np_arr = nd_arr.asnumpy()  # Convert NDArray to NumPy array

print("NDArray:", nd_arr)
print("NumPy array:", np_arr)
print("Type of np_arr:", type(np_arr))
print("dtype of np_arr:", np_arr.dtype)

np_data = np.array([[4, 5], [6, 7]])
nd_data = nd.array(np_data, ctx=mx.cpu())  # Convert NumPy array to NDArray on CPU

print("Original NumPy array:\n", np_data)
print("Converted NDArray:\n", nd_data)
print("Converted dtype:", nd_data.dtype)

a_np = np.arange(5, dtype=int)
np_x = np.full_like(a=a_np, fill_value=10)

# MXNet equivalent
ctx = mx.cpu()
a_nd = nd.arange(5, ctx=ctx)
# Create an array of ones with the same shape and context as a_nd, then multiply by 10
nd_x = nd.ones_like(a_nd) * 10
# Alternatively, more directly:
nd_x_alt = nd.full(a_nd.shape, 10, ctx=a_nd.context, dtype=a_nd.dtype)

print("NumPy full_like result:", np_x)
print("MXNet equivalent result:", nd_x)
print("MXNet nd.full result:", nd_x_alt)
print("Are they equal (after converting nd_x to numpy)?", np.array_equal(np_x, nd_x.asnumpy()))

# .asscalar() gets a Python-side scalar from a one-element NDArray
s = nd_x.sum()
print("sum:", s)
print("sum.asscalar():", s.asscalar())
