"""mx.optimizer's adaptive optimizers: Adam, Adamax, Nadam, LAMB, FTML, AdaGrad, AdaDelta,
RMSProp, Ftrl and Test (MXNet's optimizer/optimizer.py).

Adam, LAMB, FTML, RMSProp and Ftrl call MXNet's update operators (``adam_update``,
``lamb_update_phase1/2``, ``ftml_update``, ``rmsprop_update``, ``rmspropalex_update``,
``ftrl_update``: xnd/lowering/optimizer_ops.py); Adamax, Nadam, AdaGrad, AdaDelta and Test are
MXNet's Python rules.
"""
import math
import os

import jax.numpy as jnp
import numpy as np

from ...lowering import optimizer_ops as ops
from .. import ndarray as nd
from ._base import Optimizer, _KernelClip, _py_scalar, _PyClip, _zeros, register

__all__ = ["Adam", "Adamax", "Nadam", "LAMB", "FTML", "AdaGrad", "AdaDelta", "RMSProp", "Ftrl",
           "Test"]


@register
class Adam(_KernelClip, Optimizer):
    """Adam (``adam_update``), the bias correction folded into lr on the host::

        g = clip(rescale_grad * grad + wd * weight)
        m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g**2
        weight -= lr * sqrt(1 - beta2**t) / (1 - beta1**t) * m / (sqrt(v) + epsilon)
    """
    _zero_states = 2
    _static_attrs = ("beta1", "beta2", "epsilon")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self._hyper(beta1=beta1, beta2=beta2, epsilon=epsilon, lazy_update=lazy_update)

    def _extra(self, index, lr, wd):
        t = self._index_update_count[index]
        coef1 = 1. - self.beta1 ** t
        coef2 = 1. - self.beta2 ** t
        return {"lr": lr * math.sqrt(coef2) / coef1}

    def _rule(self, w, g, s, lr, wd, ex):
        mean, var = s
        w, mean, var = ops.adam_update(w, g, mean, var, lr=lr, beta1=self.beta1,
                                       beta2=self.beta2, epsilon=self.epsilon, wd=wd,
                                       rescale_grad=ex["rescale_grad"],
                                       clip_gradient=self._clip())
        return w, (mean, var)


@register
class Adamax(_PyClip, Optimizer):
    """AdaMax (MXNet's Python rule)::

        g = clip(grad * rescale_grad + wd * weight)
        m = beta1 * m + (1 - beta1) * g;  u = maximum(beta2 * u, |g|)
        weight -= lr / (1 - beta1**t) * m / u
    """
    _zero_states = 2
    _python_rule = True
    _static_attrs = ("beta1", "beta2")

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def _extra(self, index, lr, wd):
        t = self._index_update_count[index]
        return {"lr": lr / (1. - self.beta1 ** t)}

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        m, u = s
        g = self._pclip(g * _py_scalar(ex["rescale_grad"], dt) + wd * w, dt)
        m = m * _py_scalar(self.beta1, dt) + _py_scalar(1. - self.beta1, dt) * g
        u = jnp.maximum(_py_scalar(self.beta2, dt) * u, jnp.abs(g))
        return w - lr * m / u, (m, u)


@register
class Nadam(_PyClip, Optimizer):
    """Nesterov Adam (MXNet's Python rule). ``m_schedule`` is shared by all
    parameters and advanced once per parameter update, as in MXNet."""
    _zero_states = 2
    _python_rule = True
    _static_attrs = ("beta1", "beta2", "epsilon")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self._hyper(beta1=beta1, beta2=beta2, epsilon=epsilon, schedule_decay=schedule_decay)
        self.m_schedule = 1.

    def _extra(self, index, lr, wd):
        t = self._index_update_count[index]
        mom_t = self.beta1 * (1. - 0.5 * (pow(0.96, t * self.schedule_decay)))
        mom_t1 = self.beta1 * (1. - 0.5 * (pow(0.96, (t + 1) * self.schedule_decay)))
        self.m_schedule = self.m_schedule * mom_t
        m_next = self.m_schedule * mom_t1
        return {"c_grad": 1. - self.m_schedule, "c_m": 1. - m_next,
                "c_v": 1. - pow(self.beta2, t), "a": 1. - mom_t, "b": mom_t1}

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        m, v = s
        p = lambda x: _py_scalar(x, dt)  # noqa: E731
        g = self._pclip(g * p(ex["rescale_grad"]) + wd * w, dt)
        m = m * p(self.beta1) + p(1. - self.beta1) * g
        v = v * p(self.beta2) + p(1. - self.beta2) * g * g
        g_prime = g / p(ex["c_grad"])
        m_prime = m / p(ex["c_m"])
        v_prime = v / p(ex["c_v"])
        m_bar = p(ex["a"]) * g_prime + p(ex["b"]) * m_prime
        return w - lr * m_bar / (jnp.sqrt(v_prime) + p(self.epsilon)), (m, v)


@register
class LAMB(_KernelClip, Optimizer):
    """LAMB (``lamb_update_phase1`` + ``lamb_update_phase2``)::

        m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g**2   (g clipped, rescaled)
        u = m_hat / (sqrt(v_hat) + epsilon) + wd * weight   (hats only with bias_correction)
        r1 = clamp(|weight|, lower_bound, upper_bound);  r2 = |u|
        weight -= lr * (r1 / r2 if r1 > 0 and r2 > 0 else 1) * u
    """
    _mp_skips_update = True
    _zero_states = 2
    _static_attrs = ("beta1", "beta2", "epsilon", "lower_bound", "upper_bound", "bias_correction")
    _batched = True

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self._hyper(beta1=beta1, beta2=beta2, epsilon=epsilon, lower_bound=lower_bound,
                    upper_bound=upper_bound, bias_correction=bias_correction)
        self.aggregate_num = max(1, min(45, int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE",
                                                          "45"))))

    def _extra(self, index, lr, wd):
        t = self._index_update_count[index]
        return {"b1t": float(np.float32(self.beta1) ** np.float32(t)),
                "b2t": float(np.float32(self.beta2) ** np.float32(t))}

    def _rule(self, w, g, s, lr, wd, ex):
        mean, var = s
        u, mean, var = ops.lamb_direction(
            w, g, mean, var, beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon,
            b1t=ex["b1t"], b2t=ex["b2t"], bias_correction=self.bias_correction, wd=wd,
            rescale_grad=ex["rescale_grad"], clip_gradient=self._clip())
        r1, r2 = jnp.sqrt(jnp.sum(w * w)), jnp.sqrt(jnp.sum(u * u))
        w = ops.lamb_apply(w, u, r1, r2, lr=lr, lower_bound=self.lower_bound or -1.0,
                           upper_bound=self.upper_bound or -1.0)
        return w, (mean, var)


@register
class FTML(_KernelClip, Optimizer):
    """FTML (``ftml_update``), state (d, v, z)::

        g = clip(rescale_grad * grad + wd * weight)
        v = beta2 * v + (1 - beta2) * g**2
        d_t = (1 - beta1**t) / lr * (sqrt(v / (1 - beta2**t)) + epsilon)
        z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * weight
        weight = -z / d_t
    """
    _zero_states = 3
    _static_attrs = ("beta1", "beta2", "epsilon")

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def _extra(self, index, lr, wd):
        t = np.float32(self._index_update_count[index])
        # power::Map(beta, t) in the kernel's float: computed here with numpy's powf
        return {"b1t": float(np.power(np.float32(self.beta1), t)),
                "b2t": float(np.power(np.float32(self.beta2), t))}

    def _rule(self, w, g, s, lr, wd, ex):
        d, v, z = s
        w, d, v, z = ops.ftml_rule(w, g, d, v, z, lr=lr, beta1=self.beta1, beta2=self.beta2,
                                   epsilon=self.epsilon, b1t=ex["b1t"], b2t=ex["b2t"], wd=wd,
                                   rescale_grad=ex["rescale_grad"], clip_grad=self._clip())
        return w, (d, v, z)


class _SquaredHistory(_PyClip, Optimizer):
    """AdaGrad and contrib.GroupAdaGrad (MXNet's Python rules): a float32 history of squared
    gradients (``_square``, of shape ``_history_shape``), ``eps`` kept as ``float_stable_eps``."""
    _python_rule = True
    _static_attrs = ("float_stable_eps",)

    def __init__(self, eps, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        return nd.zeros(self._history_shape(weight.shape), weight.context)

    def _history(self, g, s, ex):
        """clip(grad * rescale_grad) and the history with its square added; eps in its dtype."""
        g = self._pclip(g * _py_scalar(ex["rescale_grad"], g.dtype), g.dtype)
        hist = s + self._square(g).astype(s.dtype)
        return g, hist, _py_scalar(self.float_stable_eps, hist.dtype)


@register
class AdaGrad(_SquaredHistory):
    """AdaGrad (MXNet's Python rule; history is float32)::

        g = clip(grad * rescale_grad);  history += g**2
        weight += (g / sqrt(history + eps) + weight * wd) * -lr
    """
    _history_shape = staticmethod(lambda shape: shape)
    _square = staticmethod(jnp.square)

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(eps, **kwargs)

    def _rule(self, w, g, s, lr, wd, ex):
        g, hist, eps = self._history(g, s, ex)
        return w + (g / jnp.sqrt(hist + eps) + w * wd) * -lr, hist


@register
class AdaDelta(_PyClip, Optimizer):
    """AdaDelta (MXNet's Python rule; no learning rate; states float32)::

        g = clip(grad * rescale_grad)
        acc_g = rho * acc_g + (1 - rho) * g * g
        delta = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * g
        acc_delta = rho * acc_delta + (1 - rho) * delta * delta
        weight -= delta + wd * weight

    As in MXNet, ``update`` scales the caller's ``grad`` array by rescale_grad in place.
    """
    _zero_states = 2
    _states_f32 = True
    _python_rule = True
    _static_attrs = ("rho", "epsilon")

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        acc_g, acc_d = s
        g = self._pclip(g * _py_scalar(ex["rescale_grad"], dt), dt)
        rho = _py_scalar(self.rho, acc_g.dtype)
        one_m = _py_scalar(1. - self.rho, acc_g.dtype)
        eps = _py_scalar(self.epsilon, acc_g.dtype)
        acc_g = acc_g * rho + one_m * g * g
        delta = jnp.sqrt(acc_d + eps) / jnp.sqrt(acc_g + eps) * g
        acc_d = acc_d * rho + one_m * delta * delta
        return w - (delta + wd * w), (acc_g, acc_d)

    def _after_apply(self, indices, weights, grads):
        if self.rescale_grad != 1:
            for g in grads:
                g._write(g._val() * _py_scalar(self.rescale_grad, g.dtype))


@register
class RMSProp(_KernelClip, Optimizer):
    """RMSProp: Tieleman & Hinton (``rmsprop_update``) or, with ``centered``, Graves
    (``rmspropalex_update``); states are float32::

        g = clip(rescale_grad * grad + wd * weight)
        n = (1 - gamma1) * g**2 + gamma1 * n
        plain:    weight -= lr * g / sqrt(n + epsilon)
        centered: s = (1 - gamma1) * g + gamma1 * s
                  delta = gamma2 * delta - lr * g / sqrt(n - s**2 + epsilon);  weight += delta
        then clip the weight to +-clip_weights if set.
    """
    _static_attrs = ("gamma1", "gamma2", "epsilon", "centered", "clip_weights")

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self._hyper(gamma1=gamma1, gamma2=gamma2, centered=centered, epsilon=epsilon,
                    clip_weights=clip_weights)

    def create_state(self, index, weight):
        return _zeros(weight, 3 if self.centered else 1, f32=True)

    def _rule(self, w, g, s, lr, wd, ex):
        cw = self.clip_weights
        kw = dict(lr=lr, gamma1=self.gamma1, epsilon=self.epsilon, wd=wd,
                  rescale_grad=ex["rescale_grad"], clip_gradient=self._clip(),
                  clip_weights=cw if cw and cw >= 0 else -1.0)
        if not self.centered:
            w, n = ops.rmsprop_update(w, g, *s, **kw)
            return w, type(s)((n,))
        w, *new_s = ops.rmspropalex_update(w, g, *s, gamma2=self.gamma2, **kw)
        return w, type(s)(new_s)


@register
class Ftrl(_KernelClip, Optimizer):
    """FTRL-proximal (``ftrl_update``), state (z, n), float32::

        g = clip(rescale_grad * grad)
        z += g - (sqrt(n + g**2) - sqrt(n)) * weight / lr;  n += g**2
        weight = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (|z| > lamda1)
    """
    _zero_states = 2
    _states_f32 = True
    _static_attrs = ("lamda1", "beta")

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        self.lr = learning_rate

    def _rule(self, w, g, s, lr, wd, ex):
        w, z, n = ops.ftrl_update(w, g, *s, lr=lr, lamda1=self.lamda1, beta=self.beta, wd=wd,
                                  rescale_grad=ex["rescale_grad"], clip_gradient=self._clip())
        return w, (z, n)


@register
class Test(Optimizer):
    """The Test optimizer: ``weight += grad * rescale_grad``; state = weight."""
    _python_rule = True

    def create_state(self, index, weight):
        return nd.zeros(weight.shape, weight.context)

    def _rule(self, w, g, s, lr, wd, ex):
        w = w + g * _py_scalar(ex["rescale_grad"], w.dtype)
        return w, w.astype(s.dtype)
