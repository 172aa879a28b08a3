"""DenseNet (Huang et al. 2016)."""
from ... import nn
from ...nn.basic_layers import HybridConcurrent, Identity
from ._common import DEFAULT_ROOT, Head, default_ctx, load_pretrained
# names MXNet's module holds by importing them (its users import them from here)
from .....context import cpu  # noqa: E402,F401
from ...nn import HybridBlock  # noqa: E402,F401
from ..... import base  # noqa: E402,F401

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201"]


def _bn_relu_conv(seq, channels, kernel_size, padding=0):
    seq.add(nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(channels, kernel_size=kernel_size, padding=padding, use_bias=False))


def _dense_layer(growth_rate, bn_size, dropout):
    new_features = nn.HybridSequential(prefix="")
    _bn_relu_conv(new_features, bn_size * growth_rate, 1)
    _bn_relu_conv(new_features, growth_rate, 3, 1)
    if dropout:
        new_features.add(nn.Dropout(dropout))
    out = HybridConcurrent(axis=1, prefix="")
    out.add(Identity(), new_features)
    return out


def _dense_block(num_layers, bn_size, growth_rate, dropout, stage_index):
    out = nn.HybridSequential(prefix=f"stage{stage_index}_")
    with out.name_scope():
        for _ in range(num_layers):
            out.add(_dense_layer(growth_rate, bn_size, dropout))
    return out


def _transition(num_output_features):
    out = nn.HybridSequential(prefix="")
    _bn_relu_conv(out, num_output_features, 1)
    out.add(nn.AvgPool2D(pool_size=2, strides=2))
    return out


class DenseNet(Head):
    """DenseNet with ``block_config`` dense layers per stage."""

    def __init__(self, num_init_features, growth_rate, block_config, bn_size=4, dropout=0,
                 classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2, padding=3,
                                        use_bias=False),
                              nn.BatchNorm(), nn.Activation("relu"),
                              nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            num_features = num_init_features
            for i, num_layers in enumerate(block_config):
                self.features.add(_dense_block(num_layers, bn_size, growth_rate, dropout, i + 1))
                num_features += num_layers * growth_rate
                if i != len(block_config) - 1:
                    self.features.add(_transition(num_features // 2))
                    num_features //= 2
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.AvgPool2D(pool_size=7),
                              nn.Flatten())
            self.output = nn.Dense(classes)


densenet_spec = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
                 169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32])}


def get_densenet(num_layers, pretrained=False, ctx=None, root=DEFAULT_ROOT, **kwargs):
    """DenseNet-``num_layers`` (121, 161, 169, 201)."""
    init, growth, config = densenet_spec[num_layers]
    return load_pretrained(DenseNet(init, growth, config, **kwargs), f"densenet{num_layers}",
                           pretrained, default_ctx(ctx), root)


def _maker(n):
    def make(**kwargs):
        return get_densenet(n, **kwargs)
    make.__name__ = f"densenet{n}"
    make.__doc__ = f"DenseNet-{n}."
    return make


densenet121, densenet161, densenet169, densenet201 = (_maker(n) for n in (121, 161, 169, 201))
