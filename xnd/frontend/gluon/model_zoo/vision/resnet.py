"""ResNet V1 (He et al. 2015) and V2 (pre-activation, He et al. 2016)."""
from ... import nn
from ...block import HybridBlock
from ._common import DEFAULT_ROOT, Head, default_ctx, load_pretrained
# names MXNet's module holds by importing them (its users import them from here)
from .....context import cpu  # noqa: E402,F401
from ....util import is_np_array  # noqa: E402,F401
from ..... import base  # noqa: E402,F401

__all__ = ["ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1",
           "BottleneckV2", "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1",
           "resnet152_v1", "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2",
           "resnet152_v2", "get_resnet"]


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False,
                     in_channels=in_channels)


def _shortcut_v1(channels, stride, in_channels):
    seq = nn.HybridSequential(prefix="")
    seq.add(nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                      in_channels=in_channels), nn.BatchNorm())
    return seq


class _ResidualV1(HybridBlock):
    """A post-activation block: ``relu(body(x) + shortcut(x))``; the subclass names the
    body's layers (``_layers``, made inside ``body``'s scope) and the order of the sum."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(*self._layers(channels, stride, in_channels))
        self.downsample = _shortcut_v1(channels, stride, in_channels) if downsample else None

    def hybrid_forward(self, F, x):
        residual = self.downsample(x) if self.downsample else x
        return F.Activation(self._combine(residual, self.body(x)), act_type="relu")


class BasicBlockV1(_ResidualV1):
    """Two 3x3 convolutions (ResNet-18/34), post-activation."""

    @staticmethod
    def _layers(channels, stride, in_channels):
        return (_conv3x3(channels, stride, in_channels), nn.BatchNorm(), nn.Activation("relu"),
                _conv3x3(channels, 1, channels), nn.BatchNorm())

    @staticmethod
    def _combine(residual, x):
        return residual + x


class BottleneckV1(_ResidualV1):
    """1x1 / 3x3 / 1x1 bottleneck (ResNet-50/101/152), post-activation."""

    @staticmethod
    def _layers(channels, stride, in_channels):
        mid = channels // 4
        return (nn.Conv2D(mid, kernel_size=1, strides=stride), nn.BatchNorm(),
                nn.Activation("relu"), _conv3x3(mid, 1, mid), nn.BatchNorm(),
                nn.Activation("relu"), nn.Conv2D(channels, kernel_size=1, strides=1),
                nn.BatchNorm())

    @staticmethod
    def _combine(residual, x):
        return x + residual


class _ResidualV2(HybridBlock):
    """A pre-activation block of ``_depth`` (bn_k, conv_k) pairs: relu(bn1(x)) feeds the
    shortcut (when it downsamples) and conv1; each conv_k's output goes through
    relu(bn_{k+1}); the last conv's output plus the shortcut is the block's output."""

    def _shortcut(self, channels, stride, downsample, in_channels):
        self.downsample = nn.Conv2D(channels, 1, stride, use_bias=False,
                                    in_channels=in_channels) if downsample else None

    def hybrid_forward(self, F, x):
        residual = x
        x = F.Activation(self.bn1(x), act_type="relu")
        if self.downsample:
            residual = self.downsample(x)
        for k in range(2, self._depth + 1):
            x = F.Activation(getattr(self, f"bn{k}")(getattr(self, f"conv{k - 1}")(x)),
                             act_type="relu")
        return getattr(self, f"conv{self._depth}")(x) + residual


class BasicBlockV2(_ResidualV2):
    """Pre-activation basic block."""
    _depth = 2

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self._shortcut(channels, stride, downsample, in_channels)


class BottleneckV2(_ResidualV2):
    """Pre-activation bottleneck block."""
    _depth = 3

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        mid = channels // 4
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(mid, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(mid, stride, mid)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self._shortcut(channels, stride, downsample, in_channels)


def _stage(block, layers, channels, stride, stage_index, in_channels):
    stage = nn.HybridSequential(prefix=f"stage{stage_index}_")
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels,
                        prefix=""))
        for _ in range(layers - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=""))
    return stage


def _stem_and_stages(features, block, layers, channels, thumbnail):
    """What ResNet V1 and V2 share: the stem (one 3x3 convolution for thumbnails, else
    7x7/2 convolution, BatchNorm, relu, 3x3/2 max pooling), then one stage per entry of
    `layers` (stride 1 for the first, 2 after)."""
    if thumbnail:
        features.add(_conv3x3(channels[0], 1, 0))
    else:
        features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False),
                     nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(3, 2, 1))
    for i, n in enumerate(layers):
        features.add(_stage(block, n, channels[i + 1], 1 if i == 0 else 2, i + 1, channels[i]))


class _ResNet(Head):
    """ResNet V1 and V2: ``features`` (what comes ``_before`` the stem, the stem and stages,
    what comes ``_after``), then a Dense ``output``."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(channels) - 1
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(*self._before())
            _stem_and_stages(self.features, block, layers, channels, thumbnail)
            self.features.add(*self._after())
            self.output = nn.Dense(classes, in_units=channels[-1])


class ResNetV1(_ResNet):
    """ResNet V1: ``block`` in ``layers`` stages of ``channels``."""

    @staticmethod
    def _before():
        return ()

    @staticmethod
    def _after():
        return (nn.GlobalAvgPool2D(),)


class ResNetV2(_ResNet):
    """ResNet V2 (pre-activation)."""

    @staticmethod
    def _before():
        return (nn.BatchNorm(scale=False, center=False),)

    @staticmethod
    def _after():
        return (nn.BatchNorm(), nn.Activation("relu"), nn.GlobalAvgPool2D(), nn.Flatten())


resnet_spec = {18: ("basic_block", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
               34: ("basic_block", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
               50: ("bottle_neck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
               101: ("bottle_neck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
               152: ("bottle_neck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
resnet_net_versions = [ResNetV1, ResNetV2]
resnet_block_versions = [{"basic_block": BasicBlockV1, "bottle_neck": BottleneckV1},
                         {"basic_block": BasicBlockV2, "bottle_neck": BottleneckV2}]


def get_resnet(version, num_layers, pretrained=False, ctx=None, root=DEFAULT_ROOT, **kwargs):
    """ResNet ``version`` (1, 2) with ``num_layers`` (18, 34, 50, 101, 152)."""
    assert num_layers in resnet_spec, \
        f"Invalid number of layers: {num_layers}. Options are {resnet_spec.keys()}"
    block_type, layers, channels = resnet_spec[num_layers]
    assert 1 <= version <= 2, f"Invalid resnet version: {version}. Options are 1 and 2."
    net = resnet_net_versions[version - 1](resnet_block_versions[version - 1][block_type], layers,
                                           channels, **kwargs)
    return load_pretrained(net, f"resnet{num_layers}_v{version}", pretrained, default_ctx(ctx),
                           root)


def _maker(version, layers):
    def make(**kwargs):
        return get_resnet(version, layers, **kwargs)
    make.__name__ = f"resnet{layers}_v{version}"
    make.__doc__ = f"ResNet-{layers} V{version}."
    return make


resnet18_v1, resnet34_v1, resnet50_v1, resnet101_v1, resnet152_v1 = (
    _maker(1, n) for n in (18, 34, 50, 101, 152))
resnet18_v2, resnet34_v2, resnet50_v2, resnet101_v2, resnet152_v2 = (
    _maker(2, n) for n in (18, 34, 50, 101, 152))
