# Seed 000 ("Apache MXNet - NDArray"): mx.default_context().
# golden: by hand -- MXNet 1.9.1 has no mx.default_context() (AttributeError;
# it has mx.context.current_context()); xnd provides it as the article says.
import mxnet as mx
from mxnet import nd

print(mx.default_context())
print(mx.default_context() == mx.context.current_context())
print(nd.ones((2, 2)).context == mx.default_context())
