"""Errors of checks MXNet makes inside its kernels arrive at the next read, as MXNet 1.9.1's
engine delivers them (engine.Failure / engine.Failed). Each behaviour below was observed on
MXNet 1.9.1: the call returns an array of the right shape; reading it (or nd.waitall())
raises the op's error once; the error passes on to every op that reads the array; and one
delivery clears every pending error, so all failed arrays then read without raising."""
import numpy as np
import pytest

import xnd as mx
from xnd import engine
from xnd.base import MXNetError

GAUSS = "Check failed: param.scale > 0 (-1 vs. 0) : scale parameter in gaussian has to be positive"


@pytest.fixture(autouse=True)
def _no_pending():
    engine.clear_failures()
    yield
    engine.clear_failures()


def test_error_waits_for_the_read_and_is_raised_once():
    a = mx.nd.random.normal(0, -1, (2, 3))
    assert a.shape == (2, 3) and a.dtype == mx.nd.ones(1).dtype
    with pytest.raises(MXNetError) as e:
        a.asnumpy()
    assert str(e.value) == GAUSS
    assert a.asnumpy().tolist() == [[0.0] * 3] * 2   # cleared: reads without raising
    mx.nd.waitall()


def test_error_passes_through_ops_copies_and_views():
    a = mx.nd.random.normal(0, 1, (2, 2))
    b = mx.nd.random.normal(0, -1, (2, 2))
    c = mx.nd.dot(a, b) + 1
    first, second = b.copyto(mx.cpu())   # iterating: views of a failed copy
    assert (c.shape, first.shape, second.shape) == ((2, 2), (2,), (2,))
    with pytest.raises(MXNetError, match="gaussian has to be positive"):
        first.asnumpy()
    second.asnumpy()          # one delivery clears every array holding the error
    b.asnumpy()
    c.asnumpy()


def test_waitall_rethrows_once_even_for_dropped_arrays():
    def make():
        mx.nd.random.normal(0, -1, (2, 2))
    make()
    with pytest.raises(MXNetError, match="gaussian"):
        mx.nd.waitall()
    mx.nd.waitall()


def test_reading_one_failed_array_clears_the_others():
    x = mx.nd.random.normal(0, -1, (2, 2))
    y = mx.nd.random.uniform(1, 0, (2, 2))
    with pytest.raises(MXNetError, match="low must be less or equal to high"):
        y.wait_to_read()
    mx.nd.waitall()
    x.asnumpy()


@pytest.mark.parametrize("call, message", [
    (lambda: mx.nd.random.uniform(1, 0, shape=(2,)),
     "Check failed: param.high >= param.low (0 vs. 1) : low must be less or equal to high in "
     "uniform distribution"),
    (lambda: mx.nd.random.gamma(-1, 1, shape=(2,)),
     "Check failed: param.alpha > 0 (-1 vs. 0) : alpha parameter in gamma distribution has to "
     "be positive"),
    (lambda: mx.nd.random.gamma(1, -1, shape=(2,)),
     "Check failed: param.beta > 0 (-1 vs. 0) : beta parameter in gamma distribution has to be "
     "positive"),
    (lambda: mx.nd.random.poisson(-1, shape=(2,)),
     "Check failed: param.lam >= 0 (-1 vs. 0) : lambda parameter in poisson distribution has to "
     "be non-negative"),
    (lambda: mx.nd.random.negative_binomial(-1, 0.5, shape=(2,)),
     "Check failed: param.k >= 0 (-1 vs. 0) : k parameter in negative binomial distribution has "
     "to be non-negative"),
    (lambda: mx.nd.random.generalized_negative_binomial(-1, 1, shape=(2,)),
     "Check failed: param.mu >= 0 (-1 vs. 0) : mu parameter in generalized negative binomial "
     "distribution has to be non-negative"),
    (lambda: mx.nd.random.generalized_negative_binomial(1, -1, shape=(2,)),
     "Check failed: param.alpha >= 0 (-1 vs. 0) : alpha parameter in generalized negative "
     "binomial distribution has to be non-negative"),
    (lambda: mx.nd.random.normal(0, 0, shape=(2,)),
     "Check failed: param.scale > 0 (0 vs. 0) : scale parameter in gaussian has to be positive"),
    (lambda: mx.nd.random.randint(5, 2, shape=(2,)),
     "Check failed: param.high >= param.low (2 vs. 5) : low must be less or equal to high in "
     "uniform distribution"),
])
def test_sampler_parameter_messages(call, message):
    out = call()
    assert out.shape == (2,)
    with pytest.raises(MXNetError) as e:
        out.asnumpy()
    assert str(e.value) == message


def test_valid_parameters_do_not_fail():
    assert mx.nd.random.negative_binomial(1, 1.5, shape=(2,)).shape == (2,)
    assert mx.nd.random.randint(2, 2 + 1, shape=(3,)).asnumpy().tolist() == [2, 2, 2]


def test_take_raise_and_gather_nd_fail_at_the_read():
    a = mx.nd.ones((3, 3))
    t = mx.nd.take(a, mx.nd.array([5]), mode="raise")
    assert t.shape == (1, 3)
    with pytest.raises(MXNetError, match="out of bound"):
        t.asnumpy()
    g = mx.nd.gather_nd(a, mx.nd.array([[5], [0]]))
    assert g.shape == (1,)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        g.asnumpy()


def test_bound_graph_fails_at_the_read():
    x = mx.sym.var("x")
    out = mx.sym.dot(x, mx.sym.random.normal(0, -1, (2, 2)))
    exe = out.bind(mx.cpu(), args={"x": mx.nd.ones((2, 2))}, args_grad={"x": mx.nd.zeros((2, 2))})
    outs = exe.forward(is_train=True)
    assert outs[0].shape == (2, 2)
    with pytest.raises(MXNetError, match="gaussian"):
        outs[0].asnumpy()
    exe.backward(mx.nd.ones((2, 2)))
    with pytest.raises(MXNetError, match="gaussian"):
        mx.nd.waitall()
    exe.grad_arrays[0].asnumpy()


def test_gluon_forward_on_a_failed_input():
    net = mx.gluon.nn.Dense(4, in_units=3)
    net.initialize()
    z = net(mx.nd.random.normal(10, -10, (2, 3)))
    assert z.shape == (2, 4)
    with pytest.raises(MXNetError, match=r"\(-10 vs. 0\)"):
        z.wait_to_read()


def test_naive_engine_raises_at_the_op(monkeypatch):
    monkeypatch.setattr(engine, "NAIVE", True)
    with pytest.raises(MXNetError, match="gaussian"):
        mx.nd.random.normal(0, -1, (2, 2))


def test_np_random_rejects_numpy_unknown_keywords():
    for name in ("uniform", "normal"):
        with pytest.raises(TypeError, match=f"{name}\\(\\) got an unexpected keyword argument 'shape'"):
            getattr(mx.np.random, name)(shape=())
    with pytest.raises(TypeError):
        mx.np.random.randint(shape=None)
    assert mx.np.random.uniform(size=(2,)).shape == (2,)


def test_bound_take_raise_checks_the_bound_indices():
    data, idx = mx.sym.var("a"), mx.sym.BlockGrad(mx.sym.var("indices"))
    exe = mx.sym.take(a=data, indices=idx, axis=0, mode="raise").simple_bind(
        mx.cpu(), a=(3, 4), indices=(2,))
    exe.arg_dict["a"][:] = mx.nd.array(np.arange(12.0).reshape(3, 4))
    exe.arg_dict["indices"][:] = mx.nd.array([5, 1])
    out = exe.forward(is_train=True)[0]
    assert out.shape == (2, 4)
    with pytest.raises(MXNetError, match="out of bound for axis 0 of size 3"):
        out.asnumpy()
    exe.arg_dict["indices"][:] = mx.nd.array([2, 1])
    assert exe.forward()[0].asnumpy()[:, 0].tolist() == [8.0, 4.0]
    clip = mx.sym.take(a=data, indices=idx, axis=0).simple_bind(mx.cpu(), a=(3, 4), indices=(2,))
    assert clip._graph.checked == []      # mode='clip' reads no values to check


def test_shape_errors_of_checked_ops_stay_at_the_call():
    with pytest.raises(MXNetError):
        mx.nd.take(mx.nd.ones((2, 2)), mx.nd.array([0]), axis=3, mode="raise")
    mx.nd.waitall()       # nothing pending: the error was raised where the call was made


def test_sym_random_picks_the_sampler_by_parameter_kind():
    m, s = mx.sym.var("m"), mx.sym.var("s")
    # MXNet 1.9.1's names and stored attributes
    assert mx.sym.random.normal(0, 2, shape=(2, 3)).list_attr() == {
        "shape": "(2, 3)", "loc": "0", "scale": "2"}
    per_element = mx.sym.random.normal(m, s, shape=(2,))
    assert per_element.name.startswith("_sample_normal")
    assert per_element.infer_shape(m=(3,), s=(3,))[1] == [(3, 2)]
    assert mx.sym.random.exponential(2.0, shape=(2,)).list_attr() == {"shape": "(2,)", "lam": "0.5"}
    assert mx.sym.random.randn(2, 3).infer_shape()[1] == [(2, 3)]
    out = mx.sym.random.uniform(1, 3, shape=(500,), ctx=mx.cpu()).bind(mx.cpu(), {}).forward()[0]
    v = out.asnumpy()
    assert v.min() >= 1 and v.max() <= 3
    with pytest.raises(MXNetError, match="all Symbols or all numbers"):
        mx.sym.random.normal(m, 1.0)
