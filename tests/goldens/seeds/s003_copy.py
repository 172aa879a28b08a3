# Seed 003 ("MXNet 深度学习高能干货"): copy() vs. another name for the same
# array, asnumpy(), mx.nd.array(numpy), .context.
import mxnet as mx

c = mx.nd.array([[1, 2, 3, 4], [5, 6, 7, 8]])
print(c)

f = c.copy()
print(f)

f[0, 0] = -1
print(f)
print(c)

e = c
print(e)

e[0, 0] = -1
print(e)
print(c)

g = e.asnumpy()
print(g)
print(mx.nd.array(g))

print(e.context)
