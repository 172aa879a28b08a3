"""mx.gluon.nn.conv_layers: convolution, transposed convolution, pooling and padding layers."""
import numbers

from ..block import HybridBlock
from .activations import Activation
# names MXNet's module holds by importing them (its users import them from here)
from ....base import numeric_types  # noqa: E402,F401
from ...util import is_np_array  # noqa: E402,F401
from .... import symbol  # noqa: E402,F401

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
           "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalAvgPool1D",
           "GlobalAvgPool2D", "GlobalAvgPool3D", "ReflectionPad2D"]

_NUM = (numbers.Number,)


def _tup(v, n):
    return (v,) * n if isinstance(v, _NUM) else tuple(v)


def _weight_shape(op_name, channels, in_channels, kernel, groups, layout):
    if op_name == "Deconvolution":
        return (in_channels, channels // groups) + tuple(kernel)
    if layout.endswith("C"):
        return (channels,) + tuple(kernel) + (in_channels // groups,)
    return (channels, in_channels // groups) + tuple(kernel)


class _Conv(HybridBlock):
    """N-D (transposed) convolution; weights named ``conv<k>_weight``/``_bias``."""

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                 in_channels=0, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", op_name="Convolution", adj=None, prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            n = len(kernel_size)
            strides, padding, dilation = _tup(strides, n), _tup(padding, n), _tup(dilation, n)
            self._op_name = op_name
            self._kwargs = {"kernel": tuple(kernel_size), "stride": strides, "dilate": dilation,
                            "pad": padding, "num_filter": channels, "num_group": groups,
                            "no_bias": not use_bias, "layout": layout}
            if adj is not None:
                self._kwargs["adj"] = adj
            self.weight = self.params.get(
                "weight", shape=_weight_shape(op_name, channels, in_channels, kernel_size, groups,
                                              layout),
                init=weight_initializer, allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(channels,), init=bias_initializer,
                                            allow_deferred_init=True)
            else:
                self.bias = None
            self.act = (Activation(activation, prefix=activation + "_")
                        if activation is not None else None)

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op_name)
        if bias is None:
            act = op(x, weight, name="fwd", **self._kwargs)
        else:
            act = op(x, weight, bias, name="fwd", **self._kwargs)
        if self.act is not None:
            act = self.act(act)
        return act

    def _alias(self):
        return "conv"

    def __repr__(self):
        k = self._kwargs
        n = len(k["kernel"])
        s = f"{self.__class__.__name__}({{mapping}}, kernel_size={k['kernel']}, stride={k['stride']}"
        if k["pad"] != (0,) * n:
            s += f", padding={k['pad']}"
        if k["dilate"] != (1,) * n:
            s += f", dilation={k['dilate']}"
        if k["num_group"] != 1:
            s += f", groups={k['num_group']}"
        if self.bias is None:
            s += ", bias=False"
        if self.act:
            s += f", {self.act}"
        s += ")"
        shape = self.weight.shape
        return s.format(mapping="{0} -> {1}".format(shape[1] if shape[1] else None, shape[0]))


def _conv_class(name, nd, layouts, transpose):
    default_layout = layouts[0]

    def __init__(self, channels, kernel_size, strides=1, padding=0, *args, **kwargs):
        names = (["output_padding"] if transpose else []) + ["dilation", "groups", "layout",
                                                             "activation", "use_bias",
                                                             "weight_initializer",
                                                             "bias_initializer", "in_channels"]
        defaults = ([0] if transpose else []) + [1, 1, default_layout, None, True, None, "zeros", 0]
        opts = dict(zip(names, defaults))
        for nm, v in zip(names, args):
            opts[nm] = v
        for nm in list(kwargs):
            if nm in opts:
                opts[nm] = kwargs.pop(nm)
        layout = opts["layout"]
        if len(layouts) == 1:
            assert layout == layouts[0], f"Only supports '{layouts[0]}' layout for now"
        else:
            assert layout in layouts, \
                f"Only supports {' and '.join(repr(x) for x in layouts)} layout for now"
        kernel_size = _tup(kernel_size, nd)
        assert len(kernel_size) == nd, \
            f"kernel_size must be a number or a list of {nd} ints"
        adj = None
        if transpose:
            adj = _tup(opts["output_padding"], nd)
            assert len(adj) == nd, f"output_padding must be a number or a list of {nd} ints"
        op_name = kwargs.pop("op_name", "Deconvolution" if transpose else "Convolution")
        _Conv.__init__(self, channels, kernel_size, strides, padding, opts["dilation"],
                       opts["groups"], layout, opts["in_channels"], opts["activation"],
                       opts["use_bias"], opts["weight_initializer"], opts["bias_initializer"],
                       op_name=op_name, adj=adj, **kwargs)
        if transpose:
            self.outpad = adj

    return type(name, (_Conv,), {"__init__": __init__, "__doc__":
                                 f"{nd}-D {'transposed ' if transpose else ''}convolution."})


Conv1D = _conv_class("Conv1D", 1, ("NCW",), False)
Conv2D = _conv_class("Conv2D", 2, ("NCHW", "NHWC"), False)
Conv3D = _conv_class("Conv3D", 3, ("NCDHW", "NDHWC"), False)
Conv1DTranspose = _conv_class("Conv1DTranspose", 1, ("NCW",), True)
Conv2DTranspose = _conv_class("Conv2DTranspose", 2, ("NCHW", "NHWC"), True)
Conv3DTranspose = _conv_class("Conv3DTranspose", 3, ("NCDHW", "NDHWC"), True)


class _Pooling(HybridBlock):
    """Pooling; every pooling layer is named ``pool<k>_``."""

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type, layout,
                 count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        if strides is None:
            strides = pool_size
        strides = _tup(strides, len(pool_size))
        padding = _tup(padding, len(pool_size))
        self._kwargs = {"kernel": tuple(pool_size), "stride": strides, "pad": padding,
                        "global_pool": global_pool, "pool_type": pool_type, "layout": layout,
                        "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name="fwd", **self._kwargs)

    def __repr__(self):
        k = self._kwargs
        return (f"{self.__class__.__name__}(size={k['kernel']}, stride={k['stride']}, "
                f"padding={k['pad']}, ceil_mode={k['pooling_convention'] == 'full'}, "
                f"global_pool={k['global_pool']}, pool_type={k['pool_type']}, "
                f"layout={k['layout']})")


_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _pool_class(name, nd, pool_type):
    layouts = _LAYOUTS[nd]
    avg = pool_type == "avg"

    def __init__(self, pool_size=(2,) * nd if nd > 1 else 2, strides=None, padding=0,
                 *args, **kwargs):
        # positional order differs between MXNet's 1-D (layout, ceil_mode) and 2/3-D
        # (ceil_mode, layout) constructors for max pooling; keywords are the common use
        names = ["layout", "ceil_mode"] if nd == 1 or (nd == 2 and not avg) else \
            ["ceil_mode", "layout"]
        if avg:
            names.append("count_include_pad")
        opts = {"layout": layouts[0], "ceil_mode": False, "count_include_pad": True}
        for nm, v in zip(names, args):
            opts[nm] = v
        for nm in list(kwargs):
            if nm in opts:
                opts[nm] = kwargs.pop(nm)
        assert opts["layout"] in layouts, \
            f"Only {' and '.join(layouts)} layouts are valid for {nd}D Pooling"
        pool_size = _tup(pool_size, nd)
        assert len(pool_size) == nd, f"pool_size must be a number or a list of {nd} ints"
        _Pooling.__init__(self, pool_size, strides, padding, opts["ceil_mode"], False, pool_type,
                          opts["layout"], opts["count_include_pad"] if avg else None, **kwargs)

    return type(name, (_Pooling,), {"__init__": __init__,
                                    "__doc__": f"{nd}-D {pool_type} pooling."})


def _global_pool_class(name, nd, pool_type):
    layouts = _LAYOUTS[nd]

    def __init__(self, layout=layouts[0], **kwargs):
        assert layout in layouts, f"Only {' and '.join(layouts)} layouts are valid for {nd}D Pooling"
        _Pooling.__init__(self, (1,) * nd, None, 0, True, True, pool_type, layout, **kwargs)

    return type(name, (_Pooling,), {"__init__": __init__,
                                    "__doc__": f"Global {nd}-D {pool_type} pooling."})


MaxPool1D, MaxPool2D, MaxPool3D = (_pool_class(f"MaxPool{n}D", n, "max") for n in (1, 2, 3))
AvgPool1D, AvgPool2D, AvgPool3D = (_pool_class(f"AvgPool{n}D", n, "avg") for n in (1, 2, 3))
GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D = (
    _global_pool_class(f"GlobalMaxPool{n}D", n, "max") for n in (1, 2, 3))
GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D = (
    _global_pool_class(f"GlobalAvgPool{n}D", n, "avg") for n in (1, 2, 3))


class ReflectionPad2D(HybridBlock):
    """Pads H and W by reflection (``padding`` a number or the 8-tuple of ``pad``)."""

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, _NUM):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        assert len(padding) == 8
        self._padding = padding

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)
