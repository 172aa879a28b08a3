# Seed 000 ("Apache MXNet - NDArray"): contexts.  The article copies to gpu(0)
# when there is one; this version uses gpu(0) if present, else cpu(0), and
# prints only what is the same on both kinds of machine.
import mxnet as mx
from mxnet import nd

# Create an array on the default CPU (often cpu(0))
default_cpu_ctx = mx.cpu()  # Or mx.cpu(0)
a_cpu = nd.ones(shape=(3, 3), ctx=default_cpu_ctx)
print("Array on CPU:")
print(a_cpu)
print(mx.cpu() == mx.cpu(0), mx.cpu(0))

# Check if GPUs are available
num_gpus = mx.context.num_gpus()
ctx = mx.gpu(0) if num_gpus > 0 else mx.cpu(0)

a_copy = a_cpu.copyto(ctx)
print("\nArray copied to ctx:")
print(a_copy.asnumpy())
print(a_copy.context == ctx)

b_dev = nd.ones(shape=(2, 2), ctx=ctx)
c_dev = a_cpu.as_in_context(ctx)  # a new array on ctx unless ctx is cpu(0)
d_dev = b_dev.as_in_context(ctx)  # d_dev is b_dev itself (no copy)
print("\nArray c_dev (from as_in_context on a_cpu):")
print(c_dev.asnumpy())
print(f"id(b_dev) == id(d_dev): {id(b_dev) == id(d_dev)}")
print("sum on ctx:", (c_dev + c_dev).sum().asscalar())

nd.waitall()
a_cpu.wait_to_read()
print("done")
