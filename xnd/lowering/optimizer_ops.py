"""The optimizer update operators (MXNet's ``src/operator/optimizer_op.cc``): ``sgd_update``,
``sgd_mom_update``, ``adam_update``, ... as scripts call them (``nd.sgd_mom_update(w, g, mom,
out=w, lr=0.1, momentum=0.9)``), and the one place each update rule is written.

One truth per rule: ``mx.optimizer``'s classes (xnd/frontend/optimizer/) call these very
functions inside their jitted step; the fused ``multi_*`` updates (multi_tensor.py) call them
per weight. Where an optimizer computes something on the host that the operator computes on
the device (FTML's and LAMB's ``beta ** t``), the operator and the optimizer share the rule
function below the registered wrapper (``ftml_rule``, ``lamb_direction``, ``lamb_apply``).

MXNet 1.9.1 behaviour matched:
- Each op returns the new weight followed by the new states; ``mutates`` names the inputs the
  dispatcher writes the states back into (MXNet's kernels update them in place).
- Hyper-parameters are C ``float`` op parameters: rounded to float32, then cast to the
  weight's dtype (``_kernel_param``). lr, wd, rescale_grad & co. are dynamic kernel arguments,
  so a training loop does not recompile.
- The gradient is ``clip(rescale_grad * grad)``, clipping on only when ``clip_gradient >= 0``;
  unclipped, the SGD kernels multiply ``lr * rescale_grad`` first (``_lr_grad``). Each rule's
  order of operations is the one mx.optimizer was matched to MXNet 1.9.1's goldens with
  (tests/test_optimizer.py, test_optimizer_ops.py); results agree with MXNet's to within
  about an ulp, not always to the bit (XLA's and the C++ kernels' float code differ).
- The AdamW family (``_adamw_update``, ``_mp_adamw_update``; nd.contrib.adamw_update wraps them)
  takes rescale_grad as an array input (its first value) and skips the whole update, weight
  and states, when it is NaN, inf or 0.
- ``signsgd_update`` takes the sign of the raw gradient (the kernel ignores rescale_grad and
  clipping); ``nag_mom_update`` computes the new momentum from the already-updated weight, as
  the in-place kernel does.
"""
import jax.numpy as jnp

from .attrs import Bool, Float, Int
from .registry import Dynamic, register

Scalar = Dynamic(Float)
Step = Dynamic(Int)  # the update count t: a run-time argument, so steps do not recompile

_F32 = jnp.float32


def _kernel_param(x, dt):
    """An MXNet op parameter: a C ``float`` cast to the kernel's DType (idempotent)."""
    return jnp.asarray(jnp.asarray(x, _F32), dt)


def _params(dt, *xs):
    return tuple(_kernel_param(x, dt) for x in xs)


def clip(x, bound):
    """mshadow_op::clip::Map(x, bound): to [-bound, bound], NaN kept."""
    return jnp.where(x > bound, bound, jnp.where(x < -bound, -bound, x))


def sign(x):
    """(x > 0) - (x < 0) in x's dtype (0 for NaN and -0, as the kernels compute it)."""
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


def _clip_on(g, clip_gradient):
    if clip_gradient >= 0:
        return clip(g, _kernel_param(clip_gradient, g.dtype))
    return g


def _grad(grad, rescale_grad, clip_gradient):
    """clip(rescale_grad * grad)"""
    return _clip_on(rescale_grad * grad, clip_gradient)


def _lr_grad(grad, lr, rescale_grad, clip_gradient):
    """lr * clip(rescale_grad * grad); unclipped the kernels compute (lr * rescale_grad) * grad."""
    if clip_gradient >= 0:
        return lr * _grad(grad, rescale_grad, clip_gradient)
    return lr * rescale_grad * grad


@register("sgd_update")
def sgd_update(weight, grad, *, lr: Scalar, wd: Scalar = 0.0, rescale_grad: Scalar = 1.0,
               clip_gradient: Float = -1.0, lazy_update: Bool = True):
    """weight = (1 - lr * wd) * weight - lr * g"""
    lr, wd, rg = _params(weight.dtype, lr, wd, rescale_grad)
    return (1 - lr * wd) * weight - _lr_grad(grad, lr, rg, clip_gradient)


@register("sgd_mom_update", num_outputs=2, num_visible=1, mutates=("mom",))
def sgd_mom_update(weight, grad, mom, *, lr: Scalar, momentum: Scalar = 0.0, wd: Scalar = 0.0,
                   rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0,
                   lazy_update: Bool = True):
    """mom = momentum * mom - lr * wd * weight - lr * g;  weight += mom"""
    lr, momentum, wd, rg = _params(weight.dtype, lr, momentum, wd, rescale_grad)
    m = momentum * mom - lr * wd * weight - _lr_grad(grad, lr, rg, clip_gradient)
    return weight + m, m


@register("nag_mom_update", num_outputs=2, num_visible=1, mutates=("mom",))
def nag_mom_update(weight, grad, mom, *, lr: Scalar, momentum: Scalar = 0.0, wd: Scalar = 0.0,
                   rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0):
    """Nesterov momentum: mom = momentum * mom;
    weight = weight - mom + (momentum + 1) * (mom - lr * (g + wd * weight));
    mom -= lr * (g + wd * new weight)."""
    lr, momentum, wd, rg = _params(weight.dtype, lr, momentum, wd, rescale_grad)
    g = _grad(grad, rg, clip_gradient)
    m = momentum * mom
    w = weight - m + (momentum + 1) * (m - lr * (g + wd * weight))
    return w, m - lr * (g + wd * w)


@register("signsgd_update")
def signsgd_update(weight, grad, *, lr: Scalar, wd: Scalar = 0.0, rescale_grad: Scalar = 1.0,
                   clip_gradient: Float = -1.0):
    """weight = (1 - lr * wd) * weight - lr * sign(grad)"""
    lr, wd = _params(weight.dtype, lr, wd)
    return (1 - lr * wd) * weight - lr * sign(grad)


@register("signum_update", num_outputs=2, num_visible=1, mutates=("mom",))
def signum_update(weight, grad, mom, *, lr: Scalar, momentum: Scalar = 0.0, wd: Scalar = 0.0,
                  rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0, wd_lh: Scalar = 0.0):
    """mom = momentum * mom - (1 - momentum) * wd * weight - (1 - momentum) * g;
    weight = (1 - lr * wd_lh) * weight + lr * sign(mom)"""
    lr, momentum, wd, rg, wd_lh = _params(weight.dtype, lr, momentum, wd, rescale_grad, wd_lh)
    one_m = 1 - momentum
    m = momentum * mom - one_m * wd * weight - one_m * _grad(grad, rg, clip_gradient)
    return (1 - lr * wd_lh) * weight + lr * sign(m), m


def _wd_grad(weight, grad, wd, rescale_grad, clip_gradient):
    """clip(rescale_grad * grad + wd * weight) (Adam, RMSProp, FTML)."""
    return _clip_on(grad * rescale_grad + weight * wd, clip_gradient)


@register("adam_update", num_outputs=3, num_visible=1, mutates=("mean", "var"))
def adam_update(weight, grad, mean, var, *, lr: Scalar, beta1: Scalar = 0.9,
                beta2: Scalar = 0.999, epsilon: Scalar = 1e-8, wd: Scalar = 0.0,
                rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0,
                lazy_update: Bool = True):
    """g = clip(rescale_grad * grad + wd * weight); mean, var = moving moments of g;
    weight -= lr * mean / (sqrt(var) + epsilon). No bias correction (the optimizer folds it
    into lr)."""
    lr, b1, b2, eps, wd, rg = _params(weight.dtype, lr, beta1, beta2, epsilon, wd, rescale_grad)
    g = _wd_grad(weight, grad, wd, rg, clip_gradient)
    m = b1 * mean + (1 - b1) * g
    v = b2 * var + (1 - b2) * g * g
    return weight - lr * m / (jnp.sqrt(v) + eps), m, v


def _clip_weights(w, clip_weights):
    return clip(w, _kernel_param(clip_weights, w.dtype)) if clip_weights >= 0 else w


@register("rmsprop_update", num_outputs=2, num_visible=1, mutates=("n",))
def rmsprop_update(weight, grad, n, *, lr: Scalar, gamma1: Scalar = 0.95, epsilon: Scalar = 1e-8,
                   wd: Scalar = 0.0, rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0,
                   clip_weights: Float = -1.0):
    """Tieleman & Hinton: n = (1 - gamma1) * g**2 + gamma1 * n;
    weight -= lr * g / sqrt(n + epsilon), then clipped to +-clip_weights."""
    lr, g1, eps, wd, rg = _params(weight.dtype, lr, gamma1, epsilon, wd, rescale_grad)
    g = _wd_grad(weight, grad, wd, rg, clip_gradient)
    n = (1 - g1) * (g * g) + g1 * n
    return _clip_weights(weight - lr * (g / jnp.sqrt(n + eps)), clip_weights), n


@register("rmspropalex_update", num_outputs=4, num_visible=1, mutates=("n", "g", "delta"))
def rmspropalex_update(weight, grad, n, g, delta, *, lr: Scalar, gamma1: Scalar = 0.95,
                       gamma2: Scalar = 0.9, epsilon: Scalar = 1e-8, wd: Scalar = 0.0,
                       rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0,
                       clip_weights: Float = -1.0):
    """Graves' centered RMSProp: n and g are moving moments of the gradient;
    delta = gamma2 * delta - lr * grad / sqrt(n - g**2 + epsilon); weight += delta."""
    lr, g1, g2, eps, wd, rg = _params(weight.dtype, lr, gamma1, gamma2, epsilon, wd,
                                      rescale_grad)
    gr = _wd_grad(weight, grad, wd, rg, clip_gradient)
    n = (1 - g1) * gr * gr + g1 * n
    g = (1 - g1) * gr + g1 * g
    delta = g2 * delta - (lr * gr / jnp.sqrt(n - g * g + eps))
    return _clip_weights(weight + delta, clip_weights), n, g, delta


@register("ftrl_update", num_outputs=3, num_visible=1, mutates=("z", "n"))
def ftrl_update(weight, grad, z, n, *, lr: Scalar, lamda1: Scalar = 0.01, beta: Scalar = 1.0,
                wd: Scalar = 0.0, rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0):
    """z += g - (sqrt(n + g**2) - sqrt(n)) * weight / lr;  n += g**2;
    weight = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (|z| > lamda1)"""
    dt = weight.dtype
    lr, l1, beta, wd, rg = _params(dt, lr, lamda1, beta, wd, rescale_grad)
    g = _grad(grad, rg, clip_gradient)
    g2 = g * g
    z = z + (g - (jnp.sqrt(n + g2) - jnp.sqrt(n)) * weight / lr)
    n = n + g2
    w = (sign(z) * l1 - z) / ((beta + jnp.sqrt(n)) / lr + wd) * (jnp.abs(z) > l1).astype(dt)
    return w.astype(dt), z, n


@register("mp_sgd_update", num_outputs=2, num_visible=1, mutates=("weight32",))
def mp_sgd_update(weight, grad, weight32, *, lr: Scalar, wd: Scalar = 0.0,
                  rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0,
                  lazy_update: Bool = True):
    """sgd_update on the float32 master copy; the weight is its cast."""
    w32 = sgd_update(weight32, grad.astype(_F32), lr=lr, wd=wd, rescale_grad=rescale_grad,
                     clip_gradient=clip_gradient)
    return w32.astype(weight.dtype), w32


@register("mp_sgd_mom_update", num_outputs=3, num_visible=1, mutates=("mom", "weight32"))
def mp_sgd_mom_update(weight, grad, mom, weight32, *, lr: Scalar, momentum: Scalar = 0.0,
                      wd: Scalar = 0.0, rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0,
                      lazy_update: Bool = True):
    """sgd_mom_update on the float32 master copy; the weight is its cast."""
    w32, m = sgd_mom_update(weight32, grad.astype(_F32), mom, lr=lr, momentum=momentum, wd=wd,
                            rescale_grad=rescale_grad, clip_gradient=clip_gradient)
    return w32.astype(weight.dtype), m, w32


@register("mp_nag_mom_update", num_outputs=3, num_visible=1, mutates=("mom", "weight32"))
def mp_nag_mom_update(weight, grad, mom, weight32, *, lr: Scalar, momentum: Scalar = 0.0,
                      wd: Scalar = 0.0, rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0):
    """nag_mom_update on the float32 master copy; the weight is its cast."""
    w32, m = nag_mom_update(weight32, grad.astype(_F32), mom, lr=lr, momentum=momentum,
                            wd=wd, rescale_grad=rescale_grad, clip_gradient=clip_gradient)
    return w32.astype(weight.dtype), m, w32


def ftml_rule(weight, grad, d, v, z, *, lr, beta1, beta2, epsilon, b1t, b2t, wd, rescale_grad,
              clip_grad):
    """FTML with the powers ``b1t = beta1**t``, ``b2t = beta2**t`` given (the optimizer takes
    them from the host); returns (weight, d, v, z)."""
    dt = weight.dtype
    lr, b1, b2, eps, wd, rg = _params(dt, lr, beta1, beta2, epsilon, wd, rescale_grad)
    g = _wd_grad(weight, grad, wd, rg, clip_grad)
    v = b2 * v + (1 - b2) * (g * g)
    d_t = (1 - jnp.asarray(b1t, dt)) / lr * (jnp.sqrt(v / (1 - jnp.asarray(b2t, dt))) + eps)
    z = b1 * z + (1 - b1) * g - (d_t - b1 * d) * weight
    return (-z / d_t).astype(dt), d_t.astype(d.dtype), v, z


@register("ftml_update", num_outputs=4, num_visible=1, mutates=("d", "v", "z"))
def ftml_update(weight, grad, d, v, z, *, lr: Scalar, beta1: Scalar = 0.6, beta2: Scalar = 0.999,
                epsilon: Scalar = 1e-8, t: Step, wd: Scalar = 0.0, rescale_grad: Scalar = 1.0,
                clip_grad: Float = -1.0):
    """FTML: g = clip(rescale_grad * grad + wd * weight); v = beta2 v + (1 - beta2) g^2;
    d_t = (1 - beta1^t) / lr (sqrt(v / (1 - beta2^t)) + epsilon);
    z = beta1 z + (1 - beta1) g - (d_t - beta1 d) weight; weight = -z / d_t."""
    b1, b2 = _params(weight.dtype, beta1, beta2)
    return ftml_rule(weight, grad, d, v, z, lr=lr, beta1=beta1, beta2=beta2, epsilon=epsilon,
                     b1t=b1 ** t, b2t=b2 ** t, wd=wd, rescale_grad=rescale_grad,
                     clip_grad=clip_grad)


def lamb_direction(weight, grad, mean, var, *, beta1, beta2, epsilon, b1t, b2t,
                   bias_correction, wd, rescale_grad, clip_gradient):
    """LAMB's phase 1 with ``b1t = beta1**t``, ``b2t = beta2**t`` given: the moments, and the
    direction m_hat / (sqrt(v_hat) + epsilon) + wd * weight (hats only with bias_correction;
    m_hat divided in double, as the kernel does). Returns (direction, mean, var)."""
    dt = weight.dtype
    b1, b2, eps, wd, rg = _params(dt, beta1, beta2, epsilon, wd, rescale_grad)
    g = _grad(grad, rg, clip_gradient)
    mean = b1 * mean + (1 - b1) * g
    var = b2 * var + (1 - b2) * g * g
    if bias_correction:
        mean_hat = (mean.astype(jnp.float64) / (1.0 - jnp.asarray(b1t, jnp.float64))).astype(dt)
        var_hat = var / (1 - jnp.asarray(b2t, dt))
        u = mean_hat / (jnp.sqrt(var_hat) + eps) + wd * weight
    else:
        u = mean / (jnp.sqrt(var) + eps) + wd * weight
    return u, mean, var


def lamb_apply(weight, g, r1, r2, *, lr, lower_bound, upper_bound):
    """LAMB's phase 2: weight -= lr * r1 / r2 * g, r1 (the weight's norm) clamped to the bounds
    that are >= 0; lr alone where either norm is 0."""
    dt = weight.dtype
    (lr,) = _params(dt, lr)
    if lower_bound >= 0:
        r1 = jnp.maximum(r1, _kernel_param(lower_bound, dt))
    if upper_bound >= 0:
        r1 = jnp.minimum(r1, _kernel_param(upper_bound, dt))
    lr_t = jnp.where((r1 == 0) | (r2 == 0), lr, lr * r1 / r2)
    return weight - lr_t * g


def _powers(dt, beta1, beta2, t):
    b1, b2 = _params(dt, beta1, beta2)
    return b1 ** t, b2 ** t


@register("lamb_update_phase1", num_outputs=3, num_visible=1, mutates=("mean", "var"))
def lamb_update_phase1(weight, grad, mean, var, *, beta1: Scalar = 0.9, beta2: Scalar = 0.999,
                       epsilon: Scalar = 1e-6, t: Step, bias_correction: Bool = True,
                       wd: Scalar, rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0):
    """LAMB's direction: Adam's (bias-corrected when asked) step plus wd * weight; the moments
    update in place."""
    b1t, b2t = _powers(weight.dtype, beta1, beta2, t)
    u, m, v = lamb_direction(weight, grad, mean, var, beta1=beta1, beta2=beta2, epsilon=epsilon,
                             b1t=b1t, b2t=b2t, bias_correction=bias_correction, wd=wd,
                             rescale_grad=rescale_grad, clip_gradient=clip_gradient)
    return u.astype(weight.dtype), m, v


@register("lamb_update_phase2")
def lamb_update_phase2(weight, g, r1, r2, *, lr: Scalar, lower_bound: Float = -1.0,
                       upper_bound: Float = -1.0):
    """weight -= lr * (r1 / r2) * g, r1 (the weight's norm) clipped to the bounds; a zero norm
    makes the ratio 1."""
    return lamb_apply(weight, g, r1, r2, lr=lr, lower_bound=lower_bound,
                      upper_bound=upper_bound).astype(weight.dtype)


@register("mp_lamb_update_phase1", num_outputs=3, num_visible=1, mutates=("mean", "var"))
def mp_lamb_update_phase1(weight, grad, mean, var, weight32, *, beta1: Scalar = 0.9,
                          beta2: Scalar = 0.999, epsilon: Scalar = 1e-6, t: Step,
                          bias_correction: Bool = True, wd: Scalar, rescale_grad: Scalar = 1.0,
                          clip_gradient: Float = -1.0):
    """lamb_update_phase1 on the float32 master copy."""
    b1t, b2t = _powers(_F32, beta1, beta2, t)
    u, m, v = lamb_direction(weight32, grad.astype(_F32), mean, var, beta1=beta1, beta2=beta2,
                             epsilon=epsilon, b1t=b1t, b2t=b2t, bias_correction=bias_correction,
                             wd=wd, rescale_grad=rescale_grad, clip_gradient=clip_gradient)
    return u.astype(_F32), m, v


@register("mp_lamb_update_phase2")
def mp_lamb_update_phase2(weight, g, r1, r2, weight32, *, lr: Scalar, lower_bound: Float = -1.0,
                          upper_bound: Float = -1.0):
    """The weight is cast(weight32 - lr * ratio * g); weight32 itself stays as it was, as
    MXNet 1.9.1's kernel leaves it (it declares the input mutable but never writes it)."""
    w32 = lamb_apply(weight32, g, r1, r2, lr=lr, lower_bound=lower_bound,
                     upper_bound=upper_bound)
    return w32.astype(weight.dtype)


def rescale_or_skip(rescale_grad):
    """The AdamW kernels read ``rescale_grad`` (an array input) as its first value, a C float;
    NaN, inf or 0 there skip the update: (scale, whether to update)."""
    r = rescale_grad.reshape(-1)[0].astype(_F32)
    return r, jnp.isfinite(r) & (r != 0)


def keep_if_skipped(ok, new, old):
    """Each output where the update runs, else the input it replaces (a skipped kernel writes
    nothing: the in-place weight and the states keep their values)."""
    return tuple(jnp.where(ok, n, o.astype(n.dtype)) for n, o in zip(new, old))


def adamw_rule(weight, grad, mean, var, r, *, lr, eta, wd, beta1, beta2, epsilon,
               clip_gradient, fused=False):
    """One AdamW step in the weight's dtype with the scale ``r`` given: g = clip(r * grad);
    m, v the moving moments of g; weight -= eta * (lr * m / (sqrt(v) + epsilon) + wd * weight).
    ``fused``: the multi-tensor kernel's forms beta * (m - g) + g of the moments."""
    dt = weight.dtype
    lr, eta, wd, b1, b2, eps = _params(dt, lr, eta, wd, beta1, beta2, epsilon)
    g = _clip_on(r.astype(dt) * grad.astype(dt), clip_gradient)
    if fused:
        m = b1 * (mean - g) + g
        v = b2 * (var - g * g) + g * g
    else:  # (1.f - beta) is computed in float, then cast
        m = b1 * mean + _kernel_param(1 - jnp.asarray(beta1, _F32), dt) * g
        v = b2 * var + _kernel_param(1 - jnp.asarray(beta2, _F32), dt) * (g * g)
    return weight - eta * (lr * m / (jnp.sqrt(v) + eps) + wd * weight), m, v


@register("_adamw_update", num_outputs=3, num_visible=1, mutates=("mean", "var"))
def adamw_update(weight, grad, mean, var, rescale_grad, *, lr: Scalar, eta: Scalar,
                 beta1: Scalar = 0.9, beta2: Scalar = 0.999, epsilon: Scalar = 1e-8,
                 wd: Scalar = 0.0, clip_gradient: Float = -1.0):
    """AdamW (decoupled weight decay); skipped when rescale_grad is NaN, inf or 0."""
    r, ok = rescale_or_skip(rescale_grad)
    new = adamw_rule(weight, grad, mean, var, r, lr=lr, eta=eta, wd=wd, beta1=beta1,
                     beta2=beta2, epsilon=epsilon, clip_gradient=clip_gradient)
    return keep_if_skipped(ok, new, (weight, mean, var))


@register("_mp_adamw_update", num_outputs=4, num_visible=1,
          mutates=("mean", "var", "weight32"))
def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, *, lr: Scalar,
                    eta: Scalar, beta1: Scalar = 0.9, beta2: Scalar = 0.999,
                    epsilon: Scalar = 1e-8, wd: Scalar = 0.0, clip_gradient: Float = -1.0):
    """adamw_update on the float32 master copy (float32 moments); the weight is its cast."""
    r, ok = rescale_or_skip(rescale_grad)
    w32, m, v = adamw_rule(weight32, grad.astype(_F32), mean, var, r, lr=lr, eta=eta, wd=wd,
                           beta1=beta1, beta2=beta2, epsilon=epsilon,
                           clip_gradient=clip_gradient)
    new = keep_if_skipped(ok, (w32, m, v), (weight32, mean, var))
    return (jnp.where(ok, new[0].astype(weight.dtype), weight),) + new[1:] + (new[0],)
