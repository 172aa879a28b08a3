"""Record what MXNet 1.9.1's mx.image augmenters, CreateAugmenter and ImageIter give.

    /work/mxref/bin/python tests/make_image_aug_goldens.py

Writes tests/goldens/image_aug/cases.{json,npz}. ``run(mx, tmpdir)`` is the case table,
shared with tests/test_image_aug.py: the deterministic augmenters on fixed images, the
random ones after ``random.seed``/``np.random.seed`` (they draw from Python's and NumPy's
generators, as MXNet's do), CreateAugmenter's class names and dumps(), and ImageIter's
batches (data, label, pad) over small PNG images (lossless, so both decode to the same
pixels), a .lst file and a RecordIO file written to `tmpdir`.
"""
import os
import random
import sys

import numpy as np

import golden_files
import image_iter_goldens

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "goldens", "image_aug")

_R = np.random.RandomState(7)
IMG_U8 = _R.randint(0, 256, (7, 10, 3)).astype(np.uint8)
IMG_F = (_R.rand(6, 5, 3) * 255).astype(np.float32)
SIZES = [(9, 12), (11, 8), (10, 10), (14, 9), (8, 13)]  # (h, w) of the ImageIter images
IMAGES = [_R.randint(0, 256, s + (3,)).astype(np.uint8) for s in SIZES]
LABELS = [[3.0, 0.5], [1.0, 1.5], [4.7, 2.5], [0.0, 3.5], [2.2, 4.5]]

EIGVAL = [55.46, 4.794, 1.148]
EIGVEC = [[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]]

CREATE_CASES = {  # CreateAugmenter keywords (data_shape (3, 6, 8))
    "center": {},
    "resize_rand_crop_mirror": dict(resize=10, rand_crop=True, rand_mirror=True),
    "rand_resize": dict(rand_crop=True, rand_resize=True, inter_method=10),
    "all": dict(resize=12, rand_crop=True, rand_resize=True, rand_mirror=True, mean=True,
                std=True, brightness=0.1, contrast=0.2, saturation=0.3, hue=0.1,
                pca_noise=0.1, rand_gray=0.2, inter_method=1),
    "mean_only": dict(mean=np.array([1.0, 2.0, 3.0]), brightness=0.5),
    "std_only": dict(std=np.array([2.0])),
}


def _augmenter_cases(mx):
    """{name: output array} of single augmenters."""
    nd, img = mx.nd, mx.image
    u8, f32 = nd.array(IMG_U8, dtype="uint8"), lambda: nd.array(IMG_F)
    out = {
        "norm_nd_np": img.ColorNormalizeAug(nd.array([10.0, 20.0, 30.0]),
                                            np.array([2.0, 4.0, 0.5]))(f32()),
        "norm_list_none": img.ColorNormalizeAug([100.0, 50.0, 0.0], None)(f32()),
        "norm_scalar_std": img.ColorNormalizeAug(None, nd.array([3.0]))(f32()),
        "cast": img.CastAug()(u8),
        "cast_f16": img.CastAug("float16")(u8),
        "flip": img.HorizontalFlipAug(1)(u8),
        "noflip": img.HorizontalFlipAug(0)(u8),
        "gray": img.RandomGrayAug(1)(f32()),
        "lighting0": img.LightingAug(0, np.array(EIGVAL), np.array(EIGVEC))(f32()),
    }
    for interp in (0, 1, 2, 3, 4, 9):
        out[f"resize4_i{interp}"] = img.ResizeAug(4, interp)(u8)
        out[f"resize12_i{interp}"] = img.ResizeAug(12, interp)(u8)
        out[f"force_5x3_i{interp}"] = img.ForceResizeAug((5, 3), interp)(u8)
        out[f"force_f32_13x9_i{interp}"] = img.ForceResizeAug((13, 9), interp)(f32())
        out[f"center_4x3_i{interp}"] = img.CenterCropAug((4, 3), interp)(u8)
        out[f"center_12x9_i{interp}"] = img.CenterCropAug((12, 9), interp)(u8)
    seeded = {
        "bright": lambda: img.BrightnessJitterAug(0.3)(f32()),
        "contrast": lambda: img.ContrastJitterAug(0.3)(f32()),
        "saturation": lambda: img.SaturationJitterAug(0.3)(f32()),
        "hue": lambda: img.HueJitterAug(0.3)(f32()),
        "colorjitter": lambda: img.ColorJitterAug(0.2, 0.3, 0.4)(f32()),
        "lighting": lambda: img.LightingAug(0.5, np.array(EIGVAL), np.array(EIGVEC))(f32()),
        "randcrop": lambda: img.RandomCropAug((4, 5), 1)(u8),
        "randsized": lambda: img.RandomSizedCropAug((4, 5), 0.3, (0.75, 1.33), 2)(u8),
        "randgray": lambda: img.RandomGrayAug(0.5)(f32()),
        "randflip": lambda: img.HorizontalFlipAug(0.5)(u8),
    }
    for name, fn in seeded.items():
        for seed in (0, 1, 2):
            random.seed(seed)
            np.random.seed(seed)
            out[f"seeded_{name}_{seed}"] = fn()
    return {k: v.asnumpy() for k, v in out.items()}


def _create_cases(mx):
    """{case: [[class name, dumps()], ...]} of CreateAugmenter((3, 6, 8), **kwargs)."""
    res = {}
    for name, kw in CREATE_CASES.items():
        augs = mx.image.CreateAugmenter((3, 6, 8), **kw)
        res[name] = [[type(a).__name__, a.dumps()] for a in augs]
    return res


def _write_data(mx, d):
    """The PNG files, a .lst, and .rec/.idx files of IMAGES under `d`."""
    from PIL import Image
    names = []
    for i, a in enumerate(IMAGES):
        names.append(f"img{i}.png")
        Image.fromarray(a).save(os.path.join(d, names[-1]))
    with open(os.path.join(d, "list.lst"), "w") as f:
        for i, n in enumerate(names):
            f.write("\t".join([str(10 + i)] + [str(x) for x in LABELS[i]] + [n]) + "\n")
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(d, "data.idx"),
                                        os.path.join(d, "data.rec"), "w")
    for i, n in enumerate(names):
        with open(os.path.join(d, n), "rb") as f:
            header = mx.recordio.IRHeader(0, LABELS[i][0], 20 + i, 0)
            rec.write_idx(20 + i, mx.recordio.pack(header, f.read()))
    rec.close()
    return [[LABELS[i][0], n] for i, n in enumerate(names)]


def _iter_cases(d, imglist):
    """(name, ImageIter keywords, epochs) of the ImageIter cases."""
    base = dict(batch_size=2, data_shape=(3, 6, 7), path_root=d)
    two = [[LABELS[i][0], LABELS[i][1], n] for i, (_, n) in enumerate(imglist)]
    return [
        ("pad", dict(base, imglist=imglist), 2),
        ("discard", dict(base, imglist=imglist, last_batch_handle="discard"), 2),
        ("roll_over", dict(base, imglist=imglist, last_batch_handle="roll_over"), 3),
        ("batch3_pad", dict(base, imglist=imglist, batch_size=3), 2),
        ("batch3_roll", dict(base, imglist=imglist, batch_size=3, last_batch_handle="roll_over"),
         3),
        ("width2", dict(base, imglist=two, label_width=2), 1),
        ("int_labels", dict(base, imglist=imglist, dtype="int32"), 1),
        ("lst", dict(base, path_imglist=os.path.join(d, "list.lst"), label_width=2), 1),
        ("rec", dict(base, path_imgrec=os.path.join(d, "data.rec")), 2),
        ("rec_idx", dict(base, path_imgrec=os.path.join(d, "data.rec"),
                         path_imgidx=os.path.join(d, "data.idx")), 1),
        ("rec_part1", dict(base, path_imgrec=os.path.join(d, "data.rec"),
                           path_imgidx=os.path.join(d, "data.idx"), num_parts=2, part_index=1),
         1),
        ("norm_resize", dict(base, imglist=imglist, resize=8, mean=True, std=True,
                             inter_method=1), 1),
        ("big", dict(base, imglist=imglist, data_shape=(3, 12, 16)), 1),
        ("shuffle_seeded", dict(base, imglist=imglist, shuffle=True, rand_crop=True,
                                rand_mirror=True, brightness=0.2), 2),
    ]


def _iter_run(mx, kw, epochs):
    return image_iter_goldens.iter_run(mx.image.ImageIter, kw, epochs, seed=5)


def run(mx, d):
    """(meta, arrays) of every case, with the data files written under `d`."""
    arrays = {f"aug_{k}": v for k, v in _augmenter_cases(mx).items()}
    meta = {"create": _create_cases(mx), "iter": {},
            "dtypes": {k: str(v.dtype) for k, v in arrays.items()}}
    imglist = _write_data(mx, d)
    image_iter_goldens.record(lambda kw, epochs: _iter_run(mx, kw, epochs),
                              _iter_cases(d, imglist), meta["iter"], arrays)
    return meta, arrays


def main():
    golden_files.write_run_in_tempdir(run, OUT)


if __name__ == "__main__":
    sys.exit(main())
