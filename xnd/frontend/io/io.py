"""mx.io.io: the Python data iterators with MXNet 1.9.1's batching, padding and naming rules.

``NDArrayIter`` slices device arrays (no host round trip per batch) and
follows MXNet's ``last_batch_handle`` rules exactly: 'pad' wraps the last
batch around to the start and reports ``pad``; 'discard' drops it; 'roll_over'
carries the leftover samples into the first batch of the next epoch. Its
shuffle uses NumPy's global generator, as MXNet's does, so
``np.random.seed`` reproduces MXNet's order. ``MXDataIter`` is the base of the
file-backed iterators in ``_file_iters.py`` (MXNet's C++ iterators).
"""
import logging
from collections import namedtuple

import jax
import numpy as np

from ...base import MXNetError
from ...lowering import xla_options
from ...ndarray import _wrap
from .. import ndarray as nd
from .utils import _init_data
# names MXNet's module holds by importing them (its users import them from here)
from ...base import c_str_array, check_call, py_str  # noqa: E402,F401
from ...ndarray import NDArray  # noqa: E402,F401
from ..ndarray import array, concat, tile  # noqa: E402,F401

__all__ = ["DataDesc", "DataBatch", "DataIter", "NDArrayIter", "ResizeIter", "PrefetchingIter",
           "MXDataIter"]

mx_real_t = np.float32


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """``(name, shape)`` plus ``dtype`` and ``layout`` attributes: what iterators'
    ``provide_data``/``provide_label`` return and ``Module.bind`` accepts."""

    def __new__(cls, name, shape, dtype=mx_real_t, layout="NCHW"):
        ret = super(cls, DataDesc).__new__(cls, name, shape)
        ret.dtype = dtype
        ret.layout = layout
        return ret

    def __repr__(self):
        return "DataDesc[%s,%s,%s,%s]" % (self.name, self.shape, self.dtype, self.layout)

    @staticmethod
    def get_batch_axis(layout):
        """The position of 'N' in ``layout`` (0 when layout is None)."""
        if layout is None:
            return 0
        return layout.find("N")

    @staticmethod
    def get_list(shapes, types):
        """DataDescs from ``[(name, shape)]`` and optional ``[(name, dtype)]``."""
        if types is not None:
            type_dict = dict(types)
            return [DataDesc(x[0], x[1], type_dict[x[0]]) for x in shapes]
        return [DataDesc(x[0], x[1]) for x in shapes]


class DataBatch:
    """One batch: lists of NDArrays plus ``pad``, ``index``, ``bucket_key`` and optional
    ``provide_data``/``provide_label``."""

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        if data is not None:
            assert isinstance(data, (list, tuple)), "Data must be list of NDArrays"
        if label is not None:
            assert isinstance(label, (list, tuple)), "Label must be list of NDArrays"
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        data_shapes = [d.shape for d in self.data]
        label_shapes = [lab.shape for lab in self.label] if self.label else None
        return "{}: data shapes: {} label shapes: {}".format(self.__class__.__name__,
                                                             data_shapes, label_shapes)


class DataIter:
    """Base iterator: subclasses implement ``iter_next`` and the getters (or ``next``)."""

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        pass

    def next(self):
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(),
                             index=self.getindex())
        raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        pass

    def getdata(self):
        pass

    def getlabel(self):
        pass

    def getindex(self):
        return None

    def getpad(self):
        pass


class _CurrentBatch:
    """The getters of a wrapper iterator that keeps its batch in ``current_batch``."""

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


class ResizeIter(_CurrentBatch, DataIter):
    """Serve exactly ``size`` batches per epoch from ``data_iter`` (restarting it when it
    runs out; ``reset_internal`` resets it on each reset)."""

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__()
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, "default_bucket_key"):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True


class PrefetchingIter(_CurrentBatch, DataIter):
    """Combine one or more iterators batch by batch (data and labels concatenated), with
    optional renaming. xnd's device work is asynchronous already, so this wrapper reads
    ahead by one batch without threads."""

    def __init__(self, iters, rename_data=None, rename_label=None):
        super().__init__()
        if not isinstance(iters, list):
            iters = [iters]
        self.n_iter = len(iters)
        assert self.n_iter > 0
        self.iters = iters
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.current_batch = None
        self.next_batch = None
        self._fetch()

    def _fetch(self):
        nxt = []
        for it in self.iters:
            try:
                nxt.append(it.next())
            except StopIteration:
                nxt.append(None)
        self.next_batch = nxt

    @staticmethod
    def _renamed(descs, renames):
        return sum([[DataDesc(r[x.name], x.shape, x.dtype) if isinstance(x, DataDesc)
                     else DataDesc(*x) for x in d] for r, d in zip(renames, descs)], [])

    @property
    def provide_data(self):
        if self.rename_data is None:
            return sum([i.provide_data for i in self.iters], [])
        return self._renamed([i.provide_data for i in self.iters], self.rename_data)

    @property
    def provide_label(self):
        if self.rename_label is None:
            return sum([i.provide_label for i in self.iters], [])
        return self._renamed([i.provide_label for i in self.iters], self.rename_label)

    def reset(self):
        for i in self.iters:
            i.reset()
        self._fetch()

    def iter_next(self):
        batches = self.next_batch
        if batches[0] is None:
            for b in batches:
                assert b is None, "Number of entry mismatches between iterators"
            return False
        for b in batches:
            assert b is not None and b.pad == batches[0].pad, \
                "Number of entry mismatches between iterators"
        self.current_batch = DataBatch(sum([b.data for b in batches], []),
                                       sum([b.label for b in batches], []),
                                       batches[0].pad, batches[0].index,
                                       provide_data=self.provide_data,
                                       provide_label=self.provide_label)
        self._fetch()
        return True

    def next(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration


# ---- NDArrayIter ------------------------------------------------------------------------------


def _slice_batch(xs, start, size, axis):
    return [jax.lax.dynamic_slice_in_dim(x, start, size, axis) for x in xs]


# a first epoch's batches are sliced on the host (xnd/tiers), later ones compiled
_slice_kernel = xla_options.lazy_jit(_slice_batch, static_argnums=(2, 3))


def _slices(arrays, axis, start, end):
    """Copies of ``a[start:end]`` along ``axis`` (MXNet's slice_axis) for every array, in one
    dispatch compiled once per batch size and array shapes: the start is a traced argument,
    so every batch of an epoch reuses the kernel.  The bounds come from the first array; a
    longer one (labels longer than the data) gives its first rows, as MXNet's, and a shorter
    one MXNet's slice_axis error."""
    if not arrays:
        return []
    if any(getattr(a, "stype", "default") != "default" for a in arrays):
        # csr arrays are cut by rows on their components (NDArrayIter allows them with
        # 'discard' only, so every batch is a whole slice)
        return [a[start:end] if getattr(a, "stype", "default") != "default"
                else _slices([a], axis, start, end)[0] for a in arrays]
    n = arrays[0].shape[axis]
    start, end = max(0, min(start, n)), max(0, min(end, n))
    size = max(0, end - start)
    for a in arrays:
        if a.shape[axis] < end:
            raise MXNetError(f"slice_axis: Invalid end for end={end} as axis_size is "
                             f"{a.shape[axis]} (an array of the iterator is shorter than its "
                             f"first, {n})")
    if all(a.shape[axis] == size for a in arrays):
        return [a.copy() for a in arrays]
    vals = _slice_kernel([a._val() for a in arrays], np.int64(start), size, axis)
    return [_wrap(v, a.context) for v, a in zip(vals, arrays)]


class NDArrayIter(DataIter):
    """Iterate over arrays (NDArray or NumPy; one, a list, or a name -> array dict; NumPy
    input becomes float32) in batches of ``batch_size`` along the layout's 'N' axis.

    ``last_batch_handle``: 'pad' (default; the last batch wraps to the start, ``pad`` says
    how many samples are repeats), 'discard', or 'roll_over' (leftovers start the next
    epoch's first batch, whose ``pad`` counts them)."""

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad",
                 data_name="data", label_name="softmax_label", layout="NCHW"):
        super().__init__(batch_size)
        self.data = _init_data(data, allow_empty=False, default_name=data_name)
        self.label = _init_data(label, allow_empty=True, default_name=label_name)
        if any(getattr(v, "stype", None) == "csr" for _, v in self.data + self.label) and \
                last_batch_handle != "discard":
            # MXNet's own refusal (its test expects this type): csr batches are cut by rows
            raise NotImplementedError("`NDArrayIter` only supports ``CSRNDArray`` with "
                                      "`last_batch_handle` set to `discard`.")
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise ValueError("last_batch_handle must be 'pad', 'discard' or 'roll_over', got %r"
                             % (last_batch_handle,))
        self.idx = np.arange(self.data[0][1].shape[0])
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.batch_size = batch_size
        self.cursor = -self.batch_size
        self.num_data = self.idx.shape[0]
        self.reset()
        self.data_list = [x[1] for x in self.data] + [x[1] for x in self.label]
        self.num_source = len(self.data_list)
        self._cache_data = None
        self._cache_label = None
        self.layout = layout

    def _descs(self, source):
        axis = self.layout.find("N")
        return [DataDesc(k, tuple(list(v.shape[:axis]) + [self.batch_size] +
                                  list(v.shape[axis + 1:])), v.dtype, layout=self.layout)
                for k, v in source]

    @property
    def provide_data(self):
        return self._descs(self.data)

    @property
    def provide_label(self):
        return self._descs(self.label)

    def hard_reset(self):
        """Start over, ignoring roll_over leftovers."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self):
        if self.shuffle:
            self._shuffle_data()
        if self.last_batch_handle == "roll_over" and \
                self.num_data - self.batch_size < self.cursor < self.num_data:
            # leftovers of the last epoch: the first batch takes -cursor of them
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self):
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        if not self.iter_next():
            raise StopIteration
        if self._plain_batch_at(self.cursor):
            # data and labels of an ordinary batch: one slicing dispatch for all of them
            both = self._getdata(self.data + self.label, self.cursor,
                                 self.cursor + self.batch_size)
            data, label = both[:len(self.data)], both[len(self.data):]
        else:
            data = self.getdata()
            label = self.getlabel()
        if data[0].shape[self.layout.find("N")] != self.batch_size:
            # a short last batch ('roll_over', or 'discard'): keep it for the next epoch
            self._cache_data = data
            self._cache_label = label
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    def _getdata(self, source, start=None, end=None):
        assert start is not None or end is not None, "should at least specify start or end"
        start = start if start is not None else 0
        if end is None:
            end = source[0][1].shape[0] if source else 0
        return _slices([x[1] for x in source], self.layout.find("N"), start, end)

    def _plain_batch_at(self, start):
        """True when the batch starting at row ``start`` is a whole slice of the arrays (no
        padding, no roll-over leftovers) and ``getdata``/``getlabel`` are NDArrayIter's own."""
        cls = type(self)
        return (cls.getdata is NDArrayIter.getdata and cls.getlabel is NDArrayIter.getlabel
                and cls._batchify is NDArrayIter._batchify
                and 0 <= start and start + self.batch_size <= self.num_data)

    def _concat(self, first, second):
        if (not first) or (not second):
            return first if first else second
        assert len(first) == len(second), "data source should contain the same size"
        axis = self.layout.find("N")
        return [nd.concat(a, b, dim=axis) for a, b in zip(first, second)]

    @staticmethod
    def _tile(data, repeats):
        if not data:
            return []
        res = []
        for datum in data:
            reps = [1] * len(datum.shape)
            reps[0] = repeats
            res.append(nd.tile(datum, reps=tuple(reps)))
        return res

    def _batchify(self, source):
        assert self.cursor < self.num_data, "DataIter needs reset."
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            assert self._cache_data is not None or self._cache_label is not None, \
                "next epoch should have cached data"
            cache = self._cache_data if self._cache_data is not None else self._cache_label
            second = self._getdata(source, end=self.cursor + self.batch_size)
            if self._cache_data is not None:
                self._cache_data = None
            else:
                self._cache_label = None
            return self._concat(cache, second)
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            pad = self.batch_size - self.num_data + self.cursor
            first = self._getdata(source, start=self.cursor)
            if pad > self.num_data:
                second = self._tile(self._getdata(source, end=self.num_data), pad // self.num_data)
                if pad % self.num_data != 0:
                    second = self._concat(second,
                                          self._getdata(source, end=pad % self.num_data))
            else:
                second = self._getdata(source, end=pad)
            return self._concat(first, second)
        end = min(self.cursor + self.batch_size, self.num_data)
        return self._getdata(source, self.cursor, end)

    def getdata(self):
        return self._batchify(self.data)

    def getlabel(self):
        return self._batchify(self.label)

    def getpad(self):
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def _shuffle_data(self):
        # MXNet shuffles the index in place and re-gathers the (already shuffled) arrays
        # with it, through NumPy (so numpy's seed fixes the order; arrays become float32)
        np.random.shuffle(self.idx)
        self.data = [(k, _gather_rows(v, self.idx)) for k, v in self.data]
        self.label = [(k, _gather_rows(v, self.idx)) for k, v in self.label]


def _gather_rows(v, idx):
    """``v``'s rows in the order ``idx`` (a csr array stays csr, made from its components)."""
    if getattr(v, "stype", None) != "csr":
        return nd.array(v.asnumpy()[idx], v.context)
    indptr, indices, data = v._comp["indptr"], v._comp["indices"], v._comp["data"]
    counts = np.diff(indptr)[idx]
    starts = np.repeat(indptr[:-1][idx] - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    take = starts + np.arange(counts.sum())
    new_ptr = np.concatenate(([0], np.cumsum(counts))).astype(indptr.dtype)
    return nd.sparse.csr_matrix((data[take], indices[take], new_ptr), shape=v.shape,
                                ctx=v.context, dtype=v.dtype)


# ---- file iterators (MXNet's C++ MXDataIter family) ------------------------------------------------
class MXDataIter(DataIter):
    """Base of the file-backed iterators: batches hold one data and one label NDArray;
    ``getdata()``/``getlabel()`` return the NDArray itself, as MXNet's C++ iterators do."""

    def __init__(self, data_name="data", label_name="softmax_label"):
        super().__init__()
        self._data_name = data_name
        self._label_name = label_name
        self._batch = None
        self._debug_skip_load = False
        self._debug_at_begin = True

    def _describe(self, data_shape, label_shape, dtype, label_dtype=np.float32):
        self.provide_data = [DataDesc(self._data_name, data_shape, dtype)]
        self.provide_label = [DataDesc(self._label_name, label_shape, label_dtype)]
        self.batch_size = data_shape[0]

    def debug_skip_load(self):
        self._debug_skip_load = True
        logging.info("Set debug_skip_load to be true, will simply return first batch")

    def next(self):
        if self._debug_skip_load and not self._debug_at_begin and self._batch is not None:
            return DataBatch(data=[self.getdata()], label=[self.getlabel()], pad=self.getpad(),
                             index=self.getindex())
        self._debug_at_begin = False
        if not self.iter_next():
            raise StopIteration
        return DataBatch(data=[self.getdata()], label=[self.getlabel()], pad=self.getpad(),
                         index=self.getindex())

    def getdata(self):
        return self._batch[0]

    def getlabel(self):
        return self._batch[1]

    def getindex(self):
        return self._batch[2]

    def getpad(self):
        return self._batch[3]
