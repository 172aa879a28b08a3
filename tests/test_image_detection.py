"""mx.image.detection against MXNet 1.9.1 (goldens from make_image_detection_goldens.py,
whose case table this file runs on xnd): the Det* augmenters after random.seed (same crop,
pad and flip boxes and pixels), their dumps(), CreateDetAugmenter's list, copyMakeBorder,
ImageDetIter's batches, label shapes, reshape/sync and errors."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402
import make_image_detection_goldens as G  # noqa: E402
import xnd.compat  # noqa: E402

xnd.compat.alias_mxnet()
import mxnet as mx  # noqa: E402

META, NPZ = golden_files.read("image_detection")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return G.run(mx, str(tmp_path_factory.mktemp("det")))


def test_module_layout():
    import mxnet.image.detection as det
    assert mx.image.det is det and mx.image.detection is det
    for name in ("ImageDetIter", "DetRandomCropAug", "CreateDetAugmenter",
                 "CreateMultiRandCropAugmenter", "DetBorrowAug"):
        assert getattr(mx.image, name) is getattr(det, name)
        assert getattr(mx.npx.image, name) is getattr(det, name)
    assert issubclass(det.ImageDetIter, mx.image.ImageIter)


def test_arrays_match_mxnet(results):
    arrays = results[1]
    assert sorted(arrays) == sorted(NPZ)
    for key, want in NPZ.items():
        assert arrays[key].dtype == want.dtype, key
        assert arrays[key].shape == want.shape, key
        np.testing.assert_allclose(arrays[key], want, rtol=1e-5, atol=1e-5, err_msg=key)


@pytest.mark.parametrize("part", ["aug", "create", "iter", "api"])
def test_meta_matches_mxnet(results, part):
    assert results[0][part] == META[part]


def test_flip_changes_label_in_place():
    label = G.LABEL.copy()
    out, lab = mx.image.DetHorizontalFlipAug(1)(mx.nd.array(G.IMG), label)
    assert lab is label
    np.testing.assert_allclose(label[:, 1], 1 - G.LABEL[:, 3])
    np.testing.assert_array_equal(out.asnumpy(), G.IMG[:, ::-1].astype(np.float32))


def test_copy_make_border_errors():
    border = mx.image.detection.copyMakeBorder
    img = mx.nd.array(G.IMG)
    with pytest.raises(mx.base.MXNetError, match="border type"):
        border(img, 1, 1, 1, 1, 7)
    with pytest.raises(mx.base.MXNetError, match=">= 0"):
        border(img, -1, 1, 1, 1, 0)
    with pytest.raises(mx.base.MXNetError, match="HWC"):
        border(mx.nd.ones((2, 2)), 1, 1, 1, 1, 0)
    with pytest.raises(mx.base.MXNetError, match="unknown arguments"):
        border(img, 1, 1, 1, 1, 0, fill=3)
    assert mx.image.copyMakeBorder is border  # MXNet's mx.image names it too
    assert mx.image.detection.fixed_crop is mx.image.fixed_crop
    out = mx.nd.zeros((4, 5, 3))
    assert border(mx.nd.ones((2, 3, 3)), 1, 1, 1, 1, 0, value=2.0, out=out) is out
    assert out.asnumpy().sum() == 18 + 14 * 3 * 2  # the image, then 14 border pixels of 2s
