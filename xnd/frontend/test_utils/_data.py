"""mx.test_utils, files and data sets: MXNet's download/get_mnist/get_cifar10 helpers
without the network. Files are read from disk in MXNet's layout; a missing file raises
DownloadError (a ConnectionError and MXNetError) naming the file and where to put it."""
import bz2
import gzip
import logging
import os
import struct
import zipfile

import numpy as np

from ... import context as _context
from ...base import MXNetError
from ..io import DataIter, NDArrayIter

# ---- devices, files, data sets ------------------------------------------------------------------------
def list_gpus():
    """range(n) for the n GPUs JAX sees (range(0) without one)."""
    return range(_context.num_gpus())


class DownloadError(ConnectionError, MXNetError):
    """xnd does not download; raised when a file is not already on disk."""


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """MXNet's download helper, without the network: returns the local file name when the
    file is already there (as MXNet does when ``overwrite`` is False) and otherwise raises
    DownloadError (a ConnectionError) saying where to put the file."""
    assert retries >= 0, "Number of retries should be at least 0"
    if fname is None:
        fname = url.split("/")[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if not overwrite and os.path.exists(fname):
        logging.info("%s exists, skipping download", fname)
        return fname
    raise DownloadError(
        f"xnd.test_utils.download: xnd does not download files (no network access is assumed). "
        f"Fetch {url} yourself and save it as {os.path.abspath(fname)!r}; download() then "
        f"returns that path{' (overwrite=True always downloads: pass overwrite=False)' if overwrite else ''}.")


_MNIST_FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")


def _mnist_dirs():
    dirs = [os.getcwd(), os.path.join(os.getcwd(), "data")]
    home = os.environ.get("MXNET_HOME") or os.path.join(os.path.expanduser("~"), ".mxnet")
    dirs += [os.path.join(home, "datasets", "mnist"), os.path.join(home, "datasets")]
    return dirs


def _find_mnist(name):
    for d in _mnist_dirs():
        for candidate in (name + ".gz", name):
            path = os.path.join(d, candidate)
            if os.path.isfile(path):
                return path
    return None


def _read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        magic = struct.unpack(">I", f.read(4))[0]
        ndim = magic & 0xFF
        dims = struct.unpack(">" + "I" * ndim, f.read(4 * ndim))
        data = np.frombuffer(f.read(), dtype=np.uint8)
    if magic >> 8 != 0x08 or data.size != int(np.prod(dims)):
        raise MXNetError(f"get_mnist: {path} is not an MNIST idx file of unsigned bytes")
    return data.reshape(dims)


def get_mnist():
    """MNIST as MXNet's get_mnist returns it: {'train_data': (60000, 1, 28, 28) float32 in
    [0, 1], 'train_label': int8 labels, 'test_data', 'test_label'}.

    xnd reads the four idx files (gzipped as MXNet downloads them, or unpacked) from the
    current directory, ./data, or $MXNET_HOME/datasets/mnist (MXNET_HOME defaults to
    ~/.mxnet), and never downloads them."""
    paths = {n: _find_mnist(n) for n in _MNIST_FILES}
    missing = [n for n, p in paths.items() if p is None]
    if missing:
        raise DownloadError(
            "get_mnist: the MNIST files are not on disk and xnd does not download them. Put "
            + ", ".join(n + ".gz" for n in _MNIST_FILES)
            + " (from http://data.mxnet.io/data/mnist/ or http://yann.lecun.com/exdb/mnist/) in "
            + " or ".join(repr(d) for d in _mnist_dirs()[:3])
            + f"; missing: {', '.join(missing)}")

    def read(label_name, image_name):
        label = _read_idx(paths[label_name]).astype(np.int8)
        image = _read_idx(paths[image_name])
        image = image.reshape(image.shape[0], 1, 28, 28).astype(np.float32) / 255
        return label, image

    train_lbl, train_img = read("train-labels-idx1-ubyte", "train-images-idx3-ubyte")
    test_lbl, test_img = read("t10k-labels-idx1-ubyte", "t10k-images-idx3-ubyte")
    return {"train_data": train_img, "train_label": train_lbl,
            "test_data": test_img, "test_label": test_lbl}


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """MNIST NDArrayIters (train, val) over the local files (see get_mnist)."""
    mnist = get_mnist()
    flat = len(input_shape) != 3

    def shaped(x):
        return x.reshape(x.shape[0], -1) if flat else x

    n = mnist["train_data"].shape[0]
    part = slice(part_index * n // num_parts, (part_index + 1) * n // num_parts)
    train = NDArrayIter(shaped(mnist["train_data"][part]), mnist["train_label"][part],
                        batch_size, shuffle=True)
    val = NDArrayIter(shaped(mnist["test_data"]), mnist["test_label"], batch_size)
    return train, val


def discard_stderr():
    """MXNet's context manager that silences stderr; kept for scripts that use it."""
    return _DiscardStderr()


class _DiscardStderr:
    def __enter__(self):
        import sys
        self._fd = sys.stderr.fileno() if hasattr(sys.stderr, "fileno") else None
        try:
            self._saved = os.dup(2)
            self._null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(self._null, 2)
        except OSError:
            self._saved = None
        return self

    def __exit__(self, *exc):
        if self._saved is not None:
            os.dup2(self._saved, 2)
            os.close(self._saved)
            os.close(self._null)



def _need_files(what, files, archive_url, dirname="data"):
    """Files MXNet's helper would download and unpack into `dirname`: fine when all are
    there, or when the archive is (it is unpacked, as MXNet does after its download)."""
    if all(os.path.exists(os.path.join(dirname, f)) for f in files):
        return
    os.makedirs(dirname, exist_ok=True)
    archive = os.path.join(dirname, archive_url.split("/")[-1])
    if os.path.exists(archive):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(dirname)
        return
    missing = [f for f in files if not os.path.exists(os.path.join(dirname, f))]
    raise DownloadError(
        f"{what}: xnd does not download data sets. Put {', '.join(missing)} in "
        f"{os.path.abspath(dirname)!r} (or the archive {archive_url} as {os.path.abspath(archive)!r}, "
        f"which is unpacked there)")


def get_mnist_ubyte():
    """MNIST's four unpacked idx files in ./data, as MXNet's helper leaves them (it
    downloads and unzips mnist.zip; xnd unzips ./data/mnist.zip if it is there)."""
    _need_files("get_mnist_ubyte", _MNIST_FILES, "http://data.mxnet.io/mxnet/data/mnist.zip")


def get_mnist_pkl():
    """./data/mnist.pkl.gz as MXNet's helper leaves it (xnd never fetches it)."""
    os.makedirs("data", exist_ok=True)
    if not os.path.exists(os.path.join("data", "mnist.pkl.gz")):
        download("http://deeplearning.net/data/mnist/mnist.pkl.gz", dirname="data")


def get_cifar10():
    """CIFAR-10 RecordIO files in ./data/cifar (train.rec, test.rec, train.lst, test.lst),
    as MXNet's helper unpacks cifar10.zip; xnd unzips ./data/cifar10.zip if it is there."""
    _need_files("get_cifar10", [os.path.join("cifar", f) for f in
                                ("train.rec", "test.rec", "train.lst", "test.lst")],
                "http://data.mxnet.io/mxnet/data/cifar10.zip")


def get_zip_data(data_dir, url, data_origin_name):
    """Unpack `data_dir/data_origin_name` into `data_dir` (MXNet downloads it first when
    it is missing; xnd raises DownloadError then)."""
    path = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(path):
        download(url, dirname=data_dir, overwrite=False)
    with zipfile.ZipFile(path) as zf:
        zf.extractall(path=data_dir)


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    """`data_dir/data_name`, decompressed from `data_dir/data_origin_name` (which is then
    removed, as MXNet does) unless it already exists."""
    out = os.path.join(data_dir, data_name)
    if os.path.exists(out):
        return
    origin = download(url, fname=os.path.join(data_dir, data_origin_name), dirname=data_dir,
                      overwrite=False)
    with bz2.BZ2File(origin, "rb") as src, open(out, "wb") as dst:
        for line in src:
            dst.write(line)
    os.remove(origin)


def download_model(model_name, dst_dir="./", meta_info=None):
    """MXNet's model-zoo checkpoint fetcher: (symbol file, params file) when both are already
    in `dst_dir` as `<name>-symbol.json` and `<name>-0000.params`; DownloadError otherwise."""
    sym = os.path.join(dst_dir, f"{model_name}-symbol.json")
    params = os.path.join(dst_dir, f"{model_name}-0000.params")
    if os.path.exists(sym) and os.path.exists(params):
        return sym, params
    raise DownloadError(f"download_model: xnd does not download models; put {sym!r} and "
                        f"{params!r} there")


def get_im2rec_path(home_env="MXNET_HOME"):
    """The path of MXNet's tools/im2rec.py under $MXNET_HOME (xnd ships no copy of it)."""
    home = os.environ.get(home_env)
    for base in ([home] if home else []) + [os.getcwd()]:
        for path in (os.path.join(base, "tools", "im2rec.py"),
                     os.path.join(base, "..", "..", "tools", "im2rec.py")):
            if os.path.isfile(path):
                return path
    raise IOError("Could not find path to tools/im2rec.py")


class DummyIter(DataIter):
    """An iterator that returns the first batch of `real_iter` forever (for speed tests)."""

    def __init__(self, real_iter):
        super().__init__()
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(real_iter)

    def __iter__(self):
        return self

    def next(self):
        return self.the_batch
