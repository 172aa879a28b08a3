"""mx.image.detection (also mx.image.det): MXNet 1.9.1's object-detection augmenters and
ImageDetIter, re-exported by mx.image as MXNet's package does.

A detection label is a (objects, width >= 5) float array: class id, then xmin, ymin, xmax,
ymax normalised to [0, 1], then any extra columns. Each ``Det*`` augmenter maps
``(image, label) -> (image, label)``; the random ones draw from Python's ``random`` module
exactly as MXNet's do, so a seeded run crops, pads and flips the same boxes.
ImageDetIter batches images with labels padded to the largest object count with -1.
"""
import json
import logging
import random
import warnings
from math import sqrt

import numpy as np

from ..base import MXNetError
from ..ndarray import NDArray
from . import ndarray as nd
from .image_aug import (Augmenter, CastAug, ColorJitterAug, ColorNormalizeAug, ForceResizeAug,
                        HueJitterAug, ImageIter, LightingAug, RandomGrayAug, RandomOrderAug,
                        ResizeAug)
from .io import DataBatch, DataDesc  # noqa: F401  (DataBatch: MXNet's module has it)
# names MXNet's module holds by importing them (its users import them from here)
from ..base import numeric_types  # noqa: E402,F401
from .util import is_np_array  # noqa: E402,F401
from . import io  # noqa: E402,F401

__all__ = ["DetAugmenter", "DetBorrowAug", "DetRandomSelectAug", "DetHorizontalFlipAug",
           "DetRandomCropAug", "DetRandomPadAug", "CreateMultiRandCropAugmenter",
           "CreateDetAugmenter", "ImageDetIter", "copyMakeBorder"]

# MXNet's module namespace also shows the classification augmenters it imports
_REEXPORTED = (RandomOrderAug, ColorJitterAug, LightingAug, ColorNormalizeAug, ResizeAug,
               ForceResizeAug, CastAug, HueJitterAug, RandomGrayAug, ImageIter, Augmenter)
_img = None  # the mx.image module, installed by it (with fixed_crop): importing it is a circle
_numeric = (float, int, np.generic)
# OpenCV's border types (cv::BORDER_*; 16, BORDER_ISOLATED, adds nothing to a whole image)
_BORDERS = {0: "constant", 1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}


def copyMakeBorder(src, top, bot, left, right, type=0, value=0.0, values=None, out=None,
                   name=None, **kwargs):
    """OpenCV's ``copyMakeBorder`` on an HWC image (MXNet's ``_cvcopyMakeBorder``): pads
    `top`/`bot` rows and `left`/`right` columns. Constant borders (type 0 or 16) fill
    channel c with ``values[c]`` (a cv::Scalar: missing channels get 0; without `values`,
    every channel gets `value`), rounded and saturated to the image's dtype."""
    if kwargs:
        raise MXNetError(f"copyMakeBorder: unknown arguments {sorted(kwargs)} (it takes src, "
                         f"top, bot, left, right, type, value, values)")
    arr = src.asnumpy() if hasattr(src, "asnumpy") else np.asarray(src)
    if arr.ndim != 3:
        raise MXNetError(f"copyMakeBorder: src must be an HWC image (3 dimensions), got "
                         f"shape {arr.shape}")
    if min(top, bot, left, right) < 0:
        raise MXNetError(f"copyMakeBorder: top, bot, left, right must be >= 0, got "
                         f"{(top, bot, left, right)}")
    kind = _BORDERS.get(type & ~16)
    if kind is None:
        raise MXNetError(f"copyMakeBorder: type must be an OpenCV border type 0-4 "
                         f"(+16), got {type}")
    widths = ((top, bot), (left, right), (0, 0))
    if kind != "constant":
        res = np.pad(arr, widths, mode=kind)
    else:
        if values is None:
            fill = [value] * arr.shape[2]
        else:
            fill = list(values) if isinstance(values, (list, tuple)) else [values]
            fill = (fill + [0.0] * arr.shape[2])[:arr.shape[2]]
        fill = np.asarray(fill, np.float64)
        if np.issubdtype(arr.dtype, np.integer):
            info = np.iinfo(arr.dtype)  # OpenCV's saturate_cast: round half to even, clip
            fill = np.clip(np.rint(fill), info.min, info.max)
        res = np.empty((arr.shape[0] + top + bot, arr.shape[1] + left + right, arr.shape[2]),
                       arr.dtype)
        res[...] = fill.astype(arr.dtype)
        res[top:top + arr.shape[0], left:left + arr.shape[1]] = arr
    result = nd.array(res, dtype=res.dtype)
    if out is not None:
        out[:] = result
        return out
    return result


class DetAugmenter(object):
    """Base of the detection augmenters: ``aug(src, label) -> (src, label)``; the keyword
    arguments are kept (arrays as lists) for `dumps`."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        for k, v in self._kwargs.items():
            if isinstance(v, NDArray):
                v = v.asnumpy()
            if isinstance(v, np.ndarray):
                self._kwargs[k] = v.tolist()

    def dumps(self):
        """JSON ``[class name in lower case, kwargs]``."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, src, label):
        raise NotImplementedError("Must override implementation.")


class DetBorrowAug(DetAugmenter):
    """Applies a classification `Augmenter` to the image, leaving the label alone (for
    augmenters that do not move pixels: colour, cast, normalise, resize)."""

    def __init__(self, augmenter):
        if not isinstance(augmenter, Augmenter):
            raise TypeError('Borrowing from invalid Augmenter')
        super(DetBorrowAug, self).__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        return [self.__class__.__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return (self.augmenter(src), label)


class DetRandomSelectAug(DetAugmenter):
    """Applies one augmenter of `aug_list`, picked at random (the list is shuffled in
    place, as MXNet does), or none with probability `skip_prob` (always none for an empty
    list)."""

    def __init__(self, aug_list, skip_prob=0):
        super(DetRandomSelectAug, self).__init__(skip_prob=skip_prob)
        if not isinstance(aug_list, (list, tuple)):
            aug_list = [aug_list]
        if not all(isinstance(aug, DetAugmenter) for aug in aug_list):
            raise ValueError('Allow DetAugmenter in list only')
        self.aug_list = aug_list
        self.skip_prob = skip_prob if aug_list else 1

    def dumps(self):
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.aug_list]]

    def __call__(self, src, label):
        if random.random() < self.skip_prob:
            return (src, label)
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """Flips the image left-right with probability `p`, mirroring the boxes (the label
    array is changed in place)."""

    def __init__(self, p):
        super(DetHorizontalFlipAug, self).__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() < self.p:
            src = nd.flip(src, axis=1)
            self._flip_label(label)
        return (src, label)

    def _flip_label(self, label):
        xmin = 1.0 - label[:, 1]
        label[:, 1] = 1.0 - label[:, 3]
        label[:, 3] = xmin


def _pair(value, what, who):
    """A (low, high) range from a range or one number (then fixed)."""
    if isinstance(value, (tuple, list)):
        return value
    assert isinstance(value, _numeric)
    logging.info('Using fixed %s: %s in %s', what, str(value), who)
    return (value, value)


def _areas(boxes):
    """Areas of (xmin, ymin, xmax, ymax, ...) rows, 0 for empty boxes."""
    return np.maximum(0, boxes[:, 3] - boxes[:, 1]) * np.maximum(0, boxes[:, 2] - boxes[:, 0])


def _set_ranges(aug, who, aspect_ratio_range, area_range, max_attempts, area_floor,
                area_what):
    """The sampling ranges of a crop or pad augmenter; `aug.enabled` only when they are valid
    (the largest area above `area_floor`, ranges ordered, ratios positive), else MXNet's
    warning naming `who` and `area_what` (its word for a bad area range)."""
    aug.aspect_ratio_range, aug.area_range, aug.max_attempts = (aspect_ratio_range, area_range,
                                                                max_attempts)
    aug.enabled = False
    # MXNet passes the range as warn's second argument (its category), kept as it does
    if area_range[1] <= area_floor or area_range[0] > area_range[1]:
        warnings.warn('Skip %s due to invalid %s: %%s' % (who, area_what), area_range)
    elif aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
        warnings.warn('Skip %s due to invalid aspect_ratio_range: %%s' % who,
                      aspect_ratio_range)
    else:
        aug.enabled = True


def _attempts(aug, height, width):
    """(ratio, height at the smallest area, height at the largest area, smallest area,
    largest area) for each of `aug.max_attempts` draws of an aspect ratio, skipping
    non-positive ratios; none when `aug` is disabled or the image empty. The sampling that
    DetRandomCropAug and DetRandomPadAug share, in MXNet's order of random draws."""
    if not aug.enabled or height <= 0 or width <= 0:
        return
    min_area = aug.area_range[0] * height * width
    max_area = aug.area_range[1] * height * width
    for _ in range(aug.max_attempts):
        ratio = random.uniform(*aug.aspect_ratio_range)
        if ratio <= 0:
            continue
        yield (ratio, int(round(sqrt(min_area / ratio))), int(round(sqrt(max_area / ratio))),
               min_area, max_area)


class DetRandomCropAug(DetAugmenter):
    """Crops a random region (aspect ratio in `aspect_ratio_range`, area fraction in
    `area_range`) that covers more than `min_object_covered` of every object it touches,
    trying `max_attempts` times; boxes are clipped to the crop and those keeping no more
    than `min_eject_coverage` of their area are dropped. No valid crop: unchanged."""

    def __init__(self, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                 area_range=(0.05, 1.0), min_eject_coverage=0.3, max_attempts=50):
        aspect_ratio_range = _pair(aspect_ratio_range, 'aspect ratio', 'DetRandomCropAug')
        area_range = _pair(area_range, 'area range', 'DetRandomCropAug')
        super(DetRandomCropAug, self).__init__(
            min_object_covered=min_object_covered, aspect_ratio_range=aspect_ratio_range,
            area_range=area_range, min_eject_coverage=min_eject_coverage,
            max_attempts=max_attempts)
        self.min_object_covered = min_object_covered
        self.min_eject_coverage = min_eject_coverage
        _set_ranges(self, 'DetRandomCropAug', aspect_ratio_range, area_range, max_attempts, 0,
                    'area_range')

    def __call__(self, src, label):
        crop = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if crop:
            x, y, w, h, label = crop
            src = _img.fixed_crop(src, x, y, w, h, None)
        return (src, label)

    def _calculate_areas(self, label):
        return _areas(label)

    def _intersect(self, label, xmin, ymin, xmax, ymax):
        """The boxes clipped to (xmin, ymin, xmax, ymax); all-zero rows where empty."""
        out = label.copy()
        out[:, 0] = np.maximum(label[:, 0], xmin)
        out[:, 1] = np.maximum(label[:, 1], ymin)
        out[:, 2] = np.minimum(label[:, 2], xmax)
        out[:, 3] = np.minimum(label[:, 3], ymax)
        empty = np.logical_or(out[:, 0] >= out[:, 2], out[:, 1] >= out[:, 3])
        out[empty, :] = 0
        return out

    def _check_satisfy_constraints(self, label, xmin, ymin, xmax, ymax, width, height):
        """Whether the crop (pixels) covers more than min_object_covered of each object
        (larger than 2 pixels) that it overlaps, and overlaps at least one."""
        if (xmax - xmin) * (ymax - ymin) < 2:
            return False
        box = (float(xmin) / width, float(ymin) / height,
               float(xmax) / width, float(ymax) / height)
        object_areas = _areas(label[:, 1:])
        valid = np.where(object_areas * width * height > 2)[0]
        if valid.size < 1:
            return False
        coverages = _areas(self._intersect(label[valid, 1:], *box)) / object_areas[valid]
        coverages = coverages[coverages > 0]
        return coverages.size > 0 and np.amin(coverages) > self.min_object_covered

    def _update_labels(self, label, crop_box, height, width):
        """Boxes in the crop's coordinates, clipped; None when none is kept."""
        x0, y0 = float(crop_box[0]) / width, float(crop_box[1]) / height
        w, h = float(crop_box[2]) / width, float(crop_box[3]) / height
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] - x0) / w
        out[:, (2, 4)] = (out[:, (2, 4)] - y0) / h
        out[:, 1:5] = np.minimum(1, np.maximum(0, out[:, 1:5]))
        coverage = _areas(out[:, 1:]) * w * h / _areas(label[:, 1:])
        keep = (out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2]) & \
            (coverage > self.min_eject_coverage)
        keep = np.where(keep)[0]
        return out[keep, :] if keep.size else None

    def _random_crop_proposal(self, label, height, width):
        """(x, y, w, h, new label) of an accepted crop, or () after max_attempts."""
        for ratio, h, max_h, min_area, max_area in _attempts(self, height, width):
            if round(max_h * ratio) > width:
                max_h = int((width + 0.4999999) / ratio)  # largest with round(h*ratio) <= width
            max_h = min(max_h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            assert w <= width
            area = w * h  # rounding may leave the area range by one row
            if area < min_area:
                h += 1
                w = int(round(h * ratio))
                area = w * h
            if area > max_area:
                h -= 1
                w = int(round(h * ratio))
                area = w * h
            if not (min_area <= area <= max_area and 0 <= w <= width and 0 <= h <= height):
                continue
            y = random.randint(0, max(0, height - h))
            x = random.randint(0, max(0, width - w))
            if self._check_satisfy_constraints(label, x, y, x + w, y + h, width, height):
                new_label = self._update_labels(label, (x, y, w, h), height, width)
                if new_label is not None:
                    return (x, y, w, h, new_label)
        return ()


class DetRandomPadAug(DetAugmenter):
    """Places the image at a random spot of a larger canvas (aspect ratio in
    `aspect_ratio_range`, area `area_range` times the image's) filled with `pad_val`,
    shrinking the boxes to match; unchanged when no canvas fits in `max_attempts`."""

    def __init__(self, aspect_ratio_range=(0.75, 1.33), area_range=(1.0, 3.0),
                 max_attempts=50, pad_val=(128, 128, 128)):
        if not isinstance(pad_val, (list, tuple)):
            assert isinstance(pad_val, _numeric)
        aspect_ratio_range = _pair(aspect_ratio_range, 'aspect ratio', 'DetRandomPadAug')
        area_range = _pair(area_range, 'area range', 'DetRandomPadAug')
        super(DetRandomPadAug, self).__init__(aspect_ratio_range=aspect_ratio_range,
                                              area_range=area_range, max_attempts=max_attempts,
                                              pad_val=pad_val)
        self.pad_val = pad_val
        _set_ranges(self, 'DetRandomPadAug', aspect_ratio_range, area_range, max_attempts, 1.0,
                    'parameters')

    def __call__(self, src, label):
        height, width, _ = src.shape
        pad = self._random_pad_proposal(label, height, width)
        if pad:
            x, y, w, h, label = pad
            src = copyMakeBorder(src, y, h - y - height, x, w - x - width, 16,
                                 values=self.pad_val)
        return (src, label)

    def _update_labels(self, label, pad_box, height, width):
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] * width + pad_box[0]) / pad_box[2]
        out[:, (2, 4)] = (out[:, (2, 4)] * height + pad_box[1]) / pad_box[3]
        return out

    def _random_pad_proposal(self, label, height, width):
        """(x, y, w, h, new label) of the canvas, or () after max_attempts."""
        for ratio, h, max_h, min_area, max_area in _attempts(self, height, width):
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)
            h = min(max(h, height), max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            if (h - height) < 2 or (w - width) < 2:
                continue  # a margin of a pixel is not worth it
            y = random.randint(0, max(0, h - height))
            x = random.randint(0, max(0, w - width))
            return (x, y, w, h, self._update_labels(label, (x, y, w, h), height, width))
        return ()


def CreateMultiRandCropAugmenter(min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                                 area_range=(0.05, 1.0), min_eject_coverage=0.3,
                                 max_attempts=50, skip_prob=0):
    """A DetRandomSelectAug over DetRandomCropAugs: each argument may be a list (one entry
    per augmenter; a single value or a one-entry list is used for all)."""
    params = [p if isinstance(p, list) else [p] for p in
              (min_object_covered, aspect_ratio_range, area_range, min_eject_coverage,
               max_attempts)]
    num = max([1] + [len(p) for p in params])
    for k, p in enumerate(params):
        if len(p) != num:
            assert len(p) == 1
            params[k] = p * num
    augs = [DetRandomCropAug(min_object_covered=moc, aspect_ratio_range=arr, area_range=ar,
                             min_eject_coverage=mec, max_attempts=ma)
            for moc, arr, ar, mec, ma in zip(*params)]
    return DetRandomSelectAug(augs, skip_prob=skip_prob)


_PCA_EIGVAL = np.array([55.46, 4.794, 1.148])
_PCA_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009],
                        [-0.5808, -0.0045, -0.8140],
                        [-0.5836, -0.6948, 0.4203]])
_MEAN = np.array([123.68, 116.28, 103.53])
_STD = np.array([58.395, 57.12, 57.375])


def CreateDetAugmenter(data_shape, resize=0, rand_crop=0, rand_pad=0, rand_gray=0,
                       rand_mirror=False, mean=None, std=None, brightness=0, contrast=0,
                       saturation=0, pca_noise=0, hue=0, inter_method=2, min_object_covered=0.1,
                       aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 3.0),
                       min_eject_coverage=0.3, max_attempts=50, pad_val=(127, 127, 127)):
    """MXNet's detection augmenter list, in its order: resize shorter edge, random crops
    (probability `rand_crop`), mirror, random pad (probability `rand_pad`), force resize
    to `data_shape`, cast to float32, colour jitter, hue, PCA lighting, gray, normalise
    (``mean``/``std`` True: ImageNet's)."""
    auglist = []
    if resize > 0:
        auglist.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        auglist.append(CreateMultiRandCropAugmenter(
            min_object_covered, aspect_ratio_range, area_range, min_eject_coverage,
            max_attempts, skip_prob=(1 - rand_crop)))
    if rand_mirror > 0:
        auglist.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:  # as late as possible: padding makes the later steps dearer
        pad_aug = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts,
                                  pad_val)
        auglist.append(DetRandomSelectAug([pad_aug], 1 - rand_pad))
    auglist.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    auglist.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        auglist.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        auglist.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        auglist.append(DetBorrowAug(LightingAug(pca_noise, _PCA_EIGVAL, _PCA_EIGVEC)))
    if rand_gray > 0:
        auglist.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    if mean is True:
        mean = _MEAN.copy()
    elif mean is not None:
        assert isinstance(mean, np.ndarray) and mean.shape[0] in [1, 3]
    if std is True:
        std = _STD.copy()
    elif std is not None:
        assert isinstance(std, np.ndarray) and std.shape[0] in [1, 3]
    if mean is not None or std is not None:
        auglist.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return auglist



class ImageDetIter(ImageIter):
    """ImageIter for detection: each image's label (``[header width n, object width k,
    header..., objects...]``, as im2rec writes them) becomes a (objects, k) array, the
    augmenters (``aug_list``, default ``CreateDetAugmenter(data_shape, **kwargs)``) take
    and return (image, label), and batches carry labels of shape
    (batch, most objects in the data, k) padded with -1. Images whose label has no valid
    object are skipped (logged at debug level)."""

    def __init__(self, batch_size, data_shape, path_imgrec=None, path_imglist=None,
                 path_root=None, path_imgidx=None, shuffle=False, part_index=0, num_parts=1,
                 aug_list=None, imglist=None, data_name='data', label_name='label',
                 last_batch_handle='pad', **kwargs):
        super(ImageDetIter, self).__init__(
            batch_size=batch_size, data_shape=data_shape, path_imgrec=path_imgrec,
            path_imglist=path_imglist, path_root=path_root, path_imgidx=path_imgidx,
            shuffle=shuffle, part_index=part_index, num_parts=num_parts, aug_list=[],
            imglist=imglist, data_name=data_name, label_name=label_name,
            last_batch_handle=last_batch_handle)
        self.auglist = CreateDetAugmenter(data_shape, **kwargs) if aug_list is None \
            else aug_list
        # one pass over the labels: the batch's label shape holds the largest count
        label_shape = self._estimate_label_shape()
        self.provide_label = [DataDesc(label_name, (self.batch_size,) + label_shape)]
        self.label_shape = label_shape

    def _check_valid_label(self, label):
        """RuntimeError unless `label` is (1+, 5+) with a valid object."""
        if len(label.shape) != 2 or label.shape[1] < 5:
            raise RuntimeError("Label with shape (1+, 5+) required, %s received." % str(label))
        valid = (label[:, 0] >= 0) & (label[:, 3] > label[:, 1]) & (label[:, 4] > label[:, 2])
        if not valid.any():
            raise RuntimeError('Invalid label occurs.')

    def _estimate_label_shape(self):
        max_count = 0
        self.reset()
        try:
            while True:
                label, _ = self.next_sample()
                label = self._parse_label(label)
                max_count = max(max_count, label.shape[0])
        except StopIteration:
            pass
        self.reset()
        return (max_count, label.shape[1])

    def _parse_label(self, label):
        """The raw label as a (objects, k) array without empty boxes; RuntimeError when
        it is malformed or has no valid box."""
        if isinstance(label, NDArray):
            label = label.asnumpy()
        raw = np.asarray(label).ravel()
        if raw.size < 7:
            raise RuntimeError("Label shape is invalid: " + str(raw.shape))
        header_width, obj_width = int(raw[0]), int(raw[1])
        if (raw.size - header_width) % obj_width != 0:
            raise RuntimeError("Label shape %s inconsistent with annotation width %d."
                               % (str(raw.shape), obj_width))
        out = np.reshape(raw[header_width:], (-1, obj_width))
        valid = np.where((out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2]))[0]
        if valid.size < 1:
            raise RuntimeError('Encounter sample with no valid label.')
        return out[valid, :]

    def reshape(self, data_shape=None, label_shape=None):
        """New data shape (C, H, W) and/or label shape (objects, k) for later batches."""
        if data_shape is not None:
            self.check_data_shape(data_shape)
            self.provide_data = [DataDesc(self.provide_data[0][0],
                                          (self.batch_size,) + tuple(data_shape))]
            self.data_shape = tuple(data_shape)
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self.provide_label = [DataDesc(self.provide_label[0][0],
                                           (self.batch_size,) + tuple(label_shape))]
            self.label_shape = tuple(label_shape)

    def _batchify(self, batch_data, batch_label, start=0):
        """Fill host buffers from slot `start`; the slots filled."""
        i = start
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image([data])
                    label = self._parse_label(label)
                    data, label = self.augmentation_transform(data, label)
                    self._check_valid_label(label)
                except RuntimeError as e:
                    logging.debug('Invalid image, skipping:  %s', str(e))
                    continue
                datum = self.postprocess_data(data)
                batch_data[i] = datum.asnumpy() if hasattr(datum, "asnumpy") else datum
                label = label.asnumpy() if hasattr(label, "asnumpy") else np.asarray(label)
                batch_label[i][0:label.shape[0]] = label
                batch_label[i][label.shape[0]:] = -1
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def augmentation_transform(self, data, label):  # pylint: disable=arguments-differ
        for aug in self.auglist:
            data, label = aug(data, label)
        return (data, label)

    def check_label_shape(self, label_shape):
        """ValueError unless `label_shape` is (objects >= current, same width)."""
        if not len(label_shape) == 2:
            raise ValueError('label_shape should have length 2')
        if label_shape[0] < self.label_shape[0]:
            raise ValueError('Attempts to reduce label count from %d to %d, not allowed.'
                             % (self.label_shape[0], label_shape[0]))
        if label_shape[1] != self.provide_label[0][1][2]:
            raise ValueError('label_shape object width inconsistent: %d vs %d.'
                             % (self.provide_label[0][1][2], label_shape[1]))

    def draw_next(self, color=None, thickness=2, mean=None, std=None, clip=True,
                  waitKey=None, window_name='draw_next', id2labels=None):
        """Yields the next images (uint8 BGR HWC) with their boxes drawn by OpenCV
        (``cv2``; without it: a warning and nothing), the color normalisation undone with
        `mean`/`std` (True: ImageNet's); shown in a window when `waitKey` is set."""
        try:
            import cv2
        except ImportError as e:
            warnings.warn('Unable to import cv2, skip drawing: %s', str(e))
            return
        try:
            while True:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image([data])
                    label = self._parse_label(label)
                except RuntimeError as e:
                    logging.debug('Invalid image, skipping:  %s', str(e))
                    continue
                data, label = self.augmentation_transform(data, label)
                image = data.asnumpy()
                if std is True:
                    std = _STD.copy()
                if std is not None:
                    image *= std
                if mean is True:
                    mean = _MEAN.copy()
                if mean is not None:
                    image += mean
                image[:, :, (0, 1, 2)] = image[:, :, (2, 1, 0)]  # RGB -> OpenCV's BGR
                if clip:
                    image = np.maximum(0, np.minimum(255, image))
                if color:
                    color = color[::-1]
                image = image.astype(np.uint8)
                yield self._draw_boxes(cv2, image, label, color, thickness, id2labels,
                                       waitKey, window_name)
        except StopIteration:
            return

    @staticmethod
    def _draw_boxes(cv2, image, label, color, thickness, id2labels, waitKey, window_name):
        height, width, _ = image.shape
        for row in label:
            x1 = int(row[1] * width)
            if x1 < 0:
                continue
            y1, x2, y2 = int(row[2] * height), int(row[3] * width), int(row[4] * height)
            bc = np.random.rand(3) * 255 if not color else color
            cv2.rectangle(image, (x1, y1), (x2, y2), bc, thickness)
            if id2labels is not None and int(row[0]) in id2labels:
                text = "{:s}".format(id2labels[int(row[0])])
                font = cv2.FONT_HERSHEY_SIMPLEX
                text_height = cv2.getTextSize(text, font, 0.5, 2)[0][1]
                cv2.putText(image, text, (x1 + 5, y1 + text_height + 5), font, 0.5,
                            (255, 255, 255), 2)
        if waitKey is not None:
            cv2.imshow(window_name, image)
            cv2.waitKey(waitKey)
        return image

    def sync_label_shape(self, it, verbose=False):
        """Pads this iterator's and `it`'s label shapes to the larger object count (for
        train/validation iterators); returns `it`."""
        assert isinstance(it, ImageDetIter), 'Synchronize with invalid iterator.'
        train_shape, val_shape = self.label_shape, it.label_shape
        assert train_shape[1] == val_shape[1], "object width mismatch."
        max_count = max(train_shape[0], val_shape[0])
        if max_count > train_shape[0]:
            self.reshape(None, (max_count, train_shape[1]))
        if max_count > val_shape[0]:
            it.reshape(None, (max_count, val_shape[1]))
        if verbose and max_count > min(train_shape[0], val_shape[0]):
            logging.info('Resized label_shape to (%d, %d).', max_count, train_shape[1])
        return it
