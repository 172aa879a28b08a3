"""Shared by the parts of gluon.data.DataLoader (xnd/frontend/gluon/data/dataloader.py, which
stands for MXNet's mxnet.gluon.data.dataloader and re-exports the public names): the default
batchify functions, the batching of one list of indices, the loader's errors and settings.
"""
import logging
import multiprocessing

import numpy as np

from .... import _dataloader_worker as _w
from .... import semantics
from ....context import Context
from ....ndarray import NDArray

_log = logging.getLogger("xnd")

START_METHOD_ENV = "XND_DATALOADER_START_METHOD"
# How long a worker may take to start and load the dataset (not counted in ``timeout``).
STARTUP_TIMEOUT = 300.0


def default_batchify_fn(data):
    """Collate samples into a batch: stack NDArrays, recurse into tuples, else numpy; ``mx.np``
    arrays under NumPy array semantics (as MXNet's)."""
    from ... import ndarray as nd
    from ... import numpy as mxnp
    np_array = semantics.is_np_array()
    if isinstance(data[0], NDArray):
        return mxnp.stack(data) if np_array else nd.stack(*data)
    if isinstance(data[0], tuple):
        data = zip(*data)
        return [default_batchify_fn(i) for i in data]
    data = np.asarray(data)
    return (mxnp.array if np_array else nd.array)(data, dtype=data.dtype)


def _shared_ctx():
    return Context("cpu_shared", 0)


def default_mp_batchify_fn(data):
    """default_batchify_fn for workers: the batch lives on ``cpu_shared(0)`` (as MXNet's)."""
    from ... import ndarray as nd
    from ... import numpy as mxnp
    np_array = semantics.is_np_array()
    if isinstance(data[0], NDArray):
        out = mxnp.stack(data) if np_array else nd.stack(*data)
        return out.as_in_context(_shared_ctx())
    if isinstance(data[0], tuple):
        data = zip(*data)
        return [default_mp_batchify_fn(i) for i in data]
    data = np.asarray(data)
    return (mxnp.array if np_array else nd.array)(data, dtype=data.dtype, ctx=_shared_ctx())


def _as_np(data):
    """The fast path's legacy NDArrays as ``mx.np`` arrays (NumPy array semantics on)."""
    if isinstance(data, NDArray):
        return data.as_np_ndarray()
    if isinstance(data, (list, tuple)):
        return [_as_np(d) for d in data]
    return data


def _as_in_context(data, ctx):
    """Move data into new context."""
    if isinstance(data, NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(d, ctx) for d in data]
    return data


def _fast_batch_fn(dataset):
    """``dataset._batch`` (one gather per array, what default_batchify_fn would make of the
    samples) unless a subclass overrides ``__getitem__`` below the class defining it."""
    return _w.fast_batch_fn(dataset)


def _batch(dataset, batchify_fn, default, indices, mp=False):
    if default:
        fast = _fast_batch_fn(dataset)
        if fast is not None:
            out = fast(indices)
            if out is not None:
                if semantics.is_np_array():
                    out = _as_np(out)
                return _as_in_context(out, _shared_ctx()) if mp else out
    return batchify_fn([dataset[idx] for idx in indices])


class DataLoaderTimeoutError(multiprocessing.TimeoutError):
    """A worker did not deliver a batch within ``timeout`` seconds (a
    ``multiprocessing.TimeoutError``, the error MXNet raises)."""


class DataLoaderWorkerError(RuntimeError):
    """A worker process died, or could not load the dataset."""


class _WorkerStartupError(DataLoaderWorkerError):
    """The worker processes did not start or could not load the dataset (before they were
    ready): the DataLoader redoes their batches in threads. ``summary``: one line."""

    def __init__(self, message, summary):
        super().__init__(message)
        self.summary = summary
