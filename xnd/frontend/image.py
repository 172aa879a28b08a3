"""mx.image (the core functions; the augmenters and ImageIter are image_aug.py's, re-exported
here): decode, read, resize and crop HWC images as MXNet 1.9.1 does with its built-in
OpenCV 3.4.2.

Decoding and encoding use Pillow, an optional dependency (``pip install pillow``, or the
``image`` extra); without it these functions raise ImportError saying so. Checked against
MXNet 1.9.1: PNG pixels are identical; baseline, progressive and 4:2:0/4:2:2/4:4:4 JPEGs
decode to identical pixels with Pillow's libjpeg-turbo (another JPEG library may differ by
rounding); EXIF orientation is ignored, as MXNet does. Grayscale (``flag=0``) is the JPEG's
luma channel, libpng's truncating ``(9797 R + 19234 G + 3737 B) >> 15`` for PNG, and
OpenCV's rounded BT.601 weights for other formats. 16-bit images keep their high byte;
CMYK JPEGs and 16-bit color-to-gray conversion may differ from OpenCV.

`imresize` reimplements OpenCV's ``cv::resize`` (interp 0 nearest, 1 bilinear, 2 bicubic,
3 area, 4 Lanczos; bilinear at exactly half size is area, as in OpenCV): uint8 results
are bit-exact (OpenCV's 11-bit fixed-point coefficients and SIMD rounding), float32
results too except Lanczos (within 1e-4 on 0-255 data); other dtypes are computed in
float64 and rounded.
"""
import io
import math
import numbers
import random
import sys

import numpy as np

from ..base import MXNetError
from ..ndarray import NDArray
# names MXNet's module holds by importing them (its users import them from here)
from ..base import numeric_types  # noqa: E402,F401
from .util import is_np_array  # noqa: E402,F401
from . import ndarray as nd  # noqa: E402,F401

__all__ = ["imread", "imdecode", "imresize", "scale_down", "resize_short", "fixed_crop",
           "random_crop", "center_crop", "color_normalize", "random_size_crop", "imrotate",
           "random_rotate",
           # image_aug.py's, imported at the end
           "Augmenter", "SequentialAug", "RandomOrderAug", "ResizeAug", "ForceResizeAug",
           "RandomCropAug", "RandomSizedCropAug", "CenterCropAug", "BrightnessJitterAug",
           "ContrastJitterAug", "SaturationJitterAug", "HueJitterAug", "ColorJitterAug",
           "LightingAug", "ColorNormalizeAug", "RandomGrayAug", "HorizontalFlipAug", "CastAug",
           "CreateAugmenter", "ImageIter",
           # image_detection.py's (MXNet's mxnet/image/detection.py), imported at the end
           "detection", "det", "DetAugmenter", "DetBorrowAug", "DetRandomSelectAug",
           "DetHorizontalFlipAug", "DetRandomCropAug", "DetRandomPadAug",
           "CreateMultiRandCropAugmenter", "CreateDetAugmenter", "ImageDetIter"]

F32 = np.float32


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("mx.image decodes and encodes images with Pillow, which is not "
                          "installed (MXNet uses OpenCV): pip install pillow") from None
    return Image


# ---------------------------------------------------------------- decoding / encoding

def _open(data, gray, what):
    Image = _pil()
    try:
        img = Image.open(io.BytesIO(data))
        if gray and img.format == "JPEG" and img.mode in ("RGB", "YCbCr", "L"):
            img.draft("L", img.size)  # libjpeg's grayscale output: the luma channel
        img.load()
    except (OSError, SyntaxError, ValueError, EOFError, Image.DecompressionBombError) as e:
        raise MXNetError(f"Decoding failed. Invalid image file{what}: {e}") from None
    return img


def _decode(data, mode, what=""):
    """Pixels of the encoded image: mode 'color' HxWx3 RGB, 'gray' HxW, 'unchanged' the
    stored channels (HxW, HxWx3 RGB, HxWx4 RGBA; uint16 for 16-bit)."""
    img = _open(data, mode == "gray", what)
    m = img.mode
    if m.startswith("I"):  # 16-bit gray ("I;16*", or "I" from older Pillow)
        a16 = np.clip(np.asarray(img), 0, 65535).astype(np.uint16)
        if mode == "unchanged":
            return a16
        g = (a16 >> 8).astype(np.uint8)
        return g if mode == "gray" else np.repeat(g[:, :, None], 3, axis=2)
    if mode == "color":
        return np.asarray(img.convert("RGB"))
    if mode == "unchanged":
        if m in ("L", "1"):
            return np.asarray(img.convert("L"))
        alpha = m in ("RGBA", "LA", "PA", "La", "RGBa") or "transparency" in img.info
        return np.asarray(img.convert("RGBA" if alpha else "RGB"))
    if m in ("L", "LA", "1"):
        return np.asarray(img.convert("L"))
    r, g, b = np.moveaxis(np.asarray(img.convert("RGB"), dtype=np.uint32), 2, 0)
    if img.format == "PNG":
        y = (9797 * r + 19234 * g + 3737 * b) >> 15
    else:
        y = (4899 * r + 9617 * g + 1868 * b + 8192) >> 14
    return y.astype(np.uint8)


def _decode_bgr(data, iscolor):
    """``cv2.imdecode(data, iscolor)`` for iscolor -1, 0, 1 (numpy, BGR order)."""
    modes = {-1: "unchanged", 0: "gray", 1: "color"}
    if iscolor not in modes:
        raise ValueError(f"unpack_img: iscolor must be -1 (unchanged), 0 (gray) or 1 "
                         f"(color), got {iscolor!r}")
    a = _decode(_bytes_of(data, "unpack_img"), modes[iscolor], " in unpack_img")
    if a.ndim == 3:
        a = a[:, :, [2, 1, 0, 3][:a.shape[2]]]
    return np.array(a)


def _encode(img, img_fmt, quality):
    """The uint8 BGR(A)/gray numpy image `img` encoded as `img_fmt` ('.jpg', '.png' ...)."""
    Image = _pil()
    if isinstance(img, NDArray):
        img = img.asnumpy()
    a = np.asarray(img)
    if a.dtype != np.uint8:
        raise TypeError(f"pack_img: the image must be uint8, got {a.dtype}")
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[:, :, 0]
    if a.ndim == 2 and a.size:
        pil = Image.fromarray(np.ascontiguousarray(a), "L")
    elif a.ndim == 3 and a.shape[2] in (3, 4) and a.size:
        order = [2, 1, 0, 3][:a.shape[2]]
        pil = Image.fromarray(np.ascontiguousarray(a[:, :, order]),
                              "RGB" if a.shape[2] == 3 else "RGBA")
    else:
        raise ValueError(f"pack_img: expected a non-empty HxW, HxWx1, HxWx3 (BGR) or HxWx4 "
                         f"(BGRA) image, got shape {a.shape}")
    ext = str(img_fmt).lower()
    fmt = Image.registered_extensions().get(ext) if ext.startswith(".") else None
    if fmt is None:
        raise ValueError(f"pack_img: unknown image format {img_fmt!r} (use '.jpg' or '.png')")
    opts = {}
    if fmt == "JPEG":
        opts["quality"] = int(min(max(quality, 0), 100))
        if pil.mode == "RGBA":
            pil = pil.convert("RGB")  # OpenCV drops the alpha channel for JPEG
    elif fmt == "PNG":
        opts["compress_level"] = int(min(max(quality, 0), 9))
    out = io.BytesIO()
    try:
        pil.save(out, format=fmt, **opts)
    except (OSError, ValueError, KeyError) as e:
        raise MXNetError(f"pack_img: cannot encode a {pil.mode} image as {img_fmt!r}: "
                         f"{e}") from None
    return out.getvalue()


def _bytes_of(buf, what):
    if isinstance(buf, NDArray):
        buf = buf.asnumpy()
        if buf.dtype != np.uint8:
            raise MXNetError(f"{what}: an NDArray buffer must be uint8, got {buf.dtype}")
    if isinstance(buf, (bytes, bytearray, memoryview)):
        return bytes(buf)
    if isinstance(buf, np.ndarray):
        return np.ascontiguousarray(buf).tobytes()
    raise ValueError("buf must be of type bytes, bytearray or numpy.ndarray,"
                     "if you would like to input type str, please convert to bytes")


def _to_nd(a, out, ctx=None):
    from . import ndarray as nd
    res = nd.array(np.ascontiguousarray(a), ctx=ctx, dtype=a.dtype)
    if out is None:   # numpy mode (npx.set_np()): an mx.np.ndarray, as MXNet's decoders give
        return res.as_np_ndarray() if is_np_array() else res
    if not isinstance(out, NDArray):
        raise TypeError(f"out must be an NDArray, got {type(out).__name__}")
    if tuple(out.shape) != res.shape:
        raise MXNetError(f"out has shape {tuple(out.shape)}, the image has shape {res.shape}")
    out[:] = res
    return out


def _image_nd(data, flag, to_rgb, out, what=""):
    flag = int(flag)
    if flag < 0:
        raise MXNetError(f"value {flag} for Parameter flag should be greater equal to 0 "
                         f"(0 grayscale, 1 color)")
    a = _decode(data, "gray" if flag == 0 else "color", what)
    if flag == 0:
        a = a[:, :, None]
    elif not to_rgb:
        a = a[:, :, ::-1]
    return _to_nd(a, out)


def imdecode(buf, flag=1, to_rgb=1, out=None):
    """Decode an encoded image (bytes, bytearray, numpy or uint8 NDArray) to an HWC uint8
    NDArray: ``flag=1`` (any value but 0) 3 channels, RGB unless ``to_rgb=0`` (BGR);
    ``flag=0`` grayscale of shape (H, W, 1). Undecodable data raises MXNetError."""
    data = _bytes_of(buf, "imdecode")
    if not data:
        raise MXNetError("imdecode: Input cannot be an empty buffer")
    return _image_nd(data, flag, to_rgb, out)


def imread(filename, flag=1, to_rgb=1, out=None):
    """Read and decode the image file `filename` (see `imdecode`); a missing file raises
    MXNetError."""
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except OSError as e:
        raise MXNetError(f"Imread: {str(filename)!r} couldn't open file: "
                         f"{e.strerror or e}") from None
    return _image_nd(data, flag, to_rgb, out, f" {str(filename)!r}")


# ---------------------------------------------------------------- resizing (cv::resize)

def _taps(n_in, n_out, interp, area_mode, clamp):
    """Source indices [n_out, k] and float32 weights [n_out, k] of one axis. `clamp`: the
    horizontal axis of bilinear clamps the fraction at the borders, the vertical one only
    clamps the rows it reads, as OpenCV does."""
    inv = n_out / n_in
    scale = 1.0 / inv
    d = np.arange(n_out)
    if area_mode:  # INTER_AREA when enlarging: bilinear with OpenCV's area fractions
        s = np.floor(d * scale).astype(np.int64)
        f = ((d + 1) - (s + 1) * inv).astype(F32)
        f = np.where(f <= 0, F32(0), f - np.floor(f)).astype(F32)
    else:
        pos = ((d + 0.5) * scale - 0.5).astype(F32)
        s = np.floor(pos).astype(np.int64)
        f = (pos - s.astype(F32)).astype(F32)
    if interp == 1:
        if clamp:
            lo, hi = s < 0, s >= n_in - 1
            f = np.where(lo | hi, F32(0), f)
            s = np.where(lo, 0, np.where(hi, n_in - 1, s))
        w = np.stack([F32(1) - f, f], 1)
        idx = s[:, None] + np.arange(2)
    elif interp == 2:
        a = F32(-0.75)
        c0 = ((a * (f + 1) - 5 * a) * (f + 1) + 8 * a) * (f + 1) - 4 * a
        c1 = ((a + 2) * f - (a + 3)) * f * f + 1
        c2 = ((a + 2) * (1 - f) - (a + 3)) * (1 - f) * (1 - f) + 1
        w = np.stack([c0, c1, c2, 1 - c0 - c1 - c2], 1)
        idx = s[:, None] + np.arange(-1, 3)
    else:  # Lanczos over 8 taps, normalized in float32
        i = np.arange(8)
        y = -(f.astype(np.float64)[:, None] + 3 - i) * np.pi * 0.25
        with np.errstate(divide="ignore", invalid="ignore"):
            w = (np.where(i % 2, -1.0, 1.0) * np.sin(y) / (y * y)).astype(F32)
        total = np.zeros(n_out, F32)
        for j in range(8):
            total = (total + w[:, j]).astype(F32)
        w = w * (F32(1) / total)[:, None]
        exact = f < np.finfo(F32).eps
        w[exact] = np.eye(8, dtype=F32)[3]
        idx = s[:, None] + np.arange(-3, 5)
    return np.clip(idx, 0, n_in - 1), w.astype(F32)


def _weighted(src, idx, w, axis, dtype):
    """sum_k src[idx[:, k]] * w[:, k] along `axis`, accumulated in order in `dtype`."""
    shape = [1, 1, 1]
    shape[axis] = -1
    acc = None
    for k in range(idx.shape[1]):
        term = np.take(src, idx[:, k], axis=axis) * w[:, k].astype(dtype).reshape(shape)
        acc = term if acc is None else acc + term
    return acc


def _resize_u8(a, xi, xw, yi, yw, kind):
    """OpenCV's fixed-point uint8 path: 11-bit integer weights, then its vertical rounding."""
    ax = np.rint(xw.astype(np.float64) * 2048).astype(np.int64)
    ay = np.rint(yw.astype(np.float64) * 2048).astype(np.int64)
    rows = _weighted(a.astype(np.int64), xi, ax, 1, np.int64)
    if kind == 1:  # SIMD: ((S0 >> 4) * b0 >> 16) + ((S1 >> 4) * b1 >> 16), rounded >> 2
        acc = sum((np.take(rows, yi[:, k], 0) >> 4) * ay[:, k, None, None] >> 16
                  for k in range(2))
        res = (acc + 2) >> 2
    elif kind == 2:  # SIMD: float32 sum of S * (b / 2048**2), rounded to nearest even
        b = ay.astype(F32) * F32(1.0 / (2048 * 2048))
        res = np.rint(_weighted(rows.astype(F32), yi, b, 0, F32))
    else:
        res = (_weighted(rows, yi, ay, 0, np.int64) + (1 << 21)) >> 22
    return np.clip(res, 0, 255).astype(np.uint8)


def _area_tab(n_in, n_out):
    """Per output index, the (source index, float32 weight) pairs of INTER_AREA shrinking."""
    scale = n_in / n_out
    tabs = []
    for d in range(n_out):
        f1 = d * scale
        f2 = f1 + scale
        s1, s2 = int(np.ceil(f1)), min(int(np.floor(f2)), n_in - 1)
        s1 = min(s1, s2)
        cell = min(scale, n_in - f1)
        t = [(s1 - 1, (s1 - f1) / cell)] if s1 - f1 > 1e-3 else []
        t += [(s, 1.0 / cell) for s in range(s1, s2)]
        if f2 - s2 > 1e-3:
            t.append((s2, min(min(f2 - s2, 1.0), cell) / cell))
        tabs.append([(s, F32(v)) for s, v in t])
    return tabs


def _resize_area(a, w, h, dtype):
    rows = np.stack([sum(a[:, s, :].astype(dtype) * dtype(v) for s, v in t)
                     for t in _area_tab(a.shape[1], w)], axis=1)
    return np.stack([sum(rows[s].astype(dtype) * dtype(v) for s, v in t)
                     for t in _area_tab(a.shape[0], h)], axis=0)


def _resize(a, w, h, interp):
    """``cv::resize(a, (w, h), interpolation=interp)`` on an HxWxC numpy array."""
    H, W, C = a.shape
    if (w, h) == (W, H):
        return a.copy()
    sx, sy = 1.0 / (w / W), 1.0 / (h / H)
    isx, isy = int(round(sx)), int(round(sy))
    fast = abs(sx - isx) < np.finfo(float).eps and abs(sy - isy) < np.finfo(float).eps
    if interp == 1 and fast and isx == 2 and isy == 2:
        interp = 3
    if interp == 0:
        xs = np.minimum(np.floor(np.arange(w) * sx).astype(np.int64), W - 1)
        ys = np.minimum(np.floor(np.arange(h) * sy).astype(np.int64), H - 1)
        return a[ys][:, xs]
    integer = not np.issubdtype(a.dtype, np.floating)
    work = np.float64 if a.dtype not in (np.uint8, np.float32) else F32
    if interp == 3 and sx >= 1 and sy >= 1:
        if fast:
            blocks = a[:h * isy, :w * isx].reshape(h, isy, w, isx, C)
            if a.dtype == np.uint8:
                total = blocks.astype(np.int64).sum(axis=(1, 3))
                if isx == 2 and isy == 2:
                    return ((total + 2) >> 2).astype(np.uint8)
                res = total.astype(F32) * F32(1.0 / (isx * isy))
            else:  # OpenCV's order: row-major over the block, added in groups of 4
                flat = blocks.astype(work).transpose(0, 2, 1, 3, 4).reshape(h, w, -1, C)
                n = flat.shape[2]
                terms = [((flat[:, :, k] + flat[:, :, k + 1]) + flat[:, :, k + 2])
                         + flat[:, :, k + 3] for k in range(0, n - n % 4, 4)]
                terms += [flat[:, :, k] for k in range(n - n % 4, n)]
                total = terms[0]
                for t in terms[1:]:
                    total = total + t
                res = total * work(1.0 / (isx * isy))
        else:
            res = _resize_area(a, w, h, work)
    else:
        area_mode = interp == 3
        kind = 1 if area_mode else interp
        xi, xw = _taps(W, w, kind, area_mode, clamp=True)
        yi, yw = _taps(H, h, kind, area_mode, clamp=False)
        if a.dtype == np.uint8:
            return _resize_u8(a, xi, xw, yi, yw, kind)
        res = _weighted(_weighted(a.astype(work), xi, xw, 1, work), yi, yw, 0, work)
    if integer:
        info = np.iinfo(a.dtype)
        res = np.clip(np.rint(res), info.min, info.max)
    return res.astype(a.dtype)


def imresize(src, w, h, interp=1, out=None):
    """Resize the HWC NDArray `src` to width `w`, height `h` with OpenCV's method `interp`
    (0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos); same dtype as `src`."""
    if not isinstance(src, NDArray):
        raise AssertionError(f"Argument src must have NDArray type, but got "
                             f"{type(src).__name__}")
    if len(src.shape) != 3:
        raise MXNetError(f"imresize: src must be an HxWxC image, got shape {src.shape}")
    w, h, interp = int(w), int(h), int(interp)
    if w < 1 or h < 1:
        raise MXNetError(f"imresize: w and h must be at least 1, got w={w}, h={h}")
    if interp not in (0, 1, 2, 3, 4):
        raise MXNetError(f"imresize: Unknown interpolation method {interp} (OpenCV's 0-4)")
    return _to_nd(_resize(src.asnumpy(), w, h, interp), out, src.context)


# ---------------------------------------------------------------- crops and helpers

def scale_down(src_size, size):
    """The crop `size` (w, h) shrunk, keeping its aspect, to fit `src_size` (w, h)."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def _get_interp_method(interp, sizes=()):
    """MXNet's interp choice: 9 picks by the (old h, old w, new h, new w) `sizes` (cubic
    to enlarge, area to shrink, else bilinear), 10 a random one of 0-4."""
    if interp == 9:
        if not sizes:
            return 2
        oh, ow, nh, nw = sizes
        if nh > oh and nw > ow:
            return 2
        if nh < oh and nw < ow:
            return 3
        return 1
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError(f"Unknown interp method {interp}")
    return interp


def resize_short(src, size, interp=2):
    """Resize so that the shorter edge is `size` (the other edge rounds down)."""
    h, w, _ = src.shape
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """``src[y0:y0+h, x0:x0+w]``, resized to `size` (w, h) when given and different."""
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != size:
        sizes = (h, w, size[1], size[0])
        out = imresize(out, *size, interp=_get_interp_method(interp, sizes))
    return out


def random_crop(src, size, interp=2):
    """A random crop of `size` (w, h) (scaled down to fit, then resized to `size`), and
    its (x0, y0, w, h); positions come from Python's `random`, as in MXNet."""
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = random.randint(0, w - new_w)
    y0 = random.randint(0, h - new_h)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """The centered crop of `size` (w, h) (scaled down to fit, then resized to `size`),
    and its (x0, y0, w, h)."""
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """A crop of a random area (``area``: a fraction, or a (min, max) range of the image's
    area) and aspect ratio (log-uniform in ``ratio``), resized to `size` (w, h), and its
    (x0, y0, w, h); after 10 misses the centre crop. Draws from Python's `random`, as MXNet."""
    h, w, _ = src.shape
    if "min_area" in kwargs:  # MXNet's deprecated spelling
        area = kwargs.pop("min_area")
    if kwargs:
        raise TypeError(f"random_size_crop got unexpected keyword(s) {sorted(kwargs)}")
    if isinstance(area, numbers.Number):
        area = (area, 1.0)
    box = _random_size_box(w, h, area, ratio)
    if box is None:
        return center_crop(src, size, interp)
    return fixed_crop(src, *box, size, interp), box


def _random_size_box(w, h, area, ratio):
    """(x0, y0, w, h) of a random crop of a w x h image, its area a uniform fraction in
    ``area`` (min, max) of the image's and its aspect ratio log-uniform in ``ratio``, or None
    after 10 draws that do not fit; with Python's `random`, in MXNet's order of draws
    (image.random_size_crop and gluon's RandomResizedCrop)."""
    src_area = h * w
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * src_area
        log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
        new_ratio = math.exp(random.uniform(*log_ratio))
        new_w = int(round(math.sqrt(target_area * new_ratio)))
        new_h = int(round(math.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = random.randint(0, w - new_w)
            y0 = random.randint(0, h - new_h)
            return x0, y0, new_w, new_h
    return None


def _broadcastable(x, ndim):
    if isinstance(x, NDArray) and 0 < len(x.shape) < ndim:
        return x.reshape((1,) * (ndim - len(x.shape)) + tuple(x.shape))
    return x


def color_normalize(src, mean, std=None):
    """``src -= mean`` then ``src /= std`` in place (either may be None); returns src."""
    if mean is not None:
        src -= _broadcastable(mean, len(src.shape))
    if std is not None:
        src /= _broadcastable(std, len(src.shape))
    return src


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """Rotate a float32 CHW image (scalar angle) or NCHW batch (scalar or one angle per
    image), in degrees counter-clockwise about the centre, keeping the shape: MXNet's
    normalised sampling grid rotated, then ``BilinearSampler`` (zeros outside). ``zoom_in``
    scales so that no padding shows, ``zoom_out`` so that the whole image stays in view."""
    from . import ndarray as nd
    if zoom_in and zoom_out:
        raise ValueError("`zoom_in` and `zoom_out` cannot be both True")
    if src.dtype is not np.float32:
        raise TypeError("Only `float32` images are supported by this function")
    single = src.ndim == 3
    if single:
        if not isinstance(rotation_degrees, numbers.Number):
            raise TypeError("When a single image is passed the rotation angle is required to "
                            "be a scalar.")
        src = src.expand_dims(axis=0)
    elif src.ndim != 4:
        raise ValueError("Only 3D and 4D are supported by this function")
    ctx = src.context
    if isinstance(rotation_degrees, numbers.Number):
        rotation_degrees = nd.array([rotation_degrees] * len(src), ctx=ctx)
    if len(src) != len(rotation_degrees):
        raise ValueError("The number of images must be equal to the number of rotation angles")
    rad = (np.pi * rotation_degrees.as_in_context(ctx) / 180).reshape((-1, 1, 1))
    _, _, h, w = src.shape
    hs, ws = float(h - 1) / 2, float(w - 1) / 2
    rows = nd.array(np.repeat(np.arange(h, dtype=F32)[:, None], w, 1), ctx=ctx) - hs
    cols = nd.array(np.repeat(np.arange(w, dtype=F32)[None, :], h, 0), ctx=ctx) - ws
    rows, cols = rows.expand_dims(axis=0), cols.expand_dims(axis=0)
    cos, sin = nd.cos(rad), nd.sin(rad)
    # normalised after the rotation, so the aspect ratio is kept
    gx = (cols * cos - rows * sin) / ws
    gy = (cols * sin + rows * cos) / hs
    grid = nd.concat(gx.expand_dims(axis=1), gy.expand_dims(axis=1), dim=1)
    if zoom_in or zoom_out:
        hh, ww = nd.array([h], ctx=ctx), nd.array([w], ctx=ctx)
        rho, phi = nd.sqrt(hh * hh + ww * ww), nd.arctan(hh / ww)
        turn = nd.abs(rad)
        ext_x = nd.maximum(nd.abs(rho * nd.cos(phi + turn)), nd.abs(rho * nd.cos(phi - turn)))
        ext_y = nd.maximum(nd.abs(rho * nd.sin(phi + turn)), nd.abs(rho * nd.sin(phi - turn)))
        if zoom_out:
            scale = nd.maximum(ext_x / ww, ext_y / hh)
        else:
            scale = nd.minimum(ww / ext_x, hh / ext_y)
        grid = grid * scale.expand_dims(axis=3)
    out = nd.BilinearSampler(src, grid)
    return out[0] if single else out


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """``imrotate`` by ``numpy.random.uniform(*angle_limits)`` degrees (one draw per image of
    a batch)."""
    from . import ndarray as nd
    if src.ndim == 3:
        degrees = np.random.uniform(*angle_limits)
    else:
        degrees = nd.array(np.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, degrees, zoom_in=zoom_in, zoom_out=zoom_out)


def _install_resize():
    """nd.image.resize / sym.image.resize (``_image_resize``) run this module's cv::resize."""
    from ..lowering import image as _lowering_image
    _lowering_image.RESIZE = _resize


_install_resize()


# The augmenters and ImageIter live in image_aug.py, which reaches this module's functions
# through its `_img` (it cannot import this module back: that would be a circle).
from . import image_aug as _image_aug  # noqa: E402
from .image_aug import (  # noqa: E402
    Augmenter, SequentialAug, RandomOrderAug, ResizeAug, ForceResizeAug, RandomCropAug,
    RandomSizedCropAug, CenterCropAug, BrightnessJitterAug, ContrastJitterAug,
    SaturationJitterAug, HueJitterAug, ColorJitterAug, LightingAug, ColorNormalizeAug,
    RandomGrayAug, HorizontalFlipAug, CastAug, CreateAugmenter, ImageIter)

_image_aug._img = sys.modules[__name__]

# mxnet/image/detection.py is image_detection.py here (mx.image.detection, mx.image.det):
# its names are re-exported as MXNet's package __init__ does
from . import image_detection as detection  # noqa: E402
from .image_detection import (  # noqa: E402
    DetAugmenter, DetBorrowAug, DetRandomSelectAug, DetHorizontalFlipAug, DetRandomCropAug,
    DetRandomPadAug, CreateMultiRandCropAugmenter, CreateDetAugmenter, ImageDetIter)

det = detection
copyMakeBorder = detection.copyMakeBorder  # (MXNet's mx.image names it too)
detection._img = sys.modules[__name__]
detection.fixed_crop = fixed_crop  # MXNet's detection module imports it
