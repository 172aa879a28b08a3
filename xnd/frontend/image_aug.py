"""mx.image's augmenters, ``CreateAugmenter`` and ``ImageIter``, as in MXNet 1.9.1.

Augmenters take and return HWC NDArrays; the colour ones work in float32 and modify their
input in place where MXNet's do (``src *= alpha``). Random draws come from Python's
`random` (crops, flips, jitters, shuffles) and NumPy's global generator (`LightingAug`), in
MXNet's order, so seeding both reproduces MXNet's choices. ``dumps()`` gives MXNet's JSON.

`ImageIter` reads an in-memory ``imglist``, a ``.lst`` file or a RecordIO ``.rec`` (with
its ``.idx`` for shuffling and partitions), with MXNet's ``last_batch_handle`` rules.
Batches are float32 NCHW, labels float32 whatever ``dtype`` (MXNet converts the labels to
``dtype`` when reading the list, then stores them in a float32 batch).

mx.image imports this module (and re-exports it), so the image functions reach it through
`_img`, which mx.image sets when it loads: importing mx.image back would close a circle.
"""
import json
import logging
import numbers
import os
import random
import warnings

import numpy as np

from ..base import MXNetError
from ..ndarray import NDArray
from ..semantics import is_np_array
from . import ndarray as nd
from .io import DataBatch, DataDesc, DataIter

__all__ = ["Augmenter", "SequentialAug", "RandomOrderAug", "ResizeAug", "ForceResizeAug",
           "RandomCropAug", "RandomSizedCropAug", "CenterCropAug", "BrightnessJitterAug",
           "ContrastJitterAug", "SaturationJitterAug", "HueJitterAug", "ColorJitterAug",
           "LightingAug", "ColorNormalizeAug", "RandomGrayAug", "HorizontalFlipAug", "CastAug",
           "CreateAugmenter", "ImageIter"]

_img = None  # the mx.image module, installed by it

_LUMA = [[[0.299, 0.587, 0.114]]]
_IMAGENET_MEAN = [123.68, 116.28, 103.53]
_IMAGENET_STD = [58.395, 57.12, 57.375]
_PCA_EIGVAL = [55.46, 4.794, 1.148]
_PCA_EIGVEC = [[-0.5675, 0.7192, 0.4009],
               [-0.5808, -0.0045, -0.8140],
               [-0.5836, -0.6948, 0.4203]]


RECORDIO = None  # mx.recordio, installed by it: it imports mx.image, so not importable here


def _recordio():
    if RECORDIO is None:
        raise MXNetError("ImageIter: mx.recordio is not loaded (import xnd first)")
    return RECORDIO


class Augmenter:
    """Base augmenter: keeps its keyword arguments (NDArrays and NumPy arrays as lists) for
    `dumps`, MXNet's ``[classname_lowercase, kwargs]`` JSON."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, NDArray):
                v = v.asnumpy()
            if isinstance(v, np.ndarray):
                kwargs[k] = v.tolist()
        self._kwargs = kwargs

    def dumps(self):
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, src):
        raise NotImplementedError("Must override implementation.")


class _Composite(Augmenter):
    # MXNet's composite augmenters dump a list (not a string): [name, [child dumps...]]
    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        return [type(self).__name__.lower(), [t.dumps() for t in self.ts]]

    def __call__(self, src):
        for t in self.ts:
            src = t(src)
        return src


class SequentialAug(_Composite):
    """Apply the augmenters `ts` in order; `dumps` gives ``[name, [child dumps...]]``."""


class RandomOrderAug(_Composite):
    """Apply the augmenters `ts` in a random order (``random.shuffle`` of `ts` itself, as
    MXNet does); `dumps` gives ``[name, [child dumps...]]``."""

    def __call__(self, src):
        random.shuffle(self.ts)
        return super().__call__(src)


class ResizeAug(Augmenter):
    """`resize_short` to `size` with `interp`."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return _img.resize_short(src, self.size, self.interp)


class ForceResizeAug(Augmenter):
    """`imresize` to `size` (w, h), ignoring the aspect ratio."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        w, h = self.size
        interp = _img._get_interp_method(self.interp, (src.shape[0], src.shape[1], h, w))
        return _img.imresize(src, w, h, interp=interp)


class RandomCropAug(Augmenter):
    """`random_crop` to `size` (w, h)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return _img.random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """`random_size_crop` to `size` (w, h) with `area` and `ratio`; ``min_area`` is MXNet's
    deprecated spelling of `area` (a DeprecationWarning)."""

    def __init__(self, size, area, ratio, interp=2, **kwargs):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        if "min_area" in kwargs:
            warnings.warn("`min_area` is deprecated. Please use `area` instead.",
                          DeprecationWarning)
            area = kwargs.pop("min_area")
        if kwargs:
            raise AssertionError(f"unexpected keyword arguments for `RandomSizedCropAug`: "
                                 f"{sorted(kwargs)}")
        self.size, self.area, self.ratio, self.interp = size, area, ratio, interp

    def __call__(self, src):
        return _img.random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(Augmenter):
    """`center_crop` to `size` (w, h)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return _img.center_crop(src, self.size, self.interp)[0]


def _jitter(amount):
    return 1.0 + random.uniform(-amount, amount)


class BrightnessJitterAug(Augmenter):
    """Scale by ``1 + U(-brightness, brightness)`` (in place)."""

    def __init__(self, brightness):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        src *= _jitter(self.brightness)
        return src


class ContrastJitterAug(Augmenter):
    """Blend with the image's mean luma: ``alpha * src + (1 - alpha) * mean gray``, alpha
    ``1 + U(-contrast, contrast)`` (in place)."""

    def __init__(self, contrast):
        super().__init__(contrast=contrast)
        self.contrast = contrast
        self.coef = nd.array(_LUMA)

    def __call__(self, src):
        alpha = _jitter(self.contrast)
        gray = src * self.coef
        # the luma sum over all pixels, spread over the 3 channels' share of gray.size
        gray = (3.0 * (1.0 - alpha) / gray.size) * nd.sum(gray)
        src *= alpha
        src += gray
        return src


class SaturationJitterAug(Augmenter):
    """Blend each pixel with its luma: alpha ``1 + U(-saturation, saturation)`` (in place)."""

    def __init__(self, saturation):
        super().__init__(saturation=saturation)
        self.saturation = saturation
        self.coef = nd.array(_LUMA)

    def __call__(self, src):
        alpha = _jitter(self.saturation)
        gray = nd.sum(src * self.coef, axis=2, keepdims=True)
        gray *= 1.0 - alpha
        src *= alpha
        src += gray
        return src


class HueJitterAug(Augmenter):
    """Rotate the hue by ``U(-hue, hue) * pi`` in YIQ space (MXNet's approximate linear
    transform): a 3x3 matrix built in float64, applied with ``nd.dot``."""

    _TYIQ = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321],
                      [0.211, -0.523, 0.311]])
    _ITYIQ = np.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]])

    def __init__(self, hue):
        super().__init__(hue=hue)
        self.hue = hue

    def __call__(self, src):
        angle = random.uniform(-self.hue, self.hue) * np.pi
        u, w = np.cos(angle), np.sin(angle)
        rot = np.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
        t = (self._ITYIQ @ rot @ self._TYIQ).T
        return nd.dot(src, nd.array(t))


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitters (those above 0) in a random order."""

    def __init__(self, brightness, contrast, saturation):
        ts = [cls(v) for cls, v in ((BrightnessJitterAug, brightness),
                                    (ContrastJitterAug, contrast),
                                    (SaturationJitterAug, saturation)) if v > 0]
        super().__init__(ts)


class LightingAug(Augmenter):
    """AlexNet's PCA lighting noise: adds ``eigvec @ (alpha * eigval)``, alpha drawn from
    ``numpy.random.normal(0, alphastd, 3)`` (in place)."""

    def __init__(self, alphastd, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd = alphastd
        self.eigval = np.asarray(eigval)
        self.eigvec = np.asarray(eigvec)
        if self.eigval.shape != (3,) or self.eigvec.shape != (3, 3):
            raise ValueError(f"LightingAug: eigval must have shape (3,) and eigvec (3, 3), "
                             f"got {self.eigval.shape} and {self.eigvec.shape}")

    def __call__(self, src):
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        src += nd.array(np.dot(self.eigvec * alpha, self.eigval))
        return src


class ColorNormalizeAug(Augmenter):
    """`color_normalize` by `mean` and `std` (NDArrays, NumPy arrays or lists; None skips)."""

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = mean if mean is None or isinstance(mean, NDArray) else nd.array(mean)
        self.std = std if std is None or isinstance(std, NDArray) else nd.array(std)

    def __call__(self, src):
        return _img.color_normalize(src, self.mean, self.std)


class RandomGrayAug(Augmenter):
    """With probability `p`, every channel becomes ``0.21 R + 0.72 G + 0.07 B``."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p
        self.mat = nd.array([[0.21] * 3, [0.72] * 3, [0.07] * 3])

    def __call__(self, src):
        if random.random() < self.p:
            src = nd.dot(src, self.mat)
        return src


class HorizontalFlipAug(Augmenter):
    """With probability `p`, flip left-right."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = nd.flip(src, axis=1)
        return src


class CastAug(Augmenter):
    """``astype(typ)``; dumps its argument as ``type``, as MXNet does."""

    def __init__(self, typ="float32"):
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


def _check_stat(name, v):
    if v is True:
        return nd.array(_IMAGENET_MEAN if name == "mean" else _IMAGENET_STD)
    if v is not None and not (isinstance(v, (np.ndarray, NDArray)) and len(v.shape) > 0
                              and v.shape[0] in (1, 3)):
        raise AssertionError(f"CreateAugmenter: {name} must be True, None, or a NumPy array or "
                             f"NDArray of 1 or 3 values, got {v!r}")
    return v


def CreateAugmenter(data_shape, resize=0, rand_crop=False, rand_resize=False, rand_mirror=False,
                    mean=None, std=None, brightness=0, contrast=0, saturation=0, hue=0,
                    pca_noise=0, rand_gray=0, inter_method=2):
    """MXNet's augmenter list for a (C, H, W) `data_shape`: resize, then a crop to (W, H)
    (random-sized, random or centre), a 0.5 mirror, the float32 cast, colour jitter, hue,
    PCA noise, random gray, and normalisation (``mean=True``/``std=True``: ImageNet's)."""
    if len(data_shape) != 3:
        raise ValueError(f"CreateAugmenter: data_shape must be (channels, height, width), "
                         f"got {data_shape!r}")
    augs = []
    if resize > 0:
        augs.append(ResizeAug(resize, inter_method))
    crop = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise AssertionError("CreateAugmenter: rand_resize=True needs rand_crop=True")
        augs.append(RandomSizedCropAug(crop, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        augs.append(RandomCropAug(crop, inter_method))
    else:
        augs.append(CenterCropAug(crop, inter_method))
    if rand_mirror:
        augs.append(HorizontalFlipAug(0.5))
    augs.append(CastAug())
    if brightness or contrast or saturation:
        augs.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        augs.append(HueJitterAug(hue))
    if pca_noise > 0:
        augs.append(LightingAug(pca_noise, np.array(_PCA_EIGVAL), np.array(_PCA_EIGVEC)))
    if rand_gray > 0:
        augs.append(RandomGrayAug(rand_gray))
    mean, std = _check_stat("mean", mean), _check_stat("std", std)
    if mean is not None or std is not None:
        augs.append(ColorNormalizeAug(mean, std))
    return augs


_LABEL_DTYPES = ("int32", "float32", "int64", "float64")
_LAST_BATCH = ("pad", "discard", "roll_over")


def _read_lst(path, dtype):
    """{index: (labels, path)} and the indices in file order of a tab-separated .lst."""
    table, keys = {}, []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            fields = line.strip().split("\t")
            if fields == [""]:
                continue
            try:
                if len(fields) < 2:
                    raise ValueError("expected index, labels and path separated by tabs")
                key = int(fields[0])
                label = np.array(fields[1:-1], dtype=dtype)
            except ValueError as e:
                raise ValueError(f"ImageIter: {path} line {lineno}: {e}: {line.strip()!r}") \
                    from None
            table[key] = (label, fields[-1])
            keys.append(key)
    return table, keys


def _read_imglist(imglist, dtype):
    """MXNet's keys "1", "2", ... for the in-memory [[label(s)..., path], ...]."""
    table, keys = {}, []
    for n, item in enumerate(imglist, 1):
        if not isinstance(item, (list, tuple)) or len(item) < 2:
            raise ValueError(f"ImageIter: imglist item {n - 1} must be [label(s)..., path], "
                             f"got {item!r}")
        if len(item) > 2:
            label = item[:-1]
        elif isinstance(item[0], numbers.Number):
            label = [item[0]]
        else:
            label = item[0]
        table[str(n)] = (np.array(label, dtype=dtype).reshape(-1), item[-1])
        keys.append(str(n))
    return table, keys


class ImageIter(DataIter):
    """MXNet 1.9.1's image iterator: images from ``path_imgrec`` (RecordIO; ``path_imgidx``
    for shuffling and partitions), ``path_imglist`` (a .lst: index, labels, path relative to
    ``path_root``, tab separated) or ``imglist`` ([[label(s)..., path], ...]), decoded with
    `imdecode`, augmented by `aug_list` (default ``CreateAugmenter(data_shape, **kwargs)``)
    and batched as float32 NCHW with ``label_width`` labels per image.

    ``last_batch_handle``: 'pad' fills the last batch from the start of the data (``pad``
    counts the filled slots); 'discard' drops it; 'roll_over' holds it back and completes
    it at the start of the next epoch (that batch reports the held-back ``pad``, as MXNet's
    does). ``shuffle`` reorders with ``random.shuffle`` at each reset. The parsed list keeps
    NumPy labels (MXNet's are NDArrays)."""

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None,
                 path_imglist=None, path_root=None, path_imgidx=None, shuffle=False,
                 part_index=0, num_parts=1, aug_list=None, imglist=None, data_name="data",
                 label_name="softmax_label", dtype="float32", last_batch_handle="pad",
                 **kwargs):
        super().__init__(batch_size)
        if not (path_imgrec or path_imglist or isinstance(imglist, list)):
            raise AssertionError("ImageIter needs path_imgrec, path_imglist or an imglist "
                                 "list")
        if dtype not in _LABEL_DTYPES:
            raise AssertionError(f"{dtype} label not supported (ImageIter's dtype is one of "
                                 f"{', '.join(_LABEL_DTYPES)})")
        if last_batch_handle not in _LAST_BATCH:
            raise ValueError(f"ImageIter: last_batch_handle must be 'pad', 'discard' or "
                             f"'roll_over', got {last_batch_handle!r}")
        self.check_data_shape(data_shape)
        data_shape = tuple(data_shape)
        self.imgrec, self.imgidx = None, None
        if path_imgrec:
            rio = _recordio()
            logging.info("ImageIter: loading recordio %s...", path_imgrec)
            if path_imgidx:
                self.imgrec = rio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = rio.MXRecordIO(path_imgrec, "r")
        keys = None
        if path_imglist:
            self.imglist, keys = _read_lst(path_imglist, dtype)
        elif isinstance(imglist, list):
            self.imglist, keys = _read_imglist(imglist, dtype)
        else:
            self.imglist = None
        self.path_root = path_root
        self.batch_size = batch_size
        self.data_shape = data_shape
        self.label_width = label_width
        self.shuffle = shuffle
        self.provide_data = [DataDesc(data_name, (batch_size,) + data_shape)]
        lshape = (batch_size, label_width) if label_width > 1 else (batch_size,)
        self.provide_label = [DataDesc(label_name, lshape)]
        if self.imgrec is None:
            self.seq = keys
        elif shuffle or num_parts > 1 or path_imgidx:
            if self.imgidx is None:
                raise AssertionError("ImageIter: shuffle and num_parts > 1 need path_imgidx "
                                     "with path_imgrec")
            self.seq = self.imgidx
        else:
            self.seq = None  # read the .rec front to back
        if num_parts > 1:
            if not 0 <= part_index < num_parts:
                raise AssertionError(f"ImageIter: part_index {part_index} must be in "
                                     f"[0, num_parts={num_parts})")
            part = len(self.seq) // num_parts
            self.seq = self.seq[part_index * part:(part_index + 1) * part]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.cur = 0
        self._allow_read = True
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self._cache = None  # roll_over's held-back (data, label, count)
        self._current = None
        self.reset()

    def reset(self):
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        # a held-back roll_over batch keeps the position its epoch ended at
        if self.last_batch_handle != "roll_over" or self._cache is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """`reset`, dropping a held-back roll_over batch."""
        self._cache = None
        self.reset()

    def next_sample(self):
        """(label, encoded image) of the next image; StopIteration at the end of the data
        (which rewinds it, unless discarding)."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is None:
            s = self.imgrec.read()
            if s is None:
                if self.last_batch_handle != "discard":
                    self.imgrec.reset()
                raise StopIteration
            header, img = _recordio().unpack(s)
            self._current = self.cur
            self.cur += 1
            return header.label, img
        if self.cur >= self.num_image:
            if self.last_batch_handle != "discard":
                self.cur = 0
            raise StopIteration
        idx = self._current = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is not None:
            header, img = _recordio().unpack(self.imgrec.read_idx(idx))
            return (header.label if self.imglist is None else self.imglist[idx][0]), img
        label, fname = self.imglist[idx]
        return label, self.read_image(fname)

    def _batchify(self, data, label, start=0):
        """Fill slots ``start:`` of the host buffers; the number filled (StopIteration when
        the data had ended already)."""
        i = start
        try:
            while i < self.batch_size:
                lab, s = self.next_sample()
                img = self.imdecode(s)
                try:
                    self.check_valid_image(img)
                except RuntimeError as e:
                    logging.debug("Invalid image, skipping:  %s", e)
                    continue
                datum = self.postprocess_data(self.augmentation_transform(img))
                datum = datum.asnumpy() if hasattr(datum, "asnumpy") else np.asarray(datum)
                try:
                    data[i] = datum
                except ValueError:
                    raise ValueError(f"ImageIter: an augmented image has shape {datum.shape}, "
                                     f"the batch expects {data.shape[1:]} (data_shape; "
                                     f"crop or resize to it in the augmenters)") from None
                lab = np.asarray(lab.asnumpy() if hasattr(lab, "asnumpy") else lab, np.float32)
                if lab.size not in (1, label[i].size):
                    raise ValueError(f"ImageIter: an image has {lab.size} labels, "
                                     f"label_width is {self.label_width}")
                label[i] = lab.reshape(()) if lab.size == 1 else lab.reshape(label[i].shape)
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    _label_fill = 0  # ImageDetIter's label rows past an image's objects are -1

    def _empty_batch(self):
        """Fresh (data, label) buffers for one batch."""
        return (np.zeros((self.batch_size,) + tuple(self.data_shape), np.float32),
                np.full(self.provide_label[0][1], self._label_fill, np.float32))

    def next(self):
        """The next DataBatch; the last one padded, dropped or rolled over as
        ``last_batch_handle`` says."""
        if self._cache is not None:
            data, label, i = self._cache
        else:
            data, label = self._empty_batch()
            i = self._batchify(data, label)
        pad = self.batch_size - i
        if pad:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache is None:
                self._cache = (data, label, i)
                raise StopIteration
            self._batchify(data, label, i)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            self._cache = None
        return DataBatch([self._to_array(data)], [self._to_array(label)], pad=pad)

    @staticmethod
    def _to_array(a):
        out = nd.array(a, dtype=np.float32)
        return out.as_np_ndarray() if is_np_array() else out

    def check_data_shape(self, data_shape):
        """ValueError unless `data_shape` is (3, H, W)."""
        if len(data_shape) != 3:
            raise ValueError("data_shape should have length 3, with dimensions CxHxW")
        if data_shape[0] != 3:
            raise ValueError("This iterator expects inputs to have 3 channels.")

    def check_valid_image(self, data):
        """RuntimeError (the image is skipped) for a decoded image without 2-D pixels."""
        if len(data[0].shape) == 0:
            raise RuntimeError("Data shape is wrong")

    def imdecode(self, s):
        """`imdecode` of `s`; a RuntimeError naming the broken image's file or index."""
        try:
            return _img.imdecode(s)
        except Exception as e:
            idx = self._current
            if self.imglist is not None and idx in self.imglist:
                where = f"filename: {self.imglist[idx][1]}"
            else:
                where = f"index: {idx}"
            raise RuntimeError(f"Broken image {where}, {e}") from None

    def read_image(self, fname):
        """The bytes of `fname` under ``path_root`` (None: `fname` as given)."""
        with open(os.path.join(self.path_root or "", fname), "rb") as f:
            return f.read()

    def augmentation_transform(self, data):
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """HWC -> CHW."""
        return nd.transpose(datum, axes=(2, 0, 1))
