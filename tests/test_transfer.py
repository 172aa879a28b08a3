"""Host arrays onto the device (xnd/_transfer.py): device_put for a signature's first
transfers, a jitted identity (one compile per signature) after PROMOTE_AFTER of them."""
import jax
import numpy as np
import pytest

import xnd as mx
from xnd import _compat_jax, _transfer

_COMPILES = [0]


def _on_event(event, duration, **_):
    if event == "/jax/core/compile/backend_compile_duration":
        _COMPILES[0] += 1


jax.monitoring.register_event_duration_secs_listener(_on_event)
DEV = jax.devices()[0]


def _compiles(fn):
    before = _COMPILES[0]
    out = fn()
    return _COMPILES[0] - before, out


def _one_of_all(commit):
    return lambda value, device: _transfer.to_device_all([value], device, commit)[0]


@pytest.mark.parametrize("put, committed", [(_transfer.to_device, True),
                                            (_transfer.to_default, False),
                                            (_one_of_all(True), True), (_one_of_all(False), False)])
@pytest.mark.parametrize("value", [np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5,
                                   np.array([2 ** 40, -3], np.int64),
                                   np.array([True, False]), np.float16(-0.5) * np.ones((2, 1, 3), np.float16),
                                   np.zeros((0, 3), np.float64), np.array(7, np.uint8)])
def test_every_transfer_gives_the_same_values_dtype_and_placement(put, committed, value):
    for k in range(_transfer.PROMOTE_AFTER + 3):        # both paths: device_put, the identity
        got = put(value.copy(), DEV)
        assert got.dtype == value.dtype and got.shape == value.shape, k
        assert np.array_equal(np.asarray(got), value), k
        assert _compat_jax.committed(got) is committed, k
        assert got.devices() == {DEV}


@pytest.mark.parametrize("commit", [True, False])
def test_a_batch_of_transfers_keeps_each_value_dtype_and_order(commit):
    values = [np.arange(6, dtype=np.float32).reshape(2, 3), np.array([2 ** 40], np.int64),
              np.array([True]), np.zeros((0, 2), np.float16)]
    hot = np.full((5,), 1.5, np.float32)
    for _ in range(_transfer.PROMOTE_AFTER):     # one signature promoted: mixed paths in a batch
        _transfer.to_device_all([hot.copy()], DEV, commit)
    got = _transfer.to_device_all([v.copy() for v in values] + [hot.copy()], DEV, commit)
    for g, v in zip(got, values + [hot]):
        assert g.dtype == v.dtype and np.array_equal(np.asarray(g), v)
        assert _compat_jax.committed(g) is commit and g.devices() == {DEV}


def test_random_shapes_compile_nothing_and_a_hot_shape_compiles_once():
    rng = np.random.default_rng(3)
    shapes = {tuple(int(d) for d in rng.integers(1, 40, 3)) for _ in range(60)}
    n, _ = _compiles(lambda: [_transfer.to_device(np.ones(s, np.float32), DEV)
                              for s in shapes for _ in range(_transfer.PROMOTE_AFTER)])
    assert n == 0
    hot = np.ones((3, 77, 5), np.float32)
    runs = _transfer.PROMOTE_AFTER + 40
    n, outs = _compiles(lambda: [_transfer.to_device(hot * i, DEV) for i in range(runs)])
    assert n == 1
    assert [float(o[0, 0, 0]) for o in outs] == [float(i) for i in range(runs)]


def test_nd_array_on_a_hot_shape_keeps_mxnet_dtypes():
    for _ in range(_transfer.PROMOTE_AFTER + 2):
        a = mx.nd.array([[1.5, -2.25]])                  # float32 by default, as in MXNet
        b = mx.nd.array(np.array([[3, 4]], np.int64), dtype="int64")
        c = mx.nd.array(np.array([[1, 2]], np.float64))  # a numpy float64 source: float32
    assert a.dtype == np.float32 and a.asnumpy().tolist() == [[1.5, -2.25]]
    assert b.dtype == np.int64 and b.asnumpy().tolist() == [[3, 4]]
    assert c.dtype == np.float32 and c.asnumpy().tolist() == [[1.0, 2.0]]


def test_the_signature_counts_stay_bounded(monkeypatch):
    monkeypatch.setattr(_transfer, "MAX_SIGNATURES", 50)
    # Earlier tests in the same process leave their own signatures behind.
    monkeypatch.setattr(_transfer, "_seen", {})
    for k in range(1, 200):
        _transfer.to_device(np.zeros((k, 3), np.float32), DEV)
        assert len(_transfer._seen) <= 50
    assert np.asarray(_transfer.to_device(np.full((2, 2), 7, np.int32), DEV)).tolist() == [[7, 7], [7, 7]]
