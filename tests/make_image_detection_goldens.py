"""Record what MXNet 1.9.1's mx.image.detection (the Det* augmenters, CreateDetAugmenter,
CreateMultiRandCropAugmenter, copyMakeBorder, ImageDetIter) gives.

    /work/mxref/bin/python tests/make_image_detection_goldens.py

Writes tests/goldens/image_detection/cases.{json,npz}. ``run(mx, tmpdir)`` is the case
table shared with tests/test_image_detection.py: the random augmenters run after
``random.seed`` (they draw from Python's generator, as MXNet's do), so a crop, pad or flip
is the same box on both; ImageDetIter reads small PNG files written to `tmpdir` (lossless,
so both decode the same pixels).
"""
import os
import random
import struct
import sys
import zlib

import numpy as np

import golden_files
import image_iter_goldens

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "goldens", "image_detection")

_R = np.random.RandomState(11)
IMG = _R.randint(0, 256, (40, 60, 3)).astype(np.uint8)
LABEL = np.array([[1, 0.1, 0.2, 0.5, 0.6], [0, 0.4, 0.1, 0.9, 0.8],
                  [2, 0.05, 0.55, 0.3, 0.95]], np.float32)
SIZES = [(20, 30), (26, 18), (24, 24), (18, 28), (22, 20)]  # (h, w) of the iterator images
IMAGES = [_R.randint(0, 256, s + (3,)).astype(np.uint8) for s in SIZES]
# im2rec labels: header width 2, object width 5 (6 for the extra column), boxes; image 3
# has an empty box that the parser drops
RAW = [[2, 5, 0, 0.1, 0.1, 0.6, 0.7],
       [2, 5, 1, 0.2, 0.3, 0.8, 0.9, 0, 0.0, 0.0, 0.5, 0.5],
       [2, 5, 2, 0.3, 0.2, 0.7, 0.6, 1, 0.1, 0.5, 0.4, 0.95, 0, 0.6, 0.6, 0.9, 0.9],
       [2, 5, 1, 0.5, 0.5, 0.5, 0.9, 2, 0.2, 0.2, 0.9, 0.8],
       [2, 5, 0, 0.0, 0.0, 1.0, 1.0]]


def png(a):
    """A PNG file of an HxWx3 uint8 array (no Pillow needed)."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    raw = b"".join(b"\x00" + row.tobytes() for row in a)
    hdr = struct.pack(">IIBBBBB", a.shape[1], a.shape[0], 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", hdr) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


_err = golden_files.error


def _aug_cases(mx):
    det, nd = mx.image.det, mx.nd
    img = lambda: nd.array(IMG, dtype="uint8")  # noqa: E731
    cases = {
        "crop_default": (det.DetRandomCropAug(), [3, 4, 5]),
        "crop_tight": (det.DetRandomCropAug(min_object_covered=0.5, area_range=(0.3, 0.6),
                                            min_eject_coverage=0.5), [1, 2]),
        "crop_fixed": (det.DetRandomCropAug(aspect_ratio_range=1.0, area_range=0.5), [7]),
        "pad_default": (det.DetRandomPadAug(), [3, 8]),
        "pad_scalar": (det.DetRandomPadAug(area_range=(1.5, 2.0), pad_val=9), [2]),
        "pad_fixed_ratio": (det.DetRandomPadAug(aspect_ratio_range=1.0,
                                                pad_val=(1, 2, 3)), [4]),
        "flip": (det.DetHorizontalFlipAug(1), [0]),
        "noflip": (det.DetHorizontalFlipAug(0), [0]),
        "select": (det.DetRandomSelectAug([det.DetHorizontalFlipAug(1),
                                           det.DetRandomCropAug()], skip_prob=0.3),
                   [0, 1, 2, 3]),
        "multi_crop": (det.CreateMultiRandCropAugmenter(
            min_object_covered=[0.1, 0.5, 0.9], area_range=[(0.1, 1.0), (0.3, 1.0),
                                                            (0.5, 1.0)]), [6, 9]),
        "borrow_cast": (det.DetBorrowAug(mx.image.CastAug()), [0]),
    }
    # MXNet 1.9.1 passes the range as warnings.warn's category: invalid ranges raise
    meta = {"invalid": [_err(lambda: det.DetRandomCropAug(area_range=(0.5, 0.1))),
                        _err(lambda: det.DetRandomCropAug(aspect_ratio_range=(0, 1))),
                        _err(lambda: det.DetRandomPadAug(area_range=(0.5, 1.0))),
                        _err(lambda: det.DetRandomPadAug(aspect_ratio_range=(2, 1)))]}
    arrays = {}
    for name, (aug, seeds) in cases.items():
        meta[name] = {"dumps": aug.dumps()}
        for seed in seeds:
            random.seed(seed)
            out, lab = aug(img(), LABEL.copy())
            arrays[f"aug_{name}_{seed}_img"] = out.asnumpy()
            arrays[f"aug_{name}_{seed}_label"] = np.asarray(lab)
    border = mx.image.detection.copyMakeBorder
    for name, kw in {"const3": dict(values=(5, 6, 7)), "const1": dict(values=5),
                     "value": dict(value=3.0), "round": dict(values=(2.5, 3.5, 300.0)),
                     "replicate": dict(type=1), "reflect": dict(type=2),
                     "wrap": dict(type=3), "reflect101": dict(type=4)}.items():
        t = kw.pop("type", 16)
        arrays[f"border_{name}"] = border(img(), 2, 1, 3, 0, t, **kw).asnumpy()
    arrays["border_float"] = border(nd.array(IMG[:4, :5] / 3.0), 1, 1, 1, 1, 0,
                                    values=(0.5, -1.25, 2)).asnumpy()
    return meta, arrays


CREATE = {
    "plain": {},
    "all": dict(resize=30, rand_crop=0.5, rand_pad=0.4, rand_gray=0.2, rand_mirror=True,
                mean=True, std=True, brightness=0.1, contrast=0.1, saturation=0.1,
                pca_noise=0.05, hue=0.1, inter_method=1,
                min_object_covered=[0.3, 0.5, 0.9], area_range=(0.3, 3.0)),
    "mean_array": dict(mean=np.array([1.0, 2.0, 3.0]), std=np.array([2.0])),
}


def _write_images(d):
    names = []
    for i, a in enumerate(IMAGES):
        names.append(f"det{i}.png")
        with open(os.path.join(d, names[-1]), "wb") as f:
            f.write(png(a))
    with open(os.path.join(d, "det.lst"), "w") as f:
        for i, n in enumerate(names):
            f.write("\t".join([str(i)] + [repr(float(x)) for x in RAW[i]] + [n]) + "\n")
    return [[RAW[i], n] for i, n in enumerate(names)]


def _iter_cases(d, imglist):
    base = dict(batch_size=2, data_shape=(3, 16, 16), path_root=d)
    six = [[[2, 6] + sum(([c, *b, 7.0] for c, *b in np.reshape(r[2:], (-1, 5)).tolist()), []),
            n] for r, n in imglist]
    return [
        ("pad", dict(base, imglist=imglist), 2),
        ("discard", dict(base, imglist=imglist, last_batch_handle="discard"), 1),
        ("roll_over", dict(base, imglist=imglist, last_batch_handle="roll_over"), 3),
        ("lst", dict(base, path_imglist=os.path.join(d, "det.lst"), batch_size=3), 1),
        ("width6", dict(base, imglist=six), 1),
        ("augmented", dict(base, imglist=imglist, rand_crop=0.7, rand_pad=0.5,
                           rand_mirror=True, mean=True, std=True, area_range=(0.3, 2.0)), 2),
        ("shuffle", dict(base, imglist=imglist, shuffle=True, data_name="img",
                         label_name="boxes"), 1),
    ]


def _iter_run(mx, kw, epochs):
    return image_iter_goldens.iter_run(mx.image.ImageDetIter, kw, epochs, seed=3,
                                       extra=lambda it: {"label_shape": list(it.label_shape)})


def _iter_api(mx, d, imglist):
    """reshape, sync_label_shape, check_label_shape and the label errors."""
    det = mx.image.det
    base = dict(batch_size=2, data_shape=(3, 16, 16), path_root=d)
    a = mx.image.ImageDetIter(imglist=imglist, **base)
    b = mx.image.ImageDetIter(imglist=imglist[:1], **base)
    out = {"before": [list(a.label_shape), list(b.label_shape)]}
    c = a.sync_label_shape(b)
    out["synced"] = [list(a.label_shape), list(b.label_shape), c is b,
                     [list(x[1]) for x in b.provide_label]]
    b.reshape(label_shape=(5, 5))
    batch = b.next()
    a.reshape(data_shape=(3, 8, 10))
    out["reshaped"] = [list(a.provide_data[0][1]), list(b.provide_label[0][1])]
    out["reshaped_batch"] = [list(batch.data[0].shape), list(batch.label[0].shape), batch.pad]
    out["errors"] = {
        "reduce": _err(lambda: a.reshape(label_shape=(1, 5))),
        "width": _err(lambda: a.reshape(label_shape=(4, 6))),
        "len": _err(lambda: a.check_label_shape((4,))),
        "short": _err(lambda: a._parse_label(np.array([2, 5, 0, 0.1, 0.1, 0.5]))),
        "inconsistent": _err(lambda: a._parse_label(np.array([2, 5, 0, .1, .1, .5, .5, 1]))),
        "no_valid": _err(lambda: a._parse_label(np.array([2, 5, 0, .5, .1, .5, .5]))),
        "label_dims": _err(lambda: a._check_valid_label(np.zeros((2, 4)))),
        "label_invalid": _err(lambda: a._check_valid_label(-np.ones((2, 5)))),
        "borrow": _err(lambda: det.DetBorrowAug(det.DetHorizontalFlipAug(1))),
        "select": _err(lambda: det.DetRandomSelectAug([mx.image.CastAug()])),
        "iter_label": _err(lambda: mx.image.ImageDetIter(
            imglist=[[[1.0, 2.0], imglist[0][1]]], **base)),
        "sync_width": _err(lambda: a.sync_label_shape(mx.image.ImageDetIter(
            imglist=[[[2, 6, 0, .1, .1, .5, .5, 1], imglist[0][1]]], **base))),
    }
    out["parse"] = a._parse_label(np.array(RAW[3], np.float32)).tolist()
    mx.npx.set_np()
    try:
        batch = mx.image.ImageDetIter(imglist=imglist, **base).next()
        out["np_mode"] = [type(batch.data[0]).__name__, type(batch.label[0]).__name__]
    finally:
        mx.npx.reset_np()
    return out


def run(mx, d):
    """(meta, arrays) of every case, with the image files written under `d`."""
    meta, arrays = _aug_cases(mx)
    meta = {"aug": meta, "create": {}, "iter": {}}
    for name, kw in CREATE.items():
        augs = mx.image.CreateDetAugmenter((3, 20, 24), **kw)
        meta["create"][name] = [[type(a).__name__, a.dumps()] for a in augs]
    imglist = _write_images(d)
    image_iter_goldens.record(lambda kw, epochs: _iter_run(mx, kw, epochs),
                              _iter_cases(d, imglist), meta["iter"], arrays)
    meta["api"] = _iter_api(mx, d, imglist)
    return meta, arrays


def main():
    golden_files.write_run_in_tempdir(run, OUT)


if __name__ == "__main__":
    sys.exit(main())
