# Seed 003 ("MXNet 深度学习高能干货"): the NDArray side of the Symbol section
# (data_c * (data_a + data_b), nd.Convolution) and the random labels of the
# Module section (shape and value set only).
import mxnet as mx

data_a = mx.nd.array([1, 2, 3])
data_b = mx.nd.array([4, 5, 6])
data_c = mx.nd.array([2, 3, 4])
result = data_c * (data_a + data_b)
print(result)

data = mx.nd.arange(0, 28).reshape((1, 1, 4, 7))
print(data)

conv1 = mx.nd.Convolution(data=data, weight=mx.nd.ones((10, 1, 3, 3)),
                          bias=mx.nd.zeros((10)), num_filter=10, kernel=(3, 3),
                          name='conv1')
print(conv1)

mx.random.seed(11)
data = mx.nd.random.uniform(0, 1, shape=(8, 3, 28, 28))
print(data.shape, data.dtype)
print(bool((data >= 0).min().asscalar()), bool((data < 1).min().asscalar()))
label = mx.nd.round(mx.nd.random.uniform(0, 1, shape=(1000)))
print(label.shape)
print(((label == 0) + (label == 1)).min())
