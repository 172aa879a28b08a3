"""nd.image / sym.image operators and Gluon's vision transforms against MXNet 1.9.1 (goldens
from make_nd_image_goldens.py), then the random image ops (factors drawn from xnd's random
state: checked by range and by hand-computed effects), errors, and the mx.image.image module
GluonCV imports."""
import json
import os

import numpy as np
import pytest

import xnd as mx
from xnd.base import MXNetError

import nd_image_cases as C

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "nd_image", "nd_image.json")) as _f:
    GOLD = json.load(_f)["dtypes"]
NPZ = np.load(os.path.join(HERE, "goldens", "nd_image", "nd_image.npz"), allow_pickle=False)


@pytest.fixture(scope="module")
def results():
    return C.run(mx)


@pytest.mark.parametrize("key", sorted(GOLD))
def test_matches_mxnet(results, key):
    got = results[key]
    assert str(got.dtype) == GOLD[key]
    assert got.shape == NPZ[key].shape
    if got.dtype == np.uint8:  # OpenCV's pixels exactly
        np.testing.assert_array_equal(got, NPZ[key])
    else:
        np.testing.assert_allclose(got, NPZ[key], rtol=1e-5, atol=1e-4)


def test_transforms_resize_gives_imresize_pixels(results):
    np.testing.assert_array_equal(results["T_resize_1"], results["imresize_1"])


def test_random_flips_and_factors():
    mx.random.seed(1)
    img = mx.nd.array(C.IMG, dtype="uint8")
    seen = set()
    for _ in range(12):
        f = mx.nd.image.random_flip_left_right(img).asnumpy()
        assert f.tolist() in (C.IMG.tolist(), C.IMG[:, ::-1].tolist())
        seen.add(f.tolist() == C.IMG.tolist())
    assert seen == {True, False}
    b = mx.nd.image.random_brightness(mx.nd.array(C.IMGF), min_factor=0.5, max_factor=0.8)
    ratio = b.asnumpy() / C.IMGF
    assert np.allclose(ratio, ratio.flat[0], rtol=1e-5) and 0.5 <= ratio.flat[0] <= 0.8
    same = mx.nd.image.random_saturation(mx.nd.array(C.IMGF), min_factor=1.0, max_factor=1.0)
    np.testing.assert_allclose(same.asnumpy(), C.IMGF, rtol=1e-5)
    gray = mx.nd.image.random_saturation(mx.nd.array(C.IMGF), min_factor=0.0, max_factor=0.0)
    g = C.IMGF @ np.array([0.299, 0.587, 0.114], np.float32)
    np.testing.assert_allclose(gray.asnumpy(), np.repeat(g[..., None], 3, -1), rtol=1e-5)
    hue0 = mx.nd.image.random_hue(mx.nd.array(C.IMGF), min_factor=0.0, max_factor=0.0)
    np.testing.assert_allclose(hue0.asnumpy(), C.IMGF, rtol=1e-4, atol=1e-3)
    jit = mx.nd.image.random_color_jitter(img, brightness=0.3, contrast=0.3, saturation=0.3,
                                          hue=0.1)
    assert jit.shape == img.shape and jit.dtype == np.uint8
    light = mx.nd.image.random_lighting(mx.nd.array(C.IMGF), alpha_std=0.0)
    np.testing.assert_allclose(light.asnumpy(), C.IMGF, rtol=1e-6)


def test_errors_name_the_op():
    img = mx.nd.array(C.IMG, dtype="uint8")
    with pytest.raises(MXNetError, match="crop"):
        mx.nd.image.crop(img, 10, 0, 5, 5)
    with pytest.raises(MXNetError, match="to_tensor"):
        mx.nd.image.to_tensor(mx.nd.ones((4, 4)))
    with pytest.raises(MXNetError, match="adjust_lighting"):
        mx.nd.image.adjust_lighting(mx.nd.array(C.IMGF), alpha=(0.1, 0.2))


def test_mxnet_image_image_module_for_gluoncv():
    import importlib
    import xnd.compat
    xnd.compat.alias_mxnet()
    mod = importlib.import_module("mxnet.image.image")
    assert mod._get_interp_method(2) == 2
    assert importlib.import_module("mxnet.ndarray.image").to_tensor is mx.nd.image.to_tensor


def test_random_size_crop_bounds():
    import random
    random.seed(3)
    src = mx.nd.array(C.IMGF)
    for _ in range(20):
        out, (x0, y0, w, h) = mx.image.random_size_crop(src, size=(5, 4), area=(0.3, 1.0),
                                                        ratio=(0.75, 1.33))
        assert out.shape == (4, 5, 3)
        assert 0 <= x0 <= 10 - w and 0 <= y0 <= 7 - h
        if (x0, y0, w, h) != mx.image.center_crop(src, (5, 4))[1]:
            assert 0.75 - 0.3 <= w / h <= 1.33 + 0.3  # rounding of small sizes
    with pytest.raises(TypeError):
        mx.image.random_size_crop(src, (5, 4), 0.5, (0.75, 1.33), bogus=1)
