"""mx.nd behaviours MXNet 1.9.1's test_ndarray relies on: in-place reshaping methods, the slice
assign and 0-index element ops, moveaxis, creation with out=, DLPack, from_numpy, CachedOp.
Expected values are MXNet 1.9.1's outputs (printed by the oracle) or exact by construction."""
from itertools import combinations_with_replacement, permutations

import numpy as np
import pytest

import xnd as mx
from xnd.base import MXNetError


def test_inplace_reshaping_methods_share_memory():
    t = (mx.nd.arange(30) + 1).reshape((2, 3, 5))
    copy, view = t.flatten(), t.flatten(inplace=True)
    t[0] = -1
    assert copy.asnumpy()[0, :3].tolist() == [1, 2, 3]
    assert view.shape == (2, 15) and view.asnumpy()[0, :3].tolist() == [-1, -1, -1]
    d = mx.nd.ones((2, 1, 3))
    sq = d.squeeze(axis=1, inplace=True)
    d[0] = 5
    assert sq.asnumpy().tolist() == [[5, 5, 5], [1, 1, 1]]
    e = mx.nd.ones((2, 3))
    ex = e.expand_dims(axis=1, inplace=True)
    e[1] = 7
    assert ex.shape == (2, 1, 3) and ex.asnumpy()[1, 0].tolist() == [7, 7, 7]


def test_fluent_pad_and_split_v2():
    x = mx.nd.ones((1, 1, 2, 2))
    assert x.pad(mode="constant", pad_width=(0, 0, 0, 0, 1, 1, 1, 1)).shape == (1, 1, 4, 4)
    parts = mx.nd.arange(12).reshape((2, 6)).split_v2(3, axis=1)
    assert [p.asnumpy().tolist() for p in parts][1] == [[2, 3], [8, 9]]


def test_slice_assign_family():
    x = mx.nd.arange(24).reshape((2, 3, 4))
    z = mx.nd.ones((2, 1, 3)) * -1
    got = mx.nd._internal._crop_assign(x, z, begin=(0, 0, 0), end=(2, 1, 3)).asnumpy()
    assert got[:, 0].tolist() == [[-1, -1, -1, 3], [-1, -1, -1, 15]]
    assert got[:, 1].tolist() == [[4, 5, 6, 7], [16, 17, 18, 19]]
    got = mx.nd._internal._slice_assign_scalar(x, scalar=5, begin=(0, 0, 0), end=(2, 1, 3),
                                               step=(1, 1, 2)).asnumpy()
    assert got[:, 0].tolist() == [[5, 1, 5, 3], [5, 13, 5, 15]]
    assert (mx.nd._internal._slice_assign(x, z, begin=(0, 0, 0), end=(2, 1, 3)).asnumpy()
            == mx.nd._internal._crop_assign(x, z, begin=(0, 0, 0), end=(2, 1, 3)).asnumpy()).all()
    with pytest.raises(MXNetError, match=r"Shape inconsistent, Provided = \[2, 1, 3\], inferred "
                                         r"shape=\[2, 2, 3\]"):
        mx.nd._internal._slice_assign(x, z, begin=(0, 0, 0), end=(2, 2, 3))


def test_element_0index_ops():
    a = mx.nd.arange(6).reshape((2, 3))
    assert mx.nd.choose_element_0index(a, mx.nd.array([2, 5])).asnumpy().tolist() == [2, 5]
    got = mx.nd.fill_element_0index(a, mx.nd.array([9, 8]), mx.nd.array([1, -1]))
    assert got.asnumpy().tolist() == [[0, 9, 2], [3, 4, 5]]
    with pytest.raises(MXNetError, match="one index per row"):
        mx.nd.choose_element_0index(a, mx.nd.array([1, 2, 0]))


def test_moveaxis_follows_numpy():
    x = mx.nd.arange(24).reshape((2, 3, 4))
    for s, d in [(0, 2), ([0, 1], [2, 0]), (-1, 0), ((0, 2), (1, 0)), (range(3), range(3))]:
        np.testing.assert_array_equal(mx.nd.moveaxis(x, s, d).asnumpy(),
                                      np.moveaxis(x.asnumpy(), s, d))
    for bad in [(3, 0), (-4, 0), (0, 5), ([0, 0], [0, 1]), ([0, 1], [1, 1]), (0, [0, 1])]:
        with pytest.raises(ValueError):
            mx.nd.moveaxis(x, *bad)


def test_creation_with_out():
    out = mx.nd.zeros((2, 2))
    mx.nd.ones((2, 2), out=out)
    assert out.asnumpy().tolist() == [[1, 1], [1, 1]]
    mx.nd.zeros((2, 2), out=out)
    assert out.asnumpy().tolist() == [[0, 0], [0, 0]]


@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
def test_dlpack_round_trip(dtype):
    a = mx.nd.array(np.arange(12).reshape((3, 4)), dtype=dtype)
    for pack in (a.to_dlpack_for_read(), a.to_dlpack_for_write(),
                 mx.nd.to_dlpack_for_read(a), mx.nd.to_dlpack_for_write(a)):
        assert type(pack).__name__ == "PyCapsule"
        b = mx.nd.from_dlpack(pack)
        assert b.dtype == np.dtype(dtype) and b.asnumpy().tolist() == a.asnumpy().tolist()
        with pytest.raises(ValueError, match="not been consumed"):
            mx.nd.from_dlpack(pack)                 # a capsule is consumed once


def test_from_numpy():
    n = np.array([[1, 2], [3, 4]], dtype="float32")
    m = mx.nd.from_numpy(n)
    assert m.dtype == np.float32 and m.asnumpy().tolist() == [[1, 2], [3, 4]]
    with pytest.raises(ValueError):
        n[0, 0] = 5                                # zero_copy makes it read-only, as in MXNet
    assert mx.nd.from_numpy(np.array(()).reshape((1, 0, 2)), zero_copy=False).shape == (1, 0, 2)
    assert mx.nd.from_numpy(np.array((1,)).reshape(())).shape == ()
    with pytest.raises(ValueError, match="C-contiguous"):
        mx.nd.from_numpy(np.ones((2, 3)).T)


def test_cached_op_forward_out_and_autograd():
    sym = mx.sym.Convolution(kernel=(3, 3), num_filter=10) + 2
    op = mx.nd.CachedOp(sym)
    data, weight, bias = mx.nd.ones((3, 4, 10, 10)), mx.nd.ones((10, 4, 3, 3)), mx.nd.ones((10,))
    o1 = op(data, weight, bias)
    assert o1.shape == (3, 10, 8, 8) and float(o1.asnumpy()[0, 0, 0, 0]) == 39.0   # 36 + 1 + 2
    bias[:] = 2
    o2 = mx.nd.zeros((3, 10, 8, 8))
    op(data, weight, bias, out=o2)
    assert float(o2.asnumpy()[2, 9, 7, 7]) == 40.0
    weight.attach_grad()
    bias.attach_grad()
    with mx.autograd.record():
        o = op(data, weight, bias + 1) * 2
    o.backward()
    # d(2 * sum conv)/dw = 2 * (3 images * 64 positions) ones; d/dbias the same count
    assert float(weight.grad.asnumpy()[0, 0, 0, 0]) == 384.0
    assert bias.grad.asnumpy().tolist() == [384.0] * 10
    with pytest.raises(ValueError, match="takes 3 inputs"):
        op(data, weight)


def test_basic_indexing_contiguity_is_numpys():
    shape = (6, 7, 8, 9)
    xn = np.arange(np.prod(shape)).reshape(shape)
    slices = [slice(None), slice(2), slice(1, 4), slice(None, None, 2), slice(0, 1),
              slice(None, None, -1), slice(3, None, -2)]
    is_contiguous = mx.nd.NDArray._basic_indexing_slice_is_contiguous
    for idx in combinations_with_replacement(slices, 2):
        for slc in permutations(idx + (slice(None), 1)):
            assert is_contiguous(slc, shape) == xn[slc].flags.contiguous, slc


def test_setitem_drops_leading_ones_of_the_value():
    x = mx.nd.zeros((2, 3, 4))
    x[1] = mx.nd.arange(4).reshape((1, 1, 1, 4))
    assert x.asnumpy()[1].tolist() == [[0, 1, 2, 3]] * 3 and x.asnumpy()[0].sum() == 0
