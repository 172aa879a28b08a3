"""Operators over lists of arrays: the fused multi-weight SGD updates, LARS helpers, AMP's
finiteness checks and casts, reset_arrays.

MXNet 1.9.1 behaviour matched:
- ``multi_sgd_update(w0, g0, w1, g1, ..., lrs=(...), wds=(...), num_weights=n)`` returns the n
  new weights; the ``_mom_`` variants take (w, g, mom) groups, the ``_mp_`` ones add the float32
  master weight, and their states update in place (the dispatcher writes them back, see
  ``mutates``). ``preloaded_`` variants take lrs and wds as the last two array inputs.
- ``_multi_adamw_update``/``_multi_mp_adamw_update``: (w, g, mean, var[, w32]) groups, then one
  rescale_grad array; the moments in the fused kernel's form beta * (m - g) + g.
- ``multi_sum_sq`` gives each array's sum of squares (float32); ``multi_lars`` scales each lr
  by ``eta * |w| / (rescale_grad * |g| + wd * |w| + eps)`` where both norms are positive.
- ``all_finite``/``multi_all_finite`` give shape (1,) float32: 1 when every value is finite.
- ``amp_cast`` casts floating inputs only; ``amp_multicast`` casts the floating inputs to the
  widest (``cast_narrow``: narrowest) floating type among them.
- ``reset_arrays`` zeroes its inputs in place and returns nothing.
- ``_contrib_isnan``/``isinf``/``isfinite``: 1/0 in the input's dtype (MXNet's
  ``nd.contrib.isnan`` & co).
"""
import jax.numpy as jnp

from ..base import MXNetError

from .attrs import Bool, Dtype, Float, Int, _literal
from .optimizer_ops import (_kernel_param, adamw_rule, keep_if_skipped, rescale_or_skip,
                            sgd_mom_update, sgd_update)
from .registry import Dynamic, register

Scalar = Dynamic(Float)


def Floats(v):
    """A tuple of floats (``lrs``/``wds``)."""
    v = _literal(v)
    if isinstance(v, (int, float)):
        return (float(v),)
    return tuple(float(x) for x in v)


# per variant: inputs per weight, whether it has momentum, whether it has a float32 master copy
_VARIANTS = {
    "sgd": (2, False, False), "sgd_mom": (3, True, False),
    "mp_sgd": (3, False, True), "mp_sgd_mom": (4, True, True),
}


def _update(groups, lrs, wds, momentum, rescale_grad, clip_gradient, mom, mp):
    """New weights, then the updated states (moms, then float32 weights) in group order: each
    group is sgd_update / sgd_mom_update (on the float32 master copy for the mp variants)."""
    weights, states = [], []
    for k, grp in enumerate(groups):
        w, g = grp[0], grp[1]
        master = grp[-1] if mp else w
        kw = dict(lr=lrs[k], wd=wds[k], rescale_grad=rescale_grad, clip_gradient=clip_gradient)
        if mom:
            new, m = sgd_mom_update(master, g.astype(master.dtype), grp[2], momentum=momentum,
                                    **kw)
            states.append(m)
        else:
            new = sgd_update(master, g.astype(master.dtype), **kw)
        if mp:
            states.append(new)
        weights.append(new.astype(w.dtype))
    return tuple(weights) + tuple(states)


def _state_positions(per, mom, mp):
    """The inputs the state outputs go back into: per weight its mom, then its float32 copy."""
    slots = ([2] if mom else []) + ([per - 1] if mp else [])

    def positions(attrs):
        return [k * per + s for k in range(attrs["num_weights"]) for s in slots]
    return positions


def _define(variant):
    per, mom, mp = _VARIANTS[variant]
    n_out = (lambda a, s=int(mom) + int(mp): a["num_weights"] * (1 + s))
    n_vis = (lambda a: a["num_weights"])
    positions = _state_positions(per, mom, mp)

    def split(data, n):
        return [data[k * per:(k + 1) * per] for k in range(n)]

    def multi(*data, lrs: Floats, wds: Floats, momentum: Scalar = 0.0,
              rescale_grad: Scalar = 1.0, clip_gradient: Float = -1.0, num_weights: Int = 1):
        return _update(split(data, num_weights), lrs, wds, momentum, rescale_grad,
                       clip_gradient, mom, mp)

    def preloaded(*data, momentum: Scalar = 0.0, rescale_grad: Scalar = 1.0,
                  clip_gradient: Float = -1.0, num_weights: Int = 1):
        lrs, wds = data[-2], data[-1]
        return _update(split(data[:-2], num_weights), [lrs[k] for k in range(num_weights)],
                       [wds[k] for k in range(num_weights)], momentum, rescale_grad,
                       clip_gradient, mom, mp)

    if not mom:  # plain SGD takes no momentum attribute
        multi = _without_momentum(multi)
        preloaded = _without_momentum(preloaded)
    doc = f"The fused {variant} update of several weights ({per} inputs per weight)."
    multi.__doc__ = preloaded.__doc__ = doc
    register(f"multi_{variant}_update", num_outputs=n_out, num_visible=n_vis,
             mutates=positions)(multi)
    register(f"preloaded_multi_{variant}_update", num_outputs=n_out, num_visible=n_vis,
             mutates=positions)(preloaded)


def _without_momentum(fn):
    import functools
    import inspect
    sig = inspect.signature(fn)
    params = [p for n, p in sig.parameters.items() if n != "momentum"]

    @functools.wraps(fn)
    def wrapper(*data, **kw):
        return fn(*data, **kw)
    wrapper.__signature__ = sig.replace(parameters=params)
    return wrapper


for _v in _VARIANTS:
    _define(_v)


def _define_adamw(mp):
    """``_multi_adamw_update`` / ``_multi_mp_adamw_update``: (weight, grad, mean, var[,
    weight32]) per weight, then one rescale_grad array; returns the new weights, then each
    weight's mean, var (and float32 copy), written back in place. Skipped as a whole when
    rescale_grad is NaN, inf or 0."""
    per = 5 if mp else 4
    slots = (2, 3, 4) if mp else (2, 3)

    def multi(*data, lrs: Floats, wds: Floats, etas: Floats, beta1: Scalar = 0.9,
              beta2: Scalar = 0.999, epsilon: Scalar = 1e-8, clip_gradient: Float = -1.0,
              num_weights: Int = 1):
        for what, v in (("learning rates", lrs), ("weight decays", wds),
                        ("learning rates schedule multiplier", etas)):
            if len(v) != num_weights:
                raise MXNetError(f"Number of {what} is inconsistent with num_weights parameter "
                                 f"passed. Expected number of {what}: {num_weights}, and got {len(v)}")
        r, ok = rescale_or_skip(data[-1])
        weights, states = [], []
        for k in range(num_weights):
            grp = data[k * per:(k + 1) * per]
            master = grp[4] if mp else grp[0]
            w, m, v = adamw_rule(master, grp[1], grp[2], grp[3], r, lr=lrs[k], eta=etas[k],
                                 wd=wds[k], beta1=beta1, beta2=beta2, epsilon=epsilon,
                                 clip_gradient=clip_gradient, fused=True)
            w, m, v = keep_if_skipped(ok, (w, m, v), (master, grp[2], grp[3]))
            weights.append(jnp.where(ok, w.astype(grp[0].dtype), grp[0]))
            states += [m, v, w] if mp else [m, v]
        return tuple(weights) + tuple(states)

    multi.__doc__ = _define_adamw.__doc__
    name = "_multi_mp_adamw_update" if mp else "_multi_adamw_update"
    register(name, num_outputs=lambda a: a["num_weights"] * (1 + len(slots)),
             num_visible=lambda a: a["num_weights"],
             mutates=lambda a: [k * per + s for k in range(a["num_weights"]) for s in slots])(
                 multi)


_define_adamw(False)
_define_adamw(True)


@register("multi_sum_sq", num_outputs=1)
def multi_sum_sq(*data, num_arrays: Int):
    return jnp.stack([jnp.sum(jnp.square(x.astype(jnp.float32))) for x in data])


@register("multi_lars")
def multi_lars(lrs, weights_sum_sq, grads_sum_sq, wds, *, eta: Scalar, eps: Scalar,
               rescale_grad: Scalar = 1.0):
    """Each lr scaled by eta * |w| / (rescale_grad * |g| + wd * |w| + eps) where both norms are
    positive (what the LARS optimizer calls per weight)."""
    eta, eps, rescale_grad = (_kernel_param(x, lrs.dtype) for x in (eta, eps, rescale_grad))
    w, g = jnp.sqrt(weights_sum_sq), jnp.sqrt(grads_sum_sq)
    ok = (w > 0) & (g > 0)
    scaled = lrs * eta * w / jnp.where(ok, g * rescale_grad + wds * w + eps, 1.0)
    return jnp.where(ok, scaled, lrs).astype(lrs.dtype)


def _finite(xs):
    ok = jnp.array(True)
    for x in xs:
        ok = ok & jnp.all(jnp.isfinite(x))
    return ok.astype(jnp.float32).reshape((1,))


@register("all_finite")
def all_finite(data, *, init_output: Bool = True):
    return _finite([data])


@register("multi_all_finite")
def multi_all_finite(*data, num_arrays: Int = 1, init_output: Bool = True):
    return _finite(data)


def _floating(dt):
    return jnp.issubdtype(dt, jnp.floating)


@register("amp_cast")
def amp_cast(data, *, dtype: Dtype):
    return data.astype(dtype) if _floating(data.dtype) else data


@register("amp_multicast", num_outputs=lambda a: a["num_outputs"])
def amp_multicast(*data, num_outputs: Int, cast_narrow: Bool = False):
    floats = [x.dtype for x in data if _floating(x.dtype)]
    if not floats:
        return tuple(data)
    pick = min if cast_narrow else max
    target = pick(floats, key=lambda d: jnp.dtype(d).itemsize)
    return tuple(x.astype(target) if _floating(x.dtype) else x for x in data)


@register("reset_arrays", num_outputs=lambda a: a["num_arrays"], num_visible=0,
          mutates=lambda a: list(range(a["num_arrays"])))
def reset_arrays(*data, num_arrays: Int):
    return tuple(jnp.zeros_like(x) for x in data)


def _flag(test):
    def fn(data):
        return test(data).astype(data.dtype)
    return fn


for _name, _test in (("isnan", jnp.isnan), ("isinf", jnp.isinf), ("isfinite", jnp.isfinite)):
    _fn = _flag(_test)
    _fn.__name__ = _name
    _fn.__doc__ = f"1 where {_name}(data), else 0, in data's dtype."
    register(f"_contrib_{_name}")(_fn)
