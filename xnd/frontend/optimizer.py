"""mx.optimizer: MXNet 1.9.1's optimizers, update rules and Updater.

One truth per rule
------------------
Every optimizer's arithmetic lives in one pure per-parameter function,
``_rule(w, g, state, lr, wd, ex) -> (w, state)`` on jax arrays, written in
the order and precision of MXNet 1.9.1's kernel (``sgd_mom_update``,
``adam_update``, ...) or of its Python NDArray code (AdaGrad, AdaDelta,
Adamax, Nadam, DCASGD, SGLD): kernel hyper-parameters are rounded to float32
as MXNet's ``float`` op parameters are; Python-side scalars (Adam's bias
corrected lr, Nadam's momentum schedule) are computed in double on the host
and rounded once, as MXNet's scalar ops do.

The fused interface (for Module, Gluon Trainer and KVStore)::

    lrs, wds, extras = opt.step_scalars(indices)      # host bookkeeping, MXNet's order
    new_w, new_s = opt.step(weights, grads, states, lrs, wds, extras)   # pure

``weights``/``grads`` are lists of jax arrays, ``states`` the matching list
of state pytrees (tuples of jax arrays / None, same structure as
``create_state_multi_precision`` returns); ``lrs``/``wds`` are per-parameter
scalars; ``extras`` per-parameter dicts of host scalars (``rescale_grad``, step
counts, a PRNG key for SGLD). ``step`` reads the hyper-parameters (momentum,
betas, clip_gradient, ...) at trace time: jit it through ``opt.jitted_step()``,
which caches one compiled function per ``opt.static_key()`` (optionally with
donated weight and state buffers). ``update``/``update_multi_precision`` and
``Updater`` run the same ``step`` on NDArrays and write the results back in
place.

Updater states
--------------
``Updater.get_states()`` returns bytes in xnd's own safe format (magic
``XNDOPTST``, a JSON header with the state structure and optionally the
optimizer's settings, then the arrays in MXNet's NDArray container format). It
never pickles. MXNet's ``.states`` files are Python pickles: ``set_states``
refuses them with MXNetError rather than unpickling untrusted data.
"""
import copy
import json
import math
import os
import struct
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .. import serialization
from ..base import MXNetError
from ..context import Context
from ..ndarray import NDArray, _wrap
from . import lr_scheduler as _lrs
from . import ndarray as nd
from . import random as _random

__all__ = ["AdaDelta", "AdaGrad", "Adam", "Adamax", "DCASGD", "FTML", "Ftrl", "LARS", "LAMB",
           "NAG", "Nadam", "Optimizer", "RMSProp", "SGD", "SGLD", "Signum", "Test", "Updater",
           "ccSGD", "LBSGD", "contrib", "create", "get_updater", "register", "GroupAdaGrad"]

_F32 = jnp.float32


def _kernel_scalar(x, dt):
    """An MXNet op parameter: a C ``float`` cast to the kernel's DType."""
    return jnp.asarray(jnp.asarray(x, _F32), dt)


def _py_scalar(x, dt):
    """A scalar of a Python-level NDArray op (double, cast to the array's dtype)."""
    return jnp.asarray(x, dt)


def _kclip(x, bound):
    """mshadow_op::clip::Map(x, bound)."""
    return jnp.where(x > bound, bound, jnp.where(x < -bound, -bound, x))


def _sign(x):
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


def _is_nd(x):
    return isinstance(x, NDArray)


def _tree_vals(state):
    return jax.tree_util.tree_map(lambda a: a._val(), state)


def _pack(lrs, wds, extras):
    """Per-parameter host scalars -> (float64 array, float64 array, {key: array})."""
    cols = {}
    if extras:
        for k in extras[0]:
            vals = [e[k] for e in extras]
            cols[k] = np.stack([np.asarray(v) for v in vals]) if isinstance(vals[0], np.ndarray) \
                else np.asarray(vals, dtype=np.float64)
    return np.asarray(lrs, np.float64), np.asarray(wds, np.float64), cols


def _same_dtypes(new, old):
    """Keep each state array's dtype (float32 histories stay float32 beside float64 weights)."""
    if new is None or old is None:
        return new
    return jax.tree_util.tree_map(lambda n, o: n.astype(o.dtype), new, old)


def _tree_write(state, new):
    """Write a new state pytree (jax arrays) into the matching NDArray pytree."""
    leaves = jax.tree_util.tree_leaves(state)
    new_leaves = jax.tree_util.tree_leaves(new)
    if len(leaves) != len(new_leaves):
        raise MXNetError("optimizer state structure changed during update")
    for a, v in zip(leaves, new_leaves):
        a._write(v)


_SHARED_JIT = {}
_STEP_ATTRS = ("clip_gradient", "multi_precision", "rescale_grad")


class Optimizer:
    """Base class of all optimizers (mx.optimizer.Optimizer).

    Arguments, defaults and bookkeeping (``num_update``, ``_index_update_count``,
    ``lr_mult``/``wd_mult``, ``param_idx2name``, ``sym``) are MXNet 1.9.1's.
    """

    opt_registry = {}
    # names of the attributes the update rule reads (the compiled step's cache key)
    _static_attrs = ()
    # multi-precision state layout: base class (weight32, state); SGD-like (state, weight32)
    _mp_master_first = True
    # update counts and learning rates for a whole chunk at once (MXNet's aggregated path)
    _batched = False
    # lr/wd enter as Python-level scalar ops (double -> dtype) rather than C float params
    _python_rule = False

    def __init__(self, rescale_grad=1., param_idx2name=None, wd=0., clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None:
            if lr_scheduler.base_lr != learning_rate:
                print(UserWarning("learning rate from ``lr_scheduler`` has been "
                                  "overwritten by ``learning_rate`` in optimizer."))
                lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.lr_mult = {}
        self.wd_mult = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        assert isinstance(param_idx2name, dict), \
            "param_idx2name should be a dict of param indexes to names."
        self.idx2name = param_idx2name.copy()
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.allow_np_array = False
        self.set_lr_mult({})
        self.set_wd_mult({})

    # ---- registry ----------------------------------------------------------------------
    @staticmethod
    def register(klass):
        """Register an optimizer class under its lower-cased class name."""
        assert isinstance(klass, type)
        name = klass.__name__.lower()
        if name in Optimizer.opt_registry:
            old = Optimizer.opt_registry[name]
            warnings.warn("WARNING: New optimizer %s.%s is overriding existing optimizer %s.%s"
                          % (klass.__module__, klass.__name__, old.__module__, old.__name__))
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        """Instantiate a registered optimizer by (case-insensitive) name."""
        key = name.lower() if isinstance(name, str) else name
        if key in Optimizer.opt_registry:
            return Optimizer.opt_registry[key](**kwargs)
        raise ValueError("Cannot find optimizer %s. Registered optimizers: %s"
                         % (name, ", ".join(sorted(Optimizer.opt_registry))))

    # ---- learning rate, multipliers, counts -------------------------------------------------
    @property
    def learning_rate(self):
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note that "
                              "set_learning_rate can mutate the value of the learning rate of the "
                              "optimizer only when the LRScheduler of the optimizer is undefined.")
        self.lr = lr

    def set_lr_scale(self, args_lrscale):
        """[DEPRECATED] Sets lr scale. Use set_lr_mult instead."""
        raise DeprecationWarning

    def _sym_mult(self, key):
        out = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and key in attr[name]:
                    out[name] = float(attr[name][key])
        return out

    def set_lr_mult(self, args_lr_mult):
        """Per-parameter lr multipliers (by name or index); symbol ``__lr_mult__`` attrs first."""
        self.lr_mult = self._sym_mult("__lr_mult__")
        self.lr_mult.update(args_lr_mult)

    def _wd_mult_default(self, name):
        return name.endswith("_weight") or name.endswith("_gamma")

    def set_wd_mult(self, args_wd_mult):
        """Per-parameter wd multipliers; with ``param_idx2name``, names not ending in
        ``_weight``/``_gamma`` get 0."""
        self.wd_mult = {n: 0.0 for n in self.idx2name.values() if not self._wd_mult_default(n)}
        self.wd_mult.update(self._sym_mult("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def _set_current_context(self, device_id):
        if device_id not in self._all_index_update_counts:
            self._all_index_update_counts[device_id] = {}
        self._index_update_count = self._all_index_update_counts[device_id]

    def _update_count(self, index):
        for idx in (index if isinstance(index, (list, tuple)) else [index]):
            if idx not in self._index_update_count:
                self._index_update_count[idx] = self.begin_num_update
            self._index_update_count[idx] += 1
            self.num_update = max(self._index_update_count[idx], self.num_update)

    def _mult(self, index, table, attr):
        if index in self.param_dict:
            return getattr(self.param_dict[index], attr)
        if index in table:
            return table[index]
        if index in self.idx2name:
            return table.get(self.idx2name[index], 1.0)
        return 1.0

    def _get_lrs(self, indices):
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        return [lr * self._mult(i, self.lr_mult, "lr_mult") for i in indices]

    def _get_lr(self, index):
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        return [self.wd * self._mult(i, self.wd_mult, "wd_mult") for i in indices]

    def _get_wd(self, index):
        return self._get_wds([index])[0]

    def __getstate__(self):
        ret = self.__dict__.copy()
        ret.pop("param_dict", None)
        ret.pop("_jit_cache", None)
        return ret

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}

    # ---- states ------------------------------------------------------------------------
    def create_state(self, index, weight):
        """The auxiliary state of one weight (None, an NDArray or a tuple of them)."""

    def create_state_multi_precision(self, index, weight):
        """As create_state, plus a float32 master copy when multi_precision and float16."""
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            inner = self.create_state(index, master)
            return (master, inner) if self._mp_master_first else (inner, master)
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or "
                          "slow convergence. Consider using multi_precision=True option of the "
                          "%s optimizer" % type(self).__name__)
        return self.create_state(index, weight)

    # ---- the pure interface --------------------------------------------------------------------
    def static_key(self):
        """Everything the update rule reads at trace time (hashable): a compiled step is
        valid as long as this key is unchanged."""
        vals = [type(self), self.clip_gradient, bool(self.multi_precision)]
        for a in self._static_attrs:
            v = getattr(self, a, None)
            try:
                hash(v)
            except TypeError:
                v = repr(v)
            vals.append(v)
        return tuple(vals)

    def _extra(self, index, lr, wd):
        """Per-parameter host scalars beyond lr and wd (after the count update)."""
        return {}

    def step_scalars(self, indices, packed=False):
        """MXNet's host bookkeeping for one update of ``indices``: bump the update counts,
        then learning rates (schedule, lr_mult), weight decays (wd_mult) and the per-rule
        extras. Returns ``(lrs, wds, extras)``, lists aligned with ``indices``; with
        ``packed=True`` as float64 arrays and a dict of arrays (one host-to-device transfer
        per kind instead of one per scalar: pass these to a jitted step)."""
        lrs, wds, extras = self._step_scalars(indices)
        if packed:
            return _pack(lrs, wds, extras)
        return lrs, wds, extras

    def _step_scalars(self, indices):
        indices = list(indices)
        lrs, wds, extras = [], [], []
        if self._batched:
            chunk = max(1, self.aggregate_num or len(indices))
            groups = [indices[i:i + chunk] for i in range(0, len(indices), chunk)] or [[]]
        else:
            groups = [[i] for i in indices]
        for grp in groups:
            if not grp:
                continue
            self._update_count(grp)
            g_lrs = self._get_lrs(grp)
            g_wds = self._get_wds(grp)
            for idx, lr, wd in zip(grp, g_lrs, g_wds):
                ex = {"rescale_grad": self.rescale_grad}
                ex.update(self._extra(idx, lr, wd))
                lrs.append(ex.pop("lr", lr))
                wds.append(wd)
                extras.append(ex)
        return lrs, wds, extras

    def _is_mp(self, w, state, multi_precision):
        mp = self.multi_precision if multi_precision is None else multi_precision
        return bool(mp) and w.dtype == jnp.float16 and isinstance(state, (tuple, list))

    def step(self, weights, grads, states, lrs, wds, extras=None, multi_precision=None):
        """Pure update of all parameters: lists of jax arrays in, ``(new_weights,
        new_states)`` out (states keep their pytree structure). Traceable under jit."""
        if extras is None:
            if type(self)._extra is not Optimizer._extra:
                raise MXNetError(
                    "%s.step needs the per-parameter extras (step counts, bias corrections, "
                    "random keys): call `lrs, wds, extras = opt.step_scalars(indices)` and pass "
                    "extras" % type(self).__name__)
            extras = [{"rescale_grad": self.rescale_grad}] * len(weights)
        if isinstance(extras, dict):       # packed: one array per key
            extras = [{k: v[i] for k, v in extras.items()} for i in range(len(weights))]
        scalar = _py_scalar if self._python_rule else _kernel_scalar
        new_w, new_s = [], []
        for w, g, s, lr, wd, ex in zip(weights, grads, states, lrs, wds, extras):
            if self._is_mp(w, s, multi_precision):
                if self._mp_master_first:
                    master, inner = s
                else:
                    inner, master = s
                nm, ni = self._rule(master, g.astype(_F32), inner, scalar(lr, _F32),
                                    scalar(wd, _F32), ex)
                ni = _same_dtypes(ni, inner)
                new_w.append(nm.astype(w.dtype))
                ns = (nm, ni) if self._mp_master_first else (ni, nm)
                new_s.append(type(s)(ns))
            else:
                dt = w.dtype
                nw, ns = self._rule(w, g.astype(dt), s, scalar(lr, dt), scalar(wd, dt), ex)
                new_w.append(nw.astype(dt))
                new_s.append(_same_dtypes(ns, s))
        return new_w, new_s

    def _rule(self, w, g, s, lr, wd, ex):
        raise NotImplementedError()

    def jitted_step(self, donate=False, multi_precision=None):
        """``jax.jit(self.step)`` for the current hyper-parameters, cached by
        ``static_key()``; ``donate=True`` donates the weight and state buffers."""
        # built-in rules read nothing but static_key(): one cache for all instances;
        # a user subclass may read more, so it gets a cache of its own
        shared = type(self).__module__ == __name__
        cache = _SHARED_JIT if shared else self.__dict__.setdefault("_jit_cache", {})
        key = (self.static_key(), bool(donate), multi_precision)
        fn = cache.get(key)
        if fn is None:
            # trace from a private snapshot, so a later change to this optimizer can never
            # leak into a re-trace under the old key
            snap = copy.copy(self)
            snap.__dict__.pop("_jit_cache", None)
            if shared:
                snap.__dict__ = {k: v for k, v in snap.__dict__.items()
                                 if k in self._static_attrs or k in _STEP_ATTRS}

            def fn_(weights, grads, states, lrs, wds, extras):
                return snap.step(weights, grads, states, lrs, wds, extras, multi_precision)
            fn = jax.jit(fn_, donate_argnums=(0, 2) if donate else ())
            cache[key] = fn
        return fn

    # ---- the MXNet per-parameter API --------------------------------------------------------
    def _apply(self, indices, weights, grads, states, multi_precision):
        for w, g in zip(weights, grads):
            if not (_is_nd(w) and _is_nd(g)):
                raise MXNetError("optimizer update: weight and grad must be NDArrays, got %s and %s"
                                 % (type(w).__name__, type(g).__name__))
            if w.shape != g.shape:
                raise MXNetError("optimizer update: weight shape %s and grad shape %s differ"
                                 % (w.shape, g.shape))
        lrs, wds, extras = self.step_scalars(indices, packed=True)
        fn = self.jitted_step(multi_precision=multi_precision)
        new_w, new_s = fn([w._val() for w in weights], [g._val() for g in grads],
                          [_tree_vals(s) for s in states], lrs, wds, extras)
        for w, nw in zip(weights, new_w):
            w._write(nw)
        for s, ns in zip(states, new_s):
            _tree_write(s, ns)
        self._after_apply(indices, weights, grads)

    def _after_apply(self, indices, weights, grads):
        """Side effects MXNet's Python rules have on their inputs (AdaDelta scales grad)."""

    @staticmethod
    def _lists(index, weight, grad, state):
        if isinstance(index, (list, tuple)):
            return list(index), list(weight), list(grad), list(state)
        return [index], [weight], [grad], [state]

    def update(self, index, weight, grad, state):
        """Update ``weight`` in place from ``grad`` and ``state`` (lists accepted)."""
        self._apply(*self._lists(index, weight, grad, state), multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        """As update, through the float32 master copy for float16 weights when
        ``multi_precision`` is on."""
        if type(self).update is not Optimizer.update and \
                type(self).update_multi_precision is Optimizer.update_multi_precision:
            # a user-defined update() (MXNet-style custom optimizer): MXNet's base class
            # routes every update through it, one parameter at a time
            for args in zip(*self._lists(index, weight, grad, state)):
                self._update_mp_via_update(*args)
            return
        self._apply(*self._lists(index, weight, grad, state), multi_precision=None)

    def _update_mp_via_update(self, index, weight, grad, state):
        if self.multi_precision and weight.dtype == np.float16:
            master, inner = state if self._mp_master_first else state[::-1]
            self.update(index, master, grad.astype(np.float32), inner)
            master.astype(weight.dtype).copyto(weight)
        else:
            self.update(index, weight, grad, state)


register = Optimizer.register
create = Optimizer.create_optimizer


def _zeros_like(weight, dtype=None):
    return nd.zeros(weight.shape, weight.context, dtype=weight.dtype if dtype is None else dtype)


class _KernelClip:
    """Gradient clipping as MXNet's C++ update kernels apply it: on when
    ``clip_gradient`` is truthy (Python passes it only then) and >= 0."""

    def _clip_on(self):
        c = self.clip_gradient
        return bool(c) and c >= 0

    def _kgrad(self, g, dt, ex):
        """clip(rescale_grad * grad)"""
        rg = _kernel_scalar(ex["rescale_grad"], dt)
        x = rg * g
        if self._clip_on():
            x = _kclip(x, _kernel_scalar(self.clip_gradient, dt))
        return x


class _PyClip:
    """Gradient clipping as MXNet's Python-level rules apply it (``nd.clip``): on
    whenever ``clip_gradient is not None``."""

    def _pclip(self, x, dt):
        if self.clip_gradient is None:
            return x
        c = _py_scalar(self.clip_gradient, dt)
        return jnp.minimum(jnp.maximum(x, -c), c)


def _mom_coef(m):
    return m if m > 0 else 0.0


@register
class SGD(_KernelClip, Optimizer):
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

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        if s is None:
            if self._clip_on():
                return (1 - lr * wd) * w - lr * self._kgrad(g, dt, ex), None
            rg = _kernel_scalar(ex["rescale_grad"], dt)
            return (1 - lr * wd) * w - (lr * rg) * g, None
        mc = _kernel_scalar(_mom_coef(self.momentum), dt)
        if self._clip_on():
            m = mc * s - lr * wd * w - lr * self._kgrad(g, dt, ex)
        else:
            rg = _kernel_scalar(ex["rescale_grad"], dt)
            m = mc * s - lr * wd * w - lr * rg * g
        return w + m, m


@register
class ccSGD(SGD):
    """[DEPRECATED] Same as SGD."""


@register
class Signum(_KernelClip, Optimizer):
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

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        if s is None:
            return (1 - lr * wd) * w - lr * _sign(g), None
        mc = _kernel_scalar(_mom_coef(self.momentum), dt)
        one_m = 1 - mc
        m = mc * s - one_m * wd * w - one_m * self._kgrad(g, dt, ex)
        wd_lh = _kernel_scalar(self.wd_lh or 0.0, dt)
        return (1 - lr * wd_lh) * w + lr * _sign(m), m


@register
class FTML(Optimizer):
    """FTML (``ftml_update``), state (d, v, z)::

        g = clip(rescale_grad * grad + wd * weight)
        v = beta2 * v + (1 - beta2) * g**2
        d_t = (1 - beta1**t) / lr * (sqrt(v / (1 - beta2**t)) + epsilon)
        z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * weight
        weight = -z / d_t
    """
    _static_attrs = ("beta1", "beta2", "epsilon")

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight), _zeros_like(weight))

    def _extra(self, index, lr, wd):
        t = np.float32(self._index_update_count[index])
        # power::Map(beta, t) in the kernel's float: computed here with numpy's powf
        return {"b1t": float(np.power(np.float32(self.beta1), t)),
                "b2t": float(np.power(np.float32(self.beta2), t))}

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        d, v, z = s
        b1, b2 = _kernel_scalar(self.beta1, dt), _kernel_scalar(self.beta2, dt)
        rg = _kernel_scalar(ex["rescale_grad"], dt)
        gi = rg * g + wd * w
        if self.clip_gradient and self.clip_gradient >= 0:
            gi = _kclip(gi, _kernel_scalar(self.clip_gradient, dt))
        v = b2 * v + (1 - b2) * (gi * gi)
        eps = _kernel_scalar(self.epsilon, dt)
        d_t = (1 - _py_scalar(ex["b1t"], dt)) / lr * \
            (jnp.sqrt(v / (1 - _py_scalar(ex["b2t"], dt))) + eps)
        z = b1 * z + (1 - b1) * gi - (d_t - b1 * d) * w
        return -z / d_t, (d_t, v, z)


@register
class LARS(_KernelClip, Optimizer):
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

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _extra(self, index, lr, wd):
        name = self.idx2name.get(index, str(index))
        skip = name.endswith("gamma") or name.endswith("beta") or name.endswith("bias")
        mom = 0.0
        if self.momentum > 0:
            mom = self.momentum * (self.cur_lr / self.last_lr) \
                if (self.momentum_correction and self.last_lr != 0) else self.momentum
        return {"lars": 0.0 if skip else 1.0, "momentum": mom}

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        # multi_sum_sq + multi_lars, in float32
        w32, g32 = w.astype(_F32), g.astype(_F32)
        w_norm = jnp.sqrt(jnp.sum(w32 * w32))
        g_norm = jnp.sqrt(jnp.sum(g32 * g32)) * _kernel_scalar(ex["rescale_grad"], _F32)
        lr32, wd32 = lr.astype(_F32), wd.astype(_F32)
        scaled = lr32 * _kernel_scalar(self.eta, _F32) * w_norm / \
            (g_norm + wd32 * w_norm + _kernel_scalar(self.eps, _F32))
        use = (jnp.asarray(ex["lars"]) > 0) & (w_norm > 0) & (g_norm > 0)
        lr = jnp.where(use, scaled, lr32).astype(dt)
        mc = _kernel_scalar(ex["momentum"], dt)
        if self._clip_on():
            m = (mc * s if s is not None else 0) - lr * wd * w - lr * self._kgrad(g, dt, ex)
        else:
            rg = _kernel_scalar(ex["rescale_grad"], dt)
            m = (mc * s if s is not None else 0) - lr * wd * w - lr * rg * g
        return w + m, (m if s is not None else None)


@register
class LAMB(_KernelClip, Optimizer):
    """LAMB (``lamb_update_phase1`` + ``lamb_update_phase2``)::

        m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g**2   (g clipped, rescaled)
        u = m_hat / (sqrt(v_hat) + epsilon) + wd * weight   (hats only with bias_correction)
        r1 = clamp(|weight|, lower_bound, upper_bound);  r2 = |u|
        weight -= lr * (r1 / r2 if r1 > 0 and r2 > 0 else 1) * u
    """
    _static_attrs = ("beta1", "beta2", "epsilon", "lower_bound", "upper_bound", "bias_correction")
    _batched = True

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction
        self.aggregate_num = max(1, min(45, int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE",
                                                          "45"))))

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    def _extra(self, index, lr, wd):
        t = self._index_update_count[index]
        return {"b1t": float(np.float32(self.beta1) ** np.float32(t)),
                "b2t": float(np.float32(self.beta2) ** np.float32(t))}

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        mean, var = s
        b1, b2 = _kernel_scalar(self.beta1, dt), _kernel_scalar(self.beta2, dt)
        gr = self._kgrad(g, dt, ex)
        mean = b1 * mean + (1 - b1) * gr
        var = b2 * var + (1 - b2) * gr * gr
        eps = _kernel_scalar(self.epsilon, dt)
        if self.bias_correction:
            mean_hat = (mean.astype(jnp.float64) / (1.0 - jnp.asarray(ex["b1t"], jnp.float64))
                        ).astype(dt)
            var_hat = var / (1 - _py_scalar(ex["b2t"], dt))
            u = mean_hat / (jnp.sqrt(var_hat) + eps) + wd * w
        else:
            u = mean / (jnp.sqrt(var) + eps) + wd * w
        r1 = jnp.sqrt(jnp.sum(w * w))
        r2 = jnp.sqrt(jnp.sum(u * u))
        if self.lower_bound:
            r1 = jnp.maximum(r1, _kernel_scalar(self.lower_bound, dt))
        if self.upper_bound:
            r1 = jnp.minimum(r1, _kernel_scalar(self.upper_bound, dt))
        lr_t = jnp.where((r1 == 0) | (r2 == 0), lr, lr * r1 / r2)
        return w - lr_t * u, (mean, var)


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
class NAG(_KernelClip, Optimizer):
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

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        if s is None:
            return SGD._rule(self, w, g, None, lr, wd, ex)
        mc = _kernel_scalar(_mom_coef(self.momentum), dt)
        gr = self._kgrad(g, dt, ex)
        m = mc * s
        w_new = w - m + (mc + 1) * (m - lr * (gr + wd * w))
        # MXNet's kernel runs in place (out aliases weight): the momentum is computed after
        # the weight was overwritten, so it sees the *new* weight
        return w_new, m - lr * (gr + wd * w_new)


@register
class SGLD(_PyClip, Optimizer):
    """Stochastic gradient Langevin dynamics::

        weight += -lr/2 * (clip(rescale_grad * grad) + wd * weight) + normal(0, sqrt(lr))

    The noise comes from xnd's generator (``mx.random.seed``), not MXNet's stream.
    """
    _python_rule = True

    def create_state(self, index, weight):
        return None

    def _extra(self, index, lr, wd):
        return {"half_lr": -lr / 2, "std": math.sqrt(lr), "key": _random.next_key()}

    def _rule(self, w, g, s, lr, wd, ex):
        from ..lowering.random import prng
        dt = w.dtype
        g = self._pclip(g * _py_scalar(ex["rescale_grad"], dt), dt)
        w = w + _py_scalar(ex["half_lr"], dt) * (g + wd * w)
        noise = jax.random.normal(prng(ex["key"]), w.shape, _F32) * \
            jnp.asarray(ex["std"], _F32)
        return w + noise.astype(dt), None


@register
class Adam(_KernelClip, Optimizer):
    """Adam (``adam_update``), the bias correction folded into lr on the host::

        g = clip(rescale_grad * grad + wd * weight)
        m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g**2
        weight -= lr * sqrt(1 - beta2**t) / (1 - beta1**t) * m / (sqrt(v) + epsilon)
    """
    _static_attrs = ("beta1", "beta2", "epsilon")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    def _extra(self, index, lr, wd):
        t = self._index_update_count[index]
        coef1 = 1. - self.beta1 ** t
        coef2 = 1. - self.beta2 ** t
        return {"lr": lr * math.sqrt(coef2) / coef1}

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        mean, var = s
        rg = _kernel_scalar(ex["rescale_grad"], dt)
        gr = g * rg + w * wd
        if self._clip_on():
            gr = _kclip(gr, _kernel_scalar(self.clip_gradient, dt))
        b1, b2 = _kernel_scalar(self.beta1, dt), _kernel_scalar(self.beta2, dt)
        mean = b1 * mean + (1 - b1) * gr
        var = b2 * var + (1 - b2) * gr * gr
        return w - lr * mean / (jnp.sqrt(var) + _kernel_scalar(self.epsilon, dt)), (mean, var)


@register
class AdaGrad(_PyClip, Optimizer):
    """AdaGrad (MXNet's Python rule; history is float32)::

        g = clip(grad * rescale_grad);  history += g**2
        weight += (g / sqrt(history + eps) + weight * wd) * -lr
    """
    _python_rule = True
    _static_attrs = ("float_stable_eps",)

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        return nd.zeros(weight.shape, weight.context)

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        g = self._pclip(g * _py_scalar(ex["rescale_grad"], dt), dt)
        hist = s + jnp.square(g).astype(s.dtype)
        div = g / jnp.sqrt(hist + _py_scalar(self.float_stable_eps, hist.dtype))
        return w + (div + w * wd) * -lr, hist


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
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        if self.centered:
            return (nd.zeros(weight.shape, weight.context), nd.zeros(weight.shape, weight.context),
                    nd.zeros(weight.shape, weight.context))
        return (nd.zeros(weight.shape, weight.context),)

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        rg = _kernel_scalar(ex["rescale_grad"], dt)
        gr = rg * g + wd * w
        if self._clip_on():
            gr = _kclip(gr, _kernel_scalar(self.clip_gradient, dt))
        g1 = _kernel_scalar(self.gamma1, dt)
        eps = _kernel_scalar(self.epsilon, dt)
        cw = self.clip_weights
        if not self.centered:
            (n,) = s
            n = (1 - g1) * (gr * gr) + g1 * n
            w = w - lr * (gr / jnp.sqrt(n + eps))
            new_s = (n,)
        else:
            n, gs, delta = s
            g2 = _kernel_scalar(self.gamma2, dt)
            n = (1 - g1) * gr * gr + g1 * n
            gs = (1 - g1) * gr + g1 * gs
            delta = g2 * delta - (lr * gr / jnp.sqrt(n - gs * gs + eps))
            w = w + delta
            new_s = (n, gs, delta)
        if cw and cw >= 0:
            w = _kclip(w, _kernel_scalar(cw, dt))
        return w, type(s)(new_s)


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
    _python_rule = True
    _static_attrs = ("rho", "epsilon")

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (nd.zeros(weight.shape, weight.context), nd.zeros(weight.shape, weight.context))

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
class Ftrl(_KernelClip, Optimizer):
    """FTRL-proximal (``ftrl_update``), state (z, n), float32::

        g = clip(rescale_grad * grad)
        z += g - (sqrt(n + g**2) - sqrt(n)) * weight / lr;  n += g**2
        weight = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (|z| > lamda1)
    """
    _static_attrs = ("lamda1", "beta")

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        self.lr = learning_rate

    def create_state(self, index, weight):
        return (nd.zeros(weight.shape, weight.context), nd.zeros(weight.shape, weight.context))

    def _rule(self, w, g, s, lr, wd, ex):
        dt = w.dtype
        z, n = s
        gr = self._kgrad(g, dt, ex)
        g2 = gr * gr
        z = z + (gr - (jnp.sqrt(n + g2) - jnp.sqrt(n)) * w / lr)
        n = n + g2
        l1 = _kernel_scalar(self.lamda1, dt)
        beta = _kernel_scalar(self.beta, dt)
        w = (_sign(z) * l1 - z) / ((beta + jnp.sqrt(n)) / lr + wd) * \
            (jnp.abs(z) > l1).astype(dt)
        return w, (z, n)


@register
class Adamax(_PyClip, Optimizer):
    """AdaMax (MXNet's Python rule)::

        g = clip(grad * rescale_grad + wd * weight)
        m = beta1 * m + (1 - beta1) * g;  u = maximum(beta2 * u, |g|)
        weight -= lr / (1 - beta1**t) * m / u
    """
    _python_rule = True
    _static_attrs = ("beta1", "beta2")

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

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
    _python_rule = True
    _static_attrs = ("beta1", "beta2", "epsilon")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

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


@register
class LBSGD(Optimizer):
    """Large-batch SGD with warmup/LARS strategies: not implemented in xnd."""

    def __init__(self, *args, **kwargs):
        raise MXNetError("mx.optimizer.LBSGD is not implemented in xnd; use SGD with an "
                         "lr_scheduler (warmup_steps) or LARS")


contrib = type(os)("xnd.frontend.optimizer.contrib", "Contrib optimizers (GroupAdaGrad).")
contrib.GroupAdaGrad = GroupAdaGrad


@register
class Test(Optimizer):
    """The Test optimizer: ``weight += grad * rescale_grad``; state = weight."""
    _python_rule = True

    def create_state(self, index, weight):
        return nd.zeros(weight.shape, weight.context)

    def _rule(self, w, g, s, lr, wd, ex):
        w = w + g * _py_scalar(ex["rescale_grad"], w.dtype)
        return w, w.astype(s.dtype)


# --------------------------------------------------------------------------- Updater
_MAGIC = b"XNDOPTST"
_VERSION = 1
_PICKLE_HINT = ("MXNet's optimizer state files are Python pickles, which xnd never loads "
                "(unpickling can run arbitrary code); re-create the states with xnd "
                "(Updater.get_states / save_optimizer_states) or start the optimizer fresh")


class Updater:
    """Applies an optimizer to (index, grad, weight) triples, holding the states
    (mx.optimizer.Updater; what KVStore and Module call). A call with lists
    updates all of them in one compiled step."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        if not isinstance(index, (list, tuple)):
            indices, grads, weights = [index], [grad], [weight]
        else:
            indices, grads, weights = list(index), list(grad), list(weight)
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        for i, idx in enumerate(indices):
            if isinstance(idx, bytes):
                idx = indices[i] = idx.decode("utf-8")
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, weights[i])
                self.states_synced[idx] = True
            elif not self.states_synced[idx]:
                self.states[idx] = self.sync_state_context(self.states[idx], weights[i].context)
                self.states_synced[idx] = True
        if not indices:
            return
        self.optimizer.update_multi_precision(indices, weights, grads,
                                              [self.states[i] for i in indices])

    def sync_state_context(self, state, context):
        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state

    def get_states(self, dump_optimizer=False):
        """The states (and, with ``dump_optimizer``, the optimizer's settings) as bytes in
        xnd's format: ``XNDOPTST`` | u32 version | u64 header length | JSON header | NDArray
        container with the arrays. Never a pickle."""
        arrays, ctxs = [], []

        def enc_tree(s):
            if s is None:
                return None
            if isinstance(s, NDArray):
                arrays.append(s.asnumpy())
                ctxs.append((s.context.device_typeid, s.context.device_id))
                return {"nd": len(arrays) - 1}
            if isinstance(s, (tuple, list)):
                return {"tuple" if isinstance(s, tuple) else "list": [enc_tree(v) for v in s]}
            raise MXNetError("Updater.get_states: cannot save a state of type %s"
                             % type(s).__name__)
        states = [[_enc_key(k), enc_tree(v)] for k, v in self.states.items()]
        header = {"format": "xnd-updater-states", "version": _VERSION, "states": states,
                  "optimizer": _enc_optimizer(self.optimizer) if dump_optimizer else None}
        head = json.dumps(header, sort_keys=True).encode("utf-8")
        body = serialization.dumps(arrays, contexts=ctxs)
        return _MAGIC + struct.pack("<IQ", _VERSION, len(head)) + head + body

    def set_states(self, states):
        """Load bytes written by ``get_states`` (refuses MXNet's pickled states)."""
        header, arrays = _parse_states(states)
        ctx = None
        if self.states:
            first = next(iter(self.states.values()))
            leaves = [a for a in jax.tree_util.tree_leaves(first) if isinstance(a, NDArray)]
            ctx = leaves[0].context if leaves else None

        def dec_tree(t):
            if t is None:
                return None
            if "nd" in t:
                i = t["nd"]
                if not isinstance(i, int) or not 0 <= i < len(arrays):
                    raise MXNetError("optimizer states: bad array reference %r" % (i,))
                return nd.array(arrays[i], ctx=ctx, dtype=arrays[i].dtype)
            if "tuple" in t:
                return tuple(dec_tree(v) for v in t["tuple"])
            if "list" in t:
                return [dec_tree(v) for v in t["list"]]
            raise MXNetError("optimizer states: unknown entry %r" % (t,))
        new_states = {_dec_key(k): dec_tree(v) for k, v in header["states"]}
        if header.get("optimizer") is not None:
            self.optimizer = _dec_optimizer(header["optimizer"])
        self.states = new_states
        self.states_synced = dict.fromkeys(self.states.keys(), False)


def get_updater(optimizer):
    """An Updater (the callable KVStore and Module use) for ``optimizer``."""
    return Updater(optimizer)


def _enc_key(k):
    if isinstance(k, bool) or not isinstance(k, (int, str, np.integer)):
        raise MXNetError("Updater.get_states: state keys must be int or str, got %r" % (k,))
    return {"int": int(k)} if isinstance(k, (int, np.integer)) else {"str": k}


def _dec_key(k):
    if isinstance(k, dict) and isinstance(k.get("int"), int):
        return k["int"]
    if isinstance(k, dict) and isinstance(k.get("str"), str):
        return k["str"]
    raise MXNetError("optimizer states: bad key %r" % (k,))


def _enc_value(v, where):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return {"float": repr(float(v))}
    if isinstance(v, tuple):
        return {"tuple": [_enc_value(x, where) for x in v]}
    if isinstance(v, list):
        return [_enc_value(x, where) for x in v]
    if isinstance(v, dict):
        return {"dict": [[_enc_value(k, where), _enc_value(x, where)] for k, x in v.items()]}
    if isinstance(v, _lrs.LRScheduler):
        return {"scheduler": type(v).__name__,
                "attrs": {k: _enc_value(x, where) for k, x in vars(v).items()}}
    raise MXNetError("Updater.get_states(dump_optimizer=True): cannot save the optimizer "
                     "attribute %s of type %s" % (where, type(v).__name__))


def _dec_value(v):
    if v is None or isinstance(v, (bool, str, int)):
        return v
    if isinstance(v, list):
        return [_dec_value(x) for x in v]
    if isinstance(v, dict):
        if "float" in v:
            return float(v["float"])
        if "tuple" in v:
            return tuple(_dec_value(x) for x in v["tuple"])
        if "dict" in v:
            return {_dec_value(k): _dec_value(x) for k, x in v["dict"]}
        if "scheduler" in v:
            cls = _find_scheduler(v["scheduler"])
            obj = cls.__new__(cls)
            obj.__dict__.update({k: _dec_value(x) for k, x in v["attrs"].items()})
            return obj
    raise MXNetError("optimizer states: cannot decode %r" % (v,))


def _find_scheduler(name):
    todo = [_lrs.LRScheduler]
    while todo:
        cls = todo.pop()
        if cls.__name__ == name:
            return cls
        todo.extend(cls.__subclasses__())
    raise MXNetError("optimizer states: unknown lr scheduler class %r" % (name,))


_SKIP_ATTRS = ("param_dict", "_jit_cache")


def _enc_optimizer(opt):
    name = type(opt).__name__.lower()
    if Optimizer.opt_registry.get(name) is not type(opt):
        raise MXNetError("Updater.get_states(dump_optimizer=True): optimizer class %s is not "
                         "registered (use mx.optimizer.register)" % type(opt).__name__)
    attrs = {k: _enc_value(v, k) for k, v in vars(opt).items() if k not in _SKIP_ATTRS}
    return {"class": name, "attrs": attrs}


def _dec_optimizer(d):
    cls = Optimizer.opt_registry.get(d.get("class"))
    if cls is None:
        raise MXNetError("optimizer states: unknown optimizer %r" % (d.get("class"),))
    opt = cls.__new__(cls)
    opt.__dict__.update({k: _dec_value(v) for k, v in d["attrs"].items()})
    opt.param_dict = {}
    if "_all_index_update_counts" in opt.__dict__:
        counts = opt._all_index_update_counts
        opt._index_update_count = counts.setdefault(0, {}) if 0 in counts or not counts \
            else next(iter(counts.values()))
    return opt


def _parse_states(buf):
    buf = bytes(buf)
    if not buf.startswith(_MAGIC):
        if buf[:1] == b"\x80" or buf[:1] in (b"(", b"]", b"}"):
            raise MXNetError("Cannot load optimizer states: " + _PICKLE_HINT)
        raise MXNetError("Cannot load optimizer states: not an xnd optimizer-states file "
                         "(expected magic %r)" % _MAGIC)
    if len(buf) < len(_MAGIC) + 12:
        raise MXNetError("Cannot load optimizer states: truncated header")
    version, hlen = struct.unpack_from("<IQ", buf, len(_MAGIC))
    if version != _VERSION:
        raise MXNetError("Cannot load optimizer states: unsupported version %d" % version)
    start = len(_MAGIC) + 12
    if hlen > len(buf) - start:
        raise MXNetError("Cannot load optimizer states: truncated header")
    try:
        header = json.loads(buf[start:start + hlen].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise MXNetError("Cannot load optimizer states: bad header (%s)" % e) from None
    if not isinstance(header, dict) or header.get("format") != "xnd-updater-states" or \
            not isinstance(header.get("states"), list):
        raise MXNetError("Cannot load optimizer states: bad header")
    arrays = serialization.loads(buf[start + hlen:])
    if isinstance(arrays, dict):
        arrays = list(arrays.values())
    return header, arrays


def _ctx_of(weight):
    return weight.context if isinstance(weight, NDArray) else Context("cpu", 0)
