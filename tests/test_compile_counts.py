"""Eager loops compile a constant number of times: scalars, rng keys and view offsets are
kernel arguments, never baked into a compilation."""
import sys

from xnd import nd
from xnd.lowering import registry

core = sys.modules["xnd.ndarray"]


def _compiled(opname):
    return sum(k._cache_size() for k in registry.get(opname)._kernels.values())


def test_changing_scalars_rng_draws_and_views_do_not_recompile():
    x = nd.ones((3, 4))
    z = nd.zeros((3, 4))

    def step(i):
        y = x * (0.5 + i) + i            # _mul_scalar, _plus_scalar with new values
        nd.random.uniform(0, 1, shape=(3, 4))
        nd.elemwise_add(y, x, out=z)     # donating out= variant
        return z[i % 3].asnumpy()        # a view at a new offset each time

    for i in range(3):
        step(i)
    before = {n: _compiled(n) for n in ("_mul_scalar", "_plus_scalar", "_random_uniform",
                                        "elemwise_add", "_view_read")}
    for i in range(3, 23):
        step(i)
    after = {n: _compiled(n) for n in before}
    assert after == before
    assert all(v >= 1 for v in after.values())
