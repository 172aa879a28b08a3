# Seed 001 ("Mxnet: Basic knowledge and a simple example"): autograd.
# (The article's x.grad with a head gradient shows 12. where MXNet gives 1.2.)
# golden: needs xnd.autograd
import mxnet.ndarray as nd
import mxnet.autograd as ag

x = nd.array([[1, 2], [3, 4]])
x.attach_grad()  # allocate space for the gradient
# f = 2 * x * x; ask MXNet to record the program to differentiate
with ag.record():
    y = x * 2
    z = y * x
# z is not a scalar, so z.backward() is nd.sum(z).backward()
z.backward()
print('x.grad: ', x.grad)
print(x.grad == 4 * x)

# head gradient and the chain rule
with ag.record():
    y = x * 2
    z = y * x
head_gradient = nd.array([[10, 1.], [.1, .01]])
z.backward(head_gradient)
print(x)
print(x.grad)
