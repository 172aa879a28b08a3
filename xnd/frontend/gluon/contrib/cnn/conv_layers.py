"""mx.gluon.contrib.cnn.conv_layers: DeformableConvolution (v1) and
ModulatedDeformableConvolution (v2), as MXNet 1.9.1 builds them: a plain Convolution
predicts the offsets (and, for v2, 2*sigmoid masks) from the input, and the contrib
operator convolves at the shifted positions. Parameter names, shapes, initializers and
creation order are MXNet's."""
from .....base import numeric_types
from ...block import HybridBlock
from ...nn.activations import Activation
# names MXNet's module holds by importing them (its users import them from here)
from ..... import symbol  # noqa: E402,F401


def _tuple(v, n):
    return (v,) * n if isinstance(v, numeric_types) else tuple(v)


class _Deformable(HybridBlock):
    _op = None
    _offset_per_point = 2  # offsets (y, x) per kernel point; the modulated form adds a mask

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, num_deformable_group=1, layout="NCHW", use_bias=True,
                 in_channels=0, activation=None, weight_initializer=None,
                 bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias=True, op_name=None, adj=None,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        if layout not in ("NCHW", "NHWC"):
            raise AssertionError("Only supports 'NCHW' and 'NHWC' layout for now")
        kernel_size = _tuple(kernel_size, 2)
        strides, padding, dilation = (_tuple(v, len(kernel_size)) for v in (strides, padding, dilation))
        self._channels, self._in_channels = channels, in_channels
        points = kernel_size[0] * kernel_size[1] * num_deformable_group
        self.offset_split_index = 2 * points
        common = {"kernel": kernel_size, "stride": strides, "dilate": dilation, "pad": padding,
                  "num_group": groups, "layout": layout}
        self._kwargs_offset = dict(common, num_filter=self._offset_per_point * points,
                                   no_bias=not offset_use_bias)
        self._kwargs_deformable_conv = dict(common, num_filter=channels,
                                            num_deformable_group=num_deformable_group,
                                            no_bias=not use_bias)
        if adj:
            self._kwargs_offset["adj"] = self._kwargs_deformable_conv["adj"] = adj
        with self.name_scope():
            # the offset convolution's weight and bias shapes (0: input channels unknown yet)
            n_off = self._kwargs_offset["num_filter"]
            oshapes = [None, (n_off, in_channels // groups if in_channels else 0) + kernel_size,
                       (n_off,)]
            wshape = [channels, 0, kernel_size[0], kernel_size[1]]

            def conv_params():
                self.deformable_conv_weight = self.params.get(
                    "deformable_conv_weight", shape=wshape, init=weight_initializer,
                    allow_deferred_init=True)
                self.deformable_conv_bias = self.params.get(
                    "deformable_conv_bias", shape=(channels,), init=bias_initializer,
                    allow_deferred_init=True) if use_bias else None

            def offset_params():
                self.offset_weight = self.params.get("offset_weight", shape=oshapes[1],
                                                     init=offset_weight_initializer,
                                                     allow_deferred_init=True)
                self.offset_bias = self.params.get(
                    "offset_bias", shape=oshapes[2], init=offset_bias_initializer,
                    allow_deferred_init=True) if offset_use_bias else None

            # MXNet creates v1's offset parameters first and v2's convolution ones first
            for make in self._param_order(conv_params, offset_params):
                make()
            self.act = Activation(activation, prefix=activation + "_") if activation else None

    def _offsets(self, F, x, offset_weight, offset_bias):
        if offset_bias is None:
            return F.Convolution(x, offset_weight, cudnn_off=True, **self._kwargs_offset)
        return F.Convolution(x, offset_weight, offset_bias, cudnn_off=True, **self._kwargs_offset)

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        inputs = self._op_inputs(F, offset)
        if deformable_conv_bias is not None:
            inputs["bias"] = deformable_conv_bias
        out = getattr(F.contrib, self._op)(data=x, weight=deformable_conv_weight, name="fwd",
                                           **inputs, **self._kwargs_deformable_conv)
        return self.act(out) if self.act else out

    def __repr__(self):
        return f"{self.__class__.__name__}({self._in_channels or None} -> {self._channels}, " \
               f"kernel_size={self._kwargs_deformable_conv['kernel']})"


class DeformableConvolution(_Deformable):
    """2-D deformable convolution (Dai et al. 2017): offsets from a zero-initialized
    Convolution, then contrib.DeformableConvolution."""
    _op = "DeformableConvolution"

    @staticmethod
    def _param_order(conv, offset):
        return offset, conv

    def _op_inputs(self, F, offset):
        return {"offset": offset}

    def _alias(self):
        return "deformable_conv"


class ModulatedDeformableConvolution(_Deformable):
    """2-D modulated deformable convolution (DCNv2): the offset convolution predicts
    offsets and masks; masks are 2*sigmoid of their channels."""
    _op = "ModulatedDeformableConvolution"
    _offset_per_point = 3

    @staticmethod
    def _param_order(conv, offset):
        return conv, offset

    def _op_inputs(self, F, offset):
        k = self.offset_split_index
        mask = F.sigmoid(F.slice_axis(offset, axis=1, begin=k, end=None)) * 2
        return {"offset": F.slice_axis(offset, axis=1, begin=0, end=k), "mask": mask}

    def _alias(self):
        return "modulated_deformable_conv"
