# Seed 003 ("MXNet 深度学习高能干货"): moving arrays to gpu(0); mixing contexts
# is an error.
# golden: needs gpu
# golden: by hand -- the reference MXNet 1.9.1 is a CPU build, so the expected
# output is written by hand from the article (which shows the same values).
import mxnet as mx

c = mx.nd.array([[1, 2, 3, 4], [5, 6, 7, 8]])
c[0, 0] = -1
e = c
print(e.context)

e = e.as_in_context(mx.gpu(0))
print(e.context)

f = mx.nd.array([[2, 3, 4, 5], [6, 7, 8, 9]])
try:
    print(e + f)
except mx.base.MXNetError:
    print("MXNetError: e is on gpu(0), f is on cpu(0)")

f = f.as_in_context(mx.gpu(0))
print(e + f)
