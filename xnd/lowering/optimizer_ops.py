"""The optimizer update operators scripts call directly (``nd.sgd_mom_update(w, g, mom,
out=w, lr=0.1, momentum=0.9)``).

MXNet's kernels update their state inputs in place; here each op returns the new weight
followed by the new states, and ``mutates`` names the inputs the dispatcher writes them
back into. Hyper-parameters that change every step (lr, wd, rescale_grad) are dynamic
kernel arguments, so a training loop does not recompile. Gradients are
``clip(rescale_grad * grad)``, with clipping on only when ``clip_gradient >= 0``.
"""
import jax.numpy as jnp

from .attrs import Bool, Float, Int
from .registry import Dynamic, register

Scalar = Dynamic(Float)
Step = Dynamic(Int)  # the update count t: a run-time argument, so steps do not recompile


def _grad(g, rescale_grad, clip_gradient):
    g = rescale_grad * g
    return jnp.clip(g, -clip_gradient, clip_gradient) if clip_gradient >= 0 else g


@register("sgd_update")
def sgd_update(weight, grad, *, lr: Scalar, wd: Scalar = 0.0, rescale_grad: Scalar = 1.0,
               clip_gradient: Float = -1.0, lazy_update: Bool = True):
    """weight = (1 - lr * wd) * weight - lr * g"""
    return (1 - lr * wd) * weight - lr * _grad(grad, rescale_grad, clip_gradient)


@register("sgd_mom_update", num_outputs=2, num_visible=1, mutates=("mom",))
def sgd_mom_update(weight, grad, mom, *, lr: Scalar, momentum: Scalar = 0.0, wd: Scalar = 0.0,
                   rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0,
                   lazy_update: Bool = True):
    """mom = momentum * mom - lr * wd * weight - lr * g;  weight += mom"""
    m = momentum * mom - lr * wd * weight - lr * _grad(grad, rescale_grad, clip_gradient)
    return weight + m, m


@register("nag_mom_update", num_outputs=2, num_visible=1, mutates=("mom",))
def nag_mom_update(weight, grad, mom, *, lr: Scalar, momentum: Scalar = 0.0, wd: Scalar = 0.0,
                   rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0):
    """Nesterov momentum; the new momentum is computed from the already-updated weight, as
    MXNet's in-place kernel does."""
    g = _grad(grad, rescale_grad, clip_gradient)
    m = momentum * mom
    w = weight - m + (momentum + 1) * (m - lr * (g + wd * weight))
    return w, m - lr * (g + wd * w)


@register("signsgd_update")
def signsgd_update(weight, grad, *, lr: Scalar, wd: Scalar = 0.0, rescale_grad: Scalar = 1.0,
                   clip_gradient: Float = -1.0):
    """weight = (1 - lr * wd) * weight - lr * sign(g)"""
    return (1 - lr * wd) * weight - lr * jnp.sign(_grad(grad, rescale_grad, clip_gradient))


@register("signum_update", num_outputs=2, num_visible=1, mutates=("mom",))
def signum_update(weight, grad, mom, *, lr: Scalar, momentum: Scalar = 0.0, wd: Scalar = 0.0,
                  rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0, wd_lh: Scalar = 0.0):
    """mom = momentum * mom - (1 - momentum) * (wd * weight + g);
    weight = (1 - lr * wd_lh) * weight + lr * sign(mom)"""
    m = momentum * mom - (1 - momentum) * (wd * weight + _grad(grad, rescale_grad, clip_gradient))
    return (1 - lr * wd_lh) * weight + lr * jnp.sign(m), m


@register("adam_update", num_outputs=3, num_visible=1, mutates=("mean", "var"))
def adam_update(weight, grad, mean, var, *, lr: Scalar, beta1: Scalar = 0.9,
                beta2: Scalar = 0.999, epsilon: Scalar = 1e-8, wd: Scalar = 0.0,
                rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0,
                lazy_update: Bool = True):
    """g = clip(rescale_grad * grad + wd * weight); no bias correction (the optimizer folds
    it into lr)."""
    g = rescale_grad * grad + wd * weight
    if clip_gradient >= 0:
        g = jnp.clip(g, -clip_gradient, clip_gradient)
    m = beta1 * mean + (1 - beta1) * g
    v = beta2 * var + (1 - beta2) * g * g
    return weight - lr * m / (jnp.sqrt(v) + epsilon), m, v


def _clip_weights(w, clip_weights):
    return jnp.clip(w, -clip_weights, clip_weights) if clip_weights >= 0 else w


@register("rmsprop_update", num_outputs=2, num_visible=1, mutates=("n",))
def rmsprop_update(weight, grad, n, *, lr: Scalar, gamma1: Scalar = 0.95, epsilon: Scalar = 1e-8,
                   wd: Scalar = 0.0, rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0,
                   clip_weights: Float = -1.0):
    g = rescale_grad * grad + wd * weight
    if clip_gradient >= 0:
        g = jnp.clip(g, -clip_gradient, clip_gradient)
    n = (1 - gamma1) * g * g + gamma1 * n
    return _clip_weights(weight - lr * g / jnp.sqrt(n + epsilon), clip_weights), n


@register("rmspropalex_update", num_outputs=4, num_visible=1, mutates=("n", "g", "delta"))
def rmspropalex_update(weight, grad, n, g, delta, *, lr: Scalar, gamma1: Scalar = 0.95,
                       gamma2: Scalar = 0.9, epsilon: Scalar = 1e-8, wd: Scalar = 0.0,
                       rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0,
                       clip_weights: Float = -1.0):
    """Graves' centered RMSProp."""
    gr = rescale_grad * grad + wd * weight
    if clip_gradient >= 0:
        gr = jnp.clip(gr, -clip_gradient, clip_gradient)
    n = (1 - gamma1) * gr * gr + gamma1 * n
    g = (1 - gamma1) * gr + gamma1 * g
    delta = gamma2 * delta - lr * gr / jnp.sqrt(n - g * g + epsilon)
    return _clip_weights(weight + delta, clip_weights), n, g, delta


@register("ftrl_update", num_outputs=3, num_visible=1, mutates=("z", "n"))
def ftrl_update(weight, grad, z, n, *, lr: Scalar, lamda1: Scalar = 0.01, beta: Scalar = 1.0,
                wd: Scalar = 0.0, rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0):
    g = _grad(grad, rescale_grad, clip_gradient)
    z = z + g - (jnp.sqrt(n + g * g) - jnp.sqrt(n)) * weight / lr
    n = n + g * g
    w = (jnp.sign(z) * lamda1 - z) / ((beta + jnp.sqrt(n)) / lr + wd) * (jnp.abs(z) > lamda1)
    return w.astype(weight.dtype), z, n


@register("mp_sgd_update", num_outputs=2, num_visible=1, mutates=("weight32",))
def mp_sgd_update(weight, grad, weight32, *, lr: Scalar, wd: Scalar = 0.0,
                  rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0,
                  lazy_update: Bool = True):
    """Multi-precision: the float32 master copy is updated, the weight is its cast."""
    w32 = (1 - lr * wd) * weight32 - lr * _grad(grad.astype(jnp.float32), rescale_grad,
                                                  clip_gradient)
    return w32.astype(weight.dtype), w32


@register("mp_sgd_mom_update", num_outputs=3, num_visible=1, mutates=("mom", "weight32"))
def mp_sgd_mom_update(weight, grad, mom, weight32, *, lr: Scalar, momentum: Scalar = 0.0,
                      wd: Scalar = 0.0, rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0,
                      lazy_update: Bool = True):
    m = momentum * mom - lr * wd * weight32 - lr * _grad(grad.astype(jnp.float32), rescale_grad,
                                                         clip_gradient)
    w32 = weight32 + m
    return w32.astype(weight.dtype), m, w32


@register("mp_nag_mom_update", num_outputs=3, num_visible=1, mutates=("mom", "weight32"))
def mp_nag_mom_update(weight, grad, mom, weight32, *, lr: Scalar, momentum: Scalar = 0.0,
                      wd: Scalar = 0.0, rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0):
    """nag_mom_update on the float32 master copy; the weight is its cast."""
    w32, m = nag_mom_update(weight32, grad.astype(jnp.float32), mom, lr=lr, momentum=momentum,
                            wd=wd, rescale_grad=rescale_grad, clip_gradient=clip_gradient)
    return w32.astype(weight.dtype), m, w32


@register("ftml_update", num_outputs=4, num_visible=1, mutates=("d", "v", "z"))
def ftml_update(weight, grad, d, v, z, *, lr: Scalar, beta1: Scalar = 0.6, beta2: Scalar = 0.999,
                epsilon: Scalar = 1e-8, t: Step, wd: Scalar = 0.0, rescale_grad: Scalar = 1.0,
                clip_grad: Float = -1.0):
    """FTML: g = clip(rescale_grad * grad + wd * weight); v = beta2 v + (1 - beta2) g^2;
    d_t = (1 - beta1^t) / lr (sqrt(v / (1 - beta2^t)) + epsilon);
    z = beta1 z + (1 - beta1) g - (d_t - beta1 d) weight; weight = -z / d_t."""
    g = rescale_grad * grad + wd * weight
    if clip_grad >= 0:
        g = jnp.clip(g, -clip_grad, clip_grad)
    v = beta2 * v + (1 - beta2) * g * g
    d_t = (1 - beta1 ** t) / lr * (jnp.sqrt(v / (1 - beta2 ** t)) + epsilon)
    z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * weight
    return (-z / d_t).astype(weight.dtype), d_t.astype(d.dtype), v, z


def _lamb_g(weight, grad, mean, var, beta1, beta2, epsilon, t, bias_correction, wd,
            rescale_grad, clip_gradient):
    g = _grad(grad, rescale_grad, clip_gradient)
    m = beta1 * mean + (1 - beta1) * g
    v = beta2 * var + (1 - beta2) * g * g
    if bias_correction:
        out = (m / (1 - beta1 ** t)) / (jnp.sqrt(v / (1 - beta2 ** t)) + epsilon)
    else:
        out = m / (jnp.sqrt(v) + epsilon)
    return out + wd * weight, m, v


@register("lamb_update_phase1", num_outputs=3, num_visible=1, mutates=("mean", "var"))
def lamb_update_phase1(weight, grad, mean, var, *, beta1: Scalar = 0.9, beta2: Scalar = 0.999,
                       epsilon: Scalar = 1e-6, t: Step, bias_correction: Bool = True,
                       wd: Scalar, rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0):
    """LAMB's direction: Adam's (bias-corrected when asked) step plus wd * weight; the moments
    update in place."""
    g, m, v = _lamb_g(weight, grad, mean, var, beta1, beta2, epsilon, t, bias_correction, wd,
                      rescale_grad, clip_gradient)
    return g.astype(weight.dtype), m, v


def _lamb_ratio(r1, r2, lower_bound, upper_bound):
    if lower_bound >= 0:
        r1 = jnp.maximum(r1, lower_bound)
    if upper_bound >= 0:
        r1 = jnp.minimum(r1, upper_bound)
    return jnp.where((r1 == 0) | (r2 == 0), 1.0, r1 / jnp.where(r2 == 0, 1.0, r2))


@register("lamb_update_phase2")
def lamb_update_phase2(weight, g, r1, r2, *, lr: Scalar, lower_bound: Float = -1.0,
                       upper_bound: Float = -1.0):
    """weight -= lr * (r1 / r2) * g, r1 (the weight's norm) clipped to the bounds; a zero norm
    makes the ratio 1."""
    ratio = _lamb_ratio(r1, r2, lower_bound, upper_bound)
    return (weight - lr * ratio * g).astype(weight.dtype)


@register("mp_lamb_update_phase1", num_outputs=3, num_visible=1, mutates=("mean", "var"))
def mp_lamb_update_phase1(weight, grad, mean, var, weight32, *, beta1: Scalar = 0.9,
                          beta2: Scalar = 0.999, epsilon: Scalar = 1e-6, t: Step,
                          bias_correction: Bool = True, wd: Scalar, rescale_grad: Scalar = 1.0,
                          clip_gradient: Float = -1.0):
    g, m, v = _lamb_g(weight32, grad.astype(jnp.float32), mean, var, beta1, beta2, epsilon, t,
                      bias_correction, wd, rescale_grad, clip_gradient)
    return g.astype(jnp.float32), m, v


@register("mp_lamb_update_phase2")
def mp_lamb_update_phase2(weight, g, r1, r2, weight32, *, lr: Scalar, lower_bound: Float = -1.0,
                          upper_bound: Float = -1.0):
    """The weight is cast(weight32 - lr * ratio * g); weight32 itself stays as it was, as
    MXNet 1.9.1's kernel leaves it (it declares the input mutable but never writes it)."""
    w32 = weight32 - lr * _lamb_ratio(r1, r2, lower_bound, upper_bound) * g
    return w32.astype(weight.dtype)
