"""Gluon's data pipeline under NumPy array semantics (``npx.set_np()``) hands out mx.np arrays
with MXNet 1.9.1's dtypes, shapes and numbers: ArrayDataset, DataLoader's default batching in
threads and worker processes, MNIST/FashionMNIST/CIFAR10 from local files, the vision transforms,
and a Gluon layer that takes the batch (goldens: tests/make_np_mode_data_goldens.py)."""
import numpy as np
import pytest

import xnd as mx
import golden_files
import np_mode_data_cases as C

META, ARRAYS = golden_files.read("np_mode_data")


@pytest.fixture
def np_mode():
    mx.npx.set_np()
    try:
        yield
    finally:
        mx.npx.reset_np()


def _check(case, values):
    meta, arrays = {}, {}
    for name, value in values.items():
        C.record(mx, value, f"{case}/{name}", meta, arrays)
    want = {k: v for k, v in META.items() if k.startswith(case + "/")}
    assert sorted(meta) == sorted(want)
    for k in sorted(want):
        assert meta[k] == want[k], k
        if k in ARRAYS:
            if ARRAYS[k].dtype.kind == "f":
                np.testing.assert_allclose(arrays[k], ARRAYS[k], rtol=1e-6, atol=1e-6,
                                           err_msg=k)
            else:
                np.testing.assert_array_equal(arrays[k], ARRAYS[k], err_msg=k)


def test_array_dataset_and_default_batching(np_mode):
    _check("array_dataset", C.case_array_dataset(mx))


def test_dataloader_workers_and_thread_pool(np_mode):
    _check("workers", C.case_dataloader_workers(mx))


def test_vision_datasets_from_local_files(np_mode, tmp_path):
    C.write_datasets(str(tmp_path))
    _check("vision", C.case_vision_datasets(mx, str(tmp_path)))


def test_transforms(np_mode):
    _check("transforms", C.case_transforms(mx))


def test_batch_feeds_a_gluon_layer(np_mode):
    _check("first_layer", C.case_first_layer(mx))


def test_legacy_mode_unchanged(tmp_path):
    """Without set_np the same pipeline still hands out legacy NDArrays."""
    from mxnet.gluon.data import ArrayDataset, DataLoader
    from mxnet.gluon.data.vision import MNIST, transforms
    x, y = next(iter(DataLoader(ArrayDataset(C.X, C.Y), batch_size=4)))
    assert type(x) is mx.nd.NDArray and type(y) is mx.nd.NDArray
    C.write_datasets(str(tmp_path))
    d, label = MNIST(root=str(tmp_path / "mnist"))[0]
    assert type(d) is mx.nd.NDArray and isinstance(label, np.int32)
    assert type(transforms.ToTensor()(d)) is mx.nd.NDArray


def test_image_decoders_and_image_folder(np_mode, tmp_path):
    """mx.image.imread/imdecode and ImageFolderDataset give mx.np arrays in numpy mode, as
    MXNet 1.9.1's decoders do (checked on MXNet: mxnet.numpy.ndarray for all three)."""
    from PIL import Image
    img = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    (tmp_path / "cat").mkdir()
    Image.fromarray(img).save(tmp_path / "cat" / "a.png")
    path = str(tmp_path / "cat" / "a.png")
    for a in (mx.image.imread(path), mx.image.imdecode(open(path, "rb").read()),
              mx.gluon.data.vision.ImageFolderDataset(str(tmp_path))[0][0]):
        assert isinstance(a, mx.np.ndarray) and a.dtype == np.uint8
        np.testing.assert_array_equal(a.asnumpy(), img)
