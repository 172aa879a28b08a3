"""mx.optimizer.Optimizer: the base class, the registry and the pure fused step that
every optimizer (_sgd.py, _adaptive.py, contrib.py) shares (the first part of MXNet's
optimizer/optimizer.py; optimizer.py gathers the whole of that module's namespace).

One truth per rule
------------------
Each optimizer's arithmetic is one per-parameter ``_rule(w, g, state, lr, wd, ex) -> (w,
state)`` on jax arrays. Where MXNet 1.9.1 has an update operator (``sgd_mom_update``,
``adam_update``, ...) the rule calls that very registry function
(xnd/lowering/optimizer_ops.py), whose arithmetic is the kernel's; the optimizers MXNet writes
in Python (AdaGrad, AdaDelta, Adamax, Nadam, DCASGD, SGLD, GroupAdaGrad) keep the rule in their
class, in the order and precision of MXNet's NDArray code. Kernel hyper-parameters are rounded
to float32 as MXNet's ``float`` op parameters are; Python-side scalars (Adam's bias corrected
lr, Nadam's momentum schedule) are computed in double on the host and rounded once, as MXNet's
scalar ops do.

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
``Updater`` (_updater.py) run the same ``step`` on NDArrays and write the results back in
place.
"""
import copy
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from ...base import MXNetError
from ...lowering import xla_options
from ...lowering.optimizer_ops import _kernel_param
from ...lowering.staged import staged
from ...ndarray import NDArray
from . import _lazy
from .. import ndarray as nd
from .. import registry as _registry

__all__ = ["Optimizer", "register", "create"]

_F32 = jnp.float32
# the package's own optimizers read nothing but static_key(): they share compiled steps
_PACKAGE = __name__.rsplit(".", 1)[0] + "."


def _py_scalar(x, dt):
    """A scalar of a Python-level NDArray op (double, cast to the array's dtype)."""
    return jnp.asarray(x, dt)


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
        return _registry.register_class(Optimizer.opt_registry, klass, "optimizer")

    @staticmethod
    def create_optimizer(name, **kwargs):
        """Instantiate a registered optimizer by (case-insensitive) name."""
        key = name.lower() if isinstance(name, str) else name
        if key in Optimizer.opt_registry:
            return Optimizer.opt_registry[key](**kwargs)
        raise ValueError("Cannot find optimizer %s. Registered optimizers: %s"
                         % (name, ", ".join(sorted(Optimizer.opt_registry))))

    def _hyper(self, **values):
        """Keep the rule's hyper-parameters as attributes, under MXNet's names."""
        vars(self).update(values)

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
    # create_state's default: a tuple of this many zero arrays shaped like the weight, of its
    # dtype (float32, nd.zeros' default, with _states_f32); 0: no state
    _zero_states = 0
    _states_f32 = False

    def create_state(self, index, weight):
        """The auxiliary state of one weight (None, an NDArray or a tuple of them)."""
        if self._zero_states:
            return _zeros(weight, self._zero_states, self._states_f32)

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
        scalar = _py_scalar if self._python_rule else _kernel_param
        rule = self._rule
        if type(self).__module__.startswith(_PACKAGE) and not self._python_rule:
            # a built-in rule reads only its arguments and static attributes: traced once
            # per parameter shape (lowering/staged.py), not once per parameter
            rule = staged(self._rule)
        new_w, new_s = [], []
        for w, g, s, lr, wd, ex in zip(weights, grads, states, lrs, wds, extras):
            if self._is_mp(w, s, multi_precision):
                if self._mp_master_first:
                    master, inner = s
                else:
                    inner, master = s
                nm, ni = rule(master, g.astype(_F32), inner, scalar(lr, _F32),
                              scalar(wd, _F32), ex)
                ni = _same_dtypes(ni, inner)
                new_w.append(nm.astype(w.dtype))
                ns = (nm, ni) if self._mp_master_first else (ni, nm)
                new_s.append(type(s)(ns))
            else:
                dt = w.dtype
                nw, ns = rule(w, g.astype(dt), s, scalar(lr, dt), scalar(wd, dt), ex)
                new_w.append(nw.astype(dt))
                new_s.append(_same_dtypes(ns, s))
        return new_w, new_s

    def _rule(self, w, g, s, lr, wd, ex):
        """The per-parameter update of a subclass. The base class has none: like MXNet's
        ``Optimizer.update``, calling it raises NotImplementedError."""
        raise NotImplementedError(
            f"{type(self).__name__} defines no update rule: subclass Optimizer and define "
            f"_rule (or update, as MXNet's custom optimizers do)")

    def jitted_step(self, donate=False, multi_precision=None):
        """``jax.jit(self.step)`` for the current hyper-parameters, cached by
        ``static_key()``; ``donate=True`` donates the weight and state buffers."""
        # built-in rules read nothing but static_key(): one cache for all instances;
        # a user subclass may read more, so it gets a cache of its own
        shared = type(self).__module__.startswith(_PACKAGE)
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
            # quick first (xnd/tiers): a fusion per parameter shape made a ResNet-18
            # update a 1 s compile (0.7 s at XLA's level 0, overlapping the backward's run)
            fn = xla_options.jit(fn_, kind="optimizer", donate_argnums=(0, 2) if donate else ())
            cache[key] = fn
        return fn

    @classmethod
    def _fusable(cls):
        """Whether ``jitted_step`` is this optimizer's whole update: False for an MXNet-style
        optimizer that defines ``update()`` (or has no ``_rule``), whose update Trainer and
        Module then run through the Updater, one parameter at a time, as MXNet does."""
        return (cls._rule is not Optimizer._rule and cls.update is Optimizer.update
                and cls.update_multi_precision is Optimizer.update_multi_precision
                and cls._apply is Optimizer._apply)

    # ---- the MXNet per-parameter API --------------------------------------------------------
    def _apply(self, indices, weights, grads, states, multi_precision):
        if _lazy.applies(self, grads, weights):
            return _lazy.apply(self, indices, weights, grads, states, multi_precision)
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
        if type(self).update is not Optimizer.update and not self._mp_skips_update and \
                type(self).update_multi_precision is Optimizer.update_multi_precision:
            # a user-defined update() (MXNet-style custom optimizer): MXNet's base class
            # routes every update through it, one parameter at a time (SGD, NAG, LARS and
            # LAMB define their own update_multi_precision, which never calls update(): a
            # subclass's update() is not called, MXNet's example/dsd SparseSGD's included)
            for args in zip(*self._lists(index, weight, grad, state)):
                self._update_mp_via_update(*args)
            return
        self._apply(*self._lists(index, weight, grad, state), multi_precision=None)

    _mp_skips_update = False  # MXNet's class defines update_multi_precision without update()

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


def _zeros(weight, n, f32=False):
    return tuple(_zeros_like(weight, np.float32 if f32 else None) for _ in range(n))


class _Momentum:
    """The SGD family's state: a momentum of the weight's dtype when momentum != 0."""

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None


class _KernelClip:
    """Gradient clipping as MXNet's C++ update kernels apply it: on when
    ``clip_gradient`` is truthy (Python passes it only then) and >= 0."""

    def _clip_on(self):
        c = self.clip_gradient
        return bool(c) and c >= 0

    def _clip(self):
        """The ``clip_gradient`` attribute the update operator gets (-1: off)."""
        return self.clip_gradient if self._clip_on() else -1.0


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
