"""VGG (Simonyan & Zisserman 2014), with or without BatchNorm."""
from ... import nn
from ._common import DEFAULT_ROOT, Head, default_ctx, load_pretrained
# names MXNet's module holds by importing them (its users import them from here)
from .....context import cpu  # noqa: E402,F401
from ....initializer import Xavier  # noqa: E402,F401
from ...nn import HybridBlock  # noqa: E402,F401
from ..... import base  # noqa: E402,F401

__all__ = ["VGG", "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn",
           "vgg19_bn", "get_vgg"]


class VGG(Head):
    """VGG: ``layers[i]`` 3x3 convolutions of ``filters[i]`` channels per stage."""

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(filters)
        from .... import initializer
        conv_init = initializer.Xavier(rnd_type="gaussian", factor_type="out", magnitude=2)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            for n, f in zip(layers, filters):
                for _ in range(n):
                    self.features.add(nn.Conv2D(f, kernel_size=3, padding=1,
                                                weight_initializer=conv_init,
                                                bias_initializer="zeros"))
                    if batch_norm:
                        self.features.add(nn.BatchNorm())
                    self.features.add(nn.Activation("relu"))
                self.features.add(nn.MaxPool2D(strides=2))
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation="relu", weight_initializer="normal",
                                           bias_initializer="zeros"))
                self.features.add(nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer="normal", bias_initializer="zeros")


vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
            13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
            19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


def get_vgg(num_layers, pretrained=False, ctx=None, root=DEFAULT_ROOT, **kwargs):
    """VGG-``num_layers`` (11, 13, 16, 19)."""
    layers, filters = vgg_spec[num_layers]
    net = VGG(layers, filters, **kwargs)
    suffix = "_bn" if kwargs.get("batch_norm") else ""
    return load_pretrained(net, f"vgg{num_layers}{suffix}", pretrained, default_ctx(ctx), root)


def _maker(n, bn):
    def make(**kwargs):
        if bn:
            kwargs["batch_norm"] = True
        return get_vgg(n, **kwargs)
    make.__name__ = f"vgg{n}{'_bn' if bn else ''}"
    make.__doc__ = f"VGG-{n}{' with BatchNorm' if bn else ''}."
    return make


vgg11, vgg13, vgg16, vgg19 = (_maker(n, False) for n in (11, 13, 16, 19))
vgg11_bn, vgg13_bn, vgg16_bn, vgg19_bn = (_maker(n, True) for n in (11, 13, 16, 19))
