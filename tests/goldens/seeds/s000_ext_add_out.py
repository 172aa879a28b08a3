# Seed 000 ("Apache MXNet - NDArray"): nd.add(x, y, out=z_out).
# golden: by hand -- MXNet 1.9.1's nd.add(lhs, rhs) takes no `out` (TypeError);
# xnd accepts it as the article says, so the expected output is written by hand.
import mxnet as mx
from mxnet import nd

ctx = mx.cpu()
x = nd.arange(4, ctx=ctx)
y = nd.ones(4, ctx=ctx)
z_out = nd.zeros_like(x)  # Pre-allocate z_out

before = id(z_out)
nd.add(x, y, out=z_out)  # Efficient in-place capable addition

print('\nz_out after nd.add(x, y, out=z_out):', z_out)
print('id(z_out) after (should be same):', id(z_out) == before)

z_out += x
print('z_out after z_out += x:', z_out)
print('id(z_out) after += (should be same):', id(z_out) == before)
