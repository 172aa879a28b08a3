# Seed 000 ("Apache MXNet - NDArray"): new memory vs. in-place updates.
# The article prints raw id() values; here we print how they compare.
import mxnet as mx
from mxnet import nd

ctx = mx.cpu()
x = nd.arange(4, ctx=ctx)
y = nd.ones(4, ctx=ctx)

print('Original y =', y)
id_y = id(y)

y_new = y + x  # Standard addition allocates new memory for y_new
print('\ny_new after y_new = y + x:', y_new)
print('id(y_new) != id(y):', id(y_new) != id_y)
print('id(y) unchanged:', id(y) == id_y)
print('y is unchanged:', y)

ctx = mx.cpu()
x = nd.arange(4, ctx=ctx)
y_orig = nd.ones(4, ctx=ctx)
z = nd.zeros_like(x)  # Pre-allocate z on the same context as x

before = id(z)
# Result of y_orig + x is first computed (possibly in new memory),
# then copied into z's existing memory via slice assignment.
z[:] = y_orig + x

print('\nz after z[:] = y_orig + x:', z)
print('id(z) after (should be same):', id(z) == before)

# z += x updates z in place
z += x
print('z after z += x:', z)
print('id(z) after += (should be same):', id(z) == before)
