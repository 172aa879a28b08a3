"""Record what real MXNet 1.9.1 writes and decodes, for tests/test_recordio.py.

Run with the reference interpreter (it must import the real ``mxnet``; it needs neither
cv2 nor Pillow):

    /work/mxref/bin/python tests/make_recordio_goldens.py

Writes into ``tests/goldens/recordio/``:

* ``records.rec`` / ``records.idx``: an MXIndexedRecordIO file written by MXNet (raw
  payloads with the RecordIO magic inside, empty and unaligned ones, ``recordio.pack``ed
  records with scalar, 1-D and 2-D labels), and ``records.json``: each record's key and
  payload, the headers MXNet's ``unpack`` reads back, and ``pack`` outputs for more labels.
* ``images.rec``/``.idx`` (scalar labels) and ``images_multi.rec``/``.idx`` (3 float
  labels): 20x24 images packed with ``recordio.pack`` (MXNet's ``pack_img`` needs cv2):
  PNGs made by the small zlib encoder below (RGB, gray, RGBA) and one baseline 4:2:0 JPEG
  (``JPEG_B64``, made once with Pillow at quality 90 from the pattern in ``_pattern``).
  ``images.npz`` holds MXNet's ``image.imdecode`` of each (flag 1, to_rgb 0, flag 0) and the
  batches of ``gluon.data.DataLoader(ImageRecordDataset(...), batch_size=2)``.
* ``resize.npz``: ``image.imresize`` (OpenCV 3.4.2 inside libmxnet) of uint8 images and a
  float32 one with interp 0-4 at several sizes, and resize_short / center_crop / fixed_crop.

Deterministic: fixed seeds, sorted keys, fixed zip timestamps.
"""
import base64
import io
import json
import os
import struct
import zipfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "goldens", "recordio")

JPEG_B64 = (
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4R"
    "DgsLEBYQERMUFRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU"
    "FBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBT/wAARCAAUABgDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAA"
    "AAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAk"
    "M2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKT"
    "lJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QA"
    "HwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdh"
    "cRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hp"
    "anN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk"
    "5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD4T8I/C9tSuooEVI2fOGkyFGBnsD6V6ZpvwgazxuaGQ+iZJ/UV"
    "6Z4V+HrBkKoVb1HFet+Gvhn5rIzRZb1I5r5LL3VzaUXBq3U9TgzjnKaOBlTxUJyru/LJSSitFa662ldvyPFdA+Fe"
    "/b+5/SivrHTvBcGmukf2czT4B2LwB9T2or0cVPhnA1pYfGYlKpHdKM5WfZuMZK66q911P6LyrjOtLDRcXp6mF4R0"
    "S0Oz93Xr+laXbWWlyTRRgSKAATzjJAz+tFFfJcMVJ08pxFSEmpKnNprdNRdmn0aP8t+Gpyc4K/VHV+EPDtidn7qi"
    "iivl8gpU3go3ivuP60wFWp7Fe8/vP//Z"
)

MAGIC = struct.pack("<I", 0xCED7230A)

# (interp, dtype) x sizes (w, h) for each source image
RESIZE_SIZES = [(5, 4), (8, 6), (11, 19), (17, 13), (30, 25), (12, 10), (8, 5), (6, 5), (24, 20),
                (40, 3)]


def png(arr):
    """A PNG (8-bit, no filter) of an HxW, HxWx1, HxWx3 or HxWx4 uint8 array."""
    arr = np.asarray(arr, np.uint8)
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[:, :, 0]
    h, w = arr.shape[:2]
    ctype = {2: 0, 3: {3: 2, 4: 6}.get(arr.shape[-1])}[arr.ndim]
    raw = b"".join(b"\x00" + arr[y].tobytes() for y in range(h))

    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def _pattern(h=20, w=24):
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([x * 10, y * 12, (x * y) % 256], -1).astype(np.uint8)
    img[5:9, 6:14] = [250, 30, 40]
    return img


def image_payloads():
    """[(name, encoded bytes)] of the 20x24 test images (also used by the tests)."""
    rs = np.random.RandomState(7)
    rgb = rs.randint(0, 256, (20, 24, 3)).astype(np.uint8)
    gray = rs.randint(0, 256, (20, 24)).astype(np.uint8)
    rgba = rs.randint(0, 256, (20, 24, 4)).astype(np.uint8)
    return [("png_rgb", png(rgb)), ("png_gray", png(gray)), ("png_rgba", png(rgba)),
            ("jpeg", base64.b64decode("".join(JPEG_B64)))]


def raw_payloads():
    """The raw (not packed) records of records.rec."""
    rs = np.random.RandomState(3)
    return [b"", b"a", b"abcd", b"abcde", MAGIC, b"xx" + MAGIC + b"yy",
            b"abcd" + MAGIC + b"efgh" + MAGIC, MAGIC + MAGIC, b"abcd" + MAGIC,
            rs.randint(0, 256, 1001).astype(np.uint8).tobytes()]


# (flag, label, id, id2) headers packed with body b"body" (label lists stay lists in JSON)
PACK_CASES = [
    (0, 3.5, 7, 9), (5, 3, 1, 0), (0, True, 2, 3), (0, [1, 2.5, 3], 7, 9),
    (0, [[1, 2], [3, 4]], 2, 3), (0, [], 4, 5), (9, [0.1], 2 ** 63, 2 ** 64 - 1),
]


def _write_npz(path, arrays):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(arrays[name]),
                                      allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, buf.getvalue())


def _label_json(label):
    return label.tolist() if isinstance(label, np.ndarray) else float(label)


def make_records(mx):
    rio = mx.recordio
    entries = []
    for i, payload in enumerate(raw_payloads()):
        entries.append({"key": 100 + 3 * i, "payload": payload.hex()})
    for j, case in enumerate(PACK_CASES):
        header = rio.IRHeader(*case)
        payload = rio.pack(header, b"body%d" % j)
        back, body = rio.unpack(payload)
        entries.append({"key": j, "payload": payload.hex(), "packed": list(case),
                        "unpacked": [back.flag, _label_json(back.label), back.id, back.id2],
                        "body": body.hex()})
    rec = rio.MXIndexedRecordIO(os.path.join(OUT_DIR, "records.idx"),
                                os.path.join(OUT_DIR, "records.rec"), "w")
    tells = []
    for e in entries:
        tells.append(rec.tell())
        rec.write_idx(e["key"], bytes.fromhex(e["payload"]))
    tells.append(rec.tell())
    rec.close()
    with open(os.path.join(OUT_DIR, "records.json"), "w") as f:
        json.dump({"records": entries, "tells": tells}, f, indent=1, sort_keys=True)
        f.write("\n")


def make_images(mx):
    rio = mx.recordio
    arrays = {}
    payloads = image_payloads()
    for name, labels in (("images", [0.0, 1.0, 2.0, 3.0]),
                         ("images_multi", [[1, 2, 3], [4.5, 5, 6]])):
        rec = rio.MXIndexedRecordIO(os.path.join(OUT_DIR, name + ".idx"),
                                    os.path.join(OUT_DIR, name + ".rec"), "w")
        for i, label in enumerate(labels):
            rec.write_idx(i, rio.pack(rio.IRHeader(0, label, i, 0), payloads[i][1]))
        rec.close()
        ds = mx.gluon.data.vision.ImageRecordDataset(os.path.join(OUT_DIR, name + ".rec"))
        for b, (data, label) in enumerate(mx.gluon.data.DataLoader(ds, batch_size=2)):
            arrays[f"{name}_batch{b}_data"] = data.asnumpy()
            arrays[f"{name}_batch{b}_label"] = label.asnumpy()
    for name, payload in payloads:
        arrays[f"{name}_flag1"] = mx.image.imdecode(payload).asnumpy()
        arrays[f"{name}_bgr"] = mx.image.imdecode(payload, to_rgb=0).asnumpy()
        arrays[f"{name}_flag0"] = mx.image.imdecode(payload, flag=0).asnumpy()
    _write_npz(os.path.join(OUT_DIR, "images.npz"), arrays)


def resize_sources():
    rs = np.random.RandomState(0)
    return {"a": rs.randint(0, 256, (13, 17, 3)), "g": rs.randint(0, 256, (10, 12, 1)),
            "b": rs.randint(0, 256, (20, 24, 3)), "f": rs.uniform(0, 255, (20, 24, 3))}


def make_resize(mx):
    arrays = {}
    for key, src in resize_sources().items():
        for dt in ["float32"] if key == "f" else ["uint8"]:
            img = mx.nd.array(src, dtype=dt)
            for interp in range(5):
                for w, h in RESIZE_SIZES:
                    out = mx.image.imresize(img, w, h, interp=interp).asnumpy()
                    arrays[f"{key}_{dt}_{interp}_{w}x{h}"] = out
    img = mx.nd.array(resize_sources()["a"], dtype="uint8")
    arrays["resize_short_5"] = mx.image.resize_short(img, 5).asnumpy()
    arrays["resize_short_20_interp1"] = mx.image.resize_short(img, 20, interp=1).asnumpy()
    out, rect = mx.image.center_crop(img, (8, 6))
    arrays["center_crop_8x6"], arrays["center_crop_8x6_rect"] = out.asnumpy(), np.array(rect)
    out, rect = mx.image.center_crop(img, (30, 20))
    arrays["center_crop_30x20"], arrays["center_crop_30x20_rect"] = out.asnumpy(), np.array(rect)
    arrays["fixed_crop"] = mx.image.fixed_crop(img, 2, 3, 7, 5).asnumpy()
    arrays["fixed_crop_resized"] = mx.image.fixed_crop(img, 2, 3, 7, 5, size=(9, 4)).asnumpy()
    _write_npz(os.path.join(OUT_DIR, "resize.npz"), arrays)


def main():
    import mxnet as mx
    os.makedirs(OUT_DIR, exist_ok=True)
    make_records(mx)
    make_images(mx)
    make_resize(mx)
    mx.nd.waitall()
    print("wrote", ", ".join(sorted(os.listdir(OUT_DIR))))


if __name__ == "__main__":
    main()
