"""mx.optimizer's SGD family: SGD (and the deprecated ccSGD), NAG, Signum, LARS, DCASGD, SGLD
and LBSGD (MXNet's optimizer/optimizer.py).

SGD, NAG, Signum and LARS call MXNet's update operators (``sgd_update``, ``sgd_mom_update``,
``nag_mom_update``, ``signsgd_update``, ``signum_update``, ``multi_sum_sq``, ``multi_lars``:
xnd/lowering/optimizer_ops.py and multi_tensor.py); DCASGD and SGLD are MXNet's Python rules.
"""
import math
import os

import jax
import jax.numpy as jnp

from ...base import MXNetError
from ...lowering import multi_tensor as mt
from ...lowering import optimizer_ops as ops
from ...lowering.random import prng
from .. import random as _random
from .optimizer import _F32, Optimizer, _KernelClip, _mom_coef, _Momentum, _py_scalar, \
    _PyClip, _zeros_like, register

__all__ = ["SGD", "ccSGD", "NAG", "Signum", "LARS", "DCASGD", "SGLD", "LBSGD"]


@register
class SGD(_Momentum, _KernelClip, Optimizer):
    """SGD with momentum and weight decay (``sgd_update`` / ``sgd_mom_update``)::

        state = momentum * state - lr * wd * weight - lr * clip(rescale_grad * grad)
        weight = weight + state

    ``lazy_update`` is accepted; xnd has dense gradients only, so it has no effect.
    """
    _static_attrs = ("momentum",)
    _mp_master_first = False
    _batched = True

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.aggregate_num = int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", "4"))

    def _rule(self, w, g, s, lr, wd, ex):
        kw = dict(lr=lr, wd=wd, rescale_grad=ex["rescale_grad"], clip_gradient=self._clip())
        if s is None:
            return ops.sgd_update(w, g, **kw), None
        return ops.sgd_mom_update(w, g, s, momentum=_mom_coef(self.momentum), **kw)


@register
class ccSGD(SGD):
    """[DEPRECATED] Same as SGD."""


@register
class NAG(_Momentum, _KernelClip, Optimizer):
    """Nesterov accelerated SGD (``nag_mom_update``; ``sgd_update`` without momentum)::

        mom = momentum * mom
        weight = weight - mom + (momentum + 1) * (mom - lr * (clip(rescale_grad * grad) + wd * weight))
        mom = mom - lr * (clip(rescale_grad * grad) + wd * weight)   # the updated weight (in place)
    """
    _static_attrs = ("momentum",)
    _mp_master_first = False

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def _rule(self, w, g, s, lr, wd, ex):
        if s is None:
            return SGD._rule(self, w, g, None, lr, wd, ex)
        return ops.nag_mom_update(w, g, s, lr=lr, momentum=_mom_coef(self.momentum), wd=wd,
                                  rescale_grad=ex["rescale_grad"], clip_gradient=self._clip())


@register
class Signum(_Momentum, _KernelClip, Optimizer):
    """Signum / signSGD (``signum_update`` / ``signsgd_update``)::

        state = momentum * state - (1-momentum) * (wd * weight + clip(rescale_grad * grad))
        weight = (1 - lr * wd_lh) * weight + lr * sign(state)

    without momentum: ``weight = (1 - lr * wd) * weight - lr * sign(grad)``.
    """
    _static_attrs = ("momentum", "wd_lh")

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def _rule(self, w, g, s, lr, wd, ex):
        if s is None:
            return ops.signsgd_update(w, g, lr=lr, wd=wd), None
        return ops.signum_update(w, g, s, lr=lr, momentum=_mom_coef(self.momentum), wd=wd,
                                 rescale_grad=ex["rescale_grad"], clip_gradient=self._clip(),
                                 wd_lh=self.wd_lh or 0.0)


@register
class LARS(_Momentum, _KernelClip, Optimizer):
    """LARS: SGD with momentum whose lr is scaled per layer (not bias/gamma/beta)::

        lr_layer = lr * eta * |w| / (|g| * rescale_grad + wd * |w| + eps)   (if |w|, |g| > 0)

    ``momentum_correction`` scales momentum by cur_lr / last_lr as MXNet does.
    """
    _static_attrs = ("momentum", "eta", "eps")
    _mp_master_first = False
    _batched = True

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0,
                 momentum_correction=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.aggregate_num = int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", "4"))
        self.eta = eta
        self.eps = eps
        self.skip = 0
        self.last_lr = None
        self.cur_lr = None

    def _get_lrs(self, indices):
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        if self.cur_lr is None:
            self.last_lr = lr
        self.cur_lr = lr
        return [lr * self._mult(i, self.lr_mult, "lr_mult") for i in indices]

    def _wd_mult_default(self, name):
        return name.endswith("_weight")

    def _extra(self, index, lr, wd):
        name = self.idx2name.get(index, str(index))
        skip = name.endswith("gamma") or name.endswith("beta") or name.endswith("bias")
        mom = 0.0
        if self.momentum > 0:
            mom = self.momentum * (self.cur_lr / self.last_lr) \
                if (self.momentum_correction and self.last_lr != 0) else self.momentum
        return {"lars": 0.0 if skip else 1.0, "momentum": mom}

    def _rule(self, w, g, s, lr, wd, ex):
        # multi_sum_sq + multi_lars in float32, then sgd_mom_update (a zero momentum without
        # state: MXNet's LARS runs the momentum form either way)
        lr32, wd32 = lr.astype(_F32), wd.astype(_F32)
        lars_lr = mt.multi_lars(lr32[None], mt.multi_sum_sq(w, num_arrays=1),
                                mt.multi_sum_sq(g, num_arrays=1), wd32[None], eta=self.eta,
                                eps=self.eps, rescale_grad=ex["rescale_grad"])[0]
        lr = jnp.where(jnp.asarray(ex["lars"]) > 0, lars_lr, lr32).astype(w.dtype)
        new_w, m = ops.sgd_mom_update(w, g, jnp.zeros_like(w) if s is None else s, lr=lr,
                                      momentum=ex["momentum"], wd=wd,
                                      rescale_grad=ex["rescale_grad"],
                                      clip_gradient=self._clip())
        return new_w, (None if s is None else m)


@register
class DCASGD(_PyClip, Optimizer):
    """Delay-compensated asynchronous SGD, state (momentum or None, previous weight)::

        step = -lr * (g + wd * w + lamda * g * g * (w - previous))
        mom = momentum * mom + step  (or step without momentum);  previous = w;  w += mom

    (MXNet 1.9.1 raises for momentum != 0 -- ``if mom:`` on an NDArray; xnd applies the
    documented rule.)
    """
    _python_rule = True
    _static_attrs = ("momentum", "lamda")

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous = {}
        self.lamda = lamda

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return (None, weight.copy())
        return (_zeros_like(weight), weight.copy())

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        mom, prev = s
        g = self._pclip(g * _py_scalar(ex["rescale_grad"], dt), dt)
        upd = -lr * (g + wd * w + _py_scalar(self.lamda, dt) * g * g * (w - prev))
        if mom is not None:
            mom = mom * _py_scalar(self.momentum, dt) + upd
            return w + mom, (mom, w)
        return w + upd, (None, w)


@register
class SGLD(_PyClip, Optimizer):
    """Stochastic gradient Langevin dynamics::

        weight += -lr/2 * (clip(rescale_grad * grad) + wd * weight) + normal(0, sqrt(lr))

    The noise comes from xnd's generator (``mx.random.seed``), not MXNet's stream.
    """
    _python_rule = True

    def _extra(self, index, lr, wd):
        return {"half_lr": -lr / 2, "std": math.sqrt(lr), "key": _random.next_key()}

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        g = self._pclip(g * _py_scalar(ex["rescale_grad"], dt), dt)
        w = w + _py_scalar(ex["half_lr"], dt) * (g + wd * w)
        noise = jax.random.normal(prng(ex["key"]), w.shape, _F32) * \
            jnp.asarray(ex["std"], _F32)
        return w + noise.astype(dt), None


@register
class LBSGD(Optimizer):
    """Large-batch SGD with warmup/LARS strategies: not implemented in xnd."""

    def __init__(self, *args, **kwargs):
        raise MXNetError("mx.optimizer.LBSGD is not implemented in xnd; use SGD with an "
                         "lr_scheduler (warmup_steps) or LARS")
