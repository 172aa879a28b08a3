"""In-place writes, donation and deferred large results keep MXNet's aliasing semantics.

Values here are exact by construction (small integers in float32)."""
import numpy as np
import pytest

import xnd as mx
from xnd import nd

BIG = (1024, 1024)  # at the deferral threshold: exercises the deferred path


@pytest.mark.parametrize("shape", [(3, 4), BIG])
def test_setitem_from_expression_keeps_identity_and_value(shape):
    z, y = nd.zeros(shape), nd.ones(shape)
    before = id(z)
    for _ in range(3):
        z[:] = z + y
    assert id(z) == before
    assert np.all(z.asnumpy() == 3)


@pytest.mark.parametrize("shape", [(3, 4), BIG])
def test_kept_temporary_is_not_clobbered_by_later_writes(shape):
    z, y = nd.zeros(shape), nd.ones(shape)
    w = z + y
    z[:] = w
    nd.elemwise_add(z, y, out=z)  # may donate z's buffer: w must survive
    z += 1
    assert np.all(w.asnumpy() == 1) and np.all(z.asnumpy() == 3)


@pytest.mark.parametrize("shape", [(3, 4), BIG])
def test_pending_result_reads_inputs_before_they_change(shape):
    z, y = nd.ones(shape), nd.ones(shape)
    t = z * 2
    u = z + y
    nd.elemwise_add(z, y, out=z)
    z[:] = 7
    assert np.all(t.asnumpy() == 2) and np.all(u.asnumpy() == 2) and np.all(z.asnumpy() == 7)


def test_views_of_deferred_results_and_waitall():
    a, b = nd.ones(BIG), nd.ones(BIG)
    c = a + b
    v = c[3]
    nd.waitall()
    assert v.shape == (BIG[1],) and float(v.sum().asscalar()) == 2 * BIG[1]
    c[:] = c + a
    assert float(v[0].asscalar()) == 3.0


def test_out_argument_keeps_identity_and_works_on_views():
    x, y = nd.ones((2, 3)), nd.ones((2, 3))
    z = nd.zeros((4, 3))
    view = z[1:3]
    r = nd.elemwise_add(x, y, out=view)
    assert r is view
    np.testing.assert_array_equal(z.asnumpy(), [[0, 0, 0], [2, 2, 2], [2, 2, 2], [0, 0, 0]])
    with pytest.raises(mx.MXNetError):
        nd.elemwise_add(x, y, out=nd.zeros((3, 3)))


def test_iadd_cannot_grow_left_side():
    a = nd.zeros((1, 3))
    with pytest.raises(mx.MXNetError):
        a += nd.ones((2, 3))
    a += nd.ones((3,))
    np.testing.assert_array_equal(a.asnumpy(), [[1, 1, 1]])


def test_inplace_division_broadcasts_a_shorter_right_side():
    """MXNet 1.9.1: ``f /= nd.array([2, 2, 3])`` on (2, 2, 3) broadcasts over the last axis
    (as -=, *=, += do); integer broadcast_div truncates toward zero."""
    f = mx.nd.ones((2, 2, 3)) * 6
    f /= mx.nd.array([2, 2, 3])
    np.testing.assert_array_equal(f.asnumpy(), np.broadcast_to([3.0, 3.0, 2.0], (2, 2, 3)))
    a = mx.nd.array([[7, -7]], dtype="int32")
    got = mx.nd.broadcast_div(a, mx.nd.array([[2], [3]], dtype="int32")).asnumpy()
    np.testing.assert_array_equal(got, [[3, -3], [2, -2]])
