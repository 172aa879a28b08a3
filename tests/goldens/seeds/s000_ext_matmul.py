# Seed 000 ("Apache MXNet - NDArray"): the `@` operator.
# golden: by hand -- MXNet 1.9.1's NDArray has no __matmul__ (TypeError);
# xnd supports `@` as the article says, so the expected output is written by hand.
import mxnet as mx
from mxnet import nd

ctx = mx.cpu()
mat1 = nd.arange(6, ctx=ctx).reshape((2, 3))  # 2x3 matrix: [[0,1,2],[3,4,5]]
mat2 = nd.arange(3, ctx=ctx).reshape((3, 1))  # 3x1 matrix: [[0],[1],[2]]

# Using nd.dot
dot_product = nd.dot(mat1, mat2)
print('Using nd.dot:\n', dot_product)

# Using @ operator (requires Python 3.5+)
at_product = mat1 @ mat2
print('\nUsing @ operator:\n', at_product)
