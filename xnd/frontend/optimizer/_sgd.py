"""mx.optimizer's SGD family: SGD (and the deprecated ccSGD), NAG, Signum, LARS, DCASGD, SGLD
and LBSGD (MXNet's optimizer/optimizer.py).

SGD, NAG, Signum and LARS call MXNet's update operators (``sgd_update``, ``sgd_mom_update``,
``nag_mom_update``, ``signsgd_update``, ``signum_update``, ``multi_sum_sq``, ``multi_lars``:
xnd/lowering/optimizer_ops.py and multi_tensor.py); DCASGD and SGLD are MXNet's Python rules; LBSGD defines ``update()`` as MXNet's does (it
accumulates gradients on the host), so Trainer and Module run it through the Updater.
"""
import logging
import math
import os

import jax
import jax.numpy as jnp
import numpy as np

from ...lowering import multi_tensor as mt
from ...lowering import optimizer_ops as ops
from ...lowering.random import affine, narrow, normal32, prng
from .. import ndarray as nd
from .. import random as _random
from ._base import _F32, Optimizer, _KernelClip, _mom_coef, _Momentum, _py_scalar, \
    _PyClip, _zeros_like, register

__all__ = ["SGD", "ccSGD", "NAG", "Signum", "LARS", "DCASGD", "SGLD", "LBSGD"]


@register
class SGD(_Momentum, _KernelClip, Optimizer):
    """SGD with momentum and weight decay (``sgd_update`` / ``sgd_mom_update``)::

        state = momentum * state - lr * wd * weight - lr * clip(rescale_grad * grad)
        weight = weight + state

    ``lazy_update`` is accepted; xnd has dense gradients only, so it has no effect.
    """
    _mp_skips_update = True
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
    _mp_skips_update = True
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
    _mp_skips_update = True
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
        # the sampler of nd.random.normal(0, sqrt(lr)): one seed, the same noise as an eager
        # draw (MXNet's test_sgld re-seeds and compares with such a Python SGLD)
        noise = narrow(affine(0.0, ex["std"], normal32(prng(ex["key"]), w.shape)), _F32)
        return w + noise.astype(dt), None


@register
class LBSGD(Optimizer):
    """Large-batch SGD (MXNet's LBSGD): gradients are summed per parameter over
    ``batch_scale`` calls; every ``batch_scale``-th call applies their mean with
    ``sgd_update``/``sgd_mom_update`` at ``lr`` times a warmup multiplier, and the other calls
    leave the weight as it is (MXNet runs ``sgd_update`` with ``lr=0``). The multiplier
    rises from 1 to ``batch_scale`` over ``warmup_epochs * updates_per_epoch`` accumulated
    calls ('linear', 'power2', 'sqrt'; another name: 1), or is 'lars': the layer's
    ``sqrt(|w|^2 / (|g|^2 + wd |w|^2 + 1e-18))`` clipped to [0.01, 100]. The count of
    accumulated calls starts at ``begin_epoch * updates_per_epoch``. Like MXNet's, this rule
    runs in Python on the host, one parameter at a time."""

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy="linear",
                 warmup_epochs=5, batch_scale=1, updates_per_epoch=32, begin_epoch=0,
                 num_epochs=60, **kwargs):
        super().__init__(multi_precision=multi_precision, **kwargs)
        logging.info("Running Large-Batch SGD Algorithm")
        logging.info("(Batch_scale=%f, warmup_epochs=%d, warmup_strategy=%s, "
                     "updates_per_epoch=%d)", batch_scale, warmup_epochs, warmup_strategy,
                     updates_per_epoch)
        self.momentum = momentum
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads = {}
        self.adaptive = False
        self.admult = 1

    def create_state(self, index, weight):
        dt = np.float32 if self.multi_precision and weight.dtype == np.float16 else weight.dtype
        mom = _zeros_like(weight, dt) if self.momentum != 0.0 else None
        if dt != weight.dtype:
            return (mom, weight.astype(np.float32))
        return mom

    def _get_lbmult(self, nup):
        nwup = self.warmup_epochs * self.updates_per_epoch
        top = float(self.batch_scale)
        if nup >= nwup:
            return top
        if nwup <= 1:
            return 1.0
        grow = {"linear": lambda f: f, "power2": lambda f: f * f, "sqrt": math.sqrt}
        rule = grow.get(self.warmup_strategy)
        return 1.0 + (top - 1) * rule(nup / nwup) if rule else 1.0

    def _get_lars(self, weight, g, wd):
        w2, g2 = (float((v * v).asnumpy().sum()) for v in (weight, g))
        return min(max(math.sqrt(w2 / (g2 + wd * w2 + 1e-18)), 0.01), 100)

    def _cumulate_gradient(self, grad, index):
        prev = self.cumgrads.get(index)
        if prev and prev["num_cums"] > 0:
            cgrad = {"cum_grad": prev["cum_grad"] + grad, "num_cums": prev["num_cums"] + 1}
        else:
            cgrad = {"cum_grad": grad, "num_cums": self.init_updates + 1}
        self.cumgrads[index] = cgrad
        return cgrad

    def update(self, index, weight, grad, state):
        if isinstance(index, (list, tuple)):
            for args in zip(index, weight, grad, state):
                self.update(*args)
            return
        lr, wd = self._get_lr(index), self._get_wd(index)
        self._update_count(index)
        cgrad = self._cumulate_gradient(grad, index)
        if cgrad["num_cums"] % self.batch_scale:
            nd.sgd_update(weight, grad, out=weight, lr=0.0, wd=wd)
            return
        grad = cgrad["cum_grad"] / self.batch_scale
        if self.warmup_strategy == "lars":
            lr *= self._get_lars(weight, grad, wd)
        else:
            lr *= self._get_lbmult(cgrad["num_cums"])
        kw = {"rescale_grad": self.rescale_grad, "lr": lr, "wd": wd}
        if self.momentum > 0:
            kw["momentum"] = self.momentum
        if self.clip_gradient:
            kw["clip_gradient"] = self.clip_gradient
        mom, master = state if isinstance(state, (list, tuple)) else (state, None)
        if master is None:
            if mom is None:
                nd.sgd_update(weight, grad, out=weight, **kw)
            else:
                nd.sgd_mom_update(weight, grad, mom, out=weight, **kw)
        elif mom is None:
            nd.mp_sgd_update(weight, grad, master, out=weight, **kw)
        else:
            nd.mp_sgd_mom_update(weight, grad, mom, master, out=weight, **kw)
        self.cumgrads[index]["cum_grad"] = 0
