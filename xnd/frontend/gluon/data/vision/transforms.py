"""Image transforms (gluon.data.vision.transforms) with MXNet's conventions: images are
HWC (or NHWC) uint8/float arrays; ToTensor makes CHW float32 in [0, 1]. They run eagerly
on the host (numpy), per sample, and accept NDArrays or numpy arrays (returning NDArrays).
Random transforms draw from numpy's / Python's global generators, as MXNet's Python
image helpers do (the bit streams of MXNet's C++ image ops are not reproduced).
Under NumPy array semantics (``npx.set_np()``) they return mx.np arrays, as MXNet's (whose
transforms call ``F.npx.image`` there): ``_out`` and ``_face`` are the one place that decides."""
import math
import numbers
import random

import numpy as np

from .....base import MXNetError
from .....ndarray import NDArray
from ..... import semantics
from ....image import _random_size_box, _resize as _cv_resize, imrotate, random_rotate, \
    scale_down
from ...block import Block
from ...nn.basic_layers import Sequential
# names MXNet's module holds by importing them (its users import them from here)
from .....base import numeric_types  # noqa: E402,F401
from ....util import is_np_array  # noqa: E402,F401
from ...nn import HybridBlock, HybridSequential  # noqa: E402,F401

__all__ = ["Compose", "Cast", "ToTensor", "Normalize", "RandomResizedCrop", "CenterCrop",
           "Resize", "CropResize", "RandomFlipLeftRight", "RandomFlipTopBottom",
           "RandomBrightness", "RandomContrast", "RandomSaturation", "RandomHue",
           "RandomColorJitter", "RandomLighting", "RandomApply", "Rotate", "RandomRotation"]


def _nd():
    from .... import ndarray as nd
    return nd


def _np(x):
    return x.asnumpy() if isinstance(x, NDArray) else np.asarray(x)


def _out(a, like):
    """numpy result ``a`` as an array of the current semantics, on ``like``'s context."""
    ctx = like.context if isinstance(like, NDArray) else None
    if semantics.is_np_array():
        from .... import numpy as mxnp
        return mxnp.array(a, ctx=ctx, dtype=a.dtype)
    return _nd().array(a, ctx=ctx, dtype=a.dtype)


def _face(y):
    """An ``nd.image`` operator's legacy result in the current semantics (a view, no copy)."""
    return y.as_np_ndarray() if semantics.is_np_array() else y


def _cast_back(a, dtype):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        a = np.clip(np.rint(a), info.min, info.max)
    return a.astype(dtype)


class Compose(Sequential):
    """Apply transforms in order."""

    def __init__(self, transforms):
        super().__init__()
        with self.name_scope():
            for t in transforms:
                self.add(t if isinstance(t, Block) else _Fn(t))


class _Fn(Block):
    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def forward(self, x):
        return self._fn(x)


class Cast(Block):
    """Cast to ``dtype``."""

    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def forward(self, x):
        return _out(_np(x).astype(self._dtype), x)


def _as_nd(x):
    """The legacy NDArray the ``nd.image`` operators take (an mx.np array's legacy view)."""
    if isinstance(x, NDArray):
        return x.as_nd_ndarray() if hasattr(x, "as_nd_ndarray") else x
    return _nd().array(np.asarray(x), dtype=np.asarray(x).dtype)


class ToTensor(Block):
    """(H, W, C) or (N, H, W, C) in [0, 255] -> (C, H, W) / (N, C, H, W) float32 in [0, 1]
    (``nd.image.to_tensor``, as MXNet; other ranks are an MXNetError)."""

    def forward(self, x):
        return _face(_nd().image.to_tensor(_as_nd(x)))


class Normalize(Block):
    """``(x - mean[c]) / std[c]`` on (C, H, W) or (N, C, H, W) float input
    (``nd.image.normalize``)."""

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean = mean
        self._std = std

    def forward(self, x):
        return _face(_nd().image.normalize(_as_nd(x), mean=self._mean, std=self._std))


def _resize_hwc(a, w, h, interp=1):
    """``mx.image.imresize``'s pixels (OpenCV's cv::resize, method ``interp``), as MXNet's
    transforms get through ``image.resize``/``imresize``."""
    return _cv_resize(a, int(w), int(h), int(interp))


def _resize_any(a, w, h, interp=1):
    if a.ndim == 3:
        return _resize_hwc(a, w, h, interp)
    return np.stack([_resize_hwc(img, w, h, interp) for img in a])


def _target_size(size, keep_ratio, H, W):
    if isinstance(size, numbers.Number):
        if not keep_ratio:
            return int(size), int(size)
        if H > W:
            return int(size), int(size * H / W)
        return int(size * W / H), int(size)
    return int(size[0]), int(size[1])


class Resize(Block):
    """Resize to ``size`` ((w, h) or an int); ``keep_ratio`` with an int resizes the shorter
    side to ``size``."""

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._size = size
        self._keep = keep_ratio
        self._interpolation = interpolation

    def forward(self, x):
        size = self._size
        if isinstance(size, numbers.Number):
            if size <= 0:
                raise MXNetError(f"Resize: size must be positive, got {size}")
        elif len(size) != 2 or min(size) <= 0:
            raise MXNetError(f"Resize: size must be an int or (width, height), got {size}")
        a = _np(x)
        H, W = a.shape[-3:-1]
        w, h = _target_size(self._size, self._keep, H, W)
        return _out(_resize_any(a, w, h, self._interpolation), x)


def _fixed_crop(a, x0, y0, w, h, size=None, interp=1):
    out = a[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        out = _resize_hwc(out, size[0], size[1], interp)
    return out


class CenterCrop(Block):
    """Crop the centre to ``size`` ((w, h) or an int), resizing when the image is smaller."""

    def __init__(self, size, interpolation=1):
        super().__init__()
        if isinstance(size, numbers.Number):
            size = (size, size)
        self._size = tuple(size)
        self._interpolation = interpolation

    def forward(self, x):
        a = _np(x)
        h, w = a.shape[:2]
        new_w, new_h = scale_down((w, h), self._size)
        x0 = int((w - new_w) / 2)
        y0 = int((h - new_h) / 2)
        return _out(_fixed_crop(a, x0, y0, new_w, new_h, self._size, self._interpolation), x)


class CropResize(Block):
    """Crop the box (x, y, width, height), optionally resize to ``size``."""

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._x, self._y, self._width, self._height = x, y, width, height
        self._size = (size, size) if isinstance(size, numbers.Number) else size
        self._interpolation = interpolation

    def forward(self, x):
        """``nd.image.crop`` then ``nd.image.resize``, as MXNet (bad boxes: MXNetError)."""
        if semantics.is_np_array():
            # MXNet's CropResize calls the legacy F.image.crop in numpy mode too, which
            # rejects an mx.np array
            raise TypeError("Operator `_image_crop` registered in backend is known as `crop` in "
                            "Python. This is a legacy operator which can only accept legacy "
                            "ndarrays, while received an MXNet numpy ndarray. Please call "
                            "`as_nd_ndarray()` upon the numpy ndarray to convert it to a legacy "
                            "ndarray, and then feed the converted array to this operator.")
        image = _nd().image
        out = image.crop(_as_nd(x), self._x, self._y, self._width, self._height)
        if self._size is not None:
            if len(self._size) != 2 or min(self._size) <= 0:
                raise MXNetError(f"CropResize: size must be positive (width, height), got "
                                 f"{self._size}")
            interp = 1 if self._interpolation is None else self._interpolation
            out = image.resize(out, tuple(self._size), interp=interp)
        return out


class RandomResizedCrop(Block):
    """Crop a random area (``scale`` of the image, aspect ratio in ``ratio``) and resize it
    to ``size``; falls back to a centre crop after 10 tries."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        if isinstance(size, numbers.Number):
            size = (size, size)
        self._size = tuple(size)
        self._scale = scale
        self._ratio = ratio
        self._interpolation = interpolation

    def forward(self, x):
        a = _np(x)
        h, w = a.shape[:2]
        box = _random_size_box(w, h, self._scale, self._ratio)
        if box is None:
            return CenterCrop(self._size, self._interpolation)(x)
        return _out(_fixed_crop(a, *box, self._size, self._interpolation), x)


class _RandomFlip(Block):
    """Flip axis ``_axis`` of an HWC image (or a batch of them) with probability 0.5."""

    def forward(self, x):
        if random.random() < 0.5:
            return _out(np.ascontiguousarray(np.flip(_np(x), axis=self._axis)), x)
        return x


class RandomFlipLeftRight(_RandomFlip):
    """Flip the width axis with probability 0.5."""
    _axis = -2


class RandomFlipTopBottom(_RandomFlip):
    """Flip the height axis with probability 0.5."""
    _axis = -3


_GRAY = np.array([0.299, 0.587, 0.114])


def _brightness(a, alpha):
    return a * alpha


def _contrast(a, alpha):
    gray = (a * _GRAY).sum(axis=-1).mean() * (1.0 - alpha)
    return a * alpha + gray


def _saturation(a, alpha):
    gray = (a * _GRAY).sum(axis=-1, keepdims=True) * (1.0 - alpha)
    return a * alpha + gray


def _hue(a, alpha):
    u, w = math.cos(alpha * math.pi), math.sin(alpha * math.pi)
    bt = np.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
    tyiq = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]])
    ityiq = np.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]])
    t = ityiq @ bt @ tyiq
    return a @ t.T


class _RandomColor(Block):
    _fn = None

    def __init__(self, amount):
        super().__init__()
        self._amount = amount

    def _alpha(self):
        return 1.0 + random.uniform(-self._amount, self._amount)

    def forward(self, x):
        a = _np(x)
        out = type(self)._fn(a.astype(np.float64), self._alpha())
        return _out(_cast_back(out, a.dtype), x)


class RandomBrightness(_RandomColor):
    """Scale by ``1 + uniform(-brightness, brightness)``."""
    _fn = staticmethod(_brightness)


class RandomContrast(_RandomColor):
    """Blend with the mean gray level."""
    _fn = staticmethod(_contrast)


class RandomSaturation(_RandomColor):
    """Blend with the per-pixel gray level."""
    _fn = staticmethod(_saturation)


class RandomHue(_RandomColor):
    """Rotate the hue (in YIQ space) by ``uniform(-hue, hue)`` half-turns."""
    _fn = staticmethod(_hue)

    def _alpha(self):
        return random.uniform(-self._amount, self._amount)


class RandomColorJitter(Block):
    """Brightness, contrast, saturation and hue jitter in random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._ts = []
        if brightness > 0:
            self._ts.append(RandomBrightness(brightness))
        if contrast > 0:
            self._ts.append(RandomContrast(contrast))
        if saturation > 0:
            self._ts.append(RandomSaturation(saturation))
        if hue > 0:
            self._ts.append(RandomHue(hue))

    def forward(self, x):
        ts = list(self._ts)
        random.shuffle(ts)
        for t in ts:
            x = t(x)
        return x


_EIGVAL = np.array([55.46, 4.794, 1.148])
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009],
                    [-0.5808, -0.0045, -0.8140],
                    [-0.5836, -0.6948, 0.4203]])


class RandomLighting(Block):
    """AlexNet-style PCA lighting noise with standard deviation ``alpha``."""

    def __init__(self, alpha):
        super().__init__()
        self._alpha = alpha

    def forward(self, x):
        a = _np(x)
        alpha = np.random.normal(0, self._alpha, size=(3,))
        rgb = np.dot(_EIGVEC * alpha, _EIGVAL)
        return _out(_cast_back(a.astype(np.float64) + rgb, a.dtype), x)


class RandomApply(Sequential):
    """Apply ``transforms`` with probability ``p``."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x):
        if self.p < random.random():
            return x
        return self.transforms(x)


def _float32_only(x):
    if x.dtype is not np.float32:
        raise TypeError("This transformation only supports float32. Consider calling it after "
                        "ToTensor")


class Rotate(Block):
    """``mx.image.imrotate`` by a fixed angle (float32 CHW or NCHW input)."""

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        _float32_only(x)
        return imrotate(x, *self._args)


class RandomRotation(Block):
    """``mx.image.random_rotate`` within ``angle_limits`` with probability
    ``rotate_with_proba`` (drawn with numpy.random, before the dtype check, as in MXNet)."""

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError("`angle_limits` must be an ordered tuple")
        if rotate_with_proba < 0 or rotate_with_proba > 1:
            raise ValueError("Probability of rotating the image should be between 0 and 1")
        self._args = (angle_limits, zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x):
        if np.random.random() > self._rotate_with_proba:
            return x
        _float32_only(x)
        return random_rotate(x, *self._args)
