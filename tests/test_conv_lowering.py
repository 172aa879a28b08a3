"""Lowering choices in xnd/lowering/conv.py give the plain lowering's numbers.

* channels-last convolution (``channels_last_weight`` + ``conv_channels_last``), including
  Winograd F(2x2, 3x3), against ``convolution`` on channel-first data;
* max pooling over tiling windows (reshape + max, first-maximum gradient) against
  ``lax.reduce_window`` (values and gradients, ties included);
* pooling in a channel-last layout against the channel-first one.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import xnd  # noqa: F401  (64-bit mode, registry)
from xnd.lowering import conv as C

RTOL = 1e-4


def _close(a, b, rtol=RTOL):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * max(1.0, np.abs(b).max()))


def _rand(rng, shape, dtype="float32"):
    return jnp.asarray(rng.standard_normal(shape).astype(dtype))


CONV_CASES = [
    # (data NCHW..., num_filter, kernel, stride, pad, dilate, groups)
    ((2, 3, 13, 11), 8, (3, 3), (2, 2), (1, 1), (1, 1), 1),
    ((2, 4, 9, 10), 6, (3, 3), (1, 1), (2, 1), (2, 2), 2),        # dilation + groups
    ((1, 6, 8, 8), 6, (3, 3), (1, 1), (1, 1), (1, 1), 6),         # depthwise
    ((2, 16, 7, 9), 24, (3, 3), (1, 1), (1, 1), (1, 1), 1),       # Winograd, odd sizes
    ((1, 32, 5, 5), 16, (3, 3), (1, 1), (0, 0), (1, 1), 1),       # Winograd, no padding
    ((1, 16, 6, 7), 16, (3, 3), (1, 1), (2, 2), (1, 1), 1),       # Winograd, pad 2
    ((2, 3, 17, 15), 5, (7, 7), (2, 2), (3, 3), (1, 1), 1),
    ((2, 8, 6, 6), 4, (1, 1), (2, 2), (0, 0), (1, 1), 1),
    ((1, 64, 5, 7), 16, (1, 1), (1, 1), (0, 0), (1, 1), 1),       # pointwise as a matmul
    ((2, 64, 7, 5), 8, (1, 1), (2, 2), (0, 0), (1, 1), 1),        # strided pointwise
    ((2, 4, 11), 6, (3,), (2,), (1,), (1,), 2),                   # 1-D
    ((1, 4, 5, 6, 7), 3, (3, 3, 3), (1, 2, 1), (1, 0, 1), (1, 1, 1), 1),   # 3-D
]


@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: "x".join(map(str, c[0])))
def test_channels_last_conv_matches_convolution(case):
    shape, f, k, s, p, d, g = case
    rng = np.random.default_rng(len(shape) * 100 + f)
    x = _rand(rng, shape)
    w = _rand(rng, (f, shape[1] // g) + k)
    b = _rand(rng, (f,))
    ref = C.convolution(x, w, b, kernel=k, stride=s, pad=p, dilate=d, num_filter=f, num_group=g)
    kern = C.channels_last_weight(w, None, s, d, g)
    out = C.conv_channels_last(jnp.moveaxis(x, 1, -1), kern, b, stride=s, dilate=d, pad=p,
                               num_group=g)
    _close(jnp.moveaxis(out, -1, 1), ref)


def test_winograd_is_chosen_only_where_it_applies():
    f32 = np.float32
    assert C.use_winograd((3, 3), (1, 1), (1, 1), 1, 64, 64, f32)
    assert not C.use_winograd((3, 3), (2, 2), (1, 1), 1, 64, 64, f32)
    assert not C.use_winograd((3, 3), (1, 1), (2, 2), 1, 64, 64, f32)
    assert not C.use_winograd((3, 3), (1, 1), (1, 1), 2, 64, 64, f32)
    assert not C.use_winograd((5, 5), (1, 1), (1, 1), 1, 64, 64, f32)
    assert not C.use_winograd((3, 3), (1, 1), (1, 1), 1, 3, 64, f32)
    assert not C.use_winograd((3, 3), (1, 1), (1, 1), 1, 64, 64, np.float16)
    w = jnp.zeros((32, 16, 3, 3))
    assert C.channels_last_weight(w).shape == (16, 16, 32)            # Winograd kernel
    assert C.channels_last_weight(w, stride=(2, 2)).shape == (3, 3, 16, 32)


def test_pointwise_matmul_is_chosen_only_where_it_applies():
    assert C.use_pointwise_matmul((1, 1), (0, 0), 1, 64)
    assert not C.use_pointwise_matmul((1, 1), (0, 0), 1, 32)
    assert not C.use_pointwise_matmul((1, 1), (1, 1), 1, 64)
    assert not C.use_pointwise_matmul((1, 1), (0, 0), 2, 64)
    assert not C.use_pointwise_matmul((3, 3), (0, 0), 1, 64)


def test_channel_last_layout_weight():
    rng = np.random.default_rng(3)
    x = _rand(rng, (2, 9, 8, 16))
    w = _rand(rng, (16, 3, 3, 16))                                   # NHWC weight (F, kh, kw, C)
    ref = C.convolution(x, w, None, kernel=(3, 3), pad=(1, 1), num_filter=16, no_bias=True,
                        layout="NHWC")
    out = C.conv_channels_last(x, C.channels_last_weight(w, "NHWC"), None, pad=(1, 1))
    _close(out, ref)


def _pool_ref(x, k, s, cl):
    """reduce_window max pooling with MXNet's lowest-finite floor (the general lowering)."""
    win = (1,) + k + (1,) if cl else (1, 1) + k
    st = (1,) + s + (1,) if cl else (1, 1) + s
    out = lax.reduce_window(x, -np.inf, lax.max, win, st, "VALID")
    return jnp.maximum(out, jnp.finfo(x.dtype).min)


@pytest.mark.parametrize("shape,k,cl", [((2, 3, 8, 8), 2, False), ((2, 3, 9, 7), 2, False),
                                         ((2, 8, 8, 3), 2, True), ((1, 2, 9, 9), 3, False),
                                         ((2, 3, 10), 2, False)])
def test_tiled_max_pool_values_and_first_max_gradient(shape, k, cl):
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype("float32")
    x.reshape(-1)[:4] = 1.0                                          # ties inside a window
    x.reshape(-1)[-6:] = 0.0
    x = jnp.asarray(x)
    nd = len(shape) - 2
    kern, lay = (k,) * nd, (C.channels_last_layout(len(shape)) if cl else None)
    assert C._tiled_max_pool(x, *((1,) + kern + (1,), (1,) + kern + (1,),
                                  ((0, 0),) * len(shape)) if cl else
                             ((1, 1) + kern, (1, 1) + kern, ((0, 0),) * len(shape))) is not None

    def ours(v):
        return C.pooling(v, kernel=kern, stride=kern, pool_type="max", layout=lay)

    y, pull = jax.vjp(ours, x)
    y_ref, pull_ref = jax.vjp(lambda v: _pool_ref(v, kern, kern, cl), x)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(y_ref))
    g = _rand(rng, y.shape)
    np.testing.assert_array_equal(np.asarray(pull(g)[0]), np.asarray(pull_ref(g)[0]))


def test_overlapping_or_padded_max_pool_keeps_reduce_window():
    x = jnp.zeros((1, 1, 8, 8))
    assert C._tiled_max_pool(x, (1, 1, 3, 3), (1, 1, 2, 2), ((0, 0),) * 4) is None
    assert C._tiled_max_pool(x, (1, 1, 2, 2), (1, 1, 2, 2), ((0, 0), (0, 0), (1, 1), (1, 1))) \
        is None


@pytest.mark.parametrize("kw", [
    dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max"),
    dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg"),
    dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg", count_include_pad=False),
    dict(kernel=(2, 2), stride=(2, 2), pool_type="avg", pooling_convention="full"),
    dict(kernel=(1, 1), global_pool=True, pool_type="avg"),
    dict(kernel=(2, 2), stride=(1, 1), pool_type="sum"),
])
def test_channel_last_pooling_matches_channel_first(kw):
    rng = np.random.default_rng(11)
    x = _rand(rng, (2, 5, 9, 7))
    ref = C.pooling(x, **kw)
    out = C.pooling(jnp.moveaxis(x, 1, -1), layout="NHWC", **kw)
    _close(jnp.moveaxis(out, -1, 1), ref, rtol=1e-6)


DW_CASES = [
    # (data, num_filter, kernel, stride, pad, dilate, layout)
    ((2, 6, 9, 8), 6, (3, 3), (1, 1), (1, 1), (1, 1), None),
    ((2, 4, 11, 10), 8, (3, 3), (2, 2), (1, 0), (1, 1), None),          # multiplier 2
    ((1, 5, 12, 12), 5, (3, 3), (1, 2), (2, 2), (2, 2), None),          # dilation
    ((2, 3, 13), 3, (5,), (2,), (2,), (1,), None),                      # 1-D
    ((2, 9, 7, 6), 6, (3, 3), (2, 2), (1, 1), (1, 1), "NHWC"),          # channel-last
]


@pytest.mark.parametrize("case", DW_CASES, ids=lambda c: "x".join(map(str, c[0])))
def test_depthwise_matches_grouped_convolution(case):
    """Values and gradients (data and weight) of the shifted-slices depthwise lowering
    against XLA's grouped convolution."""
    shape, f, k, s, p, d, layout = case
    rng = np.random.default_rng(sum(shape))
    cl = layout is not None
    c = shape[-1] if cl else shape[1]
    nd = len(k)
    x = _rand(rng, shape)
    w = _rand(rng, (f,) + k + (1,) if cl else (f, 1) + k)
    b = _rand(rng, (f,))
    assert C.is_depthwise(c, c) and not C.is_depthwise(1, 1)

    def ours(x, w):
        return C.convolution(x, w, b, kernel=k, stride=s, pad=p, dilate=d, num_filter=f,
                             num_group=c, layout=layout)

    def ref(x, w):
        out = lax.conv_general_dilated(
            x, w, s, [(v, v) for v in p], rhs_dilation=d,
            dimension_numbers=C._dimension_numbers(nd, layout), feature_group_count=c,
            precision=lax.Precision.HIGHEST)
        return C._add_bias(out, b, nd, layout)

    y, pull = jax.vjp(ours, x, w)
    y_ref, pull_ref = jax.vjp(ref, x, w)
    _close(y, y_ref)
    g = _rand(rng, y.shape)
    for a, r in zip(pull(g), pull_ref(g)):
        _close(a, r)
    # the channels-last kernel path of the inference rewrites
    xl = x if cl else jnp.moveaxis(x, 1, -1)
    out = C.conv_channels_last(xl, C.channels_last_weight(w, layout, s, d, c), b, stride=s,
                               dilate=d, pad=p, num_group=c)
    _close(out if cl else jnp.moveaxis(out, -1, 1), y_ref)


@pytest.mark.parametrize("kw,layout", [
    (dict(global_pool=True, pool_type="avg"), None),
    (dict(kernel=(4, 5), pool_type="sum"), None),
    (dict(kernel=(4, 5), stride=(3, 3), pool_type="avg"), "NHWC"),
])
def test_whole_window_pooling_is_a_sum(kw, layout):
    """A window over all of each pooled axis (global pooling) lowers to a plain sum: no
    reduce_window in the program or its gradient, whose gradient is then a broadcast, not a
    padded window sum as large as the input.  Values: exact sums of small integers."""
    x = jnp.arange(2 * 3 * 4 * 5, dtype=jnp.float32).reshape(2, 3, 4, 5)
    if layout:
        x = x.transpose(0, 2, 3, 1)
    axes = (1, 2) if layout else (2, 3)
    pool = lambda v: C.pooling(v, layout=layout, **kw)  # noqa: E731
    prims = {e.primitive.name for e in jax.make_jaxpr(jax.grad(lambda v: pool(v).sum()))(x).eqns}
    assert not prims & {"reduce_window_sum", "pad"}, prims
    want = np.asarray(x).sum(axis=axes, keepdims=True) / (20 if kw["pool_type"] == "avg" else 1)
    np.testing.assert_array_equal(np.asarray(pool(x)), want)
    grad = np.asarray(jax.grad(lambda v: pool(v).sum())(x))
    np.testing.assert_array_equal(grad, np.full(x.shape, 0.05 if kw["pool_type"] == "avg" else 1,
                                                 np.float32))


def test_padded_or_partial_windows_keep_reduce_window():
    x = jnp.ones((1, 2, 4, 5), jnp.float32)
    for kw in (dict(kernel=(4, 5), pad=(1, 1)), dict(kernel=(2, 5)), dict(kernel=(4, 2), stride=(1, 1))):
        prims = {e.primitive.name for e in jax.make_jaxpr(
            lambda v: C.pooling(v, pool_type="avg", **kw))(x).eqns}
        assert "reduce_window_sum" in prims, kw
