"""The file-backed iterators of mx.io (MXNet's C++ ``MXDataIter`` family).

``CSVIter`` and ``MNISTIter`` read local files with the semantics of MXNet's
C++ iterators (CSV ``round_batch`` wrap-around that shifts the next epoch's
start; MNIST drops a last partial batch) and parse their keywords as MXNet does
(string values accepted, a bad value of a declared keyword is an MXNetError naming it,
an undeclared keyword has no effect). ``MNISTIter(shuffle=True)`` uses its own seeded
permutation, not MXNet's. The RecordIO image iterators raise MXNetError: RecordIO
image decoding is not implemented. ``LibSVMIter`` is in ``_libsvm.py``.
"""
import logging
import struct

import jax
import numpy as np

from ...base import MXNetError
from .. import ndarray as nd
from .io import MXDataIter

__all__ = ["CSVIter", "MNISTIter", "ImageRecordIter", "ImageRecordUInt8Iter",
           "ImageRecordInt8Iter", "ImageDetRecordIter"]


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


_RECORDIO = ("RecordIO image iterators are not implemented; decode the images and use "
             "NDArrayIter or gluon.data.DataLoader")
ImageRecordIter = _unsupported("ImageRecordIter", _RECORDIO)
ImageRecordUInt8Iter = _unsupported("ImageRecordUInt8Iter", _RECORDIO)
ImageRecordInt8Iter = _unsupported("ImageRecordInt8Iter", _RECORDIO)
ImageDetRecordIter = _unsupported("ImageDetRecordIter", _RECORDIO)
