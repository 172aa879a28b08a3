"""mx.optimizer.contrib: GroupAdaGrad (MXNet's optimizer/contrib.py), AdaGrad with one
learning rate per row of a 2-D weight, as MXNet's Python rule computes it."""
import jax.numpy as jnp

from .. import ndarray as nd
from .optimizer import Optimizer, _py_scalar, _PyClip, register

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(_PyClip, Optimizer):
    """AdaGrad with one learning rate per row of a 2-D weight (mx.optimizer.contrib)::

        g = clip(grad * rescale_grad);  history += mean(g**2, axis=1, keepdims=True)
        weight -= lr * g / sqrt(history + eps)
    """
    _python_rule = True
    _static_attrs = ("float_stable_eps",)

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        assert len(weight.shape) == 2
        return nd.zeros((weight.shape[0], 1), weight.context)

    def _extra(self, index, lr, wd):
        assert wd == 0, "Weight decay is not supported for GroupAdaGrad"
        return {}

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        g = self._pclip(g * _py_scalar(ex["rescale_grad"], dt), dt)
        hist = s + jnp.mean(jnp.square(g), axis=1, keepdims=True).astype(s.dtype)
        return w - lr * g / jnp.sqrt(hist + _py_scalar(self.float_stable_eps, hist.dtype)), hist
