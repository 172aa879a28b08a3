# Seed 000 ("Apache MXNet - NDArray"): element-wise operations and nd.dot.
import mxnet as mx
from mxnet import nd

# Ensure arrays are on the same context for operations
ctx = mx.cpu()
x = nd.ones((2, 3), ctx=ctx)
y = nd.arange(6, ctx=ctx).reshape((2, 3))  # Creates [[0,1,2],[3,4,5]]

print('x =\n', x)
print('y =\n', y)

result = x + y
print('result (x + y) =\n', result)

ctx = mx.cpu()
a = nd.array([1, 2, 3, 4], ctx=ctx)
b = nd.array([2, 2, 2, 1], ctx=ctx)

product = a * b
print('product (a * b) =', product)

c = nd.array([1, 2, 3], ctx=mx.cpu())
exp_c = nd.exp(c)
print('exp_c =', exp_c)

ctx = mx.cpu()
mat1 = nd.arange(6, ctx=ctx).reshape((2, 3))  # 2x3 matrix: [[0,1,2],[3,4,5]]
mat2 = nd.arange(3, ctx=ctx).reshape((3, 1))  # 3x1 matrix: [[0],[1],[2]]

# Using nd.dot
dot_product = nd.dot(mat1, mat2)
print('Using nd.dot:\n', dot_product)
