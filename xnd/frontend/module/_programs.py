"""The compiled programs behind a bound Module (xnd's own: MXNet's executors ran the graph
op by op), one set per graph and batch layout.

``_Devices``: the JAX devices of a module's contexts; ``_Layout``: one binding's split of
the batch over them (``single`` device, ``spmd`` -- an even split over distinct devices,
run under ``shard_map`` on a 1-D mesh -- or ``loop``, the slices one after another);
``_Programs``: the jitted forward, forward+backward and fused training step of a graph
(``xnd.symbol.executor.GraphFunction``) on a layout.  Per-device gradients of replicated
arguments are summed (``psum``: MXNet's kvstore reduce), auxiliary states averaged
(``pmean``).  ``TRACES`` counts traces by kind (tests count compiles).
"""
import collections

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec, SingleDeviceSharding

from ..._compat_jax import shard_map
from ...lowering import sync_batchnorm, xla_options

_AXIS = "dev"
# traces of the compiled functions by kind ('step', 'fwd_bwd', 'forward', 'scan')
TRACES = collections.Counter()


class _Devices:
    """The JAX devices of a module's contexts and where parameters live on them."""

    def __init__(self, contexts):
        self.contexts = contexts
        self.devices = [c.jax_device() for c in contexts]
        self.n = len(contexts)
        self.distinct = len(set(self.devices)) == self.n
        if self.n > 1 and self.distinct:
            self.mesh = Mesh(np.array(self.devices, dtype=object), (_AXIS,))
            self.replicated = NamedSharding(self.mesh, PartitionSpec())
        else:
            self.mesh = None
            self.replicated = SingleDeviceSharding(self.devices[0])
        self.ctx = contexts[0]


class _Layout:
    """One binding's split of the batch over the devices (hashable: a compile-cache key)."""

    def __init__(self, devs, slices, arg_axes, out_axes):
        self.devs = devs
        self.slices = tuple((s.start, s.stop) for s in slices)
        self.arg_axes = tuple(arg_axes)
        self.out_axes = tuple(out_axes)
        sizes = {b - a for a, b in self.slices}
        if devs.n == 1:
            self.mode = "single"
        elif devs.mesh is not None and len(sizes) == 1:
            self.mode = "spmd"
        else:
            self.mode = "loop"
        self.key = (self.mode, devs.mesh, self.slices if self.mode == "loop" else None,
                    self.arg_axes, self.out_axes)

    def spec(self, axis):
        if axis < 0:
            return PartitionSpec()
        return PartitionSpec(*([None] * axis + [_AXIS]))

    def arg_sharding(self, i):
        """Where batch argument i lives (parameters and other inputs: replicated)."""
        ax = self.arg_axes[i]
        if self.mode == "spmd" and ax >= 0:
            return NamedSharding(self.devs.mesh, self.spec(ax))
        return self.devs.replicated

    def out_sharding(self, i):
        ax = self.out_axes[i]
        if self.mode == "spmd" and ax >= 0:
            return NamedSharding(self.devs.mesh, self.spec(ax))
        return self.devs.replicated


def _dev_key(key, d):
    """The random key of device ``d`` (device 0 keeps the step's key)."""
    d = jnp.asarray(d).astype(jnp.uint32)
    return key + jnp.stack([jnp.zeros_like(d), d * jnp.uint32(0x9E3779B9)]).astype(key.dtype)


def _syncs_devices(graph):
    """Whether ``graph`` holds a SyncBatchNorm whose devices meet (``ndev`` > 1)."""
    return any(n.op is not None and n.op.name == "_contrib_SyncBatchNorm"
               and n.params().get("ndev", 1) > 1 for n in graph.nodes)


def _vmapped(lay, fn, arg_axes, extra_axes):
    """The "loop" layout with equal slices as one ``vmap`` over a device axis (where a
    SyncBatchNorm's devices must meet; lowering/sync_batchnorm.py): ``fn(args, aux, key,
    *extra)`` per slice -> (outs, new aux[, grads]) stacked on a leading device axis.
    ``extra_axes``: the batch axes of each extra list of arrays (-1: shared)."""
    n, (a0, b0) = len(lay.slices), lay.slices[0]

    def stack(xs, axes):
        return [None if x is None else jnp.stack([_take(x, sl, ax) for sl in lay.slices])
                if ax >= 0 else x for x, ax in zip(xs, axes)]

    def in_axes(xs, axes):
        return [None if x is None or ax < 0 else 0 for x, ax in zip(xs, axes)]

    def local(args, aux, key, *extra):
        with sync_batchnorm.device_axis(_AXIS, n):
            return fn(args, aux, key, *extra)

    def run(args, aux, key, *extra):
        keys = jnp.stack([_dev_key(key, d) for d in range(n)])
        ins = [stack(args, arg_axes)] + [stack(e, ax) for e, ax in zip(extra, extra_axes)]
        axes = [in_axes(args, arg_axes)] + [in_axes(e, ax) for e, ax in zip(extra, extra_axes)]
        return jax.vmap(local, in_axes=(axes[0], None, 0, *axes[1:]), axis_name=_AXIS)(
            ins[0], list(aux), keys, *ins[1:])
    assert all(b - a == b0 - a0 for a, b in lay.slices)
    return run


def _unstack(x, axis):
    """A device-stacked result joined along the batch ``axis`` (-1: summed over devices)."""
    if axis < 0:
        return jnp.sum(x, axis=0)
    return jnp.concatenate(list(x), axis=axis)


def _take(x, sl, axis):
    if axis < 0:
        return x
    return jax.lax.slice_in_dim(x, sl[0], sl[1], axis=axis)


def _join(parts, axis):
    if axis < 0:
        return parts[0]
    return jnp.concatenate(parts, axis=axis)


def _mean(parts):
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return (total / len(parts)).astype(parts[0].dtype)


def _sum(parts):
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return total


class _Programs:
    """The compiled functions of one graph on one layout: forward, forward+backward and the
    fused training step (cached; jax.jit adds one compile per new input shape)."""

    def __init__(self, graph, lay):
        self.graph, self.lay = graph, lay
        self._fwd = {}
        self._fb = {}
        self._steps = {}
        self._scans = {}        # xnd.frontend.module._fit_scan's compiled loops

    @staticmethod
    def get(graph, lay):
        """The programs of ``graph`` on ``lay``, kept on the graph so that they live as long
        as it does (symbol/executor.py frees graphs nobody uses)."""
        p = graph.programs.get(lay.key)
        if p is None:
            p = graph.programs[lay.key] = _Programs(graph, lay)
        return p

    # the per-device (local) computation, combined over devices as MXNet's group does
    def _global_fb(self, mask, head_mask):
        fb = self.graph.forward_backward(mask)
        lay = self.lay
        diff_axes = [ax for ax, m in zip(lay.arg_axes, mask) if m]

        def full_heads(heads):
            it = iter(heads)
            return [next(it) if m else None for m in head_mask]

        if lay.mode == "single":
            def run(args, aux, key, heads):
                return fb(args, aux, key, full_heads(heads))
            return run
        if lay.mode == "spmd":
            head_specs = [lay.spec(ax) for ax, m in zip(lay.out_axes, head_mask) if m]
            arg_specs = [lay.spec(ax) for ax in lay.arg_axes]
            out_specs = [lay.spec(ax) for ax in lay.out_axes]
            grad_specs = [lay.spec(ax) for ax in diff_axes]

            def local(args, aux, key, heads):
                k = _dev_key(key, jax.lax.axis_index(_AXIS))
                with sync_batchnorm.device_axis(_AXIS, lay.devs.n):   # (its devices meet)
                    outs, new_aux, grads = fb(args, aux, k, full_heads(heads))
                grads = [g if ax >= 0 else jax.lax.psum(g, _AXIS)
                         for g, ax in zip(grads, diff_axes)]
                new_aux = [jax.lax.pmean(a, _AXIS) for a in new_aux]
                return outs, new_aux, grads

            def run(args, aux, key, heads):
                sm = shard_map(local, mesh=lay.devs.mesh,
                               in_specs=(arg_specs, PartitionSpec(), PartitionSpec(), head_specs),
                               out_specs=(out_specs, PartitionSpec(), grad_specs), check=False)
                return sm(list(args), list(aux), key, list(heads))
            return run

        if _syncs_devices(self.graph) and len({b - a for a, b in lay.slices}) == 1:
            vm = _vmapped(lay, lambda a, x, k, h: fb(a, x, k, h), lay.arg_axes, [lay.out_axes])

            def run(args, aux, key, heads):  # one vmap: its SyncBatchNorms meet (pmean)
                outs, new_aux, grads = vm(args, aux, key, full_heads(heads))
                return ([_unstack(o, ax) for o, ax in zip(outs, lay.out_axes)],
                        [(jnp.sum(a, axis=0) / len(lay.slices)).astype(a.dtype) for a in new_aux],
                        [_unstack(g, ax) for g, ax in zip(grads, diff_axes)])
            return run

        def run(args, aux, key, heads):      # "loop": the slices one after another
            heads = full_heads(heads)
            parts = []
            for d, sl in enumerate(lay.slices):
                a = [_take(x, sl, ax) for x, ax in zip(args, lay.arg_axes)]
                h = [None if x is None else _take(x, sl, ax) for x, ax in zip(heads, lay.out_axes)]
                parts.append(fb(a, aux, _dev_key(key, d), h))
            outs = [_join([p[0][i] for p in parts], ax) for i, ax in enumerate(lay.out_axes)]
            new_aux = [_mean([p[1][i] for p in parts]) for i in range(len(aux))]
            grads = [_join([p[2][i] for p in parts], ax) if ax >= 0
                     else _sum([p[2][i] for p in parts]) for i, ax in enumerate(diff_axes)]
            return outs, new_aux, grads
        return run

    def forward(self, is_train):
        """jit (args, aux, key) -> outputs."""
        f = self._fwd.get(is_train)
        if f is not None:
            return f
        lay, run = self.lay, self.graph._run
        if lay.mode == "single":
            def fn(args, aux, key):
                TRACES["forward"] += 1
                return run(args, aux, key, is_train)[0]
        elif lay.mode == "spmd":
            arg_specs = [lay.spec(ax) for ax in lay.arg_axes]
            out_specs = [lay.spec(ax) for ax in lay.out_axes]

            def local(args, aux, key):
                with sync_batchnorm.device_axis(_AXIS, lay.devs.n):
                    return run(args, aux, _dev_key(key, jax.lax.axis_index(_AXIS)), is_train)[0]

            def fn(args, aux, key):
                TRACES["forward"] += 1
                sm = shard_map(local, mesh=lay.devs.mesh,
                               in_specs=(arg_specs, PartitionSpec(), PartitionSpec()),
                               out_specs=out_specs, check=False)
                return sm(list(args), list(aux), key)
        elif _syncs_devices(self.graph) and len({b - a for a, b in lay.slices}) == 1:
            vm = _vmapped(lay, lambda a, x, k: run(a, x, k, is_train)[0], lay.arg_axes, [])

            def fn(args, aux, key):
                TRACES["forward"] += 1
                return [_unstack(o, ax) for o, ax in zip(vm(args, aux, key), lay.out_axes)]
        else:
            def fn(args, aux, key):
                TRACES["forward"] += 1
                parts = []
                for d, sl in enumerate(lay.slices):
                    a = [_take(x, sl, ax) for x, ax in zip(args, lay.arg_axes)]
                    parts.append(run(a, aux, _dev_key(key, d), is_train)[0])
                return [_join([p[i] for p in parts], ax) for i, ax in enumerate(lay.out_axes)]
        f = self._fwd[is_train] = xla_options.jit(fn, classic_fusion=self.graph.convolutional)
        return f

    def fwd_bwd(self, mask, head_mask, add_mask, donate):
        """jit (args, aux, key, heads, acc) -> (outputs, new aux, grads); ``acc`` holds the
        current gradients of 'add' arguments (None elsewhere), added in; donated when
        ``donate``."""
        k = (mask, head_mask, add_mask, donate)
        f = self._fb.get(k)
        if f is not None:
            return f
        gfb = self._global_fb(mask, head_mask)

        def fn(args, aux, key, heads, acc):
            TRACES["fwd_bwd"] += 1
            outs, new_aux, grads = gfb(args, aux, key, heads)
            grads = [g if a is None else a + g.astype(a.dtype) for g, a in zip(grads, acc)]
            return outs, new_aux, grads
        f = self._fb[k] = xla_options.jit(fn, classic_fusion=self.graph.convolutional,
                                          donate_argnums=(4,) if donate else ())
        return f

    def step(self, mask, head_mask, add_mask, pidx, upd, ones, opt, donate):
        """The fused training step, jit (params, others, aux, states, acc, key, heads, lrs,
        wds, extras) -> (outputs, new aux, grads, new params, new states).

        ``pidx``: argument positions of the updated parameters (``params``), ``upd``: their
        positions among the differentiated arguments; everything else is in ``others``.
        ``ones``: positions in ``params`` that read as 1 (fix_gamma gammas, which MXNet
        overwrites with 1 at forward). Parameters, aux states, optimizer states and ``acc``
        are donated when ``donate``."""
        k = (mask, head_mask, add_mask, pidx, upd, ones) + _opt_key(opt) + (donate,)
        f = self._steps.get(k)
        if f is None:
            fn = self.pure_step(mask, head_mask, pidx, upd, ones, opt)

            def traced(*args):
                TRACES["step"] += 1
                return fn(*args)
            f = self._steps[k] = xla_options.jit(
                traced, classic_fusion=self.graph.convolutional, kind="step",
                donate_argnums=(0, 2, 3, 4) if donate else ())
        return f

    def pure_step(self, mask, head_mask, pidx, upd, ones, opt):
        """The function ``step`` compiles (traceable: ``xnd.frontend.module._fit_scan`` runs it in a
        loop)."""
        gfb = self._global_fb(mask, head_mask)
        opt_step = opt.jitted_step()
        n_args = len(mask)
        pset = set(pidx)

        def fn(params, others, aux, states, acc, key, heads, lrs, wds, extras):
            params = [jnp.ones_like(v) if k in ones else v for k, v in enumerate(params)]
            p, o = iter(params), iter(others)
            args = [next(p) if i in pset else next(o) for i in range(n_args)]
            outs, new_aux, grads = gfb(args, aux, key, heads)
            grads = [g if a is None else a + g.astype(a.dtype) for g, a in zip(grads, acc)]
            new_params, new_states = opt_step(list(params), [grads[j] for j in upd], list(states),
                                              lrs, wds, extras)
            return outs, new_aux, grads, new_params, new_states
        return fn


def _opt_key(opt):
    """What a compiled step depends on in the optimizer: its static key, and its identity for
    a user-defined class (whose rule may read more than the key)."""
    where = type(opt).__module__
    builtin = where == "xnd.frontend.optimizer" or where.startswith("xnd.frontend.optimizer.")
    return (opt.static_key(), builtin or id(opt))


_ZERO_KEY = []


def _zero_key():
    """The key of graphs without random operators (a device constant: no transfer)."""
    if not _ZERO_KEY:
        _ZERO_KEY.append(jax.device_put(np.zeros(2, np.uint32)))
    return _ZERO_KEY[0]
