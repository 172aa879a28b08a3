"""``mx.io.LibSVMIter``: CSR batches from zero-based LibSVM files, as MXNet 1.9.1's C++
iterator (LibSVMIter + SparseBatchLoader) gives them.

* A line is ``label[:weight] [qid:N] index:value ...``; blank lines are skipped, indices are
  kept in the file's order, values are float32. A negative index is MXNet's parse error.
* ``num_parts``/``part_index`` split the file's bytes into equal ranges, each moved to the
  start of the next line (dmlc's InputSplit), so parts are not guaranteed to be even.
* Only ``round_batch=True``: a short last batch is filled from the start of the part
  (``pad`` counts those rows) and the next epoch continues after them; filling needs more
  rows than the part has raises MXNet's "number of input must be bigger than batch size".
* MXNet's C++ prefetcher (a dmlc ThreadedIter of 16 cells plus recycled ones) reads ahead of
  the caller, MXNet's Python wrapper takes the first batch at construction, and ``reset()``
  acts on the loader where that read-ahead left it: a reset right after construction, or
  after a wrapped last batch was read ahead, continues after the wrapped rows, as on MXNet
  (Module.score resets a fresh iterator). The read-ahead is modelled cell for cell
  (``_Prefetch``), with the producer always run to where MXNet's thread would stop.
* Without ``label_libsvm`` the labels are the lines' labels (dense, shape ``(batch,)``); with
  it they are that file's rows as a CSR array of ``(batch,) + label_shape``.

One difference: a column index >= ``data_shape[0]`` raises MXNetError (MXNet makes a CSR
array whose indices exceed its shape) -- docs/porting.md.
"""
from collections import deque

import numpy as np

from ...base import MXNetError
from .. import ndarray as nd
from ._file_iters import _PREFETCH, _p_bool, _p_int, _parse_params, _read_file, _shape
from .io import MXDataIter

__all__ = ["LibSVMIter"]


def _part_bytes(buf, num_parts, part_index):
    """dmlc's InputSplit for text: byte range ``[nstep*i, nstep*(i+1))`` with each inner
    boundary moved past the next line end."""
    total = len(buf)
    nstep = -(-total // num_parts)

    def align(pos):
        if pos in (0, total):
            return pos
        ends = [i for i in (buf.find(b"\n", pos), buf.find(b"\r", pos)) if i >= 0]
        if not ends:
            return total
        pos = min(ends)
        while pos < total and buf[pos] in b"\r\n":
            pos += 1
        return pos
    return buf[align(min(nstep * part_index, total)):align(min(nstep * (part_index + 1), total))]


def _parse(path, width, what):
    """Rows of a LibSVM file part: (labels float32, [(indices int64, values float32)])."""
    labels, rows = [], []
    for lineno, line in enumerate(path.replace(b"\r", b"\n").split(b"\n"), 1):
        tokens = line.split()
        if not tokens:
            continue
        try:
            labels.append(float(tokens[0].split(b":")[0]))
            idx, val = [], []
            for tok in tokens[1:]:
                if tok.startswith(b"qid:"):
                    continue
                i, sep, v = tok.partition(b":")
                if i.startswith(b"-"):
                    raise MXNetError("%s: Check failed: sign == true (0 vs. 1) : negative "
                                     "feature index %s on line %d" % (what, i.decode(), lineno))
                if not sep:
                    raise ValueError("feature %r has no value" % tok.decode())
                idx.append(int(i))
                val.append(float(v))
        except ValueError as e:
            raise MXNetError("%s: cannot parse line %d of the LibSVM data: %s"
                             % (what, lineno, e)) from None
        idx = np.asarray(idx, np.int64)
        if width is not None and idx.size and idx.max() >= width:
            raise MXNetError("%s: feature index %d on line %d is out of range for shape (%d,)"
                             % (what, idx.max(), lineno, width))
        rows.append((idx, np.asarray(val, np.float32)))
    return np.asarray(labels, np.float32), rows


def _csr(rows, width):
    counts = [len(i) for i, _ in rows]
    indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    cat = (lambda k, dt: np.concatenate([r[k] for r in rows]) if rows else np.zeros(0, dt))
    return nd.sparse.csr_matrix((cat(1, np.float32), cat(0, np.int64), indptr),
                                shape=(len(rows), width), dtype=np.float32)


class _Prefetch:
    """MXNet's PrefetcherIter over a dmlc ThreadedIter, as counts of cells: the producer
    fills the queue while it holds fewer than 16 batches or a free cell exists; the consumer
    gives a cell back once ``prefetch_buffer`` newer ones were taken; BeforeFirst turns the
    queued batches into free cells and resets the loader."""
    CAPACITY = 16     # MXNet's kMaxPrefetchBuffer

    def __init__(self, load, before_first, prefetch_buffer):
        self._load, self._bf, self._keep = load, before_first, prefetch_buffer
        self._queue, self._free, self._held, self._out, self._end = deque(), 0, 0, False, False

    def _produce(self):
        while not self._end and (len(self._queue) < self.CAPACITY or self._free):
            reused = self._free > 0
            self._free -= reused
            item = self._load()
            if item is None or isinstance(item, MXNetError):
                self._end = True
            if item is None:
                self._free += reused
            else:
                self._queue.append(item)

    def next(self):
        if self._out:
            self._held, self._out = self._held + 1, False
        if self._held == self._keep:
            self._held, self._free = self._held - 1, self._free + 1
        self._produce()
        if not self._queue:
            return None
        self._out = True
        return self._queue.popleft()

    def before_first(self):
        self._produce()          # the thread has run as far as it can before the signal
        self._bf()
        self._free += len(self._queue)
        self._queue.clear()
        self._end = False
        self._produce()


class LibSVMIter(MXDataIter):
    """CSR data batches (and dense or CSR labels) from LibSVM files (see the module)."""

    _SPEC = dict(_PREFETCH, data_libsvm=lambda n, v: str(v), label_libsvm=lambda n, v: str(v),
                 data_shape=lambda n, v: _shape(v, n), label_shape=lambda n, v: _shape(v, n),
                 batch_size=lambda n, v: _p_int(n, v, 1), round_batch=_p_bool,
                 num_parts=lambda n, v: _p_int(n, v), part_index=lambda n, v: _p_int(n, v))

    def __init__(self, data_libsvm=None, data_shape=None, label_libsvm="NULL", label_shape=(1,),
                 num_parts=1, part_index=0, batch_size=None, round_batch=True,
                 prefetch_buffer=4, ctx="gpu", dtype=None, data_name="data",
                 label_name="softmax_label", **kwargs):
        super().__init__(data_name, label_name)
        if data_libsvm is None or data_shape is None or batch_size is None:
            raise MXNetError("LibSVMIter: data_libsvm, data_shape and batch_size are required")
        p = _parse_params(self._SPEC, dict(
            data_libsvm=data_libsvm, label_libsvm="NULL" if label_libsvm is None else label_libsvm,
            data_shape=data_shape, label_shape=label_shape, num_parts=num_parts,
            part_index=part_index, batch_size=batch_size, round_batch=round_batch,
            prefetch_buffer=prefetch_buffer, ctx=ctx, dtype=dtype))
        dshape, lshape = p["data_shape"], p["label_shape"]
        if len(dshape) != 1:
            raise MXNetError("Check failed: param_.data_shape.ndim() == 1 (%d vs. 1) : "
                             "dimension of data_shape is expected to be 1" % len(dshape))
        if p["num_parts"] <= 0:
            raise MXNetError("Check failed: param_.num_parts > 0 (%d vs. 0) : number of parts "
                             "should be positive" % p["num_parts"])
        if p["part_index"] < 0:
            raise MXNetError("Check failed: param_.part_index >= 0 (%d vs. 0) : part index "
                             "should be non-negative" % p["part_index"])
        if p["part_index"] >= p["num_parts"]:
            raise MXNetError("LibSVMIter: part_index %d is not below num_parts %d"
                             % (p["part_index"], p["num_parts"]))
        lsize = int(np.prod(lshape))
        self._label_file = p["label_libsvm"] != "NULL"
        if self._label_file and lsize <= 1:
            raise MXNetError("Check failed: param_.label_shape.Size() > 1 (%d vs. 1) : "
                             "label_shape is not expected to be (1,) when param_.label_libsvm "
                             "is set." % lsize)
        if not self._label_file and lsize != 1:
            raise MXNetError("Check failed: param_.label_shape.Size() == 1 (%d vs. 1) : "
                             "label_shape is expected to be (1,) when param_.label_libsvm is "
                             "NULL" % lsize)
        if not p["round_batch"]:
            raise MXNetError("sparse batch loader doesn't support round_batch == false yet")
        part = (p["num_parts"], p["part_index"])
        self._width = dshape[0]
        self._labels, self._rows = _parse(
            _part_bytes(_read_file(p["data_libsvm"], "LibSVMIter"), *part), self._width,
            "LibSVMIter")
        if self._label_file:
            self._lwidth = lsize
            _, self._lrows = _parse(_part_bytes(_read_file(p["label_libsvm"], "LibSVMIter"),
                                                *part), lsize, "LibSVMIter")
            if len(self._lrows) < len(self._rows):
                raise MXNetError("Check failed: label_parser_->Next(): Data LibSVM's row is "
                                 "smaller than the number of rows in label_libsvm")
        self._bs = p["batch_size"]
        label_desc = (self._bs,) + lshape if self._label_file else (self._bs,)
        self._describe((self._bs,) + dshape, label_desc, np.float32)
        self._pos = 0            # next row of the part the loader reads
        self._overflow = 0       # rows the last (wrapped) batch read from the part's start
        self._pre = _Prefetch(self._load, self._before_first, p["prefetch_buffer"])
        self._first = self._pre.next()   # MXNet's Python wrapper reads the first batch here

    # ---- the loader (MXNet's SparseBatchLoader) ------------------------------------------
    def _load(self):
        """The loader's next batch: (rows, pad), None at the end, or the error it raises."""
        n = len(self._rows)
        if self._overflow or self._pos >= n:
            return None
        take = list(range(self._pos, min(n, self._pos + self._bs)))
        self._pos = take[-1] + 1
        if len(take) < self._bs:
            need = self._bs - len(take)
            if need > n:
                return MXNetError("Check failed: sparse_base_->Next(): number of input must "
                                  "be bigger than batch size")
            take += list(range(need))
            self._pos, self._overflow = need, need
        return take, self._overflow

    def _before_first(self):
        if self._overflow:       # the next epoch continues after the wrapped rows
            self._overflow = 0
        else:
            self._pos = 0

    def reset(self):
        self._debug_at_begin = True
        self._first = None
        self._pre.before_first()

    def iter_next(self):
        item, self._first = (self._first, None) if self._first is not None else \
            (self._pre.next(), None)
        if item is None:
            return False
        if isinstance(item, MXNetError):
            raise item
        take, pad = item
        data = _csr([self._rows[i] for i in take], self._width)
        if self._label_file:
            label = _csr([self._lrows[i] for i in take], self._lwidth)
        else:
            label = nd.array(self._labels[take])
        self._batch = (data, label, np.asarray(take, np.uint64), pad)
        return True
