"""``mx.npx``: MXNet 1.9.1's numpy extensions (python/mxnet/numpy_extension).

The neural-network operators are the legacy registry operators under their
numpy-extension names (`_NN`): they take and return ``mx.np.ndarray``s and
refuse legacy NDArrays with MXNet's TypeError.  The numpy-semantics switches
(`set_np`, `use_np` ...) are mx.util's (one per-thread state).
"""
import sys as _sys

import numpy as _onp

from ... import context as _context
from ...base import check_call, classproperty, with_metaclass  # noqa: F401  (MXNet's module's)
from ...lowering import registry as _registry
from ...ndarray import NDArray, invoke, waitall  # noqa: F401
from .. import ndarray as _nd
from .. import random as _random
from ..numpy import multiarray as _ma
from ..numpy.multiarray import ndarray
from ..util import is_np_array, is_np_shape, reset_np, set_np, use_np  # noqa: F401
from ..util import get_cuda_compute_capability  # noqa: F401

Context = _context.Context
cpu, gpu, cpu_pinned = _context.cpu, _context.gpu, _context.cpu_pinned
num_gpus, current_context = _context.num_gpus, _context.current_context
gpu_memory_info = _context.gpu_memory_info

# npx name -> (registry operator, {npx keyword: MXNet operator keyword}, fixed attributes)
_NN = {
    "relu": ("relu", {}, {}),
    "sigmoid": ("sigmoid", {}, {}),
    "softmax": ("softmax", {}, {}),
    "log_softmax": ("log_softmax", {}, {}),
    "activation": ("Activation", {}, {}),
    "batch_norm": ("BatchNorm", {"x": "data", "running_mean": "moving_mean",
                                 "running_var": "moving_var"}, {}),
    "convolution": ("Convolution", {}, {}),
    "deconvolution": ("Deconvolution", {}, {}),
    "pooling": ("Pooling", {}, {}),
    "fully_connected": ("FullyConnected", {"x": "data"}, {}),
    "dropout": ("Dropout", {}, {}),
    "embedding": ("Embedding", {}, {}),
    "layer_norm": ("LayerNorm", {}, {}),
    "rnn": ("RNN", {}, {}),
    "one_hot": ("one_hot", {"data": "indices"}, {}),
    "pick": ("pick", {}, {}),
    "topk": ("topk", {}, {}),
    "batch_dot": ("batch_dot", {"a": "lhs", "b": "rhs"}, {}),
    "sequence_mask": ("SequenceMask", {}, {}),
    "gamma": ("gamma", {}, {}),
    "gammaln": ("gammaln", {}, {}),
    "arange_like": ("_contrib_arange_like", {}, {}),
    "smooth_l1": ("smooth_l1", {}, {}),
    "leaky_relu": ("LeakyReLU", {}, {}),
    "erf": ("erf", {}, {}),
    "erfinv": ("erfinv", {}, {}),
    "batch_flatten": ("Flatten", {}, {}),
    "cast": ("Cast", {}, {}),
    "gather_nd": ("gather_nd", {}, {}),
    "reshape_like": ("reshape_like", {}, {}),
    "shape_array": ("shape_array", {}, {}),
    "slice": ("slice", {}, {}),
    # the detection operators (MXNet 1.9.1's npx names of the contrib operators)
    "multibox_prior": ("_contrib_MultiBoxPrior", {}, {}),
    "multibox_detection": ("_contrib_MultiBoxDetection", {}, {}),
    "multibox_target": ("_contrib_MultiBoxTarget", {}, {}),
    "roi_pooling": ("ROIPooling", {}, {}),
}


def _nn(name, opname, rename, fixed):
    f = _nd.op_function(_registry.get(opname), name)

    def fn(*args, **kwargs):
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, NDArray) and not isinstance(a, ndarray):
                raise _ma._mixed(a)
        for k in [k for k in kwargs if k in rename]:
            kwargs[rename[k]] = kwargs.pop(k)
        return f(*args, **fixed, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"npx.{name}: MXNet operator {opname} on mx.np.ndarrays."
    return fn


for _n, (_op, _rn, _fx) in _NN.items():
    globals()[_n] = _nn(_n, _op, _rn, _fx)


def masked_softmax(data, mask, axis=-1, temperature=1.0, normalize=True):
    """softmax over the positions where ``mask`` is true; masked positions give 0."""
    return _ma.call(_registry.get("_npi_masked_softmax"), (data, mask),
                    {"axis": axis, "temperature": temperature})


def masked_log_softmax(data, mask, axis=-1, temperature=1.0, normalize=True):
    return _ma.call(_registry.get("_npi_masked_log_softmax"), (data, mask),
                    {"axis": axis, "temperature": temperature})


def constraint_check(input, msg="Constraint violated"):
    """A 0-d True when every element of the boolean ``input`` is true; otherwise MXNet's
    ValueError(msg) when the result is read."""
    return _ma.call(_registry.get("_npi_constraint_check"), (input, msg), {})


def reshape(a, newshape, reverse=False, order="C"):
    """npx.reshape with MXNet's numpy-extension codes: -1 infer, -2 copy this axis, -3 drop a
    size-1 axis, -4 copy the remaining axes, -5 merge two axes, -6 split an axis in two."""
    return _ma.call(_registry.get("_npi_npx_reshape"), (a, tuple(newshape), bool(reverse)), {})


def nonzero(a):
    """The indices of a's non-zero elements, one row each: shape (N, a.ndim), int64; a 0-d
    array counts as 1-d (N, 1), as numpy 1's nonzero reads it."""
    return _ma.array(_onp.argwhere(_onp.atleast_1d(a.asnumpy())), dtype="int64", ctx=a.context)


def seed(seed, ctx="all"):
    _random.seed(seed, ctx)


def save(file, arr):
    """Save an mx.np.ndarray, a list or a dict of them in MXNet's .params format."""
    conv = (lambda a: a.as_nd_ndarray() if isinstance(a, ndarray) else a)
    if isinstance(arr, dict):
        arr = {k: conv(v) for k, v in arr.items()}
    elif isinstance(arr, (list, tuple)):
        arr = [conv(v) for v in arr]
    else:
        arr = [conv(arr)]
    _nd.save(file, arr)


def load(file):
    """Load a file of MXNet's .params format (what npx.save writes) or, as an extension, a
    numpy .npz/.npy file, as mx.np.ndarrays."""
    with open(file, "rb") as f:
        magic = f.read(6)
    if magic[:2] == b"PK" or magic == b"\x93NUMPY":  # numpy's .npz / .npy
        data = _onp.load(file, allow_pickle=False)
        if isinstance(data, _onp.ndarray):
            return _ma.array(data)
        return {k: _ma.array(data[k]) for k in data.files}
    out = _nd.load(file)
    if isinstance(out, dict):
        return {k: _ma.from_nd(v) for k, v in out.items()}
    return [_ma.from_nd(v) for v in out]


from . import random  # noqa: E402,F401
from ... import symbol as _sym_pkg  # noqa: E402
from .. import numpy as _np_pkg  # noqa: E402
from ..numpy import _symbol  # noqa: E402



# F.np / F.npx inside hybrid_forward, where F is mx.nd (eager) or mx.sym (hybridized); both
# modules import the official numpy as _np
_nd.np, _nd.npx = _np_pkg, _sys.modules[__name__]
_sym_pkg.np, _sym_pkg.npx = _symbol.np, _symbol.npx_namespace(_NN)
# MXNet's long names of the same modules (mx.nd.numpy is mx.nd.np); the symbolic ones are
# importable (`import mxnet.symbol.numpy.linalg`)
_nd.numpy, _nd.numpy_extension = _nd.np, _nd.npx
_sym_pkg.numpy, _sym_pkg.numpy_extension = _sym_pkg.np, _sym_pkg.npx
for _m in (_sym_pkg.np, _sym_pkg.np.linalg, _sym_pkg.np.random, _sym_pkg.npx,
           _sym_pkg.npx.random, _sym_pkg.npx.image):
    _sys.modules.setdefault("xnd.symbol" + _m.__name__[len("mxnet.symbol"):], _m)
from . import image  # noqa: E402,F401  (mx.npx.image)
for _long, _m in (("numpy", _np_pkg), ("numpy_extension", _sys.modules[__name__])):
    _sys.modules.setdefault(f"{_nd.__name__}.{_long}", _m)     # import mxnet.ndarray.numpy
    for _sub in ("linalg", "random", "image"):
        if hasattr(_m, _sub):
            _sys.modules.setdefault(f"{_nd.__name__}.{_long}.{_sub}", getattr(_m, _sub))

__all__ = sorted(n for n in globals() if not n.startswith("_") and n not in (
    "NDArray", "invoke", "ndarray", "random"))
