"""Vision datasets read from local files (xnd never downloads): MNIST, FashionMNIST,
CIFAR10, CIFAR100 in their standard binary formats, ImageFolderDataset, ImageRecordDataset.
A missing file raises an error that names the files to place under ``root``."""
import gzip
import os
import struct
import tarfile
import warnings

import numpy as np

from .....base import MXNetError
from ..... import semantics
from .. import dataset
# names MXNet's module holds by importing them (its users import them from here)
from ....util import is_np_array  # noqa: E402,F401
from ...utils import check_sha1, download  # noqa: E402,F401
from .... import image  # noqa: E402,F401
from .... import ndarray as nd  # noqa: E402,F401
from .... import recordio  # noqa: E402,F401
from ..... import base  # noqa: E402,F401

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset",
           "ImageFolderDataset"]


def _data_dir():
    return os.getenv("MXNET_HOME", os.path.join(os.path.expanduser("~"), ".mxnet"))


def _missing(name, root, files, where):
    return MXNetError(
        f"{name}: cannot find {', '.join(repr(f) for f in files)} in {root!r}. xnd does not "
        f"download datasets (no network access): {where}")


def _arrays(data, label):
    """The dataset's ``(_data, _label)``: a legacy NDArray and a numpy label, or two mx.np
    arrays under NumPy array semantics (as MXNet's datasets make them)."""
    if semantics.is_np_array():
        from .... import numpy as mxnp
        return mxnp.array(data, dtype=data.dtype), mxnp.array(label, dtype=label.dtype)
    from .... import ndarray as nd
    return nd.array(data, dtype=data.dtype), label


def _open_maybe_gz(root, fname):
    """Open ``root/fname`` (.gz) or its uncompressed twin; None when neither exists."""
    path = os.path.join(root, fname)
    if os.path.exists(path):
        return gzip.open(path, "rb")
    plain = path[:-3] if path.endswith(".gz") else path
    if os.path.exists(plain):
        return open(plain, "rb")
    return None


class MNIST(dataset._DownloadedDataset):
    """MNIST handwritten digits: items are (28x28x1 uint8 NDArray, int32 label). Reads
    ``train-images-idx3-ubyte.gz`` / ``train-labels-idx1-ubyte.gz`` (``t10k-*`` for
    ``train=False``; uncompressed files work too) from ``root``."""

    _title = "MNIST"

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "mnist"), train=True,
                 transform=None):
        self._train = train
        self._train_data = "train-images-idx3-ubyte.gz"
        self._train_label = "train-labels-idx1-ubyte.gz"
        self._test_data = "t10k-images-idx3-ubyte.gz"
        self._test_label = "t10k-labels-idx1-ubyte.gz"
        self._namespace = "mnist"
        super().__init__(root, transform)

    def _get_data(self):
        if self._train:
            data_name, label_name = self._train_data, self._train_label
        else:
            data_name, label_name = self._test_data, self._test_label
        fl = _open_maybe_gz(self._root, label_name)
        fd = _open_maybe_gz(self._root, data_name)
        if fl is None or fd is None:
            raise _missing(self._title, self._root, [data_name, label_name],
                           "place the idx files (gzipped or not) there, e.g. from "
                           "http://yann.lecun.com/exdb/mnist/ or the Fashion-MNIST repository")
        with fl:
            struct.unpack(">II", fl.read(8))
            label = np.frombuffer(fl.read(), dtype=np.uint8).astype(np.int32)
        with fd:
            struct.unpack(">IIII", fd.read(16))
            data = np.frombuffer(fd.read(), dtype=np.uint8)
            data = data.reshape(len(label), 28, 28, 1)
        self._data, self._label = _arrays(data, label)


class FashionMNIST(MNIST):
    """Fashion-MNIST (same file names and format as MNIST)."""

    _title = "FashionMNIST"

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "fashion-mnist"), train=True,
                 transform=None):
        super().__init__(root, train, transform)
        self._namespace = "fashion-mnist"


class CIFAR10(dataset._DownloadedDataset):
    """CIFAR-10: items are (32x32x3 uint8 NDArray, int32 label). Reads the binary version
    (``data_batch_1.bin`` ... ``data_batch_5.bin``, ``test_batch.bin``) from ``root`` or
    ``root/cifar-10-batches-bin``, extracting ``cifar-10-binary.tar.gz`` when only it is
    there."""

    _archive = "cifar-10-binary.tar.gz"
    _subdir = "cifar-10-batches-bin"
    _record = 3072 + 1

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "cifar10"), train=True,
                 transform=None):
        self._train = train
        self._train_data = [f"data_batch_{i}.bin" for i in range(1, 6)]
        self._test_data = ["test_batch.bin"]
        self._namespace = "cifar10"
        super().__init__(root, transform)

    def _read_batch(self, filename):
        with open(filename, "rb") as fin:
            data = np.frombuffer(fin.read(), dtype=np.uint8).reshape(-1, self._record)
        return (data[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1),
                data[:, 0].astype(np.int32))

    def _find(self, names):
        for d in (self._root, os.path.join(self._root, self._subdir)):
            if all(os.path.exists(os.path.join(d, n)) for n in names):
                return d
        return None

    def _get_data(self):
        names = self._train_data if self._train else self._test_data
        where = self._find(names)
        archive = os.path.join(self._root, self._archive)
        if where is None and os.path.exists(archive):
            with tarfile.open(archive) as tar:
                tar.extractall(self._root, filter="data")
            where = self._find(names)
        if where is None:
            raise _missing(type(self).__name__, self._root, names,
                           f"place the binary files (or {self._archive}) there, from "
                           f"https://www.cs.toronto.edu/~kriz/cifar.html")
        data, label = zip(*(self._read_batch(os.path.join(where, n)) for n in names))
        data = np.concatenate(data)
        label = np.concatenate(label)
        self._data, self._label = _arrays(data, label)


class CIFAR100(CIFAR10):
    """CIFAR-100 (``train.bin``/``test.bin``); ``fine_label`` picks the 100-class labels."""

    _archive = "cifar-100-binary.tar.gz"
    _subdir = "cifar-100-binary"
    _record = 3072 + 2

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "cifar100"), fine_label=False,
                 train=True, transform=None):
        self._train = train
        self._train_data = ["train.bin"]
        self._test_data = ["test.bin"]
        self._fine_label = fine_label
        self._namespace = "cifar100"
        dataset._DownloadedDataset.__init__(self, root, transform)

    def _read_batch(self, filename):
        with open(filename, "rb") as fin:
            data = np.frombuffer(fin.read(), dtype=np.uint8).reshape(-1, self._record)
        return (data[:, 2:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1),
                data[:, 0 + self._fine_label].astype(np.int32))


class ImageRecordDataset(dataset.RecordFileDataset):
    """Images in a RecordIO file (made by im2rec or `recordio.pack_img`): item i is
    (``image.imdecode(payload, flag)``, ``header.label``): an HWC uint8 NDArray (RGB, or
    one gray channel with ``flag=0``) and the label, a float or a float32 numpy array, as
    in MXNet. Decoding needs Pillow."""

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        from .... import image, recordio
        header, img = recordio.unpack(super().__getitem__(idx))
        data = image.imdecode(img, self._flag)
        if self._transform is not None:
            return self._transform(data, header.label)
        return data, header.label


class ImageFolderDataset(dataset.Dataset):
    """Images in ``root/<class name>/<file>`` (.jpg, .jpeg, .png; others are skipped with a
    warning); labels follow the sorted class folders (`synsets`). Item i is
    (``image.imread(file, flag)``, int label). Decoding needs Pillow."""

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = [".jpg", ".jpeg", ".png"]
        self._list_images(self._root)

    def _list_images(self, root):
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn(f"Ignoring {path}, which is not a directory.", stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn(f"Ignoring {filename} of type {ext}. Only support "
                                  f"{', '.join(self._exts)}")
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        from .... import image
        img = image.imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)
