"""SqueezeNet 1.0 / 1.1 (Iandola et al. 2016)."""
from ... import nn
from ...nn.basic_layers import HybridConcurrent
from ._common import DEFAULT_ROOT, Head, default_ctx, load_pretrained
# names MXNet's module holds by importing them (its users import them from here)
from .....context import cpu  # noqa: E402,F401
from ...nn import HybridBlock  # noqa: E402,F401
from ..... import base  # noqa: E402,F401

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1", "get_squeezenet"]


def _fire_conv(channels, kernel_size, padding=0):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(channels, kernel_size, padding=padding), nn.Activation("relu"))
    return out


def _fire(squeeze, expand1x1, expand3x3):
    out = nn.HybridSequential(prefix="")
    out.add(_fire_conv(squeeze, 1))
    paths = HybridConcurrent(axis=1, prefix="")
    paths.add(_fire_conv(expand1x1, 1), _fire_conv(expand3x3, 3, 1))
    out.add(paths)
    return out


def _pool():
    return nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)


# stem (channels, kernel) and the body: "P" = pooling, tuples = fire modules
_SPECS = {
    "1.0": ((96, 7), ["P", (16, 64, 64), (16, 64, 64), (32, 128, 128), "P", (32, 128, 128),
                      (48, 192, 192), (48, 192, 192), (64, 256, 256), "P", (64, 256, 256)]),
    "1.1": ((64, 3), ["P", (16, 64, 64), (16, 64, 64), "P", (32, 128, 128), (32, 128, 128), "P",
                      (48, 192, 192), (48, 192, 192), (64, 256, 256), (64, 256, 256)]),
}


class SqueezeNet(Head):
    """SqueezeNet ``version`` '1.0' or '1.1'."""

    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        assert version in ("1.0", "1.1"), \
            f"Unsupported SqueezeNet version {version}:1.0 or 1.1 expected"
        (stem_c, stem_k), body = _SPECS[version]
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(stem_c, kernel_size=stem_k, strides=2),
                              nn.Activation("relu"))
            for item in body:
                self.features.add(_pool() if item == "P" else _fire(*item))
            self.features.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix="")
            self.output.add(nn.Conv2D(classes, kernel_size=1), nn.Activation("relu"),
                            nn.AvgPool2D(13), nn.Flatten())


def get_squeezenet(version, pretrained=False, ctx=None, root=DEFAULT_ROOT, **kwargs):
    """SqueezeNet ``version``."""
    return load_pretrained(SqueezeNet(version, **kwargs), f"squeezenet{version}", pretrained,
                           default_ctx(ctx), root)


def squeezenet1_0(**kwargs):
    """SqueezeNet 1.0."""
    return get_squeezenet("1.0", **kwargs)


def squeezenet1_1(**kwargs):
    """SqueezeNet 1.1."""
    return get_squeezenet("1.1", **kwargs)
