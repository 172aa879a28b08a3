"""When BatchNorm's moving statistics update (checked on MXNet 1.9.1): MXNet updates them in
BatchNorm's backward, so they change only when that backward runs, i.e. when a gradient flows
to one of its inputs (data that needs a gradient, or gamma/beta with grad_req != 'null').
A BatchNorm(scale=False, center=False) straight on the network input keeps them, imperative,
hybridized and as a bound symbol alike; anywhere else they update to
0.9 * old + 0.1 * batch statistic."""
import itertools

import numpy as np
import pytest

import xnd as mx
from xnd import autograd, gluon, nd

DATA = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
BATCH_MEAN = DATA.mean(axis=(0, 2))
UPDATED = 0.1 * BATCH_MEAN  # momentum 0.9 from zero


def _gluon_first_bn(hybridize, scale, center):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.BatchNorm(scale=scale, center=center, in_channels=3))
    net.add(gluon.nn.Dense(2, in_units=12))
    net.initialize(mx.init.One())
    if hybridize:
        net.hybridize()
    with autograd.record():
        loss = net(nd.array(DATA)).sum()
    loss.backward()
    return net[0].running_mean.data().asnumpy()


@pytest.mark.parametrize("hybridize,scale,center",
                         list(itertools.product((False, True), (False, True), (False, True))))
def test_gluon_batchnorm_on_the_input(hybridize, scale, center):
    got = _gluon_first_bn(hybridize, scale, center)
    want = UPDATED if (scale or center) else np.zeros(3)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_gluon_batchnorm_after_a_trained_layer_updates():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(12, in_units=12))
    net.add(gluon.nn.BatchNorm(scale=False, center=False, in_channels=12))
    net.initialize(mx.init.One())
    net.hybridize()
    with autograd.record():
        loss = net(nd.array(DATA)).sum()
    loss.backward()
    np.testing.assert_allclose(net[1].running_mean.data().asnumpy(),
                               np.full(12, 0.1 * DATA.reshape(2, 12).sum(axis=1).mean()),
                               rtol=1e-5)


@pytest.mark.parametrize("reqs", list(itertools.product(("null", "write"), repeat=3)))
def test_executor_updates_only_when_the_batchnorm_backward_runs(reqs):
    s = mx.sym.BatchNorm(mx.sym.var("data"), fix_gamma=True, name="bn")
    ex = s.simple_bind(mx.cpu(), data=DATA.shape,
                       grad_req=dict(zip(("data", "bn_gamma", "bn_beta"), reqs)))
    ex.arg_dict["bn_gamma"][:] = 1
    ex.aux_dict["bn_moving_var"][:] = 1
    ex.forward(is_train=True, data=mx.nd.array(DATA))
    assert ex.aux_dict["bn_moving_mean"].asnumpy().tolist() == [0.0, 0.0, 0.0]  # not in forward
    ex.backward(mx.nd.ones(DATA.shape))
    want = UPDATED if "write" in reqs else np.zeros(3)
    np.testing.assert_allclose(ex.aux_dict["bn_moving_mean"].asnumpy(), want, rtol=1e-5,
                               atol=1e-7)
