"""mx.optimizer.contrib: GroupAdaGrad (MXNet's optimizer/contrib.py), AdaGrad with one
learning rate per row of a 2-D weight, as MXNet's Python rule computes it."""
import jax.numpy as jnp

from ._adaptive import _SquaredHistory
from ._base import register
# names MXNet's module holds by importing them (its users import them from here)
from ...ndarray import NDArray  # noqa: E402,F401
from ..ndarray import clip, contrib, mean, sqrt, square, zeros  # noqa: E402,F401
from ._base import Optimizer  # noqa: E402,F401

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(_SquaredHistory):
    """AdaGrad with one learning rate per row of a 2-D weight (mx.optimizer.contrib)::

        g = clip(grad * rescale_grad);  history += mean(g**2, axis=1, keepdims=True)
        weight -= lr * g / sqrt(history + eps)
    """

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(eps, **kwargs)

    @staticmethod
    def _history_shape(shape):
        assert len(shape) == 2
        return (shape[0], 1)

    @staticmethod
    def _square(g):
        return jnp.mean(jnp.square(g), axis=1, keepdims=True)

    def _extra(self, index, lr, wd):
        assert wd == 0, "Weight decay is not supported for GroupAdaGrad"
        return {}

    def _rule(self, w, g, s, lr, wd, ex):
        g, hist, eps = self._history(g, s, ex)
        return w - lr * g / jnp.sqrt(hist + eps), hist
