"""The ``_image_*`` operators (``mx.nd.image`` / ``mx.sym.image``, Gluon's vision transforms).

MXNet 1.9.1 behaviour matched: images are HWC (or NHWC batches); ``to_tensor`` gives float32
CHW (NCHW) divided by 255; ``normalize`` takes CHW/NCHW floats and a per-channel (or single)
mean and std; ``crop(x, y, width, height)`` and ``resize(size=(w, h) | s, keep_ratio,
interp)`` keep the dtype, and resize's pixels are OpenCV's ``cv::resize`` (the same code as
``mx.image.imresize``, run as a host callback); ``adjust_lighting`` adds AlexNet's PCA
lighting ``eigvec @ (alpha * eigval)``. The random ops draw their factors from xnd's random
state (MXNet's bit streams are not reproduced): brightness scales by a factor in
[min_factor, max_factor], contrast and saturation blend with the gray mean / gray image,
hue rotates in YIQ space, color_jitter applies brightness, contrast, saturation, hue in this
order (MXNet picks a random order).
Not reproduced: MXNet 1.9.1's flip_left_right leaves the middle column of an odd-width image
unwritten; here the flip is exact.
"""
import math

import jax
import jax.numpy as jnp
import numpy as np

from ..base import MXNetError
from .attrs import Bool, Float, Int, _literal
from .random import prng
from .registry import register

RESIZE = None  # installed by xnd.frontend.image: (HWC numpy array, w, h, interp) -> array


def Floats(v):
    v = _literal(v)
    if isinstance(v, (int, float)):
        return (float(v),)
    return tuple(float(x) for x in v)


def Size(v):
    v = _literal(v)
    if isinstance(v, (int, np.integer)):
        return (int(v),)
    return tuple(int(x) for x in v)


def _hwc(op, data):
    if data.ndim not in (3, 4):
        raise MXNetError(f"{op}: input image must have shape (height, width, channels) or "
                         f"(N, height, width, channels), got {data.shape}")


def _cast_like(x, dtype):
    if jnp.issubdtype(dtype, jnp.integer):
        info = jnp.iinfo(dtype)
        x = jnp.clip(jnp.round(x), info.min, info.max)
    return x.astype(dtype)


@register("_image_to_tensor")
def to_tensor(data):
    _hwc("to_tensor", data)
    x = data.astype(jnp.float32) / 255.0
    return jnp.moveaxis(x, -1, -3)


@register("_image_normalize")
def normalize(data, *, mean: Floats = (0.0, 0.0, 0.0, 0.0), std: Floats = (1.0, 1.0, 1.0, 1.0)):
    if data.ndim not in (3, 4):
        raise MXNetError(f"normalize: input must be (C, H, W) or (N, C, H, W), got {data.shape}")
    c = data.shape[-3]
    if len(mean) not in (1, c) and len(mean) < c or len(std) not in (1, c) and len(std) < c:
        raise MXNetError(f"normalize: mean {mean} and std {std} must have 1 or {c} values")
    m = jnp.asarray(mean[:c] if len(mean) >= c else mean * c, data.dtype)
    s = jnp.asarray(std[:c] if len(std) >= c else std * c, data.dtype)
    return ((data - m[:, None, None]) / s[:, None, None]).astype(data.dtype)


@register("_image_crop")
def crop(data, *, x: Int, y: Int, width: Int, height: Int):
    _hwc("crop", data)
    H, W = data.shape[-3], data.shape[-2]
    if x < 0 or y < 0 or width < 1 or height < 1 or x + width > W or y + height > H:
        raise MXNetError(f"crop: the region x={x}, y={y}, width={width}, height={height} does "
                         f"not lie inside the {W}x{H} image")
    return data[..., y:y + height, x:x + width, :]


def _target(size, keep_ratio, H, W):
    if len(size) == 1:
        s = size[0]
        if not keep_ratio:
            return s, s
        return (s, int(s * H / W)) if H > W else (int(s * W / H), s)
    return size[0], size[1]


@register("_image_resize")
def resize(data, *, size: Size = (), keep_ratio: Bool = False, interp: Int = 1):
    _hwc("resize", data)
    if not size:
        raise MXNetError("resize: size is required")
    H, W, C = data.shape[-3:]
    w, h = _target(size, keep_ratio, H, W)
    if RESIZE is None:
        raise MXNetError("resize: xnd.frontend.image is not loaded")
    batch = data.shape[:-3]
    out = jax.ShapeDtypeStruct(batch + (h, w, C), data.dtype)

    def host(a):
        a = np.asarray(a)
        if a.ndim == 3:
            return np.asarray(RESIZE(a, w, h, interp), dtype=a.dtype)
        return np.stack([RESIZE(img, w, h, interp) for img in a]).astype(a.dtype)
    return jax.pure_callback(host, out, data)


@register("_image_flip_left_right")
def flip_left_right(data):
    _hwc("flip_left_right", data)
    return jnp.flip(data, axis=-2)


@register("_image_flip_top_bottom")
def flip_top_bottom(data):
    _hwc("flip_top_bottom", data)
    return jnp.flip(data, axis=-3)


@register("_image_random_flip_left_right")
def random_flip_left_right(data, *, p: Float = 0.5, key):
    return jnp.where(jax.random.uniform(prng(key)) < p, jnp.flip(data, axis=-2), data)


@register("_image_random_flip_top_bottom")
def random_flip_top_bottom(data, *, p: Float = 0.5, key):
    return jnp.where(jax.random.uniform(prng(key)) < p, jnp.flip(data, axis=-3), data)


_GRAY = (0.299, 0.587, 0.114)


def _gray(x):
    return x[..., 0] * _GRAY[0] + x[..., 1] * _GRAY[1] + x[..., 2] * _GRAY[2]


def _brightness(x, a):
    return x * a


def _contrast(x, a):
    mean = jnp.mean(_gray(x), axis=(-2, -1), keepdims=True)[..., None]
    return x * a + mean * (1 - a)


def _saturation(x, a):
    return x * a + _gray(x)[..., None] * (1 - a)


def _hue(x, a):
    t = jnp.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]])
    u, w = jnp.cos(a * math.pi), jnp.sin(a * math.pi)
    rot = jnp.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]) + \
        u * jnp.array([[0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]]) + \
        w * jnp.array([[0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])
    m = jnp.linalg.inv(t) @ rot @ t
    return jnp.einsum("...c,dc->...d", x, m.astype(jnp.float32))


def _factor(key, lo, hi):
    return jax.random.uniform(key, (), jnp.float32, lo, hi)


def _random_adjust(name, fn):
    def op(data, *, min_factor: Float, max_factor: Float, key):
        _hwc(name, data)
        a = _factor(prng(key), min_factor, max_factor)
        return _cast_like(fn(data.astype(jnp.float32), a), data.dtype)
    op.__name__ = name
    op.__doc__ = f"{name}: factor uniform in [min_factor, max_factor]."
    register(f"_image_{name}")(op)


_random_adjust("random_brightness", _brightness)
_random_adjust("random_contrast", _contrast)
_random_adjust("random_saturation", _saturation)
_random_adjust("random_hue", _hue)


@register("_image_random_color_jitter")
def random_color_jitter(data, *, brightness: Float = 0.0, contrast: Float = 0.0,
                        saturation: Float = 0.0, hue: Float = 0.0, key):
    _hwc("random_color_jitter", data)
    ks = jax.random.split(prng(key), 4)
    x = data.astype(jnp.float32)
    for k, amount, fn, centre in ((ks[0], brightness, _brightness, 1.0),
                                  (ks[1], contrast, _contrast, 1.0),
                                  (ks[2], saturation, _saturation, 1.0),
                                  (ks[3], hue, _hue, 0.0)):
        if amount > 0:
            x = fn(x, _factor(k, centre - amount, centre + amount))
    return _cast_like(x, data.dtype)


_EIGVAL = np.array([55.46, 4.794, 1.148], np.float32)
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                    [-0.5836, -0.6948, 0.4203]], np.float32)


def _lighting(data, alpha):
    rgb = jnp.asarray(_EIGVEC) @ (alpha * jnp.asarray(_EIGVAL))
    return _cast_like(data.astype(jnp.float32) + rgb, data.dtype)


@register("_image_adjust_lighting")
def adjust_lighting(data, *, alpha: Floats):
    _hwc("adjust_lighting", data)
    if len(alpha) != 3:
        raise MXNetError(f"adjust_lighting: alpha must have 3 values, got {alpha}")
    return _lighting(data, jnp.asarray(alpha, jnp.float32))


@register("_image_random_lighting")
def random_lighting(data, *, alpha_std: Float = 0.05, key):
    _hwc("random_lighting", data)
    return _lighting(data, jax.random.normal(prng(key), (3,), jnp.float32) * alpha_std)
