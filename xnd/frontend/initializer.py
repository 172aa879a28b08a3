"""mx.init / mx.initializer: weight initializers and MXNet's name-based dispatch.

``init(InitDesc(name, attrs), arr)`` first honours an ``__init__`` attribute
(a JSON ``["name", {kwargs}]`` or a registered name, as MXNet stores in symbol
attributes), else dispatches on the name's suffix as MXNet 1.9.1 does:
``weight`` -> the initializer's rule, ``bias``/``beta``/``min`` -> 0,
``gamma``/``max`` -> 1, anything else (``bn_moving_mean`` too) -> MXNet's
ValueError "Unknown initialization pattern".  Module and Gluon never reach that
error for BatchNorm statistics: their variables carry ``__init__`` attributes
(``zeros``/``ones``), as in MXNet.  A plain string name takes MXNet's deprecated
legacy path (which knows ``moving_mean``/``moving_var``/...).

Random initializers draw from xnd's generator (``mx.random.seed``), not
MXNet's streams: distributions, shapes and dtypes match, bit patterns do not.
"""
import json
import logging
import re
import warnings

import numpy as np

import jax.numpy as jnp

from ..ndarray import NDArray
from . import ndarray as nd
from . import random as _random
from . import registry as _registry
# names MXNet's module holds by importing them (its users import them from here)
from ..base import string_types  # noqa: E402,F401
from .util import is_np_array  # noqa: E402,F401
from . import ndarray  # noqa: E402,F401
from .ndarray import load  # noqa: E402,F401
from . import random  # noqa: E402,F401
from . import registry  # noqa: E402,F401

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Load", "Mixed", "Zero",
           "One", "Constant", "Uniform", "Normal", "Orthogonal", "Xavier", "MSRAPrelu",
           "Bilinear", "LSTMBias"]


class InitDesc(str):
    """A parameter name (a ``str``) with its symbol attributes and the global initializer."""

    def __new__(cls, name, attrs=None, global_init=None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


def _float_dtype(arr):
    dt = np.dtype(arr.dtype)
    return dt.name if np.issubdtype(dt, np.floating) else "float32"


def _fill_random(arr, kind, a, b):
    """Fill ``arr`` from xnd's generator: uniform(a, b) or normal(a, b).

    Drawn on the host by numpy's PCG64, seeded with the next ``(seed, counter)`` key of
    ``mx.random`` (one key per fill, as ``nd.random.uniform`` takes), so ``mx.random.seed``
    reproduces an initialization.  An XLA draw would compile one program per parameter
    shape and scale, seconds each on 2 cores (jax's threefry compiles slowly), for a
    program that runs once: a ResNet-18 ``initialize`` took 20-30 s that way."""
    seed, counter = (int(k) for k in _random.next_key())
    rng = np.random.Generator(np.random.PCG64([seed, counter]))
    dt = jnp.dtype(_float_dtype(arr))
    work = np.float64 if dt == np.float64 else np.float32   # float16/bfloat16: cast below
    if kind == "uniform":
        v = work(a) + work(b - a) * rng.random(arr.shape, dtype=work)
    else:
        v = work(a) + work(b) * rng.standard_normal(arr.shape, dtype=work)
    arr[:] = v.astype(dt)


def _constant(value):
    def init(self, _, arr):
        arr[:] = value
    init.__doc__ = "arr[:] = %r" % (value,)
    return init


class Initializer:
    """Base class of initializers: subclasses implement ``_init_weight(name, arr)``."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        """Log each initialized array with ``print_func(arr)`` (default: norm / sqrt(size))."""
        self._verbose = verbose
        if print_func is None:
            def asum_stat(x):
                return str((nd.norm(x) / np.sqrt(x.size)).asscalar())
            print_func = asum_stat
        self._print_func = print_func
        return self

    def _verbose_print(self, desc, init, arr):
        if self._verbose and self._print_func:
            logging.info("Initialized %s as %s: %s", desc, init, self._print_func(arr))

    def dumps(self):
        """The JSON MXNet stores in symbol attributes, e.g. ``["normal", {"sigma": 0.5}]``."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            create(init)._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
            return
        for suffix, method, label in self._DISPATCH:
            if desc.endswith(suffix):
                getattr(self, method)(desc, arr)
                self._verbose_print(desc, label, arr)
                return
        self._init_default(desc, arr)

    # (suffix, method, log label), in MXNet's order
    _DISPATCH = (("weight", "_init_weight", "weight"), ("bias", "_init_bias", "bias"),
                 ("gamma", "_init_gamma", "gamma"), ("beta", "_init_beta", "beta"),
                 ("min", "_init_zero", "min"), ("max", "_init_one", "max"),
                 ("weight_quantize", "_init_quantized_weight", "weight_quantize"),
                 ("bias_quantize", "_init_quantized_bias", "bias_quantize"))

    def _legacy_init(self, name, arr):
        """``init(str, arr)``: MXNet's deprecated name-only dispatch."""
        warnings.warn("\033[91mCalling initializer with init(str, NDArray) has been deprecated."
                      "please use init(mx.init.InitDesc(...), NDArray) instead.\033[0m",
                      DeprecationWarning, stacklevel=3)
        if not isinstance(name, str):
            raise TypeError("name must be string")
        if not isinstance(arr, NDArray):
            raise TypeError("arr must be NDArray")
        if name.startswith("upsampling"):
            self._init_bilinear(name, arr)
        elif name.startswith("stn_loc") and name.endswith("weight"):
            self._init_zero(name, arr)
        elif name.startswith("stn_loc") and name.endswith("bias"):
            self._init_loc_bias(name, arr)
        elif name.endswith("bias"):
            self._init_bias(name, arr)
        elif name.endswith("gamma"):
            self._init_gamma(name, arr)
        elif name.endswith("beta"):
            self._init_beta(name, arr)
        elif name.endswith("weight"):
            self._init_weight(name, arr)
        elif name.endswith("moving_mean") or name.endswith("moving_inv_var") or \
                name.endswith("moving_avg") or name.endswith("min"):
            self._init_zero(name, arr)
        elif name.endswith("moving_var") or name.endswith("max"):
            self._init_one(name, arr)
        else:
            self._init_default(name, arr)

    def _init_bilinear(self, _, arr):
        arr[:] = _bilinear(arr.shape)

    def _init_loc_bias(self, _, arr):
        assert arr.shape[0] == 6
        arr[:] = np.array([1.0, 0, 0, 0, 1.0, 0])

    # the fixed defaults: min, moving means, biases, betas 0; max, moving vars, gammas 1
    _init_zero = _init_bias = _init_beta = _constant(0.0)
    _init_one = _init_gamma = _constant(1.0)
    _init_quantized_bias = _constant(0)

    def _init_weight(self, name, arr):
        raise NotImplementedError("Must override it")

    def _init_quantized_weight(self, _, arr):
        # as MXNet: one random int8 value, broadcast over the array
        val = nd.random.randint(-127, 127, dtype="int32", ctx=arr.context).asnumpy()
        arr[:] = np.int8(val)

    def _init_default(self, name, _):
        raise ValueError(
            'Unknown initialization pattern for %s. Default initialization is now limited to '
            '"weight", "bias", "gamma" (1.0), and "beta" (0.0).Please use '
            'mx.sym.Variable(init=mx.init.*) to set initialization pattern' % name)

    def __eq__(self, other):
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = object.__hash__


def _bilinear(shape):
    """The bilinear upsampling kernel MXNet's Bilinear initializer writes."""
    f = np.ceil(shape[3] / 2.)
    c = (2 * f - 1 - f % 2) / (2. * f)
    x = np.arange(shape[3], dtype=np.float64)
    y = np.arange(shape[2], dtype=np.float64)
    plane = (1 - np.abs(y[:, None] / f - c)) * (1 - np.abs(x[None, :] / f - c))
    return np.broadcast_to(plane.astype(np.float32), tuple(shape)).copy()


# ---- registry (mx.registry) -----------------------------------------------------------------
register = _registry.get_register_func(Initializer, "initializer")
alias = _registry.get_alias_func(Initializer, "initializer")
create = _registry.get_create_func(Initializer, "initializer")
_REGISTRY = _registry.table(Initializer)


class Load:
    """Initialize from a ``.params`` file or a name -> NDArray dict (``arg:``/``aux:``
    prefixes dropped); names not found go to ``default_init``."""

    def __init__(self, param, default_init=None, verbose=False):
        if isinstance(param, str):
            param = nd.load(param)
        assert isinstance(param, dict)
        self.param = {}
        for name, arr in param.items():
            key = name[4:] if name.startswith("arg:") or name.startswith("aux:") else name
            self.param[key] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            assert arr.shape == self.param[name].shape, \
                "Parameter %s cannot be initialized from loading. " % name + \
                "Shape mismatch, target %s vs loaded %s" % (str(arr.shape),
                                                            self.param[name].shape)
            arr[:] = self.param[name]
            if self.verbose:
                logging.info("Initialized %s by loading", name)
        else:
            assert self.default_init is not None, \
                "Cannot Initialize %s. Not found in loaded param " % name + \
                "and no default Initializer is provided."
            self.default_init(name, arr)
            if self.verbose:
                logging.info("Initialized %s by default", name)


class Mixed:
    """Initialize each parameter with the first initializer whose regex matches its name."""

    def __init__(self, patterns, initializers):
        assert len(patterns) == len(initializers)
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name, arr):
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise ValueError('Parameter name %s did not match any pattern. Consider' +
                         'add a ".*" pattern at the and with default Initializer.')


class _Fill(Initializer):
    """An initializer without arguments: weights = ``_fill(shape)``."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = self._fill(arr.shape)


@register
@alias("zeros")
class Zero(_Fill):
    """Weights = 0."""
    _fill = staticmethod(lambda shape: 0)


@register
@alias("ones")
class One(_Fill):
    """Weights = 1."""
    _fill = staticmethod(lambda shape: 1)


@register
class Constant(Initializer):
    """Weights = ``value`` (a scalar or an array broadcastable to the weight)."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        arr[:] = self.value

    def dumps(self):
        val = self._kwargs["value"]
        if not np.isscalar(val):
            self._kwargs["value"] = val.tolist() if isinstance(val, np.ndarray) \
                else val.asnumpy().tolist()
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


@register
class Uniform(Initializer):
    """Weights ~ U(-scale, scale)."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        _fill_random(arr, "uniform", -self.scale, self.scale)


@register
class Normal(Initializer):
    """Weights ~ N(0, sigma^2)."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        _fill_random(arr, "normal", 0, self.sigma)


@register
class Orthogonal(Initializer):
    """An orthogonal matrix (SVD of a random one) times ``scale``."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr):
        nout = arr.shape[0]
        nin = int(np.prod(arr.shape[1:]))
        if self.rand_type == "uniform":
            tmp = nd.random.uniform(-1.0, 1.0, shape=(nout, nin)).asnumpy()
        elif self.rand_type == "normal":
            tmp = nd.random.normal(0.0, 1.0, shape=(nout, nin)).asnumpy()
        else:
            raise ValueError("Unknown random type %s" % self.rand_type)
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        res = u if u.shape == tmp.shape else v
        arr[:] = self.scale * res.reshape(arr.shape)


@register
class Xavier(Initializer):
    """Xavier/Glorot: uniform(-c, c) or normal(0, c) with ``c = sqrt(magnitude / n)``,
    ``n`` = fan_in, fan_out or their mean (``factor_type`` 'in', 'out', 'avg'); the
    receptive field (dims 2+) multiplies both fans."""

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise ValueError("Xavier initializer cannot be applied to vector {0}. It requires at"
                             " least 2D.".format(name))
        hw_scale = np.prod(shape[2:]) if len(shape) > 2 else 1.
        fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
        if self.factor_type == "avg":
            factor = (fan_in + fan_out) / 2.0
        elif self.factor_type == "in":
            factor = fan_in
        elif self.factor_type == "out":
            factor = fan_out
        else:
            raise ValueError("Incorrect factor type")
        scale = np.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            _fill_random(arr, "uniform", -scale, scale)
        elif self.rnd_type == "gaussian":
            _fill_random(arr, "normal", 0, scale)
        else:
            raise ValueError("Unknown random type")


@register
class MSRAPrelu(Xavier):
    """He/MSRA initialization: Xavier gaussian with magnitude ``2 / (1 + slope**2)``."""

    def __init__(self, factor_type="avg", slope=0.25):
        magnitude = 2. / (1 + slope ** 2)
        super().__init__("gaussian", factor_type, magnitude)
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(_Fill):
    """Bilinear upsampling kernels (for Deconvolution weights)."""
    _fill = staticmethod(_bilinear)


@register
class LSTMBias(Initializer):
    """LSTM biases: 0, except the forget gate (second quarter) = ``forget_bias``."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        arr[:] = 0.0
        num_hidden = int(arr.shape[0] / 4)
        arr[num_hidden:2 * num_hidden] = self.forget_bias


# mx.rnn.FusedRNNCell, which FusedRNN unpacks its vector with; rnn/rnn_cell.py (which imports
# this module) installs it, so initializer never imports the rnn package back
_FUSED_RNN_CELL = [None]


@register
class FusedRNN(Initializer):
    """The packed parameter vector of a FusedRNNCell: each gate's weight and bias (as the
    cell's ``unpack_weights`` names them) is initialized on its own by ``init`` (an
    initializer or its JSON; None: the global initializer), forget-gate biases of an LSTM
    are ``forget_bias``, and the pieces are packed back."""

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False,
                 forget_bias=1.0):
        if isinstance(init, str):
            klass, kwargs = json.loads(init)
            init = _REGISTRY[klass.lower()](**kwargs)
        super().__init__(init=init.dumps() if init is not None else None,
                         num_hidden=num_hidden, num_layers=num_layers, mode=mode,
                         bidirectional=bidirectional, forget_bias=forget_bias)
        self._init = init
        self._num_hidden, self._num_layers, self._mode = num_hidden, num_layers, mode
        self._bidirectional, self._forget_bias = bidirectional, forget_bias

    def _init_weight(self, desc, arr):
        cell = _FUSED_RNN_CELL[0](self._num_hidden, self._num_layers, self._mode,
                                  self._bidirectional, forget_bias=self._forget_bias, prefix="")
        pieces = cell.unpack_weights({"parameters": arr})
        for name, piece in pieces.items():
            sub = InitDesc(name, global_init=getattr(desc, "global_init", None))
            if self._mode == "lstm" and name.endswith("_f_bias"):
                piece[:] = self._forget_bias
            elif self._init is None:
                sub.global_init(sub, piece)
            else:
                self._init(sub, piece)
        arr[:] = cell.pack_weights(pieces)["parameters"]
