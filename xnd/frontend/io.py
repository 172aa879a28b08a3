"""mx.io: data iterators with MXNet 1.9.1's batching, padding and naming rules.

``NDArrayIter`` slices device arrays (no host round trip per batch) and
follows MXNet's ``last_batch_handle`` rules exactly: 'pad' wraps the last
batch around to the start and reports ``pad``; 'discard' drops it; 'roll_over'
carries the leftover samples into the first batch of the next epoch. Its
shuffle uses NumPy's global generator, as MXNet's does, so
``np.random.seed`` reproduces MXNet's order.

``CSVIter`` and ``MNISTIter`` read local files with the semantics of MXNet's
C++ iterators (CSV ``round_batch`` wrap-around that shifts the next epoch's
start; MNIST drops a last partial batch) and parse their keywords as MXNet does
(string values accepted, a bad value of a declared keyword is an MXNetError naming it,
an undeclared keyword has no effect). ``MNISTIter(shuffle=True)`` uses its own seeded
permutation, not MXNet's. ``LibSVMIter`` (CSR batches) and the
RecordIO image iterators raise MXNetError: sparse storage and RecordIO are not
supported by xnd.
"""
import functools
import logging
import struct
from collections import OrderedDict, namedtuple

import jax
import numpy as np

from ..base import MXNetError
from ..ndarray import NDArray, _wrap
from . import ndarray as nd

__all__ = ["DataDesc", "DataBatch", "DataIter", "NDArrayIter", "ResizeIter", "PrefetchingIter",
           "MXDataIter", "CSVIter", "MNISTIter", "LibSVMIter", "ImageRecordIter",
           "ImageRecordUInt8Iter", "ImageRecordInt8Iter", "ImageDetRecordIter"]

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
def _init_data(data, allow_empty, default_name):
    """MXNet's normalisation: array / list / dict -> sorted [(name, NDArray)]."""
    assert (data is not None) or allow_empty
    if data is None:
        data = []
    if isinstance(data, (np.ndarray, NDArray)):
        data = [data]
    if isinstance(data, list):
        if not allow_empty:
            assert len(data) > 0
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict([("_%d_%s" % (i, default_name), d) for i, d in enumerate(data)])
    if not isinstance(data, dict):
        raise TypeError("Input must be NDArray, numpy.ndarray, h5py.Dataset " +
                        "a list of them or dict with them as values")
    data = dict(data)
    for k, v in data.items():
        if not isinstance(v, NDArray):
            try:
                data[k] = nd.array(v)
            except Exception:  # noqa: BLE001  (MXNet turns every failure into this TypeError)
                raise TypeError(("Invalid type '%s' for %s, " % (type(v), k)) +
                                "should be NDArray, numpy.ndarray or h5py.Dataset") from None
    return list(sorted(data.items()))


@functools.partial(jax.jit, static_argnums=(2, 3))
def _slice_kernel(xs, start, size, axis):
    return [jax.lax.dynamic_slice_in_dim(x, start, size, axis) for x in xs]


def _slices(arrays, axis, start, end):
    """Copies of ``a[start:end]`` along ``axis`` (MXNet's slice_axis) for every array, in one
    dispatch compiled once per batch size and array shapes: the start is a traced argument,
    so every batch of an epoch reuses the kernel."""
    if not arrays:
        return []
    n = arrays[0].shape[axis]
    start, end = max(0, min(start, n)), max(0, min(end, n))
    size = max(0, end - start)
    if size == n:
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
        self.data = [(k, nd.array(v.asnumpy()[self.idx], v.context)) for k, v in self.data]
        self.label = [(k, nd.array(v.asnumpy()[self.idx], v.context)) for k, v in self.label]


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


def _read_file(path, what):
    if not isinstance(path, str):
        raise MXNetError("%s: file name must be a string, got %r" % (what, path))
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise MXNetError('%s: Open "%s": %s' % (what, path, e.strerror or e)) from None


def _parse_csv(path, width, what):
    text = _read_file(path, what).decode("utf-8", errors="replace")
    rows = []
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        try:
            vals = [float(v) for v in line.split(",") if v.strip() != ""]
        except ValueError:
            raise MXNetError("%s: %s line %d: not a number in %r" % (what, path, lineno, line)) \
                from None
        if len(vals) != width:
            raise MXNetError("%s: %s line %d has %d values, expected %d (the product of the "
                             "shape)" % (what, path, lineno, len(vals), width))
        rows.append(vals)
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), width)


def _shape(v, what):
    if isinstance(v, str):      # MXNet passes every keyword as a string: "3", "(1, 28, 28)"
        text = v.strip().strip("()[]")
        try:
            return tuple(int(x) for x in text.split(",") if x.strip())
        except ValueError:
            raise MXNetError("Invalid Parameter format for %s expect Shape(tuple) but "
                             "value='%s'" % (what, v)) from None
    if isinstance(v, int):
        return (v,)
    try:
        return tuple(int(x) for x in v)
    except (TypeError, ValueError):
        raise MXNetError("Invalid Parameter format for %s expect Shape(tuple) but value='%s'"
                         % (what, v)) from None


# ---- keyword parsing of the C++ iterators -------------------------------------------------------
# MXNet hands every keyword to the C++ iterator as str(value) and parses it against the
# iterator's declared parameters (dmlc::Parameter, InitAllowUnknown): a declared one with a
# bad value is an MXNetError naming it; an undeclared one (MNISTIter(input_shape=...),
# CSVIter(num_parts=...), a keyword meant for another iterator) is accepted and has no effect.
_DTYPES = ("bfloat16", "float16", "float32", "float64", "int32", "int64", "int8", "uint8")


def _bad(name, expect, v):
    return MXNetError("Invalid Parameter format for %s expect %s but value='%s'"
                      % (name, expect, v))


def _p_int(name, v, low=None, expect="int"):
    if isinstance(v, bool):
        v = int(v)
    try:
        out = int(str(v).strip())
    except ValueError:
        raise _bad(name, expect, v) from None
    if low is not None and out < low:
        raise MXNetError("Invalid Parameter %s: value %d should be greater equal to %d"
                         % (name, out, low))
    return out


def _p_bool(name, v):
    text = str(v).strip().lower()
    if text in ("1", "true"):
        return True
    if text in ("0", "false"):
        return False
    raise _bad(name, "boolean", v)


def _p_ctx(name, v):
    if str(v) not in ("cpu", "gpu"):
        raise MXNetError("Invalid Input: '%s', valid values are: {'cpu', 'gpu'}" % v)
    return str(v)


def _p_dtype(name, v):
    if v is None or str(v) == "None":
        return None
    try:
        key = v if isinstance(v, str) else jax.numpy.dtype(v).name
    except TypeError:
        key = None
    if key not in _DTYPES:
        raise MXNetError("Invalid Input: '%s', valid values are: {None, %s}"
                         % (v, ", ".join("'%s'" % d for d in _DTYPES)))
    return key


_PREFETCH = {"prefetch_buffer": lambda n, v: _p_int(n, v, 0, "long (non-negative)"), "ctx": _p_ctx, "dtype": _p_dtype}


def _parse_params(spec, values):
    """``values`` parsed by ``spec`` (name -> parser(name, value)), MXNet's way."""
    return {k: spec[k](k, v) for k, v in values.items()}


def _split(n, num_parts, part_index, what):
    """MXNet's contiguous part ``[floor(n/p*i), floor(n/p*(i+1)))`` of ``n`` rows."""
    if part_index < 0 or num_parts <= 0 or num_parts <= part_index:
        raise MXNetError("%s: Check failed: part_index >= 0 and num_parts > part_index "
                         "(num_parts=%d, part_index=%d)" % (what, num_parts, part_index))
    lo = int(float(n) / num_parts * part_index)
    hi = int(float(n) / num_parts * (part_index + 1))
    return np.arange(lo, hi)


class CSVIter(MXDataIter):
    """Batches from CSV files (one sample per line, ``prod(data_shape)`` values).

    Without ``label_csv`` labels are 0. ``round_batch=True``: the last batch wraps to the
    start and the next epoch begins after the wrapped samples (MXNet's BatchLoader);
    ``round_batch=False``: the last batch's missing slots keep the previous batch's contents
    and ``pad`` counts them."""

    _SPEC = dict(_PREFETCH, data_csv=lambda n, v: str(v),
                 label_csv=lambda n, v: "NULL" if v is None else str(v),
                 data_shape=lambda n, v: _shape(v, n), label_shape=lambda n, v: _shape(v, n),
                 batch_size=lambda n, v: _p_int(n, v, 1), round_batch=_p_bool)

    def __init__(self, data_csv=None, data_shape=None, label_csv="NULL", label_shape=(1,),
                 batch_size=None, round_batch=True, prefetch_buffer=4, ctx="gpu", dtype=None,
                 data_name="data", label_name="softmax_label", **kwargs):
        super().__init__(data_name, label_name)
        if data_csv is None or data_shape is None or batch_size is None:
            raise MXNetError("CSVIter: data_csv, data_shape and batch_size are required")
        p = _parse_params(self._SPEC, dict(
            data_csv=data_csv, data_shape=data_shape, label_csv=label_csv,
            label_shape=label_shape, batch_size=batch_size, round_batch=round_batch,
            prefetch_buffer=prefetch_buffer, ctx=ctx, dtype=dtype))
        data_csv, label_csv, round_batch = p["data_csv"], p["label_csv"], p["round_batch"]
        self._data_shape = p["data_shape"]
        self._label_shape = p["label_shape"]
        bs = p["batch_size"]
        if p["dtype"] not in (None, "int32", "int64", "float32"):
            raise MXNetError("CSVIter: Check failed: false: %s is not supported for CSVIter "
                             "(dtype must be int32, int64 or float32)" % p["dtype"])
        self._dtype = np.dtype(p["dtype"] or "float32")      # of data and label, as in MXNet
        data = _parse_csv(data_csv, int(np.prod(self._data_shape)), "CSVIter")
        if label_csv is not None and label_csv != "NULL":
            label = _parse_csv(label_csv, int(np.prod(self._label_shape)), "CSVIter")
            if label.shape[0] != data.shape[0]:
                raise MXNetError("CSVIter: %d data rows but %d label rows"
                                 % (data.shape[0], label.shape[0]))
        else:
            label = np.zeros((data.shape[0], int(np.prod(self._label_shape))))
        self._rows = data.astype(self._dtype)
        self._labels = label.astype(self._dtype)
        self._n = self._rows.shape[0]
        if self._n < bs:
            raise MXNetError("Check failed: base_->Next(): number of input must be bigger than "
                             "batch size")
        self._bs = bs
        self._round = round_batch
        lshape = (bs,) if self._label_shape == (1,) else (bs,) + self._label_shape
        self._lshape = lshape
        self._describe((bs,) + self._data_shape, lshape, self._dtype, self._dtype)
        self._start = 0          # first row of the current epoch
        self._head = 0           # next row to read
        self._overflow = 0
        self._buf = None         # the previous batch (round_batch=False reuses its slots)

    def reset(self):
        self._debug_at_begin = True
        if self._round and self._overflow:
            self._head = self._overflow       # those rows were served by the wrapped batch
        else:
            self._head = 0
        self._overflow = 0

    def iter_next(self):
        n, bs = self._n, self._bs
        if self._head >= n:
            return False
        take = min(bs, n - self._head)
        rows = list(range(self._head, self._head + take))
        self._head += take
        pad = bs - take
        if pad:
            if self._round:
                rows += list(range(pad))
                self._overflow = pad
            else:
                prev = self._buf
                rows += prev[take:] if prev is not None else [0] * pad
        self._buf = rows
        idx = np.asarray(rows, dtype=np.uint64)
        data = self._rows[rows].reshape((bs,) + self._data_shape)
        label = self._labels[rows].reshape(self._lshape)
        self._batch = (nd.array(data, dtype=self._dtype), nd.array(label, dtype=self._dtype),
                       idx, pad)
        return True


def _read_idx(path, magic, what):
    raw = _read_file(path, what)
    ndim = {2051: 3, 2049: 1}[magic]
    head = 4 + 4 * ndim
    found = struct.unpack(">i", raw[:4])[0] if len(raw) >= 4 else None
    if found != magic:
        raise MXNetError("%s: %s has magic %s, expected %d (MNIST idx %s file)"
                         % (what, path, found, magic, "image" if magic == 2051 else "label"))
    if len(raw) < head:
        raise MXNetError("%s: %s is not an MNIST idx file (too short)" % (what, path))
    vals = struct.unpack(">%di" % (1 + ndim), raw[:head])
    dims = vals[1:]
    size = int(np.prod(dims))
    if len(raw) - head < size:
        raise MXNetError("%s: %s is truncated (%d bytes of data, %d expected)"
                         % (what, path, len(raw) - head, size))
    return np.frombuffer(raw, dtype=np.uint8, count=size, offset=head).reshape(dims)


class MNISTIter(MXDataIter):
    """Batches from the MNIST idx files: data ``(batch, 1, 28, 28)`` (``flat``: ``(batch,
    784)``) as pixel / 256 (MXNet's scaling), float labels; a last partial batch is dropped;
    ``index`` is all zeros, as MXNet reports it."""

    _SPEC = dict(_PREFETCH, image=lambda n, v: str(v), label=lambda n, v: str(v),
                 batch_size=lambda n, v: _p_int(n, v, 1), shuffle=_p_bool, flat=_p_bool,
                 seed=_p_int, silent=_p_bool, num_parts=_p_int, part_index=_p_int)

    def __init__(self, image="./train-images-idx3-ubyte", label="./train-labels-idx1-ubyte",
                 batch_size=128, shuffle=True, flat=False, seed=0, silent=False, num_parts=1,
                 part_index=0, prefetch_buffer=4, ctx="gpu", dtype=None,
                 data_name="data", label_name="softmax_label", **kwargs):
        super().__init__(data_name, label_name)
        p = _parse_params(self._SPEC, dict(
            image=image, label=label, batch_size=batch_size, shuffle=shuffle, flat=flat,
            seed=seed, silent=silent, num_parts=num_parts, part_index=part_index,
            prefetch_buffer=prefetch_buffer, ctx=ctx, dtype=dtype))
        batch_size, shuffle, flat, silent = (p[k] for k in ("batch_size", "shuffle", "flat",
                                                            "silent"))
        dtype = p["dtype"]
        imgs = _read_idx(p["image"], 2051, "MNISTIter")
        labs = _read_idx(p["label"], 2049, "MNISTIter")
        if imgs.shape[0] != labs.shape[0]:
            raise MXNetError("MNISTIter: %d images but %d labels" % (imgs.shape[0], labs.shape[0]))
        part = _split(imgs.shape[0], p["num_parts"], p["part_index"], "MNISTIter")
        imgs, labs = imgs[part], labs[part]
        order = np.arange(imgs.shape[0])
        if shuffle:
            np.random.RandomState(p["seed"]).shuffle(order)
        # MXNet scales by 1/256 (not 1/255): pixel 255 -> 0.99609375
        self._imgs = (imgs[order].astype(np.float32) * np.float32(1.0 / 256.0))
        self._labs = labs[order].astype(np.float32)
        self._flat = flat
        self._bs = batch_size
        rows, cols = imgs.shape[1], imgs.shape[2]
        self._sample_shape = (rows * cols,) if self._flat else (1, rows, cols)
        self._dtype = jax.numpy.dtype(dtype or "float32")
        self._describe((self._bs,) + self._sample_shape, (self._bs,), self._dtype)
        if not silent:
            logging.getLogger(__name__).info(
                "MNISTIter: load %d images, shuffle=%d, shape=%s", imgs.shape[0], int(shuffle),
                (self._bs,) + self._sample_shape)
        self._loc = 0

    def reset(self):
        self._debug_at_begin = True
        self._loc = 0

    def iter_next(self):
        if self._loc + self._bs > self._imgs.shape[0]:
            return False
        sl = slice(self._loc, self._loc + self._bs)
        self._loc += self._bs
        data = self._imgs[sl].reshape((self._bs,) + self._sample_shape)
        self._batch = (nd.array(data, dtype=self._dtype), nd.array(self._labs[sl]),
                       np.zeros(self._bs, dtype=np.uint64), 0)
        return True


def _unsupported(name, why):
    def creator(*args, **kwargs):
        raise MXNetError("mx.io.%s is not supported by xnd: %s" % (name, why))
    creator.__name__ = name
    creator.__doc__ = "Not supported by xnd: %s" % why
    return creator


LibSVMIter = _unsupported("LibSVMIter", "it produces CSR (sparse storage) batches and xnd has "
                                        "dense arrays only; convert the data to dense arrays and "
                                        "use NDArrayIter")
_RECORDIO = ("RecordIO image iterators are not implemented; decode the images and use "
             "NDArrayIter or gluon.data.DataLoader")
ImageRecordIter = _unsupported("ImageRecordIter", _RECORDIO)
ImageRecordUInt8Iter = _unsupported("ImageRecordUInt8Iter", _RECORDIO)
ImageRecordInt8Iter = _unsupported("ImageRecordInt8Iter", _RECORDIO)
ImageDetRecordIter = _unsupported("ImageDetRecordIter", _RECORDIO)
