"""MobileNet V1 (Howard et al. 2017) and V2 (Sandler et al. 2018)."""
from ... import nn
from ...block import HybridBlock
from ._common import DEFAULT_ROOT, Head, default_ctx, load_pretrained
# names MXNet's module holds by importing them (its users import them from here)
from .....context import cpu  # noqa: E402,F401
from ..... import base  # noqa: E402,F401

__all__ = ["MobileNet", "MobileNetV2", "mobilenet1_0", "mobilenet_v2_1_0", "mobilenet0_75",
           "mobilenet_v2_0_75", "mobilenet0_5", "mobilenet_v2_0_5", "mobilenet0_25",
           "mobilenet_v2_0_25", "get_mobilenet", "get_mobilenet_v2"]


class RELU6(HybridBlock):
    """min(max(x, 0), 6)."""

    def hybrid_forward(self, F, x):
        return F.clip(x, a_min=0, a_max=6, name="relu6")


def _add_conv(out, channels=1, kernel=1, stride=1, pad=0, num_group=1, active=True,
              relu6=False):
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False))
    out.add(nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6() if relu6 else nn.Activation("relu"))


def _add_conv_dw(out, dw_channels, channels, stride, relu6=False):
    _add_conv(out, channels=dw_channels, kernel=3, stride=stride, pad=1, num_group=dw_channels,
              relu6=relu6)
    _add_conv(out, channels=channels, relu6=relu6)


class LinearBottleneck(HybridBlock):
    """Inverted residual: expand (1x1), depthwise 3x3, project (1x1, linear)."""

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()
            _add_conv(self.out, in_channels * t, relu6=True)
            _add_conv(self.out, in_channels * t, kernel=3, stride=stride, pad=1,
                      num_group=in_channels * t, relu6=True)
            _add_conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        return F.elemwise_add(out, x) if self.use_shortcut else out


class MobileNet(Head):
    """MobileNet V1 with width ``multiplier``."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                _add_conv(self.features, channels=int(32 * multiplier), kernel=3, pad=1, stride=2)
                dw = [32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024]
                ch = [64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2
                strides = [1, 2] * 3 + [1] * 5 + [2, 1]
                for d, c, s in zip(dw, ch, strides):
                    _add_conv_dw(self.features, dw_channels=int(d * multiplier),
                                 channels=int(c * multiplier), stride=s)
                self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)


class MobileNetV2(Head):
    """MobileNet V2 with width ``multiplier``."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="features_")
            with self.features.name_scope():
                _add_conv(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1,
                          relu6=True)
                in_c = [32] + [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3
                out_c = [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3 + [320]
                ts = [1] + [6] * 16
                strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
                for i, c, t, s in zip(in_c, out_c, ts, strides):
                    self.features.add(LinearBottleneck(in_channels=int(i * multiplier),
                                                       channels=int(c * multiplier), t=t,
                                                       stride=s))
                last = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _add_conv(self.features, last, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix="output_")
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix="pred_"),
                                nn.Flatten())


def _suffix(multiplier):
    s = "{0:.2f}".format(multiplier)
    return s[:-1] if s in ("1.00", "0.50") else s


def get_mobilenet(multiplier, pretrained=False, ctx=None, root=DEFAULT_ROOT, **kwargs):
    """MobileNet V1 with width ``multiplier``."""
    return load_pretrained(MobileNet(multiplier, **kwargs), f"mobilenet{_suffix(multiplier)}",
                           pretrained, default_ctx(ctx), root)


def get_mobilenet_v2(multiplier, pretrained=False, ctx=None, root=DEFAULT_ROOT, **kwargs):
    """MobileNet V2 with width ``multiplier``."""
    return load_pretrained(MobileNetV2(multiplier, **kwargs),
                           f"mobilenetv2_{_suffix(multiplier)}", pretrained, default_ctx(ctx),
                           root)


def _maker(getter, m, name):
    def make(**kwargs):
        return getter(m, **kwargs)
    make.__name__ = name
    make.__doc__ = f"{name} (width multiplier {m})."
    return make


mobilenet1_0 = _maker(get_mobilenet, 1.0, "mobilenet1_0")
mobilenet0_75 = _maker(get_mobilenet, 0.75, "mobilenet0_75")
mobilenet0_5 = _maker(get_mobilenet, 0.5, "mobilenet0_5")
mobilenet0_25 = _maker(get_mobilenet, 0.25, "mobilenet0_25")
mobilenet_v2_1_0 = _maker(get_mobilenet_v2, 1.0, "mobilenet_v2_1_0")
mobilenet_v2_0_75 = _maker(get_mobilenet_v2, 0.75, "mobilenet_v2_0_75")
mobilenet_v2_0_5 = _maker(get_mobilenet_v2, 0.5, "mobilenet_v2_0_5")
mobilenet_v2_0_25 = _maker(get_mobilenet_v2, 0.25, "mobilenet_v2_0_25")
