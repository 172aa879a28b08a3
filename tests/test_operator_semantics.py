"""Operator semantics MXNet 1.9.1's test_operator checks, kept with values computed by hand
or by MXNet 1.9.1 (quoted in each test)."""
import numpy as np
import pytest

import xnd as mx
from xnd import tiers
from xnd import autograd, nd
from xnd.lowering import host_jaxpr


def test_dropout_of_everything_is_nan_as_mxnet():
    """p = 1 scales the kept values by 1/0: MXNet 1.9.1 gives NaN outputs and gradients
    (0 * inf), bound, recorded and with mode='always'."""
    ex = mx.sym.Dropout(mx.sym.var("data"), p=1.0).simple_bind(mx.cpu(), data=(2, 3))
    ex.arg_arrays[0][:] = 1
    ex.forward(is_train=True)
    assert np.isnan(ex.outputs[0].asnumpy()).all()
    ex.backward([nd.ones((2, 3))])
    assert np.isnan(ex.grad_arrays[0].asnumpy()).all()
    a = nd.ones((2, 3))
    a.attach_grad()
    with autograd.record():
        b = nd.Dropout(a, p=1.0)
    b.backward()
    assert np.isnan(b.asnumpy()).all() and np.isnan(a.grad.asnumpy()).all()
    assert np.isnan(nd.Dropout(nd.ones((2, 2)), p=1.0, mode="always").asnumpy()).all()
    # inference: the identity
    np.testing.assert_array_equal(nd.Dropout(nd.ones((2, 2)), p=1.0).asnumpy(), np.ones((2, 2)))


def test_executor_backward_in_inference_mode_passes_dropout_through():
    """``Executor.backward(grads, is_train=False)`` differentiates the inference graph: a
    Dropout's gradient is the head gradient (MXNet 1.9.1: all ones for a ones head)."""
    ex = mx.sym.Dropout(mx.sym.var("data"), p=0.5).simple_bind(mx.cpu(), data=(50, 40))
    ex.arg_arrays[0][:] = 1
    ex.forward(is_train=True)
    ex.backward([nd.ones((50, 40))])
    train = ex.grad_arrays[0].asnumpy()
    assert set(np.unique(train)) == {0.0, 2.0}
    np.testing.assert_array_equal(train, ex.outputs[0].asnumpy())
    ex.forward(is_train=False)
    ex.backward([nd.ones((50, 40))], is_train=False)
    np.testing.assert_array_equal(ex.grad_arrays[0].asnumpy(), np.ones((50, 40)))


def test_float32_sums_over_many_rows_are_accurate_on_the_host():
    """A gradient summed over 4096 rows (LayerNorm's gamma): numpy adds a non-last axis one
    row at a time (error ~ n * eps); the host tier accumulates in float64, as MXNet's safe
    accumulation does: within 2 float32 ulps of the exact sum."""
    rng = np.random.RandomState(0)
    x = rng.standard_normal((4096, 64)).astype(np.float32) + 0.5
    import jax
    closed = jax.make_jaxpr(lambda a: a.sum(axis=0))(x)
    got = host_jaxpr.evaluate(closed, [x])[0]
    exact = x.astype(np.float64).sum(axis=0)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, exact, rtol=2 * np.finfo(np.float32).eps * 4, atol=0)


def test_numeric_gradient_does_not_cross_a_tier_switch():
    """mx.test_utils.numeric_grad differences forward calls 2i and 2i+1; a switch from the
    host tier to XLA between them (after QUICK_CALLS calls) put a last-bit difference / eps
    into the gradient (MXNet's test_bilinear_resize_op saw 4.8e-4 where the true value is 0).
    Its calls run one tier (tiers.pinned)."""
    data = mx.sym.var("data")
    sym = mx.sym.contrib.BilinearResize2D(data, height=5, width=7)
    x = np.random.RandomState(1).uniform(-1, 1, (1, 2, 3, 4)).astype(np.float32)
    seen = []
    orig = tiers.Tiered.__call__

    def spy(self, *a, **k):
        seen.append(tiers.is_pinned())
        return orig(self, *a, **k)
    tiers.Tiered.__call__ = spy
    try:
        mx.test_utils.check_numeric_gradient(sym, [x], numeric_eps=1e-3, rtol=1e-2, atol=1e-4)
    finally:
        tiers.Tiered.__call__ = orig
    n_diffs = 2 * x.size
    assert len(seen) >= n_diffs and all(seen[-n_diffs:])   # every differenced call pinned
    with tiers.pinned():
        assert tiers.Calls().quick_signature((np.ones(3),)) is None


_NAN_CASES = {   # MXNet 1.9.1 on [nan, -1, 0, 2]: (output, gradient of its sum)
    "relu": (lambda F, x: F.relu(x), [np.nan, 0, 0, 2], [np.nan, 0, 0, 1]),
    "Activation relu": (lambda F, x: F.Activation(x, act_type="relu"), [0, 0, 0, 2],
                        [0, 0, 0, 1]),
    "leaky": (lambda F, x: F.LeakyReLU(x, act_type="leaky"), [np.nan, -0.25, 0, 2],
              [1, 0.25, 0.25, 1]),
    "prelu": (lambda F, x: F.LeakyReLU(x, F.ones((1,)) * 0.25, act_type="prelu"),
              [np.nan, -0.25, 0, 2], [0.25, 0.25, 0.25, 1]),
    "elu": (lambda F, x: F.LeakyReLU(x, act_type="elu"), [np.nan, -0.15803012, 0, 2],
            [1, 0.09196987, 0.25, 1]),
    "maximum": (lambda F, x: F.maximum(x, F.zeros((4,))), [np.nan, 0, 0, 2], [0, 0, 1, 1]),
}


@pytest.mark.parametrize("case", sorted(_NAN_CASES))
def test_activation_gradients_at_nan_and_zero_as_mxnet(case):
    """MXNet's test_ndarray_nan_comparison: relu's gradient is NaN at a NaN, Activation's 0;
    LeakyReLU's leaky and elu take the identity's gradient at a NaN and the slope's at 0."""
    fn, want_y, want_g = _NAN_CASES[case]
    x = nd.array([np.nan, -1, 0, 2])
    x.attach_grad()
    with autograd.record():
        y = fn(nd, x)
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), want_y, rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), want_g, rtol=1e-6)
    bound = fn(mx.sym, mx.sym.var("x")).simple_bind(mx.cpu(), x=(4,))   # a graph's alike
    bound.forward(is_train=True, x=nd.array([np.nan, -1, 0, 2]))
    bound.backward(nd.ones((4,)))
    np.testing.assert_allclose(bound.outputs[0].asnumpy(), want_y, rtol=1e-6)
    np.testing.assert_allclose(bound.grad_dict["x"].asnumpy(), want_g, rtol=1e-6)


def test_arange_infer_range_takes_its_length_from_the_consumer():
    """MXNet 1.9.1: ``arange(start=2, step=0.5, repeat=2, infer_range=True) + zeros((6,))``
    gives [2, 2, 2.5, 2.5, 3, 3] (MXNet's test_init: ``arange(start=0, infer_range=True)``)."""
    s = mx.sym.arange(start=2, step=0.5, repeat=2, infer_range=True) + mx.sym.zeros(shape=(6,))
    assert s.infer_shape() == ([], [(6,)], [])
    e = s.bind(mx.cpu(), {})
    e.forward()
    np.testing.assert_array_equal(e.outputs[0].asnumpy(), [2, 2, 2.5, 2.5, 3, 3])
    e = (mx.sym.arange(start=0, infer_range=True) + mx.sym.zeros(shape=(5,))).bind(mx.cpu(), {})
    e.forward()
    np.testing.assert_array_equal(e.outputs[0].asnumpy(), [0, 1, 2, 3, 4])
    bad = mx.sym.arange(start=0, repeat=2, infer_range=True) + mx.sym.zeros(shape=(5,))
    with pytest.raises(mx.base.MXNetError, match="infer_range"):
        bad.bind(mx.cpu(), {}).forward()


def test_activation_relu_multiplies_the_head_gradient_by_its_mask():
    """MXNet 1.9.1's Activation(relu) backward is ``ograd * (out > 0)``: a NaN or infinite
    head gradient where x <= 0 gives NaN (measured: [nan, nan, 3, 0]), in a graph too."""
    head = nd.array([np.nan, np.inf, 3, 1])
    want = [np.nan, np.nan, 3, 0]
    x = nd.array([-1, 0, 2, np.nan])
    x.attach_grad()
    with autograd.record():
        y = nd.Activation(x, act_type="relu")
    y.backward(head)
    np.testing.assert_array_equal(y.asnumpy(), [0, 0, 2, 0])
    np.testing.assert_array_equal(x.grad.asnumpy(), want)
    bound = mx.sym.Activation(mx.sym.var("x"), act_type="relu").simple_bind(mx.cpu(), x=(4,))
    bound.forward(is_train=True, x=nd.array([-1, 0, 2, np.nan]))
    bound.backward(head)
    np.testing.assert_array_equal(bound.grad_dict["x"].asnumpy(), want)


def test_batchnorm_backward_reads_only_the_outputs_gradient():
    """MXNet 1.9.1's BatchNorm backward ignores the gradients of the mean and var outputs
    that ``output_mean_var`` shows: a loss on them changes no gradient (values measured on
    MXNet 1.9.1 with this RandomState(0) data)."""
    rng = np.random.RandomState(0)
    x = nd.array(rng.randn(4, 3, 2, 2))
    g, b = nd.array(rng.rand(3) + 0.5), nd.array(rng.rand(3))
    stats = nd.zeros(3), nd.ones(3)
    grads = []
    for with_stats in (True, False):
        for a in (x, g, b):
            a.attach_grad()
        with autograd.record():
            y, m, v = nd.BatchNorm(x, g, b, *stats, fix_gamma=False, output_mean_var=True)
            loss = (y * y).sum() + ((m * 3).sum() + (v * 5).sum() if with_stats else 0)
        loss.backward()
        grads.append([a.grad.asnumpy() for a in (x, g, b)])
    for with_stats, without in zip(*grads):
        np.testing.assert_array_equal(with_stats, without)
    np.testing.assert_allclose(grads[0][0].ravel()[:4], [0.002466, -0.000402, 0.000815, 0.003468],
                               rtol=2e-3)
    np.testing.assert_allclose(grads[0][1], [30.889135, 23.804386, 21.067026], rtol=1e-5)
    np.testing.assert_allclose(grads[0][2], [3.532005, 21.002546, 4.421854], rtol=1e-5)
