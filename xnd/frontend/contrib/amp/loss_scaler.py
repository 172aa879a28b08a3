"""``LossScaler``: AMP's dynamic loss scale (MXNet 1.9.1's rule).

The scale starts at 2**16.  Each ``has_overflow`` call (one per optimizer step) checks the
gradients: an inf or nan halves the scale for the next step (and the step is skipped by
the caller); after ``_scale_seq_len`` (2000) steps in a row without overflow the scale
doubles, up to 2**24.  A new scale takes effect at the following call, as in MXNet."""
import logging

import jax
import jax.numpy as jnp
# names MXNet's module holds by importing them (its users import them from here)
from ...ndarray import multi_all_finite  # noqa: E402,F401
from ... import ndarray as nd  # noqa: E402,F401
from .... import autograd as ag  # noqa: E402,F401

__all__ = ["LossScaler"]


@jax.jit
def _all_finite(grads):
    ok = jnp.bool_(True)
    for g in grads:
        ok = ok & jnp.all(jnp.isfinite(g))
    return ok


class LossScaler:
    """Dynamic loss scaler for AMP; ``loss_scale`` is the current scale."""

    def __init__(self):
        self._loss_scale = 2.0 ** 16
        self._next_loss_scale = self._loss_scale
        self._max_loss_scale = 2.0 ** 24
        self._scale_seq_len = 2000
        self._unskipped = 0

    @property
    def loss_scale(self):
        return self._loss_scale

    def has_overflow(self, params):
        """Whether any gradient of the Gluon Parameters `params` is not finite; moves the
        scale as described above."""
        grads = [g._val() for p in params if p._grad is not None for g in p.list_grad()]
        overflow = not bool(_all_finite(grads)) if grads else False
        self._loss_scale = self._next_loss_scale
        if overflow:
            self._next_loss_scale = self._loss_scale / 2.0
            self._unskipped = 0
            logging.info("AMP: decreasing loss scale to %f", self._next_loss_scale)
        else:
            self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._unskipped = 0
            self._next_loss_scale = min(self._max_loss_scale, self._loss_scale * 2.0)
            logging.info("AMP: increasing loss scale to %f", self._next_loss_scale)
        return overflow
