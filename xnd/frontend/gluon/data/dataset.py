"""Datasets: Dataset, SimpleDataset, ArrayDataset, RecordFileDataset (MXNet 1.9.1)."""
import os

import numpy as np

from .... import _dataloader_worker as _w
from ....ndarray import NDArray
# names MXNet's module holds by importing them (its users import them from here)
from ... import ndarray  # noqa: E402,F401
from ... import recordio  # noqa: E402,F401

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset:
    """Abstract dataset: ``__getitem__`` and ``__len__``."""

    def __getitem__(self, idx):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def filter(self, fn):
        """The samples for which ``fn(sample)`` is true."""
        from .sampler import FilterSampler
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """The ``index``-th of ``num_shards`` contiguous, nearly equal parts."""
        assert index < num_shards, f"Shard index of out bound: {index} out of {num_shards}"
        assert num_shards > 0, "Number of shards must be greater than 0"
        assert index >= 0, "Index must be non-negative"
        length = len(self)
        shard_len, rest = divmod(length, num_shards)
        start = shard_len * index + min(index, rest)
        end = start + shard_len + (index < rest)
        from .sampler import SequentialSampler
        return _SampledDataset(self, SequentialSampler(end - start, start))

    def take(self, count):
        """The first ``count`` samples (all when None or larger than the dataset)."""
        if count is None or count > len(self):
            count = len(self)
        from .sampler import SequentialSampler
        return _SampledDataset(self, SequentialSampler(count))

    def sample(self, sampler):
        """The samples selected by ``sampler``."""
        from .sampler import Sampler
        if not isinstance(sampler, Sampler):
            raise TypeError(f"Invalid sampler type: {type(sampler)}. Expected "
                            f"gluon.data.Sampler instead.")
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy=True):
        """A dataset of ``fn(*sample)`` (computed on access unless ``lazy=False``)."""
        trans = _LazyTransformDataset(self, fn)
        if lazy:
            return trans
        return SimpleDataset([i for i in trans])

    def transform_first(self, fn, lazy=True):
        """Transform only the first element of each sample (the data, not the label)."""
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(_w.SimpleSequence, Dataset):
    """Wraps a list (or any sequence)."""
    # defined by the class that defines _batch, so the loader takes the one-gather path
    __getitem__ = _w.SimpleSequence.__getitem__

    def _batch(self, indices):
        return _column_batch(self._data, indices)


# Distinct classes (the worker pickler ships each as its mirror), the same item access.
class _LazyTransformDataset(_w.TransformDatasetMirror, Dataset):
    pass


class _TransformFirstClosure(_w.TransformFirstMirror):
    pass


class _SampledDataset(Dataset):
    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._sampler = sampler
        self._indices = list(iter(sampler))

    def __len__(self):
        return len(self._sampler)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class ArrayDataset(Dataset):
    """Combines arrays (NDArray, numpy, lists, datasets) of equal length; item ``i`` is the
    tuple of their ``i``-th elements (or the element itself for one array). 1-D NDArrays are
    kept as numpy arrays, as in MXNet, so labels keep their dtype."""

    def __init__(self, *args):
        assert len(args) > 0, "Needs at least 1 arrays"
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            assert len(data) == self._length, (
                f"All arrays must have the same length; array[0] has length {self._length} while "
                f"array[{i + 1}] has {len(data)}.")
            if isinstance(data, NDArray) and len(data.shape) == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length

    def _batch(self, indices):
        """``default_batchify_fn([self[i] for i in indices])`` in one gather per array."""
        cols = [_column_batch(d, indices) for d in self._data]
        if any(c is None for c in cols):
            return None
        return cols[0] if len(cols) == 1 else cols


def _column_batch(data, indices):
    """The batch default_batchify_fn makes of ``[data[i] for i in indices]``, or None when
    that needs the per-sample path (datasets, ragged lists...)."""
    from ... import ndarray as nd
    if isinstance(data, NDArray):
        idx = nd.array(np.asarray(indices, dtype=np.int64), ctx=data.context, dtype="int64")
        return nd.take(data, idx, axis=0)
    if isinstance(data, np.ndarray):
        if data.dtype == object:
            return None
        batch = data[np.asarray(indices, dtype=np.int64)]
        return nd.array(batch, dtype=batch.dtype)
    return None


class RecordFileDataset(Dataset):
    """Records of an MXNet RecordIO file: reads ``filename`` and its index, the ``.idx``
    file of the same name (``os.path.splitext(filename)[0] + '.idx'``, as MXNet); item i is
    the raw bytes of the i-th record listed in the index."""

    def __init__(self, filename):
        from ... import recordio
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        self.filename = filename
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self):
        return len(self._record.keys)


class _DownloadedDataset(Dataset):
    """Base class of the vision datasets (read from local files under ``root``)."""

    def __init__(self, root, transform):
        super().__init__()
        self._transform = transform
        self._data = None
        self._label = None
        root = os.path.expanduser(root)
        self._root = root
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _get_data(self):
        raise NotImplementedError
