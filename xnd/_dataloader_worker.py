"""The worker process of gluon.data.DataLoader (``num_workers > 0``, ``thread_pool=False``).

This file must stay importable WITHOUT xnd: a worker runs it by path
(``runpy.run_path(__file__, run_name=RUN_NAME)``), so that starting a worker costs an
interpreter plus numpy, not xnd/JAX. Only the standard library and numpy are imported here;
xnd is imported in a worker only when the dataset really holds NDArrays (or a transform uses
mx.nd), and then with XLA limited to one thread so workers do not fight over the cores.

Protocol (one duplex Pipe per worker)
-------------------------------------
main -> worker: ``send_bytes(payload)`` once (the dataset and batchify_fn, pickled by
    _loader_workers._WorkerPickler), then ``send((task_id, indices))`` per batch, ``send(None)``
    to stop.
worker -> main: ``send_bytes(header)`` with header = pickle of ``(kind, ...)``:

* ``("ready", startup_seconds)`` once the dataset is loaded;
* ``("init_error", traceback_text)`` when it could not be loaded (the worker then exits);
* ``("ok", task_id, buffer_sizes)`` then ``send_bytes(body)`` and one ``send_bytes`` per
  out-of-band buffer (pickle protocol 5): the batch, where ``("nd", numpy_array)``
  persistent ids mark arrays the main process turns into NDArrays;
* ``("error", task_id, pickled_exception_or_None, traceback_text, summary)``.

Before that, while multiprocessing still prepares the worker (and re-runs a guarded main
script in it), `bootstrap_code` has run: one BLAS/XLA thread, the CPU, and ``import mxnet`` ->
xnd when the main process has that alias.

The dataset pickle uses persistent ids for xnd objects (see ``_load_persistent``): xnd's
ArrayDataset / SimpleDataset / transform wrappers arrive as the small numpy-only mirrors
below, so a worker loads ``ArrayDataset(numpy...).transform_first(module_fn)`` without xnd.
"""
import io
import os
import pickle
import sys
import threading
import time
import traceback

RUN_NAME = "__xnd_dataloader_worker__"
WORKER_FILE = os.path.abspath(__file__)
if WORKER_FILE.endswith((".pyc", ".pyo")):  # run_path needs the source
    WORKER_FILE = WORKER_FILE[:-1]

# Thread limits for a worker (setdefault: an explicit setting of the user wins).
THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "JAX_PLATFORMS": "cpu"}
XLA_WORKER_FLAGS = ("--xla_cpu_multi_thread_eigen=false", "intra_op_parallelism_threads=1")


def limit_threads(environ=None):
    """Make this process's BLAS and (if it ever starts) XLA use one thread and the CPU."""
    env = os.environ if environ is None else environ
    for k, v in THREAD_ENV.items():
        env.setdefault(k, v)
    flags = env.get("XLA_FLAGS", "")
    extra = [f for f in XLA_WORKER_FLAGS if f.split("=")[0] not in flags]
    if extra:
        env["XLA_FLAGS"] = " ".join([flags] + extra).strip()


def bootstrap_code(mxnet_alias_root=None):
    """Python source that a worker process runs first, before multiprocessing re-runs the
    main script in it (_loader_pool._worker_preparation ships it in the preparation data):
    `limit_threads` (so a guarded script's top level, which the worker re-runs, already
    gets one BLAS/XLA thread and the CPU), and, with ``mxnet_alias_root`` (the folder that
    holds the xnd package), a lazy ``import mxnet`` -> xnd finder first on sys.meta_path,
    so that a script run with ``python -m xnd run`` (or ``alias_mxnet()``) imports mxnet in
    its workers as it did in the main process. Standard library only; imports nothing."""
    env = {k: v for k, v in THREAD_ENV.items()}
    return f"""
import os, sys
for _k, _v in {env!r}.items():
    os.environ.setdefault(_k, _v)
_flags = os.environ.get("XLA_FLAGS", "")
_extra = [f for f in {XLA_WORKER_FLAGS!r} if f.split("=")[0] not in _flags]
if _extra:
    os.environ["XLA_FLAGS"] = " ".join([_flags] + _extra).strip()
_root = {mxnet_alias_root!r}
if _root is not None and not any(
        type(f).__name__ == "XndWorkerMxnetAlias" for f in sys.meta_path):
    class XndWorkerMxnetAlias:
        root = _root

        @staticmethod
        def find_spec(name, path=None, target=None):
            if name.partition(".")[0] != "mxnet":
                return None
            try:
                import xnd.compat
            except ImportError:
                sys.path.append(XndWorkerMxnetAlias.root)
                import xnd.compat
            return xnd.compat.find_spec(name, path, target)

    sys.meta_path.insert(0, XndWorkerMxnetAlias())
"""


if __name__ == RUN_NAME:  # before numpy is imported
    limit_threads()

import numpy as np  # noqa: E402


# ---- values that stand for NDArrays --------------------------------------------------------
class ND:
    """A numpy array that the main process receives as an NDArray (what MXNet's
    default_mp_batchify_fn makes in shared memory)."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def _nd_class():
    """xnd's NDArray class when xnd is imported in this process, else None."""
    mod = sys.modules.get("xnd.ndarray")
    return getattr(mod, "NDArray", None)


def _is_nd(x):
    cls = _nd_class()
    return cls is not None and isinstance(x, cls)


def make_ndarray(array):
    """An xnd NDArray (cpu) with ``array``'s values and dtype."""
    # mx.nd only for datasets that hold NDArrays or transforms that use it; absolute, since
    # a worker runs this file by path (no parent package for a relative import)
    from xnd.frontend import ndarray as nd
    return nd.array(array, dtype=array.dtype)


# ---- numpy mirrors of xnd's datasets (same __getitem__/__len__ as dataset.py) -----------------
class NDColumn:
    """An NDArray column of an ArrayDataset/SimpleDataset, kept as numpy: gathered in numpy
    by the default batchify; items are real NDArrays (xnd is imported on first item)."""

    def __init__(self, array):
        self.array = array
        self._nd = None

    def __len__(self):
        return len(self.array)

    def __getitem__(self, idx):
        if self._nd is None:
            self._nd = make_ndarray(self.array)
        return self._nd[idx]


def _gather(col, indices):
    """``ND(batch)`` of ``col`` at ``indices`` (numpy or NDArray column), or None."""
    if isinstance(col, NDColumn):
        return ND(col.array[indices])
    if isinstance(col, np.ndarray) and col.dtype != object:
        return ND(col[indices])
    return None


class ArrayDatasetMirror:
    def __init__(self, columns):
        self._data = columns

    def __len__(self):
        return len(self._data[0])

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def np_batch(self, indices):
        cols = [_gather(c, indices) for c in self._data]
        if any(c is None for c in cols):
            return None
        return cols[0] if len(cols) == 1 else cols


# The item access of SimpleDataset, of a lazy transform and of transform_first, written once:
# xnd's classes (gluon/data/dataset.py) derive from these, the mirrors are these.
class SimpleSequence:
    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class SimpleDatasetMirror(SimpleSequence):
    def np_batch(self, indices):
        return _gather(self._data, indices)


class TransformDatasetMirror:
    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)


class TransformFirstMirror:
    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        if args:
            return (self._fn(x),) + args
        return self._fn(x)


class SampledDatasetMirror:
    def __init__(self, dataset, indices):
        self._dataset = dataset
        self._indices = indices

    def __len__(self):
        return len(self._indices)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


DEFAULT_BATCHIFY = ("default_batchify",)


def _load_persistent(pid):
    tag = pid[0]
    if tag == "nd":
        return make_ndarray(pid[1])
    if tag == "ndcol":
        return NDColumn(pid[1])
    if tag == "ArrayDataset":
        return ArrayDatasetMirror(list(pid[1]))
    if tag == "SimpleDataset":
        return SimpleDatasetMirror(pid[1])
    if tag == "Transform":
        return TransformDatasetMirror(pid[1], pid[2])
    if tag == "TransformFirst":
        return TransformFirstMirror(pid[1])
    if tag == "Sampled":
        return SampledDatasetMirror(pid[1], pid[2])
    if tag == "default_batchify":
        return DEFAULT_BATCHIFY
    raise pickle.UnpicklingError(f"unknown DataLoader persistent id {tag!r}")


class _PayloadUnpickler(pickle.Unpickler):
    def persistent_load(self, pid):
        return _load_persistent(pid)


def load_payload(payload):
    """``(dataset, batchify_fn)`` from the bytes made by _loader_workers._WorkerPickler
    (batchify_fn is DEFAULT_BATCHIFY for the default)."""
    return _PayloadUnpickler(io.BytesIO(payload)).load()


# ---- batching --------------------------------------------------------------------------------
def np_batchify(data):
    """MXNet's default_mp_batchify_fn on numpy: stack NDArrays, recurse into tuples, else
    ``np.asarray``; leaves are ND (NDArrays in the main process, dtype kept)."""
    if _is_nd(data[0]):
        return ND(np.stack([d.asnumpy() for d in data]))
    if isinstance(data[0], tuple):
        return [np_batchify(list(i)) for i in zip(*data)]
    return ND(np.asarray(data))


def fast_batch_fn(dataset):
    """The one-gather batch function of ``dataset`` when it gives what the default batchify
    gives, else None (a subclass that overrides __getitem__ must take the per-sample path)."""
    if isinstance(dataset, (ArrayDatasetMirror, SimpleDatasetMirror)):
        return dataset.np_batch
    fn = getattr(dataset, "_batch", None)
    if fn is None:
        return None
    mro = type(dataset).__mro__
    owner_batch = next((c for c in mro if "_batch" in c.__dict__), None)
    owner_get = next((c for c in mro if "__getitem__" in c.__dict__), None)
    return fn if owner_batch is not None and owner_batch is owner_get else None


def make_batch(dataset, batchify_fn, indices, fast):
    if batchify_fn is DEFAULT_BATCHIFY:
        if fast is not None:
            out = fast(indices)
            if out is not None:
                return out
        return np_batchify([dataset[i] for i in indices])
    return batchify_fn([dataset[i] for i in indices])


class _ResultPickler(pickle.Pickler):
    def persistent_id(self, obj):
        if type(obj) is ND:
            return ("nd", obj.array)
        if _is_nd(obj):
            return ("nd", obj.asnumpy())
        return None


def dump_result(batch):
    """``(body, buffers)``: the batch pickled with protocol 5, arrays out of band."""
    buffers = []
    f = io.BytesIO()
    _ResultPickler(f, protocol=5, buffer_callback=buffers.append).dump(batch)
    return f.getvalue(), [b.raw() for b in buffers]


def _error_message(task_id, exc):
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    try:
        data = pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.loads(data)  # exceptions with required __init__ arguments do not round-trip
    except Exception:
        data = None
    summary = f"{type(exc).__name__}: {exc}"
    return ("error", task_id, data, tb, summary)


def _seed(seed):
    import random
    random.seed(seed)
    np.random.seed(seed % (2 ** 32))
    if "xnd" in sys.modules:
        try:
            sys.modules["xnd"].random.seed(seed % (2 ** 31))
        except Exception:  # pragma: no cover - seeding is best effort
            pass


def _sender(conn, outbox):
    """Send results in this thread, so that the worker computes the next batch while the main
    process is busy (a result larger than the pipe buffer would block the worker otherwise)."""
    while True:
        item = outbox.get()
        if item is None:
            return
        try:
            for part in item:
                conn.send_bytes(part)
        except (OSError, EOFError):  # the main process is gone or closed the pipe
            return


def worker_main(conn, worker_id, seed, started):
    """The worker loop (see the module docstring)."""
    import queue
    import signal
    try:  # Ctrl-C goes to the main process, which shuts the workers down (as MXNet)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # pragma: no cover - not the main thread
        pass
    try:
        payload = conn.recv_bytes()
    except (EOFError, OSError):
        return
    try:
        dataset, batchify_fn = load_payload(payload)
        del payload
        _seed(seed)
        fast = fast_batch_fn(dataset) if batchify_fn is DEFAULT_BATCHIFY else None
    except BaseException as exc:  # noqa: BLE001 - reported to the main process
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        try:
            conn.send_bytes(pickle.dumps(("init_error", tb)))
        except (OSError, EOFError):
            pass
        return
    conn.send_bytes(pickle.dumps(("ready", time.time() - started)))
    outbox = queue.SimpleQueue()
    sender = threading.Thread(target=_sender, args=(conn, outbox), daemon=True)
    sender.start()
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            break
        if msg is None:
            break
        task_id, indices = msg
        try:
            body, buffers = dump_result(make_batch(dataset, batchify_fn, indices, fast))
            header = pickle.dumps(("ok", task_id, [len(b) for b in buffers]))
            outbox.put([header, body] + buffers)
        except Exception as exc:  # noqa: BLE001 - reported to the main process
            outbox.put([pickle.dumps(_error_message(task_id, exc))])
        del indices
    outbox.put(None)
    sender.join()


if __name__ == RUN_NAME:
    worker_main(*globals()["_XND_WORKER_ARGS"])
