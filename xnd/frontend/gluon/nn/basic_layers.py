"""mx.gluon.nn.basic_layers: containers, Dense, Dropout, normalization, Embedding, Flatten,
lambdas."""
import warnings

import numpy as np

from .... import context
from ..block import Block, HybridBlock
from ..utils import _indent
from .activations import Activation
# names MXNet's module holds by importing them (its users import them from here)
from ...util import is_np_array  # noqa: E402,F401

__all__ = ["Sequential", "HybridSequential", "Dense", "Dropout", "Embedding", "BatchNorm",
           "BatchNormReLU", "SyncBatchNorm", "InstanceNorm", "LayerNorm", "GroupNorm", "Flatten",
           "Lambda", "HybridLambda", "Concurrent", "HybridConcurrent", "Identity"]


def _gamma_beta(block, size, center, scale, gamma_init, beta_init, differentiable=False):
    """A normalization layer's ``gamma`` then ``beta`` (grad_req 'null' when the layer does
    not scale or center; with `differentiable`, BatchNorm's, not differentiable then either)."""
    for name, on, init in (("gamma", scale, gamma_init), ("beta", center, beta_init)):
        extra = {"differentiable": on} if differentiable else {}
        setattr(block, name, block.params.get(name, grad_req="write" if on else "null",
                                              shape=(size,), init=init,
                                              allow_deferred_init=True, **extra))


class _Container:
    """What Sequential and HybridSequential share: ``add``, indexing (a slice is a new
    container of the same kind), ``len`` and MXNet's repr; summary() lists the children."""
    _container = True

    def add(self, *blocks):
        """Add blocks on top of the stack."""
        for block in blocks:
            self.register_child(block)

    def __repr__(self):
        modstr = "\n".join(f"  ({key}): {_indent(repr(block), 2)}"
                           for key, block in self._children.items())
        return f"{self.__class__.__name__}(\n{modstr}\n)"

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if isinstance(layers, list):
            net = type(self)(prefix=self._prefix)
            with net.name_scope():
                net.add(*layers)
            return net
        return layers

    def __len__(self):
        return len(self._children)


class Sequential(_Container, Block):
    """Stacks Blocks sequentially."""

    def forward(self, x):
        for block in self._children.values():
            x = block(x)
        return x

    def hybridize(self, active=True, **kwargs):
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn(f"All children of this Sequential layer '{self.prefix}' are "
                          f"HybridBlocks. Consider using HybridSequential for the best "
                          f"performance.", stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(_Container, HybridBlock):
    """Stacks HybridBlocks sequentially."""

    def hybrid_forward(self, F, x):
        for block in self._children.values():
            x = block(x)
        return x


class Dense(HybridBlock):
    """Fully connected layer ``act(dot(x, W.T) + b)``; ``in_units`` is inferred on the
    first forward when 0."""

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype="float32",
                 weight_initializer=None, bias_initializer="zeros", in_units=0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get("weight", shape=(units, in_units),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(units,), init=bias_initializer,
                                            dtype=dtype, allow_deferred_init=True)
            else:
                self.bias = None
            self.act = (Activation(activation, prefix=activation + "_")
                        if activation is not None else None)

    def hybrid_forward(self, F, x, weight, bias=None):
        act = F.FullyConnected(x, weight, bias, no_bias=bias is None, num_hidden=self._units,
                               flatten=self._flatten, name="fwd")
        if self.act is not None:
            act = self.act(act)
        return act

    def __repr__(self):
        shape = self.weight.shape
        layout = "{0} -> {1}".format(shape[1] if shape[1] else None, shape[0])
        return f"{self.__class__.__name__}({layout}, {self.act if self.act else 'linear'})"


class Dropout(HybridBlock):
    """Zeroes a fraction ``rate`` of the inputs in training (scaling the rest by
    1/(1-rate)); ``axes`` share one mask value."""

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd", cudnn_off=False)
        return F.identity(x)

    def __repr__(self):
        return f"{self.__class__.__name__}(p = {self._rate}, axes={self._axes})"


class _BatchNorm(HybridBlock):
    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, fuse_relu=False, beta_initializer="zeros",
                 gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum,
                        "fix_gamma": not scale, "use_global_stats": use_global_stats}
        self.fuse_relu = fuse_relu
        if in_channels != 0:
            self.in_channels = in_channels
        _gamma_beta(self, in_channels, center, scale, gamma_initializer, beta_initializer,
                    differentiable=True)
        self.running_mean = self.params.get("running_mean", grad_req="null",
                                            shape=(in_channels,),
                                            init=running_mean_initializer,
                                            allow_deferred_init=True, differentiable=False)
        self.running_var = self.params.get("running_var", grad_req="null",
                                           shape=(in_channels,),
                                           init=running_variance_initializer,
                                           allow_deferred_init=True, differentiable=False)

    def cast(self, dtype):
        if np.dtype(dtype).name == "float16":
            dtype = "float32"
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        out = F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)
        if self.fuse_relu:
            out = F.relu(out)
        return out

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        content = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{self.__class__.__name__}({content}, in_channels=" \
               f"{in_channels if in_channels else None})"


def _batch_norm_class(name, fuse_relu, doc):
    """MXNet's BatchNorm and BatchNormReLU: one constructor (Gluon's defaults), one
    difference (``fuse_relu``); both derive from _BatchNorm, as in MXNet."""
    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones",
                 in_channels=0, **kwargs):
        _BatchNorm.__init__(self, axis=axis, momentum=momentum, epsilon=epsilon, center=center,
                            scale=scale, use_global_stats=use_global_stats, fuse_relu=fuse_relu,
                            beta_initializer=beta_initializer,
                            gamma_initializer=gamma_initializer,
                            running_mean_initializer=running_mean_initializer,
                            running_variance_initializer=running_variance_initializer,
                            in_channels=in_channels, **kwargs)

    return type(name, (_BatchNorm,), {"__init__": __init__, "__doc__": doc})


BatchNorm = _batch_norm_class(
    "BatchNorm", False,
    """Batch normalization (Gluon defaults: fix_gamma False, epsilon 1e-5, momentum 0.9;
    parameters ``gamma, beta, running_mean, running_var``). Running statistics are
    updated by the backward pass of a training-mode forward, as in MXNet.""")
BatchNormReLU = _batch_norm_class("BatchNormReLU", True, """BatchNorm followed by ReLU.""")


class SyncBatchNorm(BatchNorm):
    """Cross-device BatchNorm (gluon.contrib.nn): ``contrib.SyncBatchNorm`` with ``ndev`` =
    ``num_devices`` (default: the number of GPUs, at least 1, with MXNet's warning) and the
    block's prefix as ``key``, so that the calls on each device share the batch statistics."""

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5, center=True,
                 scale=True, use_global_stats=False, beta_initializer="zeros",
                 gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", **kwargs):
        super().__init__(1, momentum, epsilon, center, scale, use_global_stats,
                         beta_initializer, gamma_initializer, running_mean_initializer,
                         running_variance_initializer, in_channels, **kwargs)
        if num_devices is None:
            warnings.warn("Caution using SyncBatchNorm: if not using all the GPUs, please "
                          "mannually set num_devices", UserWarning)
            num_devices = max(context.num_gpus(), 1)
        self._num_devices = num_devices
        self._kwargs = {"eps": epsilon, "momentum": momentum, "fix_gamma": not scale,
                        "use_global_stats": use_global_stats, "ndev": num_devices,
                        "key": self.prefix}

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.contrib.SyncBatchNorm(x, gamma, beta, running_mean, running_var, name="fwd",
                                       **self._kwargs)

    def _alias(self):
        return "syncbatchnorm"


class Embedding(HybridBlock):
    """Maps integer indices to rows of a ``(input_dim, output_dim)`` weight."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None,
                 sparse_grad=False, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                        "sparse_grad": sparse_grad}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      allow_deferred_init=True,
                                      grad_stype="row_sparse" if sparse_grad else "default")

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        k = self._kwargs
        return f"{self.__class__.__name__}({k['input_dim']} -> {k['output_dim']}, {k['dtype']})"


class Flatten(HybridBlock):
    """Flattens the input to (N, rest)."""

    def hybrid_forward(self, F, x):
        return F.flatten(x)

    def __repr__(self):
        return self.__class__.__name__


def _norm_repr(self, with_channels=True):
    content = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
    if not with_channels:
        return f"{self.__class__.__name__}({content})"
    return f"{self.__class__.__name__}({content}, in_channels={self.gamma.shape[0]})"


class InstanceNorm(HybridBlock):
    """Per-sample, per-channel normalization (``scale=False`` by default)."""

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False, beta_initializer="zeros",
                 gamma_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis = axis
        self._epsilon = epsilon
        _gamma_beta(self, in_channels, center, scale, gamma_initializer, beta_initializer)

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        x = F.swapaxes(x, dim1=1, dim2=self._axis)
        out = F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        return F.swapaxes(out, dim1=1, dim2=self._axis)

    __repr__ = _norm_repr


class LayerNorm(HybridBlock):
    """Normalization over ``axis`` (the last by default)."""

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", in_channels=0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis = axis
        self._epsilon = epsilon
        self._center = center
        self._scale = scale
        _gamma_beta(self, in_channels, center, scale, gamma_initializer, beta_initializer)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)

    __repr__ = _norm_repr


class GroupNorm(HybridBlock):
    """Normalization over channel groups; gamma/beta have one value per group (MXNet 1.x)."""

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "num_groups": num_groups, "center": center,
                        "scale": scale}
        self._num_groups = num_groups
        self._epsilon = epsilon
        self._center = center
        self._scale = scale
        _gamma_beta(self, num_groups, center, scale, gamma_initializer, beta_initializer)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._num_groups,
                           eps=self._epsilon)

    def __repr__(self):
        return _norm_repr(self, with_channels=False)


def _nd():
    from ... import ndarray as nd
    return nd


def _sym():
    from .... import symbol
    return symbol


class Lambda(Block):
    """Wraps a function (or the name of an ``nd`` function) as a Block."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        nd = _nd()
        if isinstance(function, str):
            assert hasattr(nd, function), f"Function name {function} is not found in ndarray."
            self._func_impl = getattr(nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise ValueError(f"Unrecognized function in lambda: {function} of type "
                             f"{type(function)}")

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return f"{self.__class__.__name__}({self._func_impl.__name__})"


class HybridLambda(HybridBlock):
    """Wraps ``function(F, x, *args)`` (or the name of an op in both nd and sym)."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        nd, sym = _nd(), _sym()
        if isinstance(function, str):
            assert hasattr(nd, function) and hasattr(sym, function), \
                f"Function name {function} is not found in symbol/ndarray."
            funcs = {nd: getattr(nd, function), sym: getattr(sym, function)}
            self._func = lambda F, *args: funcs[F](*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = function.__name__
        else:
            raise ValueError(f"Unrecognized function in lambda: {function} of type "
                             f"{type(function)}")

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return f"{self.__class__.__name__}({self._func_name})"


class Concurrent(Sequential):
    """Feeds the input to every child and concatenates their outputs along ``axis``."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        out = [block(x) for block in self._children.values()]
        return _nd().concat(*out, dim=self.axis)


class HybridConcurrent(HybridSequential):
    """Hybrid version of Concurrent."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        out = [block(x) for block in self._children.values()]
        return F.concat(*out, dim=self.axis)


class Identity(HybridBlock):
    """Passes the input through."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        return x
