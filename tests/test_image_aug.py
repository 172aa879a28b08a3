"""mx.image's augmenters, CreateAugmenter and ImageIter against MXNet 1.9.1 (goldens from
make_image_aug_goldens.py, whose case table this file runs on xnd), then the random
augmenters' shapes, dtypes and ranges, and the errors of bad input."""
import json
import os
import random

import numpy as np
import pytest

import xnd as mx
from xnd.base import MXNetError

import golden_files
import make_image_aug_goldens as G

META, NPZ = golden_files.read("image_aug")
AUG_KEYS = sorted(k for k in NPZ if k.startswith("aug_"))


def _close(got, want):
    if want.dtype == np.uint8:  # OpenCV's pixels exactly
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)


@pytest.fixture(scope="module")
def augmented():
    return {f"aug_{k}": v for k, v in G._augmenter_cases(mx).items()}


@pytest.mark.parametrize("key", AUG_KEYS)
def test_augmenter_matches_mxnet(augmented, key):
    got, want = augmented[key], NPZ[key]
    assert str(got.dtype) == META["dtypes"][key]
    assert got.shape == want.shape
    _close(got, want)


def test_create_augmenter_matches_mxnet():
    assert G._create_cases(mx) == META["create"]


@pytest.fixture(scope="module")
def iterated(tmp_path_factory):
    pytest.importorskip("PIL")
    d = str(tmp_path_factory.mktemp("image_aug"))
    imglist = G._write_data(mx, d)
    return {name: G._iter_run(mx, kw, epochs) for name, kw, epochs in G._iter_cases(d, imglist)}


@pytest.mark.parametrize("name", sorted(META["iter"]))
def test_imageiter_matches_mxnet(iterated, name):
    meta, batches = iterated[name]
    want = META["iter"][name]
    assert meta == want
    assert len(batches) == sum(len(p) for p in want["batches"])
    for j, (data, label) in enumerate(batches):
        assert data.dtype == np.float32 and label.dtype == np.float32
        _close(data, NPZ[f"iter_{name}_{j}_data"])
        np.testing.assert_array_equal(label, NPZ[f"iter_{name}_{j}_label"])


def test_import_paths():
    import importlib
    import xnd.compat
    xnd.compat.alias_mxnet()
    mod = importlib.import_module("mxnet.image")
    assert mod.ColorNormalizeAug is mx.image.ColorNormalizeAug
    assert mx.image.ImageIter.__module__ == "xnd.frontend.image_aug"
    assert issubclass(mx.image.ImageIter, mx.io.DataIter)
    from xnd.frontend import image_aug
    assert set(image_aug.__all__) <= set(mx.image.__all__)


# ---------------------------------------------------------------- random augmenters

def _img(h=9, w=11):
    return mx.nd.array(np.random.RandomState(0).rand(h, w, 3) * 255)


@pytest.mark.parametrize("aug", [
    mx.image.BrightnessJitterAug(0.5), mx.image.ContrastJitterAug(0.5),
    mx.image.SaturationJitterAug(0.5), mx.image.HueJitterAug(0.5),
    mx.image.ColorJitterAug(0.3, 0.3, 0.3), mx.image.RandomGrayAug(0.5),
    mx.image.HorizontalFlipAug(0.5),
    mx.image.LightingAug(0.1, np.array(G.EIGVAL), np.array(G.EIGVEC))],
    ids=lambda a: type(a).__name__)
def test_color_augmenters_keep_shape_and_dtype(aug):
    for seed in range(4):
        random.seed(seed)
        out = aug(_img())
        assert out.shape == (9, 11, 3) and out.dtype == np.float32
        assert np.isfinite(out.asnumpy()).all()


def test_brightness_range():
    src = _img().asnumpy()
    for seed in range(10):
        random.seed(seed)
        ratio = mx.image.BrightnessJitterAug(0.2)(mx.nd.array(src)).asnumpy() / (src + 1e-6)
        assert 0.8 - 1e-4 <= ratio.mean() <= 1.2 + 1e-4
        np.testing.assert_allclose(ratio, ratio.mean(), rtol=1e-3, atol=1e-3)


def test_gray_and_flip_effects():
    src = _img()
    g = mx.image.RandomGrayAug(1)(src).asnumpy()
    np.testing.assert_allclose(g[..., 0], g[..., 2], rtol=1e-6)
    np.testing.assert_array_equal(mx.image.HorizontalFlipAug(1)(src).asnumpy(),
                                  src.asnumpy()[:, ::-1])


@pytest.mark.parametrize("interp", [1, 2, 10])
def test_random_crops_shapes(interp):
    src = mx.nd.array(np.random.RandomState(1).randint(0, 256, (20, 15, 3)), dtype="uint8")
    for seed in range(6):
        random.seed(seed)
        for aug in (mx.image.RandomCropAug((7, 5), interp),
                    mx.image.RandomSizedCropAug((7, 5), (0.1, 1.0), (0.5, 2.0), interp)):
            out = aug(src)
            assert out.shape == (5, 7, 3) and out.dtype == np.uint8


def test_random_order_aug_applies_all():
    calls = []

    class Tag(mx.image.Augmenter):
        def __init__(self, n):
            super().__init__(n=n)
            self.n = n

        def __call__(self, src):
            calls.append(self.n)
            return src

    aug = mx.image.RandomOrderAug([Tag(i) for i in range(4)])
    aug(_img())
    assert sorted(calls) == [0, 1, 2, 3]
    assert aug.dumps()[0] == "randomorderaug"
    assert json.loads(aug.dumps()[1][0]) == ["tag", {"n": aug.ts[0].n}]
    assert not isinstance(aug, mx.image.SequentialAug)
    seq = mx.image.SequentialAug([mx.image.CastAug(), mx.image.HorizontalFlipAug(1)])
    assert seq(mx.nd.ones((2, 3, 3), dtype="uint8")).dtype == np.float32


def test_sized_crop_min_area_is_deprecated():
    with pytest.warns(DeprecationWarning):
        aug = mx.image.RandomSizedCropAug((4, 4), None, (0.75, 1.33), min_area=0.5)
    assert aug.area == 0.5
    with pytest.raises(AssertionError):
        mx.image.RandomSizedCropAug((4, 4), 0.5, (0.75, 1.33), bogus=1)


def test_imageiter_roll_over_and_shuffle(iterated, tmp_path):
    """The roll_over epoch after the held-back batch starts where it left off; shuffling
    visits every image once per epoch."""
    meta, _ = iterated["roll_over"]
    assert meta["batches"] == [[0, 0], [1, 0, 0], [0, 0]]
    imglist = G._write_data(mx, str(tmp_path))
    it = mx.image.ImageIter(1, (3, 6, 7), imglist=[[i, n] for i, (_, n) in enumerate(imglist)],
                            path_root=str(tmp_path), shuffle=True)
    for _ in range(2):
        labels = sorted(float(b.label[0].asnumpy()[0]) for b in it)
        assert labels == [0.0, 1.0, 2.0, 3.0, 4.0]
        it.reset()
    it.hard_reset()
    assert it.next().data[0].shape == (1, 3, 6, 7)


# ---------------------------------------------------------------- errors

def test_augmenter_errors():
    with pytest.raises(NotImplementedError):
        mx.image.Augmenter()(mx.nd.ones((2, 2, 3)))
    with pytest.raises(AssertionError, match="rand_crop"):
        mx.image.CreateAugmenter((3, 4, 4), rand_resize=True)
    with pytest.raises(AssertionError, match="mean"):
        mx.image.CreateAugmenter((3, 4, 4), mean=[1, 2, 3])
    with pytest.raises(AssertionError, match="std"):
        mx.image.CreateAugmenter((3, 4, 4), std=np.ones(2))
    with pytest.raises(ValueError, match="data_shape"):
        mx.image.CreateAugmenter((4, 4))
    with pytest.raises(ValueError, match="eigval"):
        mx.image.LightingAug(0.1, np.ones(2), np.ones((3, 3)))
    with pytest.raises(ValueError, match="interp"):
        mx.image.ResizeAug(3, 7)(mx.nd.ones((4, 5, 3), dtype="uint8"))


def test_imageiter_errors(tmp_path):
    pytest.importorskip("PIL")
    d = str(tmp_path)
    imglist = G._write_data(mx, d)
    with pytest.raises(AssertionError, match="imglist"):
        mx.image.ImageIter(2, (3, 4, 4))
    with pytest.raises(AssertionError, match="label not supported"):
        mx.image.ImageIter(2, (3, 4, 4), imglist=imglist, dtype="uint8")
    with pytest.raises(ValueError, match="3 channels"):
        mx.image.ImageIter(2, (1, 4, 4), imglist=imglist)
    with pytest.raises(ValueError, match="length 3"):
        mx.image.ImageIter(2, (4, 4), imglist=imglist)
    with pytest.raises(ValueError, match="last_batch_handle"):
        mx.image.ImageIter(2, (3, 4, 4), imglist=imglist, last_batch_handle="keep")
    with pytest.raises(AssertionError, match="path_imgidx"):
        mx.image.ImageIter(2, (3, 4, 4), path_imgrec=os.path.join(d, "data.rec"), shuffle=True)
    with pytest.raises(ValueError, match="imglist item"):
        mx.image.ImageIter(2, (3, 4, 4), imglist=[["only"]])
    # a .lst with two labels read with label_width=1: MXNet's ValueError
    it = mx.image.ImageIter(2, (3, 4, 4), path_imglist=os.path.join(d, "list.lst"),
                            path_root=d)
    with pytest.raises(ValueError, match="label"):
        it.next()
    # an augmenter list that does not give data_shape
    it = mx.image.ImageIter(2, (3, 4, 4), imglist=imglist, path_root=d,
                            aug_list=[mx.image.CastAug()])
    with pytest.raises(ValueError, match="data_shape"):
        it.next()
    bad = os.path.join(d, "bad.png")
    with open(bad, "wb") as f:
        f.write(b"not an image")
    it = mx.image.ImageIter(1, (3, 4, 4), imglist=[[0, "bad.png"]], path_root=d)
    with pytest.raises(RuntimeError, match="Broken image filename: bad.png"):
        it.next()
    it = mx.image.ImageIter(1, (3, 4, 4), imglist=[[0, "missing.png"]], path_root=d)
    with pytest.raises(FileNotFoundError):
        it.next()
    with open(os.path.join(d, "broken.lst"), "w") as f:
        f.write("x\t1\timg0.png\n")
    with pytest.raises(ValueError, match="broken.lst line 1"):
        mx.image.ImageIter(1, (3, 4, 4), path_imglist=os.path.join(d, "broken.lst"))
    with pytest.raises(MXNetError):
        mx.image.ImageIter(1, (3, 4, 4), path_imgrec=os.path.join(d, "missing.rec"))
