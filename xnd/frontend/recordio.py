"""mx.recordio: MXNet's RecordIO files (``.rec``, with an ``.idx`` index for random access)
and the image-record header of im2rec (MXNet 1.9.1, byte for byte).

On disk (dmlc-core RecordIO, little endian) a record is one or more parts, each a uint32
magic ``0xced7230a``, a uint32 word ``cflag << 29 | length`` and ``length`` payload bytes
padded with zeros to a multiple of 4. A payload holding the magic at a 4-byte aligned offset
is split there (the magic itself is not stored): parts carry cflag 1 (first), 2 (middle) and
3 (last); a record in one part has cflag 0. A reader joins the parts back with the magic.
Records must be shorter than 2**29 bytes. The ``.idx`` file is text, one ``key\\toffset``
line per record, the offset being where the record starts in the ``.rec`` file.

Image records (`pack`, `unpack`) start with the 24-byte header ``IfQQ`` (flag, label, id,
id2); a label that is not a number is stored as ``flag`` float32 values after the header,
with ``label`` 0. `pack_img`/`unpack_img` encode and decode the image with Pillow (MXNet uses
OpenCV), on BGR arrays as MXNet does; see `mx.image` for the decoder differences.

Reading a closed `MXRecordIO` raises RuntimeError as MXNet does (MXNet's message speaks of
"multiple processes"); `MXIndexedRecordIO.read_idx` reopens a closed or inherited reader,
as MXNet does. Records are validated before any byte is written, so a rejected record leaves
the file as it was; a ``.rec`` created by an `MXIndexedRecordIO` whose ``.idx`` cannot be
opened is removed again.
"""
import numbers
import os
import struct
import sys
import threading
from collections import namedtuple

import numpy as np

from ..base import MXNetError
# names MXNet's module holds by importing them (its users import them from here)
from ..base import c_str, check_call  # noqa: E402,F401

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img",
           "unpack_img"]

_MAGIC = 0xCED7230A
_MAGIC_BYTES = struct.pack("<I", _MAGIC)
_LEN_MASK = (1 << 29) - 1
_IR_FORMAT = "<IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)  # 24


def _encode(data):
    """The on-disk bytes of one record (split at aligned magic numbers, padded)."""
    n = len(data)
    if n > _LEN_MASK:
        raise MXNetError(f"RecordIO only accepts records shorter than 2**29 bytes, got {n}")
    words = np.frombuffer(data, dtype="<u4", count=n // 4)
    cuts = (np.flatnonzero(words == _MAGIC) * 4).tolist()
    out, start = [], 0
    for i, pos in enumerate(cuts):
        out.append(struct.pack("<II", _MAGIC, (1 if i == 0 else 2) << 29 | (pos - start)))
        out.append(data[start:pos])
        start = pos + 4
    tail = n - start
    out.append(struct.pack("<II", _MAGIC, (3 if cuts else 0) << 29 | tail))
    out.append(data[start:])
    out.append(b"\0" * (-tail % 4))
    return b"".join(out)


def _read_record(f, uri):
    """The next record of the open binary file `f`, or None at the end of the file."""
    parts = []
    while True:
        at = f.tell()
        head = f.read(8)
        if not head and not parts:
            return None
        if len(head) < 8:
            raise MXNetError(f"Invalid RecordIO File {uri!r}: truncated record header at "
                             f"offset {at}")
        magic, lrec = struct.unpack("<II", head)
        if magic != _MAGIC:
            raise MXNetError(f"Invalid RecordIO File {uri!r}: bad magic number 0x{magic:08x} "
                             f"at offset {at} (expected 0x{_MAGIC:08x})")
        cflag, length = lrec >> 29, lrec & _LEN_MASK
        padded = (length + 3) & ~3
        body = f.read(padded)
        if len(body) != padded:
            raise MXNetError(f"Invalid RecordIO File {uri!r}: record at offset {at} needs "
                             f"{padded} bytes, the file has {len(body)} left")
        parts.append(body[:length])
        if cflag in (0, 3):
            return _MAGIC_BYTES.join(parts)


def _as_bytes(buf, what):
    if isinstance(buf, bytes):
        return buf
    if isinstance(buf, (bytearray, memoryview)):
        return bytes(buf)
    raise TypeError(f"{what} expects bytes, got {type(buf).__name__}"
                    + (" (encode the str first)" if isinstance(buf, str) else ""))


class MXRecordIO:
    """Sequential reader (``flag='r'``) or writer (``flag='w'``, truncates) of a RecordIO
    file. `read` returns the next record as bytes, None at the end; `write` appends one.
    A missing file raises MXNetError, an unknown flag ValueError ("Invalid flag")."""

    def __init__(self, uri, flag):
        self.uri = os.fspath(uri)
        self.flag = flag
        self.handle = None
        self.pid = None
        self.is_open = False
        self.writable = flag == "w"
        self._lock = threading.Lock()
        self.open()

    def open(self):
        """Open the file (truncating it when writing)."""
        if self.flag not in ("r", "w"):
            raise ValueError(f"Invalid flag {self.flag}")
        self.writable = self.flag == "w"
        try:
            self.handle = open(self.uri, "wb" if self.writable else "rb")
        except OSError as e:
            raise MXNetError(f"RecordIO: cannot open {self.uri!r} for "
                             f"{'writing' if self.writable else 'reading'}: "
                             f"{e.strerror or e}") from None
        self.pid = os.getpid()
        self.is_open = True

    def close(self):
        """Close the file (a no-op when it is closed)."""
        if not self.is_open:
            return
        self.handle.close()
        self.is_open = False
        self.pid = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown, half-built object
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __getstate__(self):
        if self.writable:
            raise TypeError(f"cannot pickle the RecordIO writer of {self.uri!r}")
        state = {k: v for k, v in self.__dict__.items() if k not in ("handle", "_lock", "fidx")}
        return state

    def __setstate__(self, state):
        is_open = state["is_open"]
        self.__dict__.update(state)
        self.handle, self.fidx, self.is_open, self._lock = None, None, False, threading.Lock()
        if is_open:
            self.open()

    def reset(self):
        """Back to the first record (a writer truncates the file)."""
        self.close()
        self.open()

    def _check_pid(self, allow_reset=False):
        if self.pid == os.getpid():
            return
        if allow_reset:  # closed, or inherited through fork: reopen, as MXNet does
            self.reset()
        elif not self.is_open:
            raise RuntimeError(f"RecordIO {self.uri!r} is closed (MXNet: \"Forbidden "
                               f"operation in multiple processes\"); open() or reset() it")
        else:
            raise RuntimeError(f"Forbidden operation in multiple processes: RecordIO "
                               f"{self.uri!r} was opened by process {self.pid}")

    def write(self, buf):
        """Append the bytes `buf` as one record."""
        assert self.writable, f"write() needs flag 'w'; {self.uri!r} is open with {self.flag!r}"
        self._check_pid()
        self.handle.write(_encode(_as_bytes(buf, "MXRecordIO.write")))

    def read(self):
        """The next record as bytes, or None after the last one."""
        assert not self.writable, \
            f"read() needs flag 'r'; {self.uri!r} is open with {self.flag!r}"
        self._check_pid()
        return _read_record(self.handle, self.uri)


class MXIndexedRecordIO(MXRecordIO):
    """A RecordIO file with an ``.idx`` index (``key\\toffset`` lines) for random access:
    `read_idx(key)`, `write_idx(key, buf)`, `keys` (in file order), `idx` (key -> offset).
    Keys go through `key_type` (int by default). A missing ``.idx`` raises the Python
    FileNotFoundError, as in MXNet."""

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = os.fspath(idx_path)
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super().__init__(uri, flag)

    def open(self):
        existed = self.flag == "w" and os.path.exists(self.uri)
        super().open()
        self.idx = {}
        self.keys = []
        try:
            self.fidx = open(self.idx_path, self.flag)
            if not self.writable:
                self._load_index()
        except BaseException:
            super().close()
            if self.fidx is not None:
                self.fidx.close()
            if self.writable and not existed:
                os.remove(self.uri)
            raise

    def _load_index(self):
        for n, line in enumerate(self.fidx, 1):
            if not line.strip():
                continue
            fields = line.strip().split("\t")
            try:
                key, pos = self.key_type(fields[0]), int(fields[1])
            except (IndexError, ValueError):
                raise ValueError(f"{self.idx_path!r} line {n}: expected 'key<TAB>offset', "
                                 f"got {line.rstrip()!r}") from None
            self.idx[key] = pos
            self.keys.append(key)

    def close(self):
        """Close the record and index files."""
        if not self.is_open:
            return
        super().close()
        self.fidx.close()

    def seek(self, idx):
        """Move the reader to the record with key `idx` (KeyError when there is none)."""
        assert not self.writable, f"seek() needs flag 'r'; {self.uri!r} is open with 'w'"
        self._check_pid(allow_reset=True)
        self.handle.seek(self.idx[idx])

    def tell(self):
        """The writer's position: the offset the next record will start at."""
        assert self.writable, f"tell() needs flag 'w'; {self.uri!r} is open with 'r'"
        self._check_pid()
        return self.handle.tell()

    def read_idx(self, idx):
        """The record with key `idx`, as bytes."""
        with self._lock:  # seek + read as one step for threaded loaders
            self.seek(idx)
            return self.read()

    def write_idx(self, idx, buf):
        """Append `buf` as a record with key `idx` and index it."""
        key = self.key_type(idx)
        data = _encode(_as_bytes(buf, "MXIndexedRecordIO.write_idx"))
        pos = self.tell()
        self.handle.write(data)
        self.fidx.write(f"{key}\t{pos}\n")
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
IRHeader.__doc__ = """Header of an image record: flag (the number of float32 labels that follow
the header, 0 for one scalar label), label (a number, or an array), id and id2 (uint64)."""


def _pack_header(header):
    try:
        return struct.pack(_IR_FORMAT, *header)
    except struct.error as e:
        raise struct.error(f"pack: IRHeader{tuple(header)} does not fit 'IfQQ' (flag uint32, "
                           f"label float32, id and id2 uint64): {e}") from None


def pack(header, s):
    """``header`` (an IRHeader or 4-sequence) and the bytes `s` as one record. A number
    label is stored in the header (flag 0); anything else becomes float32 values written
    after it, flag set to their count and label to 0, as MXNet does."""
    header = IRHeader(*header)
    s = _as_bytes(s, "recordio.pack")
    if isinstance(header.label, numbers.Number):
        return _pack_header(header._replace(flag=0)) + s
    label = header.label
    if hasattr(label, "asnumpy"):
        label = label.asnumpy()
    label = np.asarray(label, dtype=np.float32)
    return _pack_header(header._replace(flag=label.size, label=0)) + label.tobytes() + s


def unpack(s):
    """(IRHeader, payload) of a record made by `pack`. With flag > 0 the label is a
    read-only float32 array of ``flag`` values; otherwise a Python float."""
    if len(s) < _IR_SIZE:
        raise struct.error(f"unpack: a record needs the {_IR_SIZE}-byte IRHeader, got "
                           f"{len(s)} bytes")
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if len(s) < 4 * header.flag:
            raise ValueError(f"unpack: the header announces {header.flag} float32 labels, "
                             f"the record has {len(s)} bytes after it")
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[4 * header.flag:]
    return header, s


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    """`pack` of the uint8 image `img` (HxW, HxWx1, BGR HxWx3 or BGRA HxWx4, OpenCV's
    order) encoded as `img_fmt`: JPEG with `quality` (0-100) or PNG with compression
    level min(quality, 9). Needs Pillow; the bytes differ from OpenCV's encoder, the
    pixels of a PNG do not."""
    from . import image
    return pack(header, image._encode(img, img_fmt, quality))


def unpack_img(s, iscolor=-1):
    """(IRHeader, numpy image) of an image record, decoded like ``cv2.imdecode``: BGR
    order; `iscolor` -1 keeps the stored channels (HxW gray, HxWx3, HxWx4 with alpha,
    uint16 for 16-bit PNG), 0 gives HxW gray, 1 HxWx3 BGR. Needs Pillow. An undecodable
    payload raises MXNetError (cv2 would return None)."""
    from . import image
    header, payload = unpack(s)
    return header, image._decode_bgr(payload, iscolor)


def _install_in_image_iter():
    """mx.image.ImageIter reads .rec files through this module; this module imports
    mx.image, so it hands itself over instead of being imported there."""
    from . import image_aug
    image_aug.RECORDIO = sys.modules[__name__]


_install_in_image_iter()
