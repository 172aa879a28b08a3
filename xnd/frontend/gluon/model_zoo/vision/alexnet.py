"""AlexNet (Krizhevsky et al. 2012), one-GPU variant."""
from ... import nn
from ._common import DEFAULT_ROOT, Head, default_ctx, load_pretrained
# names MXNet's module holds by importing them (its users import them from here)
from .....context import cpu  # noqa: E402,F401
from ...nn import HybridBlock  # noqa: E402,F401
from ..... import base  # noqa: E402,F401

__all__ = ["AlexNet", "alexnet"]


class AlexNet(Head):
    """AlexNet: 5 convolutions, 3 pooling layers, 2 hidden dense layers."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                for channels, k, s, p in ((64, 11, 4, 2), (192, 5, 1, 2)):
                    self.features.add(nn.Conv2D(channels, kernel_size=k, strides=s, padding=p,
                                                activation="relu"))
                    self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                for channels in (384, 256, 256):
                    self.features.add(nn.Conv2D(channels, kernel_size=3, padding=1,
                                                activation="relu"))
                self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(nn.Flatten())
                for _ in range(2):
                    self.features.add(nn.Dense(4096, activation="relu"))
                    self.features.add(nn.Dropout(0.5))
            self.output = nn.Dense(classes)


def alexnet(pretrained=False, ctx=None, root=DEFAULT_ROOT, **kwargs):
    """AlexNet."""
    return load_pretrained(AlexNet(**kwargs), "alexnet", pretrained, default_ctx(ctx), root)
