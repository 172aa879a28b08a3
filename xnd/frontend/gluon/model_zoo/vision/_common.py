"""Shared helpers of the model-zoo architectures."""
import os

from ...block import HybridBlock
from ..model_store import data_dir, get_model_file

DEFAULT_ROOT = os.path.join(data_dir(), "models")


def load_pretrained(net, name, pretrained, ctx, root):
    """``pretrained=True``: load MXNet's parameter file ``name`` from ``root``."""
    if pretrained:
        net.load_parameters(get_model_file(name, root=root), ctx=ctx)
    return net


def default_ctx(ctx):
    if ctx is None:
        from .....context import cpu
        return cpu()
    return ctx


class Head(HybridBlock):
    """features -> output, the common top-level shape of the zoo's networks."""

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))
