"""Inception V3 (Szegedy et al. 2015)."""
from ... import nn
from ...nn.basic_layers import HybridConcurrent
from ._common import DEFAULT_ROOT, Head, default_ctx, load_pretrained
# names MXNet's module holds by importing them (its users import them from here)
from .....context import cpu  # noqa: E402,F401
from ...nn import HybridBlock  # noqa: E402,F401
from ..... import base  # noqa: E402,F401

__all__ = ["Inception3", "inception_v3"]


def _basic_conv(**kwargs):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(use_bias=False, **kwargs), nn.BatchNorm(epsilon=0.001),
            nn.Activation("relu"))
    return out


def _branch(pool, *convs):
    """An optional pooling layer then conv-bn-relu units given as (channels, kernel_size,
    strides, padding), None meaning the default."""
    out = nn.HybridSequential(prefix="")
    if pool == "avg":
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif pool == "max":
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    for setting in convs:
        kwargs = {k: v for k, v in zip(("channels", "kernel_size", "strides", "padding"), setting)
                  if v is not None}
        out.add(_basic_conv(**kwargs))
    return out


def _concurrent(prefix, *branches):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        for b in branches:
            out.add(b() if callable(b) else b)
    return out


def _make_A(pool_features, prefix):
    return _concurrent(
        prefix,
        lambda: _branch(None, (64, 1, None, None)),
        lambda: _branch(None, (48, 1, None, None), (64, 5, None, 2)),
        lambda: _branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)),
        lambda: _branch("avg", (pool_features, 1, None, None)))


def _make_B(prefix):
    return _concurrent(
        prefix,
        lambda: _branch(None, (384, 3, 2, None)),
        lambda: _branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)),
        lambda: _branch("max"))


def _make_C(c7, prefix):
    a, b = (1, 7), (7, 1)
    pa, pb = (0, 3), (3, 0)
    return _concurrent(
        prefix,
        lambda: _branch(None, (192, 1, None, None)),
        lambda: _branch(None, (c7, 1, None, None), (c7, a, None, pa), (192, b, None, pb)),
        lambda: _branch(None, (c7, 1, None, None), (c7, b, None, pb), (c7, a, None, pa),
                        (c7, b, None, pb), (192, a, None, pa)),
        lambda: _branch("avg", (192, 1, None, None)))


def _make_D(prefix):
    return _concurrent(
        prefix,
        lambda: _branch(None, (192, 1, None, None), (320, 3, 2, None)),
        lambda: _branch(None, (192, 1, None, None), (192, (1, 7), None, (0, 3)),
                        (192, (7, 1), None, (3, 0)), (192, 3, 2, None)),
        lambda: _branch("max"))


def _split_3x3(first):
    seq = nn.HybridSequential(prefix="")
    seq.add(first)
    split = HybridConcurrent(axis=1, prefix="")
    split.add(_branch(None, (384, (1, 3), None, (0, 1))),
              _branch(None, (384, (3, 1), None, (1, 0))))
    seq.add(split)
    return seq


def _make_E(prefix):
    return _concurrent(
        prefix,
        lambda: _branch(None, (320, 1, None, None)),
        lambda: _split_3x3(_branch(None, (384, 1, None, None))),
        lambda: _split_3x3(_branch(None, (448, 1, None, None), (384, 3, None, 1))),
        lambda: _branch("avg", (192, 1, None, None)))


def make_aux(classes):
    out = nn.HybridSequential(prefix="")
    out.add(nn.AvgPool2D(pool_size=5, strides=3), _basic_conv(channels=128, kernel_size=1),
            _basic_conv(channels=768, kernel_size=5), nn.Flatten(), nn.Dense(classes))
    return out


class Inception3(Head):
    """Inception V3 (input 299x299)."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            f = self.features
            f.add(_basic_conv(channels=32, kernel_size=3, strides=2),
                  _basic_conv(channels=32, kernel_size=3),
                  _basic_conv(channels=64, kernel_size=3, padding=1),
                  nn.MaxPool2D(pool_size=3, strides=2),
                  _basic_conv(channels=80, kernel_size=1),
                  _basic_conv(channels=192, kernel_size=3),
                  nn.MaxPool2D(pool_size=3, strides=2))
            f.add(_make_A(32, "A1_"), _make_A(64, "A2_"), _make_A(64, "A3_"), _make_B("B_"))
            f.add(_make_C(128, "C1_"), _make_C(160, "C2_"), _make_C(160, "C3_"),
                  _make_C(192, "C4_"))
            f.add(_make_D("D_"), _make_E("E1_"), _make_E("E2_"), nn.AvgPool2D(pool_size=8),
                  nn.Dropout(0.5))
            self.output = nn.Dense(classes)


def inception_v3(pretrained=False, ctx=None, root=DEFAULT_ROOT, **kwargs):
    """Inception V3."""
    return load_pretrained(Inception3(**kwargs), "inceptionv3", pretrained, default_ctx(ctx),
                           root)
