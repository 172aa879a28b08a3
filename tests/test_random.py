"""Random numbers: MXNet's entry points, shapes and dtypes, seed determinism, and the
distributions' moments. Streams differ from MXNet's by design (OPERATORS.md §14). With
20,000 draws the standard error of a mean is <1% of the std, so the tolerances below
(>= 5 standard errors) cannot fail by chance for these fixed seeds, nor pass a wrong law."""
import numpy as np
import pytest

import xnd as mx
from xnd import nd, autograd

N = 20000


def _draw(fn, *args, **kwargs):
    mx.random.seed(123)
    return fn(*args, shape=(N,), **kwargs).asnumpy().astype(np.float64)


@pytest.mark.parametrize("fn,args,kwargs,mean,var", [
    (nd.random.uniform, (-1, 3), {}, 1.0, 16 / 12),
    (nd.random.normal, (2, 0.5), {}, 2.0, 0.25),
    (nd.random.exponential, (2.0,), {}, 2.0, 4.0),         # scale 2
    (nd.random.gamma, (3.0, 2.0), {}, 6.0, 12.0),          # alpha 3, beta 2
    (nd.random.gamma, (0.5, 1.0), {}, 0.5, 0.5),           # alpha < 1: the boosted branch
    (nd.random.gamma, (1.0, 5.0), {}, 5.0, 25.0),
    (nd.random.gamma, (40.0, 0.5), {"dtype": "float64"}, 20.0, 10.0),
    (nd.random.poisson, (4.0,), {}, 4.0, 4.0),
    (nd.random.negative_binomial, (3, 0.4), {}, 4.5, 11.25),  # k(1-p)/p, k(1-p)/p^2
    (nd.random.generalized_negative_binomial, (2.0, 0.5), {}, 2.0, 4.0),  # mu + alpha mu^2
])
def test_moments(fn, args, kwargs, mean, var):
    x = _draw(fn, *args, **kwargs)
    se = np.sqrt(var / N)
    assert abs(x.mean() - mean) < 6 * se
    assert abs(x.var() / var - 1) < 0.08


def test_gamma_per_element_alpha_and_bad_alpha():
    """sample_gamma draws per parameter row; alpha 0 gives 0 (as MXNet 1.9.1), a negative
    alpha NaN, never a sampler that loops forever (MXNet's does)."""
    mx.random.seed(7)
    x = nd.random.gamma(nd.array([0.25, 4.0, 0.0, -1.0, np.nan]), nd.array([2.0, 1.0, 1, 1, 1]),
                        shape=N).asnumpy().astype(np.float64)
    assert x.shape == (5, N)
    for row, (mean, var) in zip(x[:2], [(0.5, 1.0), (4.0, 4.0)]):
        assert abs(row.mean() - mean) < 6 * np.sqrt(var / N)
        assert abs(row.var() / var - 1) < 0.08
    assert (x[:2] > 0).all() and (x[2] == 0).all() and np.isnan(x[3:]).all()


def test_ranges_shapes_dtypes_and_legacy_names():
    mx.random.seed(0)
    u = nd.random.uniform(2, 5, shape=(100, 3))
    assert u.shape == (100, 3) and u.dtype == np.float32
    assert 2 <= float(u.min().asscalar()) and float(u.max().asscalar()) < 5
    r = nd.random.randint(-3, 4, shape=(2000,))
    assert r.dtype == np.int32 and set(np.unique(r.asnumpy())) == set(range(-3, 4))
    assert nd.random_normal(0, 1, shape=(3, 4)).shape == (3, 4)
    assert nd.random_normal(shape=3).shape == (3,)
    assert nd.random_uniform(shape=(2,), dtype="float64").dtype == np.float64
    assert nd.random.randn(2, 3).shape == (2, 3)
    out = nd.zeros((4,))
    assert nd.random.uniform(0, 1, shape=(4,), out=out) is out


def test_seed_determinism_and_array_parameters():
    mx.random.seed(7)
    a = nd.random.normal(0, 1, shape=(5,)).asnumpy()
    b = nd.random.normal(0, 1, shape=(5,)).asnumpy()
    mx.random.seed(7)
    np.testing.assert_array_equal(nd.random.normal(0, 1, shape=(5,)).asnumpy(), a)
    assert not np.array_equal(a, b)
    lo, hi = nd.array([0, 10]), nd.array([1, 11])
    s = nd.random.uniform(lo, hi, shape=(500,))
    assert s.shape == (2, 500)
    assert s[1].asnumpy().min() >= 10 and s[0].asnumpy().max() < 1


def test_multinomial_and_shuffle():
    mx.random.seed(1)
    p = nd.array([[0.0, 0.25, 0.75]])
    d = nd.random.multinomial(p, shape=(N,)).asnumpy().ravel()
    assert (d != 0).all() and abs((d == 2).mean() - 0.75) < 0.02
    x = nd.arange(10)
    y = nd.random.shuffle(x).asnumpy()
    assert sorted(y.tolist()) == list(range(10))


def test_dropout_draws_from_the_same_stream():
    x = nd.ones((1000,))
    mx.random.seed(5)
    with autograd.train_mode():
        a = nd.Dropout(x, p=0.5).asnumpy()
    mx.random.seed(5)
    with autograd.train_mode():
        b = nd.Dropout(x, p=0.5).asnumpy()
    np.testing.assert_array_equal(a, b)
    assert set(np.unique(a)) == {0.0, 2.0} and 0.4 < (a == 0).mean() < 0.6


def test_multinomial_get_prob_and_its_gradient():
    # MXNet 1.9.1: [draws, log(data[draw])]; the log-probability's gradient is 1 / data[draw]
    import xnd as mx
    x = mx.nd.array([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]) / 10.0
    dx = mx.nd.ones_like(x)
    mx.contrib.autograd.mark_variables([x], [dx])
    with mx.autograd.record():
        y, logp = mx.nd.random.multinomial(x, shape=200, get_prob=True, dtype="uint8")
        (logp * 5).backward()
    assert y.dtype == np.uint8 and y.shape == logp.shape == (2, 200)
    yn, xn = y.asnumpy().astype(int), x.asnumpy()
    for i in range(2):
        p = xn[i][yn[i]]
        np.testing.assert_allclose(logp.asnumpy()[i], np.log(p), atol=1e-6)
        want = np.zeros(5)
        np.add.at(want, yn[i], 5 / p)
        np.testing.assert_allclose(dx.asnumpy()[i], want, rtol=1e-5)
    assert isinstance(mx.nd.random.multinomial(x, shape=3), mx.nd.NDArray)
    # rows are not normalised: MXNet 1.9.1 draws [[0 0 0 0]] with log-probability 0 here
    y, logp = mx.nd.random.multinomial(mx.nd.array([[1, 3]]), shape=4, get_prob=True)
    assert y.asnumpy().tolist() == [[0] * 4] and logp.asnumpy().tolist() == [[0.0] * 4]
    with pytest.raises(mx.base.MXNetError, match="do not fit the output dtype uint8"):
        mx.nd.random.multinomial(mx.nd.zeros(2 ** 12), dtype="uint8")
    sym = mx.sym.random.multinomial(data=mx.sym.Variable("P"), shape=4, get_prob=True)
    assert len(sym.list_outputs()) == 2


def test_zipfian_samplers():
    import xnd as mx
    # rand_zipfian's expected counts are exact: P(c) = log((c + 2) / (c + 1)) / log(21)
    true = mx.nd.array([3, 0, 7]).astype("int32")
    s, exp_true, exp_s = mx.nd.contrib.rand_zipfian(true, 500, 20)
    p = np.log((np.arange(20) + 2) / (np.arange(20) + 1)) / np.log(21) * 500
    assert s.dtype == np.int64 and s.shape == (500,) and 0 <= s.asnumpy().min()
    assert s.asnumpy().max() < 20
    np.testing.assert_allclose(exp_true.asnumpy(), p[[3, 0, 7]], rtol=1e-12)
    np.testing.assert_allclose(exp_s.asnumpy(), p[s.asnumpy()], rtol=1e-12)
    outs = mx.sym.contrib.rand_zipfian(mx.sym.var("t"), 10, 20)
    got = mx.sym.Group(list(outs)).bind(mx.cpu(), {"t": true}).forward()
    assert [o.shape for o in got] == [(10,), (3,), (10,)]


def test_sample_unique_zipfian():
    """Distinct classes per row from the log-uniform law; the draw count includes repeats
    (range_max 20, 5 of them: the first class drawn, 0, has probability log(1.5)/log(20))."""
    mx.random.seed(3)
    classes, tries = nd._internal._sample_unique_zipfian(20, shape=(400, 5))
    c, t = classes.asnumpy(), tries.asnumpy()
    assert c.dtype == np.int64 and t.dtype == np.int64 and c.shape == (400, 5) and t.shape == (400,)
    assert all(len(set(row)) == 5 for row in c) and c.min() >= 0 and c.max() <= 19
    assert (t >= 5).all() and t.mean() > 5.5
    p0 = np.log(1.5) / np.log(20)
    assert abs((c[:, 0] == 0).mean() - p0) < 6 * np.sqrt(p0 * (1 - p0) / 400)
    mx.random.seed(3)
    assert (nd._internal._sample_unique_zipfian(20, shape=(400, 5))[0].asnumpy() == c).all()
    every, _ = nd._internal._sample_unique_zipfian(6, shape=(3, 6))
    assert (np.sort(every.asnumpy(), axis=1) == np.arange(6)).all()
    with pytest.raises(mx.MXNetError, match="cannot exceed"):
        nd._internal._sample_unique_zipfian(4, shape=(1, 5))
    with pytest.raises(mx.MXNetError, match="batch_size, num_sampled"):
        nd._internal._sample_unique_zipfian(20, shape=(5,))


@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (1024, 3), (0,), (2, 0, 3)])
def test_xnd_rbg_draws_are_jax_rbg_draws(shape):
    """xnd's generator makes JAX's 'rbg' 32-bit words from 64-bit ones (faster on CPU): the
    same bits, so every distribution draws what 'rbg' would (odd sizes included)."""
    import jax
    import jax.numpy as jnp
    from xnd.lowering.random import RBG, prng
    key = jnp.asarray([123, 45], jnp.uint32)

    def rbg(k):
        return jax.random.fold_in(jax.random.key(k[0], impl="rbg"), k[1])
    for draw in (lambda k: jax.random.bits(k, shape, jnp.uint32),
                 lambda k: jax.random.uniform(k, shape, jnp.float32, -1.0, 2.0),
                 lambda k: jax.random.normal(k, shape, jnp.float64),
                 lambda k: jax.random.randint(k, shape, 0, 1000),
                 lambda k: jax.random.bits(k, shape, jnp.uint16)):
        want = np.asarray(jax.jit(lambda k: draw(rbg(k)))(key))
        got = np.asarray(jax.jit(lambda k: draw(prng(k)))(key))
        np.testing.assert_array_equal(got, want)
    assert jax.random.key_impl(prng(key)) == RBG


@pytest.mark.parametrize("name,params", [
    ("uniform", {"low": -1.5, "high": 3.0}), ("normal", {"loc": 5.0, "scale": 2.0}),
    ("gamma", {"alpha": 9.0, "beta": 0.5}), ("exponential", {"lam": 4.0}),
    ("poisson", {"lam": 4.0}), ("negative_binomial", {"k": 3, "p": 0.4}),
    ("generalized_negative_binomial", {"mu": 2.0, "alpha": 0.3})])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_one_seed_draws_the_same_samples_in_every_program(name, params, dtype):
    """MXNet re-seeds between a bound graph's training forward (with its backward) and its
    inference forward and expects the same samples: two programs, which xnd runs on different
    tiers (the host, a quick or an optimized XLA program; xnd/tiers) that fuse
    multiply-adds differently. The samplers compute in float64 where it matters and round
    once (lowering/random.py: affine, normal32, exponential32, gamma)."""
    shape = (60, 70)
    x = mx.nd.zeros(shape, dtype=dtype)
    y = getattr(mx.sym.random, name)(shape=shape, dtype=dtype, **params) + mx.sym.Variable("X")
    ex = y.bind(mx.cpu(), {"X": x}, {"X": mx.nd.zeros(shape, dtype=dtype)})
    mx.random.seed(128)
    ex.forward(is_train=True)
    ex.backward(ex.outputs[0])
    first = ex.outputs[0].asnumpy()
    mx.random.seed(128)
    ex.forward()
    np.testing.assert_array_equal(ex.outputs[0].asnumpy(), first)
    mx.random.seed(129)
    ex.forward()
    assert not np.array_equal(ex.outputs[0].asnumpy(), first)


@pytest.mark.parametrize("call", [
    lambda: nd.random.uniform(-1, 3, shape=(7, 5)),
    lambda: nd.random.normal(2, 0.5, shape=(7, 5), dtype="float64"),
    lambda: nd.random.gamma(0.7, 2.0, shape=(7, 5)),
    lambda: nd.random.poisson(4.0, shape=(7, 5)),
    lambda: nd.random.randint(0, 9, shape=(7, 5)),
    lambda: nd.sample_gamma(nd.array([0.5, 2.0, 9.0]), nd.array([1.0, 2.0, 0.5]), shape=(4,)),
    lambda: nd.sample_normal(nd.array([0.0, 5.0]), nd.array([1.0, 3.0]), shape=(6,)),
    lambda: nd.sample_poisson(nd.array([1.0, 4.0]), shape=(5,)),
    lambda: nd.sample_multinomial(nd.array([[0.2, 0.3, 0.5]]), shape=(4,))])
def test_eager_samplers_draw_the_same_bits_on_the_host_and_compiled(call):
    """An eager sampler's first calls on a new shape run on the host tier (numpy evaluates its
    jaxpr: threefry in numpy, 'rbg' bits from a small bucketed kernel), later ones in its
    compiled kernel (xnd/tiers' eager row): one seed draws the same samples on both."""
    from xnd import tiers
    draws = []
    for _ in range(tiers.TABLE.eager_host_calls + 2):
        mx.random.seed(77)
        draws.append(call().asnumpy())
    for d in draws[1:]:
        np.testing.assert_array_equal(d, draws[0])
    mx.random.seed(78)
    assert not np.array_equal(call().asnumpy(), draws[0])
