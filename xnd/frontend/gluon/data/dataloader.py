"""DataLoader: mini-batches from a Dataset (MXNet 1.9.1 batching rules and worker pools).

Batches are NDArrays that keep numpy dtypes (int64 labels stay int64).

Where ``num_workers > 0`` runs: processes or threads
------------------------------------------------------
MXNet 1.9.1 forks its workers on Linux, so legacy scripts send lambdas to them and often
have no ``if __name__ == '__main__':`` guard. xnd cannot fork (JAX is not fork-safe) and
starts workers with ``spawn``, which pickles the dataset and re-runs the main script's
top-level code in every worker. So that such scripts still run unchanged, a DataLoader with
``num_workers > 0`` (and ``thread_pool=False``) picks, when it is made:

* **worker processes** (spawn) when the dataset and ``batchify_fn`` pickle and worker
  processes can import what they need, and the main script (if any) is guarded: the
  loader is made from code under a top-level ``if __name__ == '__main__':`` (either quote,
  either operand order), or from a function called from there;
* **threads of this process** (MXNet's ``thread_pool=True`` path) otherwise, with one
  ``DataLoaderFallbackWarning`` (a UserWarning) per cause that says why and how to get
  processes:

  - the dataset or ``batchify_fn`` does not pickle (lambdas, local functions, open handles),
    or refers to a function or class of ``__main__`` that a worker cannot import (an
    interactive session or notebook, ``python -c``, or a name that a script defines only
    under its ``__main__`` guard);
  - the loader is made from unguarded top-level code of a script (``python script.py``,
    ``python -m pkg.mod``, ``python -m xnd run script.py``): a spawned worker would run that
    code again. The script is found with ``sys.modules['__main__'].__file__``, parsed with
    ``ast`` (once per file), and the line that the main thread executes in it (the
    ``<module>`` frame of ``__main__``) decides; a loader made after that top level ended (in
    a thread, at exit) counts as guarded if the script has such a block. A main script that
    cannot be read or parsed counts as unguarded (threads: always correct, never re-run it);
  - this process is itself a worker that is still importing the main module
    (multiprocessing's bootstrapping), or is daemonic (cannot have children);
  - the worker processes failed to start or to load the dataset (the batches they were
    asked for are redone in threads, in order).

  ``python -m pytest``, notebooks and interactive sessions have no script for workers to
  re-run, so they get processes whenever the dataset pickles.

Both give the same batches (values, dtypes, order, ``cpu_shared(0)`` context); only speed
and the random streams of random transforms differ. ``XND_DATALOADER_START_METHOD``
(``spawn``, the default, or ``forkserver``) chooses how processes start. With processes:

* The dataset and ``batchify_fn`` are pickled once, when the loader is made, and sent to
  each worker, which keeps them for the loader's lifetime (as MXNet's ``multiprocessing.Pool``).
* A worker runs ``xnd/_dataloader_worker.py`` by path and imports numpy only: xnd's datasets
  and transform wrappers are shipped as numpy mirrors, and the default batchify makes numpy
  batches (MXNet's ``default_mp_batchify_fn``, without the shared-memory NDArrays). xnd is
  imported in a worker only for datasets that hold NDArrays behind a transform, for
  transforms that use mx.nd, or because the (guarded) script it re-runs imports mxnet; XLA
  and BLAS there run on one thread, on the CPU. When ``mxnet`` is xnd by alias in the main
  process (``python -m xnd run``), it is in the workers too.
* Batches come back over pipes as numpy (pickle protocol 5, buffers out of band) and the
  main process makes them NDArrays on ``cpu_shared(0)`` (the context MXNet's workers give).

``thread_pool=True`` runs the same work in threads of this process (no pickling, no warning).
``loader.fallback_reason`` says why a loader uses threads (None when it uses processes or was
asked for threads).

This file (MXNet's mxnet.gluon.data.dataloader) holds the DataLoader itself; its parts are
_loader_common.py (batchify functions, errors), _loader_workers.py (processes or threads,
pickling the dataset) and _loader_pool.py (the process and thread pools).
"""
import re
import weakref
# MXNet's module imports it and libraries take it from here (GluonNLP's ShardedDataLoader
# pickles its batches with it); NDArrays pickle by value through it
from multiprocessing.reduction import ForkingPickler  # noqa: F401

from ....context import cpu_pinned
from . import sampler as _sampler
from ._loader_common import (DataLoaderTimeoutError, DataLoaderWorkerError,  # noqa: F401
                             _WorkerStartupError, _as_in_context, _batch, default_batchify_fn,
                             default_mp_batchify_fn)
from ._loader_pool import _MultiWorkerIter, _ProcessPool, _ThreadPool
from ._loader_workers import (_PROCESS_REMEDY, DataLoaderFallbackWarning,  # noqa: F401
                              UnpicklableDatasetError, _fallback_message, _process_hazard,
                              _warn_once, _worker_payload)
# names MXNet's module holds by importing them (its users import them from here)
from ...util import is_np_array, is_np_shape, set_np  # noqa: E402,F401
from ... import ndarray as nd  # noqa: E402,F401
from .... import context  # noqa: E402,F401

__all__ = ["DataLoader", "DataLoaderFallbackWarning", "default_batchify_fn",
           "default_mp_batchify_fn"]


_STARTUP_REMEDY = ("make sure that a fresh interpreter can import the main script and "
                   "everything the dataset and batchify_fn use")


def _startup_why(exc):
    return (f"the worker processes did not start ({exc.summary}), so the batches asked of "
            f"them are made again, in order")


def _startup_hook(loader):
    """``_MultiWorkerIter``'s on_startup_error for ``loader`` (a weak reference: no cycle)."""
    ref = weakref.ref(loader)

    def hook(pool, exc):
        ld = ref()
        return None if ld is None else ld._startup_failed(pool, exc)

    return hook


class DataLoader:
    """Loads mini-batches from ``dataset`` (see MXNet's gluon.data.DataLoader).

    ``num_workers > 0``: worker processes (``thread_pool=False``) or threads load and batch
    the samples; ``prefetch`` (default ``2 * num_workers``) batches are requested ahead;
    ``timeout`` seconds is how long one batch may take in a worker. Worker processes are
    used when the dataset and ``batchify_fn`` pickle and the main script is guarded;
    otherwise threads give the same batches, with a ``DataLoaderFallbackWarning`` (see the
    module docstring). ``fallback_reason`` is why threads are used, or None.
    ``auto_reload``: start prefetching the next epoch when one ends (and at creation).
    ``try_nopython`` (MXNet 2.0) is accepted and ignored.
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False,
                 pin_device_id=0, prefetch=None, thread_pool=False, timeout=120,
                 auto_reload=False, try_nopython=None):
        self._worker_pool = None
        self.fallback_reason = None
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
        if batchify_fn is None:
            batchify_fn = default_mp_batchify_fn if self._num_workers > 0 else default_batchify_fn
        self._batchify_fn = batchify_fn
        if self._num_workers > 0:
            self._worker_pool = self._new_pool()
        self.auto_reload = auto_reload
        self._iter = None
        if self.auto_reload:
            self.refresh()

    def __iter__(self):
        if self._iter is None:
            self.refresh()
        t = self._iter
        self._iter = None  # an iterator is used once
        try:
            for item in t:
                yield item
        finally:
            if isinstance(t, _MultiWorkerIter):
                t.close()
        if self._iter is None and self.auto_reload:
            self.refresh()

    def _new_pool(self):
        """Worker processes when they are safe (the dataset is pickled here, once), else
        threads with a warning (see the module docstring)."""
        if not self._thread_pool and self.fallback_reason is None:
            hazard = _process_hazard()
            if hazard is None:
                try:
                    payload = _worker_payload(self._dataset, self._batchify_fn)
                except UnpicklableDatasetError as e:
                    key = re.sub(r" at 0x[0-9a-fA-F]+", "", e.what)
                    hazard = (("pickle", key), e.what, _PROCESS_REMEDY)
                else:
                    try:
                        return _ProcessPool(self._num_workers, payload, self._timeout)
                    except _WorkerStartupError as e:
                        hazard = (("startup", e.summary), _startup_why(e), _STARTUP_REMEDY)
            self._fall_back(hazard)
        return self._new_thread_pool()

    def _new_thread_pool(self):
        return _ThreadPool(self._num_workers, self._dataset, self._batchify_fn,
                           self._default_batchify, self._timeout)

    def _fall_back(self, hazard):
        key, why, remedy = hazard
        self.fallback_reason = why
        _warn_once(key, _fallback_message(self._num_workers, why, remedy))

    def _startup_failed(self, pool, exc):
        """The worker processes of ``pool`` did not start: threads from now on."""
        pool.shutdown(grace=0.0)
        current = self._worker_pool
        if isinstance(current, _ThreadPool):
            return current
        if current is not pool:  # another iterator restarted it: it goes the same way
            current.shutdown(grace=0.0)
        self._fall_back((("startup", exc.summary), _startup_why(exc), _STARTUP_REMEDY))
        self._worker_pool = self._new_thread_pool()
        return self._worker_pool

    def _pool(self):
        """The worker pool, restarted when a timeout or a dead worker shut it down."""
        pool = self._worker_pool
        if pool.closed and isinstance(pool, _ProcessPool):
            pool = self._worker_pool = self._new_pool()
        return pool

    def _prefetch_iter(self):
        if self._num_workers == 0:
            return self._same_process_iter()
        return _MultiWorkerIter(self._pool(), self._batch_sampler, self._prefetch,
                                self._pin_memory, self._pin_device_id,
                                _startup_hook(self))

    def _same_process_iter(self):
        pin = cpu_pinned(self._pin_device_id) if self._pin_memory else None
        for batch in self._batch_sampler:
            ret = _batch(self._dataset, self._batchify_fn, self._default_batchify, batch)
            if pin is not None:
                ret = _as_in_context(ret, pin)
            yield ret

    def refresh(self):
        """Refresh its iter, fetch data again from its dataset"""
        if isinstance(self._iter, _MultiWorkerIter):
            self._iter.close()
        self._iter = self._prefetch_iter()

    def clean(self):
        """Remove its prefetched iter, the prefetch step will start after call its __iter__()"""
        if isinstance(self._iter, _MultiWorkerIter):
            self._iter.close()
        self._iter = None

    def __len__(self):
        return len(self._batch_sampler)

    def __del__(self):
        pool = getattr(self, "_worker_pool", None)
        if pool is not None:
            try:
                pool.shutdown()
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass
