"""mx.recordio, mx.image and the record datasets against real MXNet 1.9.1.

Goldens: tests/goldens/recordio (``/work/mxref/bin/python tests/make_recordio_goldens.py``):
files MXNet wrote, the headers it unpacked, its OpenCV decodes and resizes, and its
DataLoader batches of ImageRecordDataset.
"""
import json
import os
import pickle
import random
import struct
import sys

import numpy as np
import pytest

import make_recordio_goldens as cases
import xnd as mx
from xnd.base import MXNetError

import PIL.Image  # noqa: F401,E402  (the test extra installs Pillow; decoding needs it)

GOLD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "recordio")
rio = mx.recordio


def gold(name):
    return os.path.join(GOLD, name)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


@pytest.fixture(scope="module")
def manifest():
    with open(gold("records.json")) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def images_npz():
    with np.load(gold("images.npz")) as z:
        return dict(z)


@pytest.fixture(scope="module")
def resize_npz():
    with np.load(gold("resize.npz")) as z:
        return dict(z)


# ---- the RecordIO format ------------------------------------------------------------------

def test_writes_byte_identical_files(tmp_path, manifest):
    rec = rio.MXIndexedRecordIO(str(tmp_path / "r.idx"), str(tmp_path / "r.rec"), "w")
    tells = []
    for e in manifest["records"]:
        tells.append(rec.tell())
        rec.write_idx(e["key"], bytes.fromhex(e["payload"]))
    tells.append(rec.tell())
    rec.close()
    assert tells == manifest["tells"]
    assert read_bytes(tmp_path / "r.rec") == read_bytes(gold("records.rec"))
    assert read_bytes(tmp_path / "r.idx") == read_bytes(gold("records.idx"))
    # the sequential writer writes the same bytes
    seq = rio.MXRecordIO(str(tmp_path / "s.rec"), "w")
    for e in manifest["records"]:
        seq.write(bytes.fromhex(e["payload"]))
    seq.close()
    assert read_bytes(tmp_path / "s.rec") == read_bytes(gold("records.rec"))


def test_reads_mxnet_files(manifest):
    payloads = [bytes.fromhex(e["payload"]) for e in manifest["records"]]
    rec = rio.MXRecordIO(gold("records.rec"), "r")
    got = []
    while True:
        item = rec.read()
        if item is None:
            break
        got.append(item)
    assert got == payloads
    assert rec.read() is None
    rec.reset()
    assert rec.read() == payloads[0]
    rec.close()

    idx = rio.MXIndexedRecordIO(gold("records.idx"), gold("records.rec"), "r")
    assert idx.keys == [e["key"] for e in manifest["records"]]
    by_key = {e["key"]: bytes.fromhex(e["payload"]) for e in manifest["records"]}
    order = list(idx.keys)
    random.Random(0).shuffle(order)
    for key in order:
        assert idx.read_idx(key) == by_key[key]
    idx.seek(order[0])
    assert idx.read() == by_key[order[0]]
    idx.close()
    strs = rio.MXIndexedRecordIO(gold("records.idx"), gold("records.rec"), "r", key_type=str)
    assert strs.keys[0] == str(manifest["records"][0]["key"])
    assert strs.read_idx(strs.keys[5]) == payloads[5]
    strs.close()


def test_pack_unpack_match_mxnet(manifest):
    for e in manifest["records"]:
        if "packed" not in e:
            continue
        flag, label, id_, id2 = e["packed"]
        payload = bytes.fromhex(e["payload"])
        assert rio.pack(rio.IRHeader(flag, label, id_, id2), bytes.fromhex(e["body"])) == payload
        header, body = rio.unpack(payload)
        assert body == bytes.fromhex(e["body"])
        want = e["unpacked"]
        assert (header.flag, header.id, header.id2) == (want[0], want[2], want[3])
        if header.flag > 0:
            assert header.label.dtype == np.float32 and not header.label.flags.writeable
            np.testing.assert_array_equal(header.label, np.float32(want[1]))
        else:
            assert type(header.label) is float and header.label == want[1]


def test_pack_label_forms():
    h = rio.IRHeader(7, np.float32(2.5), 1, 2)
    header, body = rio.unpack(rio.pack(h, b"x"))
    assert header == rio.IRHeader(0, 2.5, 1, 2) and body == b"x"
    assert rio.IRHeader.__name__ == "HEADER" and rio.IRHeader._fields == ("flag", "label", "id",
                                                                           "id2")
    header, _ = rio.unpack(rio.pack((0, np.array(4.0), 1, 2), b""))  # 0-d array: one label
    assert header.flag == 1 and header.label.tolist() == [4.0]
    header, _ = rio.unpack(rio.pack((0, mx.nd.array([1, 2]), 1, 2), b""))
    assert header.label.tolist() == [1.0, 2.0]
    header, body = rio.unpack(bytearray(rio.pack((0, [1, 2], 1, 2), b"ab")))
    assert header.flag == 2 and bytes(body) == b"ab"


# ---- images -----------------------------------------------------------------------------

def test_imdecode_matches_opencv(images_npz):
    for name, payload in cases.image_payloads():
        img = mx.image.imdecode(payload)
        assert img.dtype == np.uint8 and img.shape == (20, 24, 3)
        np.testing.assert_array_equal(img.asnumpy(), images_npz[f"{name}_flag1"], err_msg=name)
        np.testing.assert_array_equal(mx.image.imdecode(payload, to_rgb=0).asnumpy(),
                                      images_npz[f"{name}_bgr"], err_msg=name)
        gray = mx.image.imdecode(payload, flag=0)
        assert gray.shape == (20, 24, 1)
        np.testing.assert_array_equal(gray.asnumpy(), images_npz[f"{name}_flag0"], err_msg=name)
    payload = cases.image_payloads()[0][1]
    for buf in (bytearray(payload), np.frombuffer(payload, np.uint8),
                mx.nd.array(np.frombuffer(payload, np.uint8), dtype=np.uint8)):
        np.testing.assert_array_equal(mx.image.imdecode(buf).asnumpy(),
                                      images_npz["png_rgb_flag1"])
    out = mx.nd.zeros((20, 24, 3), dtype=np.uint8)
    assert mx.image.imdecode(payload, out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), images_npz["png_rgb_flag1"])


def test_imread(tmp_path, images_npz):
    for name, payload in cases.image_payloads():
        path = tmp_path / f"{name}.img"
        path.write_bytes(payload)
        np.testing.assert_array_equal(mx.image.imread(str(path)).asnumpy(),
                                      images_npz[f"{name}_flag1"])
        np.testing.assert_array_equal(mx.image.imread(str(path), 0).asnumpy(),
                                      images_npz[f"{name}_flag0"])


def test_pack_img_round_trips():
    rs = np.random.RandomState(1)
    bgr = rs.randint(0, 256, (9, 7, 3)).astype(np.uint8)
    bgra = rs.randint(0, 256, (9, 7, 4)).astype(np.uint8)
    gray = rs.randint(0, 256, (9, 7)).astype(np.uint8)
    h = rio.IRHeader(0, [1, 2], 5, 0)
    s = rio.pack_img(h, bgr, img_fmt=".png")
    header, img = rio.unpack_img(s)
    assert header.flag == 2 and header.id == 5
    np.testing.assert_array_equal(img, bgr)  # BGR in, BGR out
    # the payload is a PNG whose RGB pixels are the BGR array reversed
    np.testing.assert_array_equal(mx.image.imdecode(rio.unpack(s)[1]).asnumpy(), bgr[:, :, ::-1])
    np.testing.assert_array_equal(rio.unpack_img(rio.pack_img(h, bgra, 3, ".PNG"))[1], bgra)
    np.testing.assert_array_equal(rio.unpack_img(rio.pack_img(h, gray, img_fmt=".png"))[1], gray)
    np.testing.assert_array_equal(
        rio.unpack_img(rio.pack_img(h, gray[:, :, None], img_fmt=".png"), 1)[1],
        np.repeat(gray[:, :, None], 3, axis=2))
    assert rio.unpack_img(rio.pack_img(h, bgr, img_fmt=".png"), 0)[1].shape == (9, 7)
    # JPEG is lossy: smooth images survive within a few levels
    y, x = np.mgrid[0:32, 0:32]
    smooth = np.stack([x * 4, y * 4, (x + y) * 2], -1).astype(np.uint8)
    back = rio.unpack_img(rio.pack_img(h, smooth, quality=95))[1]
    assert back.shape == smooth.shape and back.dtype == np.uint8
    assert np.abs(back.astype(int) - smooth).mean() < 2


def test_imresize_matches_opencv(resize_npz):
    for key, src in cases.resize_sources().items():
        for dt in ["float32"] if key == "f" else ["uint8"]:
            img = mx.nd.array(src, dtype=dt)
            for interp in range(5):
                for w, h in cases.RESIZE_SIZES:
                    want = resize_npz[f"{key}_{dt}_{interp}_{w}x{h}"]
                    got = mx.image.imresize(img, w, h, interp=interp)
                    assert got.dtype == want.dtype and got.shape == want.shape
                    if dt == "float32" and interp == 4:  # Lanczos in float32: last bits
                        np.testing.assert_allclose(got.asnumpy(), want, atol=2e-4, rtol=0)
                    else:
                        np.testing.assert_array_equal(got.asnumpy(), want,
                                                      err_msg=f"{key} {interp} {w}x{h}")


def test_crops_match_mxnet(resize_npz):
    img = mx.nd.array(cases.resize_sources()["a"], dtype="uint8")
    np.testing.assert_array_equal(mx.image.resize_short(img, 5).asnumpy(),
                                  resize_npz["resize_short_5"])
    np.testing.assert_array_equal(mx.image.resize_short(img, 20, interp=1).asnumpy(),
                                  resize_npz["resize_short_20_interp1"])
    for size in ((8, 6), (30, 20)):
        out, rect = mx.image.center_crop(img, size)
        tag = f"center_crop_{size[0]}x{size[1]}"
        np.testing.assert_array_equal(out.asnumpy(), resize_npz[tag])
        assert list(rect) == resize_npz[tag + "_rect"].tolist()
    np.testing.assert_array_equal(mx.image.fixed_crop(img, 2, 3, 7, 5).asnumpy(),
                                  resize_npz["fixed_crop"])
    np.testing.assert_array_equal(mx.image.fixed_crop(img, 2, 3, 7, 5, size=(9, 4)).asnumpy(),
                                  resize_npz["fixed_crop_resized"])
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)
    random.seed(0)
    out, (x0, y0, w, h) = mx.image.random_crop(img, (5, 4))
    assert out.shape == (4, 5, 3)
    np.testing.assert_array_equal(out.asnumpy(), img.asnumpy()[y0:y0 + 4, x0:x0 + 5])


def test_color_normalize():
    src = mx.nd.array(np.arange(24).reshape(2, 4, 3), dtype="float32")
    out = mx.image.color_normalize(src, mx.nd.array([1, 2, 3]), mx.nd.array([2, 2, 2]))
    assert out is src
    np.testing.assert_allclose(out.asnumpy()[0, 0], [-0.5, -0.5, -0.5])
    np.testing.assert_allclose(mx.image.color_normalize(
        mx.nd.array(np.full((1, 1, 3), 5.0)), 1.0, 2.0).asnumpy().ravel(), [2.0, 2.0, 2.0])


# ---- datasets ---------------------------------------------------------------------------

def test_record_file_dataset_through_dataloader(manifest):
    ds = mx.gluon.data.RecordFileDataset(gold("records.rec"))
    assert len(ds) == len(manifest["records"])
    assert ds[3] == bytes.fromhex(manifest["records"][3]["payload"])
    loader = mx.gluon.data.DataLoader(ds.transform(lambda s: np.float32(len(s))), batch_size=2)
    lengths = [b.asnumpy().tolist() for b in loader]
    want = [len(bytes.fromhex(e["payload"])) for e in manifest["records"]]
    assert sum(lengths, []) == want


@pytest.mark.parametrize("name", ["images", "images_multi"])
def test_image_record_dataset_through_dataloader(name, images_npz):
    ds = mx.gluon.data.vision.ImageRecordDataset(gold(name + ".rec"))
    img, label = ds[1]
    assert img.dtype == np.uint8 and img.shape == (20, 24, 3)
    if name == "images":
        assert type(label) is float and label == 1.0
    else:
        assert label.dtype == np.float32 and label.tolist() == [4.5, 5.0, 6.0]
    batches = list(mx.gluon.data.DataLoader(ds, batch_size=2))
    assert len(batches) == len(ds) // 2
    for b, (data, label) in enumerate(batches):
        want_data = images_npz[f"{name}_batch{b}_data"]
        want_label = images_npz[f"{name}_batch{b}_label"]
        assert data.shape == want_data.shape and data.dtype == want_data.dtype
        np.testing.assert_array_equal(data.asnumpy(), want_data)
        assert label.dtype == want_label.dtype
        np.testing.assert_array_equal(label.asnumpy(), want_label)
    gray = mx.gluon.data.vision.ImageRecordDataset(gold(name + ".rec"), flag=0,
                                                   transform=lambda d, l: (d, l))
    assert gray[0][0].shape == (20, 24, 1)


def test_image_folder_dataset(tmp_path, images_npz):
    payloads = dict(cases.image_payloads())
    (tmp_path / "cat").mkdir()
    (tmp_path / "dog").mkdir()
    (tmp_path / "cat" / "a.png").write_bytes(payloads["png_rgb"])
    (tmp_path / "dog" / "b.jpg").write_bytes(payloads["jpeg"])
    (tmp_path / "dog" / "notes.txt").write_text("x")
    with pytest.warns(UserWarning, match="Ignoring"):
        ds = mx.gluon.data.vision.ImageFolderDataset(str(tmp_path))
    assert ds.synsets == ["cat", "dog"] and len(ds) == 2
    img, label = ds[1]
    assert label == 1
    np.testing.assert_array_equal(img.asnumpy(), images_npz["jpeg_flag1"])


def test_indexed_reader_pickles(tmp_path):
    rec = rio.MXIndexedRecordIO(gold("records.idx"), gold("records.rec"), "r")
    copy = pickle.loads(pickle.dumps(rec))
    assert copy.keys == rec.keys and copy.read_idx(rec.keys[2]) == rec.read_idx(rec.keys[2])
    ds = pickle.loads(pickle.dumps(mx.gluon.data.RecordFileDataset(gold("records.rec"))))
    assert ds[1] == b"a"
    writer = rio.MXRecordIO(str(tmp_path / "w.rec"), "w")
    with pytest.raises(TypeError, match="pickle"):
        pickle.dumps(writer)


# ---- errors -----------------------------------------------------------------------------

def test_format_errors(tmp_path):
    bad = tmp_path / "bad.rec"
    bad.write_bytes(b"\0" * 16)
    with pytest.raises(MXNetError, match="magic"):
        rio.MXRecordIO(str(bad), "r").read()
    data = read_bytes(gold("records.rec"))
    (tmp_path / "short.rec").write_bytes(data[:6])
    with pytest.raises(MXNetError, match="truncated"):
        rio.MXRecordIO(str(tmp_path / "short.rec"), "r").read()
    (tmp_path / "cut.rec").write_bytes(data[:30])
    cut = rio.MXRecordIO(str(tmp_path / "cut.rec"), "r")
    with pytest.raises(MXNetError, match="Invalid RecordIO"):
        while cut.read() is not None:
            pass
    (tmp_path / "bad.idx").write_text("0\t0\nnot a line\n")
    with pytest.raises(ValueError, match="line 2"):
        rio.MXIndexedRecordIO(str(tmp_path / "bad.idx"), gold("records.rec"), "r")
    with pytest.raises(struct.error, match="24-byte"):
        rio.unpack(b"abc")
    with pytest.raises(ValueError, match="3 float32 labels"):
        rio.unpack(struct.pack("<IfQQ", 3, 0, 0, 0) + b"abcd")
    with pytest.raises(struct.error, match="IfQQ"):
        rio.pack(rio.IRHeader(0, 1.0, -2, 0), b"")
    with pytest.raises(TypeError):
        rio.pack(rio.IRHeader(0, 1.0, 2, 0), "text")


def test_usage_errors(tmp_path):
    with pytest.raises(MXNetError, match="nope.rec"):
        rio.MXRecordIO(str(tmp_path / "nope.rec"), "r")
    with pytest.raises(FileNotFoundError, match="nope.idx"):
        rio.MXIndexedRecordIO(str(tmp_path / "nope.idx"), gold("records.rec"), "r")
    with pytest.raises(FileNotFoundError):  # the .rec it created is removed again
        rio.MXIndexedRecordIO(str(tmp_path / "no" / "x.idx"), str(tmp_path / "x.rec"), "w")
    assert not (tmp_path / "x.rec").exists()
    with pytest.raises(ValueError, match="Invalid flag a"):
        rio.MXRecordIO(gold("records.rec"), "a")
    with pytest.raises(ValueError, match="Invalid flag"):
        rio.MXIndexedRecordIO(gold("records.idx"), gold("records.rec"), "rb")
    reader = rio.MXRecordIO(gold("records.rec"), "r")
    with pytest.raises(AssertionError, match="flag 'w'"):
        reader.write(b"x")
    reader.close()
    reader.close()
    with pytest.raises(RuntimeError, match="closed"):
        reader.read()
    writer = rio.MXIndexedRecordIO(str(tmp_path / "w.idx"), str(tmp_path / "w.rec"), "w")
    with pytest.raises(AssertionError, match="flag 'r'"):
        writer.read()
    with pytest.raises(TypeError, match="str"):
        writer.write_idx(0, "text")
    writer.write_idx(0, b"ok")
    writer.close()
    assert read_bytes(tmp_path / "w.rec") == rio._encode(b"ok")  # nothing of the bad record
    with pytest.raises(RuntimeError, match="closed"):
        writer.write(b"x")
    indexed = rio.MXIndexedRecordIO(gold("records.idx"), gold("records.rec"), "r")
    indexed.close()
    assert indexed.read_idx(103) == b"a"  # read_idx reopens, as in MXNet
    with pytest.raises(KeyError):
        indexed.read_idx(1234)
    with pytest.raises(AssertionError):
        indexed.tell()
    indexed.close()


def test_image_errors(tmp_path):
    with pytest.raises(MXNetError, match="Invalid image file"):
        mx.image.imdecode(b"not an image at all")
    with pytest.raises(MXNetError, match="empty"):
        mx.image.imdecode(b"")
    with pytest.raises(ValueError, match="convert to bytes"):
        mx.image.imdecode("text")
    with pytest.raises(MXNetError, match="greater equal to 0"):
        mx.image.imdecode(cases.image_payloads()[0][1], flag=-1)
    with pytest.raises(MXNetError, match="couldn't open"):
        mx.image.imread(str(tmp_path / "missing.png"))
    with pytest.raises(MXNetError, match="shape"):
        mx.image.imdecode(cases.image_payloads()[0][1], out=mx.nd.zeros((2, 2, 3), dtype="uint8"))
    img = mx.nd.zeros((4, 4, 3), dtype="uint8")
    with pytest.raises(MXNetError, match="interpolation"):
        mx.image.imresize(img, 2, 2, interp=5)
    with pytest.raises(MXNetError, match="HxWxC"):
        mx.image.imresize(img[:, :, 0], 2, 2)
    with pytest.raises(AssertionError, match="NDArray"):
        mx.image.imresize(np.zeros((4, 4, 3), np.uint8), 2, 2)
    with pytest.raises(MXNetError, match="not a decodable|Invalid image"):
        rio.unpack_img(rio.pack(rio.IRHeader(0, 1.0, 0, 0), b"garbage"))
    with pytest.raises(ValueError, match="img_fmt|unknown image format"):
        rio.pack_img(rio.IRHeader(0, 1.0, 0, 0), np.zeros((2, 2, 3), np.uint8), img_fmt="jpg")
    with pytest.raises(TypeError, match="uint8"):
        rio.pack_img(rio.IRHeader(0, 1.0, 0, 0), np.zeros((2, 2, 3), np.float32))


def test_missing_pillow(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    payload = cases.image_payloads()[0][1]
    with pytest.raises(ImportError, match="pip install pillow"):
        mx.image.imdecode(payload)
    with pytest.raises(ImportError, match="pip install pillow"):
        rio.pack_img(rio.IRHeader(0, 1.0, 0, 0), np.zeros((2, 2, 3), np.uint8))
    with pytest.raises(ImportError, match="pip install pillow"):
        mx.gluon.data.vision.ImageRecordDataset(gold("images.rec"))[0]
    # records themselves need no Pillow
    assert rio.unpack(mx.gluon.data.RecordFileDataset(gold("images.rec"))[0])[0].id == 0


def test_mxnet_names():
    import xnd.compat
    assert xnd.compat.resolve("mxnet.recordio") == "xnd.frontend.recordio"
    assert xnd.compat.resolve("mxnet.image") == "xnd.frontend.image"
    assert mx.img is mx.image and mx.recordio.MXRecordIO is rio.MXRecordIO
