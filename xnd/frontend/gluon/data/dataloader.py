"""DataLoader: mini-batches from a Dataset (MXNet 1.9.1 batching rules).

Batches are NDArrays that keep numpy dtypes (int64 labels stay int64).
``num_workers`` is accepted; the work runs in the calling process (xnd's
arrays live in one process; batching an ArrayDataset is one gather per array).
"""
import numpy as np

from ....ndarray import NDArray
from . import sampler as _sampler

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn"]


def default_batchify_fn(data):
    """Collate samples into a batch: stack NDArrays, recurse into tuples, else numpy."""
    from ... import nd
    if isinstance(data[0], NDArray):
        return nd.stack(*data)
    if isinstance(data[0], tuple):
        data = zip(*data)
        return [default_batchify_fn(i) for i in data]
    data = np.asarray(data)
    return nd.array(data, dtype=data.dtype)


default_mp_batchify_fn = default_batchify_fn


class DataLoader:
    """Loads mini-batches from ``dataset`` (see MXNet's gluon.data.DataLoader)."""

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False,
                 pin_device_id=0, prefetch=None, thread_pool=False, timeout=120,
                 auto_reload=False, try_nopython=None):
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        self._timeout = timeout
        assert timeout > 0, f"timeout must be positive, given {timeout}"
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be specified unless batch_sampler is specified")
            if sampler is None:
                if shuffle:
                    sampler = _sampler.RandomSampler(len(dataset))
                else:
                    sampler = _sampler.SequentialSampler(len(dataset))
            elif shuffle:
                raise ValueError("shuffle must not be specified if sampler is specified")
            batch_sampler = _sampler.BatchSampler(sampler, batch_size,
                                                  last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise ValueError("batch_size, shuffle, sampler and last_batch must not be specified "
                             "if batch_sampler is specified.")
        self._batch_sampler = batch_sampler
        self._num_workers = num_workers if num_workers >= 0 else 0
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * self._num_workers)
        self._default_batchify = batchify_fn is None
        self._batchify_fn = default_batchify_fn if batchify_fn is None else batchify_fn

    def _batch(self, indices):
        if self._default_batchify:
            fast = getattr(self._dataset, "_batch", None)
            if fast is not None:
                out = fast(indices)
                if out is not None:
                    return out
        return self._batchify_fn([self._dataset[idx] for idx in indices])

    def __iter__(self):
        for batch in self._batch_sampler:
            ret = self._batch(batch)
            if self._pin_memory:
                ret = _as_in_context(ret)
            yield ret

    def __len__(self):
        return len(self._batch_sampler)

    def __del__(self):
        pass


def _as_in_context(data):
    return data
