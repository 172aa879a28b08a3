"""host_eval's plans without a size bound (``plan(..., max_seconds=None)``), which run the
quick tier's parameter fold (symbol/rewrite.py) on the host: XLA's float results, and XLA's
integer semantics where numpy's differ (division by zero, saturating casts)."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from xnd.lowering import host_eval


def _fold(w, gamma, beta, mean, var):
    s = gamma * lax.rsqrt(var + jnp.asarray(1e-3, w.dtype))
    return [jnp.transpose(w * s.reshape(-1, 1, 1, 1), (2, 3, 1, 0)),
            (jnp.zeros_like(mean) - mean) * s + beta, w / 3.0 - jnp.maximum(w, 0.25)]


def _args(dtype):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((6, 4, 3, 3)).astype(dtype)
    g, b, m = (rng.standard_normal(6).astype(dtype) for _ in range(3))
    v = rng.uniform(0.1, 2.0, 6).astype(dtype)
    return [jnp.asarray(a) for a in (w, g, b, m, v)]


def test_float_arithmetic_gives_xla_numbers():
    for dtype in (np.float32, np.float64):
        args = _args(dtype)
        closed = host_eval.plan(_fold, args, max_seconds=None)
        assert closed is not None
        got = host_eval.run_committed(closed, args, jax.devices()[0])
        want = jax.jit(_fold)(*args)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            # one IEEE operation at a time, rounded once: XLA's numbers but where XLA contracts
            # a multiply and an add (FMA), divides by a constant's reciprocal or approximates
            # rsqrt (a few eps)
            eps = np.finfo(dtype).eps
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=8 * eps,
                                       atol=8 * eps * float(np.abs(np.asarray(w)).max()))


def test_literals_round_in_the_operands_dtype():
    """eps = 1e-3 is a Python float in the jaxpr: added in float32, as XLA adds it."""
    x = jnp.asarray(np.float32([1.0, 0.1, 3e-4]))
    f = lambda a: a + 1e-3   # noqa: E731
    closed = host_eval.plan(f, [x], max_seconds=None)
    got = np.asarray(host_eval.run_committed(closed, [x], jax.devices()[0])[0])
    np.testing.assert_array_equal(got, np.asarray(jax.jit(f)(x)))


def test_integer_arithmetic_and_casts_give_xlas_results():
    i = jnp.asarray(np.int32([7, -7, 2 ** 31 - 1, -2 ** 31]))
    x = jnp.asarray(np.float32([np.nan, 3e9, -2.5, np.inf]))
    for f, v in ((lambda a: a // 2, i), (lambda a: a * 2, i), (lambda a: lax.div(a, a - a), i),
                 (jnp.exp, x), (lambda a: a.astype(jnp.int32), x),
                 (lambda a: a.astype(jnp.uint8), x)):
        closed = host_eval.plan(f, [v], max_seconds=None)
        assert closed is not None
        got = np.asarray(host_eval.run_committed(closed, [v], jax.devices()[0])[0])
        # exact but for a transcendental's last bit (numpy's exp and XLA's differ by an ulp)
        np.testing.assert_allclose(got, np.asarray(jax.jit(f)(v)), rtol=2e-7, atol=0)
    # what numpy cannot run as XLA does stays compiled: bfloat16, a primitive without a rule
    assert host_eval.plan(lambda a: a.astype(jnp.bfloat16), [x], max_seconds=None) is None
    assert host_eval.plan(lambda a: lax.igamma(a, a), [x]) is None
