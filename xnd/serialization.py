"""MXNet 1.9.1 NDArray container format (``mx.nd.save``/``mx.nd.load``, every ``.params``).

Works on NumPy arrays only; the NDArray class converts. Layout (little-endian,
packed; see shared/reference/FORMATS.md section 1)::

    u64 0x112 | u64 reserved (0) | u64 N | N records | u64 K (0 or N) | K x (u64 len, utf-8)

Record (V2, what 1.9.1 writes)::

    u32 0xF993FAC9 | i32 stype | i32 ndim | ndim x i64 | i32 dev_type | i32 dev_id
    | i32 type_flag | data (C order)

Reading also accepts V3 (``0xF993FACA``, np-shape semantics), V1 (``0xF993FAC8``,
no stype), V0 (first u32 is ndim, u32 dims) and sparse V2 records (stype 1
row_sparse / 2 csr), which are densified. Differences from MXNet 1.9.1, all
extensions (MXNet raises where xnd returns something):

* ``loads``/``load`` read V3 records in any mode; ``mx.nd.load`` passes the
  NumPy-shape mode and then refuses, as MXNet does, V3 records outside
  ``mx.np_shape(True)`` and V0-V2 records inside it (unless it is on globally).
  ``dumps`` writes V3 records for the whole file under np-shape (``v3=True``, as
  MXNet's ``nd.save`` does) and when any array is 0-d (V2 cannot express 0-d),
  else V2.
* bfloat16 (type_flag 12) loads as float32 (exact widening); MXNet gives a
  ``[('bfloat16', '<u2')]`` struct array. ``dumps`` writes ml_dtypes/JAX
  ``bfloat16`` and that struct dtype as type_flag 12.
* "No array" records (V0/V1/V2 ndim 0; V3 ndim -1 or a dim of -1) load as
  ``None``; MXNet's Python ``load`` raises ("unknown storage type: -1").
* ``loads``/``load`` give sparse records as dense arrays unless ``sparse=True`` (then a
  :class:`SparseRecord` of the components, as ``mx.nd.load`` needs); ``dumps`` writes a
  ``SparseRecord`` as MXNet writes a CSR/RowSparse NDArray (V2 only: under np-shape MXNet
  refuses, and so does ``dumps``).

As in MXNet: the reserved u64, the record's device (GPU records load as plain
arrays) and bytes after the last name are ignored; duplicate names keep the
last array. Every malformed input raises :class:`MXNetError`
("Invalid NDArray file format: ... at byte offset N"); sizes are checked
against the bytes left before anything is allocated. No pickle, no eval.
"""
import math
import os
import re
import secrets
import struct
from typing import NamedTuple

import numpy as np

from .base import MXNetError

__all__ = ['DTYPE_CODES', 'CODE_DTYPES', 'dumps', 'loads', 'save', 'load',
           'record_bytes', 'parse_record', 'SparseRecord']

HEADER_MAGIC = 0x112
V1_MAGIC, V2_MAGIC, V3_MAGIC = 0xF993FAC8, 0xF993FAC9, 0xF993FACA
_VERSIONS = {V1_MAGIC: 1, V2_MAGIC: 2, V3_MAGIC: 3}
MAX_NDIM = 32                   # MXNet's Python load refuses more dims
MAX_DENSIFIED_BYTES = 1 << 31   # cap on a sparse record's dense size (not bounded by the file)

DTYPE_CODES = {np.dtype(name): code for name, code in (
    ('float32', 0), ('float64', 1), ('float16', 2), ('uint8', 3),
    ('int32', 4), ('int8', 5), ('int64', 6), ('bool', 7))}
CODE_DTYPES = {code: dt for dt, code in DTYPE_CODES.items()}
BFLOAT16_CODE = 12
_BF16_DTYPES = [np.dtype([('bfloat16', '<u2')])]  # MXNet's NumPy-side bfloat16
try:
    import ml_dtypes
    _BF16_DTYPES.append(np.dtype(ml_dtypes.bfloat16))
except ImportError:  # pragma: no cover
    pass
_BOOL_CODE = DTYPE_CODES[np.dtype(bool)]
_ITEMSIZE = {**{c: dt.itemsize for c, dt in CODE_DTYPES.items()}, BFLOAT16_CODE: 2}
_NUM_AUX = {0: 0, 1: 1, 2: 2}   # stype -> aux arrays: dense, row_sparse (idx), csr (indptr, idx)
_STYPE_NAMES = {0: 'default', 1: 'row_sparse', 2: 'csr'}


class SparseRecord(NamedTuple):
    """A csr / row_sparse array as the file holds it: ``stype`` ('csr' or 'row_sparse'),
    the dense ``shape``, the stored values ``data`` and the aux arrays in MXNet's order
    (csr: indptr, indices; row_sparse: indices)."""
    stype: str
    shape: tuple
    data: np.ndarray
    aux: tuple

    @property
    def ndim(self):
        return len(self.shape)


_STYPE_CODES = {'row_sparse': 1, 'csr': 2}


class _Reader:
    """Bounds-checked cursor over a byte buffer."""

    def __init__(self, buf):
        if not isinstance(buf, (bytes, bytearray, memoryview)):
            raise TypeError(f'expected bytes-like data, got {type(buf).__name__}')
        self.buf = memoryview(buf).cast('B')
        self.pos = 0
        self.ctx = ''
        self.versions = set()  # record format versions read

    def fail(self, what, offset=None):
        where = f'{self.ctx}: ' if self.ctx else ''
        raise MXNetError(f'Invalid NDArray file format: {where}{what} at byte offset '
                         f'{self.pos if offset is None else offset}')

    def take(self, n, what):
        left = len(self.buf) - self.pos
        if n > left:
            self.fail(f'{what} needs {n} bytes but only {left} remain (truncated file?)')
        self.pos += n
        return self.buf[self.pos - n:self.pos]

    def unpack(self, fmt, what):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), what))

    def scalar(self, fmt, what):
        return self.unpack('<' + fmt, what)[0]


def _read_shape(r, ver, what, ndim=None):
    """Shape tuple, or None for MXNet's "no array" (unknown) shape."""
    off = r.pos
    if ndim is None:
        ndim = r.scalar('i', f'{what} ndim')
    if ver == 3 and ndim == -1:
        return None
    if not 0 <= ndim <= MAX_NDIM:
        r.fail(f'{what} ndim {ndim} outside [0, {MAX_NDIM}]', off)
    if ndim == 0 and ver < 3:
        return None
    off = r.pos
    dims = r.unpack(f"<{ndim}{'I' if ver == 0 else 'q'}", f'{what} dims')
    if ver == 3 and -1 in dims:
        return None
    if min(dims, default=0) < 0:
        r.fail(f'negative {what} dim in {dims}', off)
    return dims


def _read_data(r, code, shape, what):
    if code not in _ITEMSIZE:
        r.fail(f'unknown dtype code {code} (type_flag) for {what}', r.pos - 4)
    raw = r.take(math.prod(shape) * _ITEMSIZE[code], f'{what} data of shape {shape}')
    if code == BFLOAT16_CODE:
        arr = (np.frombuffer(raw, '<u2').astype(np.uint32) << 16).view(np.float32)
    elif code == _BOOL_CODE:
        arr = np.frombuffer(raw, np.uint8) != 0   # MXNet reads any nonzero byte as True
    else:
        dt = CODE_DTYPES[code]
        arr = np.frombuffer(raw, dt.newbyteorder('<')).astype(dt)
    try:
        return arr.reshape(shape)
    except ValueError as e:
        r.fail(f'cannot make an array of shape {shape}: {e}')


def _check_sparse(r, stype, data, shape, aux, off):
    """Validate row_sparse/csr parts like a careful reader (MXNet itself does not)."""
    def check(ok, what):
        if not ok:
            r.fail(f'inconsistent {_STYPE_NAMES[stype]} record: {what}', off)
    check(all(a.dtype.kind in 'iu' for a in aux), 'non-integer aux array')
    if stype == 1:
        (idx,) = aux
        check(len(shape) >= 1 and data.shape[1:] == shape[1:] and idx.shape == data.shape[:1],
              f'data {data.shape}, indices {idx.shape}, shape {shape}')
        check(idx.size == 0 or (idx.min() >= 0 and idx.max() < shape[0]), 'row index out of range')
    else:
        indptr, idx = aux
        check(len(shape) == 2 and data.ndim == 1 and indptr.shape == (shape[0] + 1,)
              and idx.shape == data.shape, f'data {data.shape}, indptr {indptr.shape}, '
              f'indices {idx.shape}, shape {shape}')
        check(indptr[0] == 0 and indptr[-1] == data.size and indptr.min() >= 0
              and indptr.max() <= data.size, 'bad indptr')   # bounded: diff cannot wrap
        check((np.diff(indptr) >= 0).all(), 'decreasing indptr')
        check(idx.size == 0 or (idx.min() >= 0 and idx.max() < shape[1]), 'column index out of range')
    return check


def _densify(r, stype, data, shape, aux, off):
    """row_sparse/csr parts -> dense array."""
    check = _check_sparse(r, stype, data, shape, aux, off)
    size = math.prod(shape) * data.dtype.itemsize
    check(size <= MAX_DENSIFIED_BYTES, f'dense shape {shape} exceeds {MAX_DENSIFIED_BYTES} bytes')
    try:
        dense = np.zeros(shape, data.dtype)
    except ValueError as e:   # e.g. (0, 2**62, 2**62): zero-size but too big for NumPy
        r.fail(f'cannot make an array of shape {shape}: {e}', off)
    if stype == 1:
        dense[aux[0]] = data
    else:
        indptr, idx = aux
        dense[np.repeat(np.arange(shape[0]), np.diff(indptr)), idx] = data
    return dense


def _read_record(r, sparse=False):
    start = r.pos
    magic = r.scalar('I', 'record magic')
    ver = _VERSIONS.get(magic, 0)
    r.versions.add(ver)
    stype = r.scalar('i', 'storage type') if ver >= 2 else 0
    if stype not in _NUM_AUX or (ver == 3 and stype != 0):
        r.fail(f'unknown storage type {stype} for a V{ver} record', r.pos - 4)
    sshape = _read_shape(r, ver, 'storage shape') if stype else None
    shape = _read_shape(r, ver, 'shape', ndim=magic if ver == 0 else None)
    if shape is None:
        return None
    _dev_type, _dev_id, code = r.unpack('<iii', 'context and type_flag')
    if stype == 0:
        return _read_data(r, code, shape, 'array')
    if sshape is None:
        r.fail('sparse record without storage shape', start)
    aux_desc = []
    for i in range(_NUM_AUX[stype]):
        aux_desc.append((r.scalar('i', f'aux {i} type_flag'), _read_shape(r, ver, f'aux {i} shape')))
        if aux_desc[-1][1] is None:
            r.fail(f'aux {i} without shape', start)
    data = _read_data(r, code, sshape, 'sparse values')
    aux = [_read_data(r, c, s, f'aux {i}') for i, (c, s) in enumerate(aux_desc)]
    if sparse:
        _check_sparse(r, stype, data, shape, aux, start)
        return SparseRecord(_STYPE_NAMES[stype], tuple(shape), data, tuple(aux))
    return _densify(r, stype, data, shape, aux, start)


def parse_record(buf):
    """One array record (no file header) -> NumPy array (or None for an empty handle).

    This is the NDArray pickle payload (``__getstate__()['handle']``); like
    MXNet's ``MXNDArrayLoadFromRawBytes``, bytes after the record are ignored.
    """
    r = _Reader(buf)
    r.ctx = 'record'
    return _read_record(r)


def _check_mode(versions, np_shape):
    if np_shape is None:
        return
    if 3 in versions and not np_shape:
        raise MXNetError("ndarray was saved in np shape semantics, must be loaded in the same "
                         "semantics. Please turn on np shape semantics in Python using `with "
                         "np_shape(True)` or decorator `use_np_shape` to scope the code of "
                         "loading the ndarray.")
    if versions - {3} and np_shape and np_shape != "global":
        raise MXNetError("ndarray was not saved in np shape semantics, but being loaded in np "
                         "shape semantics. Please turn off np shape semantics in Python using "
                         "`with np_shape(False)` to scope the code of loading the ndarray.")


def loads(buf, np_shape=None, sparse=False):
    """Parse container bytes (``mx.nd.load_frombuffer``): a list when the file
    has no names (K == 0), else a dict name -> array in file order. ``np_shape``
    (False, True or "global": MXNet's NumPy-shape mode) makes the records' version
    match it as MXNet requires; None reads every version. ``sparse``: csr/row_sparse
    records come as :class:`SparseRecord` (else dense arrays)."""
    r = _Reader(buf)
    magic, _reserved, n = r.unpack('<QQQ', 'header')
    if magic != HEADER_MAGIC:
        r.fail(f'header magic {magic:#x} != {HEADER_MAGIC:#x}', 0)
    arrays = []
    for i in range(n):   # n may be garbage: each record consumes bytes, so this ends
        r.ctx = f'record {i} of {n}'
        arrays.append(_read_record(r, sparse))
    r.ctx = ''
    _check_mode(r.versions, np_shape)
    k = r.scalar('Q', 'name count')
    if k not in (0, n):
        r.fail(f'name count K={k} is neither 0 nor N={n}', r.pos - 8)
    names = []
    for i in range(k):
        off = r.pos
        raw = r.take(r.scalar('Q', f'name {i} length'), f'name {i}')
        try:
            names.append(str(raw, 'utf-8'))
        except UnicodeDecodeError:
            r.fail(f'name {i} is not UTF-8', off)
    return dict(zip(names, arrays)) if k else arrays


def _type_flag(dtype, where):
    code = DTYPE_CODES.get(dtype.newbyteorder('<') if dtype.byteorder == '>' else dtype)
    if code is None and dtype in _BF16_DTYPES:
        code = BFLOAT16_CODE
    if code is None:
        raise MXNetError(f'cannot save {where}: dtype {dtype} is not supported by the MXNet '
                         f'NDArray format (supported: {", ".join(map(str, DTYPE_CODES))}, bfloat16)')
    return code


def _sparse_record(rec, context, v3, where):
    """A CSR/RowSparse record as MXNet's NDArray::Save writes it: storage shape before
    the shape, the aux types and shapes after the value type, then values, then aux data."""
    if v3:
        raise MXNetError('only allow serializing ndarray of default storage type in np '
                         f'shape semantics ({where} is {rec.stype})')
    code = _type_flag(rec.data.dtype, where)
    head = [struct.pack('<Ii', V2_MAGIC, _STYPE_CODES[rec.stype]),
            _shape_bytes(rec.data.shape), _shape_bytes(rec.shape)]
    try:
        head.append(struct.pack('<iii', *context, code))
    except (struct.error, TypeError) as e:
        raise ValueError(f'bad context {context!r} for {where}: expected (dev_type, dev_id) '
                         f'ints') from e
    for a in rec.aux:
        head += [struct.pack('<i', _type_flag(a.dtype, where)), _shape_bytes(a.shape)]
    body = [np.ascontiguousarray(rec.data).astype(
        CODE_DTYPES[code].newbyteorder('<')).tobytes()]
    body += [np.ascontiguousarray(a).astype(a.dtype.newbyteorder('<')).tobytes()
             for a in rec.aux]
    return b''.join(head + body)


def _shape_bytes(shape):
    return struct.pack(f'<i{len(shape)}q', len(shape), *shape)


def _record(arr, context, v3, where):
    if isinstance(arr, SparseRecord):
        return _sparse_record(arr, context, v3, where)
    if not isinstance(arr, np.ndarray):
        raise TypeError(f'save only accepts NumPy arrays, got {type(arr).__name__} for {where}')
    code = _type_flag(arr.dtype, where)
    if code == BFLOAT16_CODE:
        payload = arr.view(np.uint16).astype('<u2')
    else:  # bool is written as bytes 0/1
        payload = arr.astype('u1' if code == _BOOL_CODE else CODE_DTYPES[code].newbyteorder('<'))
    try:
        head = struct.pack(f'<Iii{arr.ndim}qiii', V3_MAGIC if v3 else V2_MAGIC, 0, arr.ndim,
                           *arr.shape, *context, code)
    except (struct.error, TypeError) as e:
        raise ValueError(f'bad context {context!r} for {where}: expected (dev_type, dev_id) '
                         f'ints') from e
    return head + payload.tobytes()  # tobytes() is C order


def record_bytes(arr, context=(1, 0)):
    """One record with no file header: the NDArray pickle payload
    (``__getstate__()['handle']``). V2, or V3 for a 0-d array."""
    return _record(arr, context, isinstance(arr, np.ndarray) and arr.ndim == 0, 'the array')


def dumps(data, contexts=None, v3=False):
    """Container bytes exactly as ``mx.nd.save`` (1.9.1) writes them.

    ``data``: one array (saved as a 1-element list), a list of arrays, or a dict
    str -> array (insertion order kept; an empty dict is written as an empty
    list, as in MXNet). Like MXNet: a tuple or other type raises ValueError, a
    non-str key or non-array value TypeError. Unsupported dtypes raise
    MXNetError. ``contexts``: (dev_type, dev_id) per array, default (1, 0) = cpu(0).
    ``v3``: write V3 records (MXNet does under np-shape; also when an array is 0-d).
    """
    if isinstance(data, (np.ndarray, SparseRecord)):
        data = [data]
    if isinstance(data, dict):
        if not all(isinstance(k, str) for k in data):
            raise TypeError('save only accept dict str->NDArray or list of NDArray')
        names, arrays = list(data), list(data.values())
        wheres = [f'key {k!r}' for k in names]
    elif isinstance(data, list):
        names, arrays = [], data
        wheres = [f'index {i}' for i in range(len(arrays))]
    else:
        raise ValueError('data needs to either be a NDArray, dict of str, NDArray pairs '
                         'or a list of NDarrays.')
    if not all(isinstance(a, (np.ndarray, SparseRecord)) for a in arrays):
        raise TypeError('save only accept dict str->NDArray or list of NDArray')
    contexts = [(1, 0)] * len(arrays) if contexts is None else list(contexts)
    if len(contexts) != len(arrays):
        raise ValueError(f'{len(contexts)} contexts given for {len(arrays)} arrays')
    v3 = v3 or any(a.ndim == 0 for a in arrays)
    parts = [struct.pack('<QQQ', HEADER_MAGIC, 0, len(arrays))]
    parts += [_record(a, c, v3, w) for a, c, w in zip(arrays, contexts, wheres)]
    parts.append(struct.pack('<Q', len(names)))
    for name in names:
        raw = name.encode('utf-8')
        parts += [struct.pack('<Q', len(raw)), raw]
    return b''.join(parts)


def _path(fname):
    fname = os.fspath(fname)
    if not isinstance(fname, str):
        raise TypeError('fname required to be a string')   # MXNet's message
    return fname


def save(fname, data, contexts=None, v3=False):
    """``mx.nd.save``: serialize first, then write atomically (temp file in the
    same directory, flush + fsync, ``os.replace``), so a failure never leaves a
    partial file or clobbers the old one."""
    atomic_write(_path(fname), dumps(data, contexts, v3))


def atomic_write_text(fname, text):
    """Write a text file (symbol JSON) atomically."""
    atomic_write(_path(fname), text.encode("utf-8"))


def _pid_alive(pid):
    try:
        os.kill(pid, 0)  # signal 0: existence check only
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: alive, owned by someone else
        return True
    return True


def sweep_stale_temps(fname):
    """Remove ``.NAME.PID.HEX.tmp`` files of this target left by a save that was killed
    (SIGKILL, power loss) before its ``os.replace``. Only files of the same target whose
    writer PID no longer exists; never this process's (another thread may be writing) nor a
    live process's. POSIX only (the PID check needs ``kill(pid, 0)``)."""
    if os.name != "posix":
        return []
    head, tail = os.path.split(fname)
    pat = re.compile(r"\." + re.escape(tail) + r"\.(\d+)\.[0-9a-f]+\.tmp\Z")
    removed = []
    try:
        names = os.listdir(head or ".")
    except OSError:
        return removed
    for name in names:
        m = pat.match(name)
        if m is None:
            continue
        pid = int(m.group(1))
        if pid == os.getpid() or _pid_alive(pid):
            continue
        try:
            os.unlink(os.path.join(head, name))
            removed.append(name)
        except OSError:
            pass
    return removed


def atomic_write(fname, payload):
    """Temp file in the target's directory, flush + fsync, then ``os.replace``; then the
    stale temporaries of earlier killed saves of the same target are removed."""
    head, tail = os.path.split(fname)
    tmp = os.path.join(head, f'.{tail}.{os.getpid()}.{secrets.token_hex(4)}.tmp')
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, fname)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    sweep_stale_temps(fname)


def load(fname, np_shape=None, sparse=False):
    """``mx.nd.load``: list or dict of NumPy arrays (``np_shape``, ``sparse`` as in ``loads``). A file
    that cannot be read raises MXNetError (as MXNet: 'Open "<fname>": No such file or
    directory')."""
    fname = _path(fname)
    try:
        with open(fname, 'rb') as f:
            buf = f.read()
    except OSError as e:
        raise MXNetError(f'Open "{fname}": {e.strerror or e}') from e
    return loads(buf, np_shape, sparse)
