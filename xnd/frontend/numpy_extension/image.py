"""``mx.npx.image`` (MXNet's ``mxnet/numpy_extension/image.py``): what MXNet's module holds,
mx.image's augmenters, iterators and helpers (``from ..image import *``) and the ``_image_*``
operators under their short names (``to_tensor``, ``normalize``, ``resize``, ...), the same
functions as mx.nd.image: on mx.np.ndarrays they return mx.np.ndarrays."""
from .. import image as _image
from ..ndarray import image as _nd_image
# names MXNet's module holds by importing them (its users import them from here)
from ...base import numeric_types  # noqa: E402,F401
from ..util import is_np_array  # noqa: E402,F401
from .. import image  # noqa: E402,F401
from .. import ndarray as nd  # noqa: E402,F401
from .. import recordio  # noqa: E402,F401


def _public(module):
    return {n: v for n, v in vars(module).items() if not n.startswith("_")}


globals().update({n: v for n, v in _public(_image).items() if n not in ("np", "sys", "math")})
globals().update(_public(_nd_image))
