"""mx.module.executor_group: binding a Module's symbol onto its contexts (MXNet 1.9.1's
python/mxnet/module/executor_group.py) and DataParallelExecutorGroup, the object behind
``mod._exec_group``.

``bind_exec`` decides the batch slices per context (``work_load_list`` along each input's
'N' axis), infers shapes and dtypes and allocates one binding's arrays (``_Exec``: what
MXNet's executors hold), sharing parameters, gradients and auxiliary states with a base
binding (reshape) or a shared module (buckets); ``grad_reqs`` is MXNet's grad_req table.
The helpers below move values in and out of those handles without giving away buffers
that may be donated later.

MXNet's group holds one executor per context and slices each batch over them.  An xnd
Module runs the whole batch as one (sharded) program, so its group is a view over the
Module's single logical executor: ``execs`` has one entry, whose arrays are the global
(batch-sized) ones; the attributes scripts read (``data_shapes``, ``label_shapes``,
``param_names``, ``param_arrays``/``grad_arrays``/``aux_arrays`` as per-parameter lists,
``data_arrays``/``label_arrays`` as ``[(slice, array)]``, ``grad_req``, ``slices``,
``batch_size``, ``shared_data_arrays``, one dict per context) keep MXNet's layout.

Constructed directly with MXNet's arguments, the group binds a Module of its own
(``shared_group`` shares that module's parameters and gradients, as MXNet's buckets do);
its forward/backward/update_metric/get_outputs/get_params/set_params go to that module.
"""
import logging
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from ... import _transfer
from ..._compat_jax import fresh_copy
from ...base import MXNetError
from ...lowering.dtypes import DTYPES
from ...ndarray import _PENDING, _RECENT, NDArray, _exclusive, _flush_pending, _wrap
from ...symbol.executor import BoundArrays, _storage, graph_function
from .. import ndarray as nd
from .base_module import _assert, _fields
from ._programs import _Layout, _Programs, _take
# names MXNet's module holds by importing them (its users import them from here)
from ..io import DataDesc  # noqa: E402,F401

__all__ = ["DataParallelExecutorGroup"]

# the Module class, for groups built with MXNet's arguments: module.py installs it at its
# import (it builds on this file)
MODULE_CLASS = None


def _batch_axis(layout):
    if layout is None:
        return 0
    return layout.find("N")


def _split_input_slice(batch_size, work_load_list):
    total = sum(work_load_list)
    nums = [round(w * batch_size / total) for w in work_load_list]
    if sum(nums) < batch_size:
        nums[-1] += batch_size - sum(nums)
    slices, end = [], 0
    for num in nums:
        begin = int(min(end, batch_size))
        end = int(min(begin + num, batch_size))
        if begin >= end:
            raise ValueError("Too many slices. Some splits are empty.")
        slices.append(slice(begin, end))
    return slices


# ---- handles ---------------------------------------------------------------------------------
def _own(h, v):
    """``h`` now holds ``v``, a buffer no other handle holds (so it may be donated later);
    a sparse handle stores ``v`` in its own storage type."""
    if h.stype != "default":
        h._set_val(v)
        return
    h._data = v
    h._shared = False
    h._ag = None
    h._src = None


def _fresh(v, sharding):
    """A copy of jax array ``v`` with ``sharding`` that shares no buffer with ``v``."""
    return fresh_copy(v, sharding)


def _zeros(shape, dtype, sharding, ctx):
    return _wrap(_transfer.zeros(shape, dtype, sharding), ctx)


def _synced(attr, what):
    """A property reading handles ``attr`` once the module's deferred work for ``what`` ran."""
    def get(self):
        self._sync(what)
        return list(getattr(self, attr))
    return property(get)


class _Exec(BoundArrays):
    """One binding's arrays (what MXNet's executor holds): arguments, gradients, auxiliary
    states and outputs, as NDArray handles in ``list_arguments()`` order. In a data-parallel
    module they are global arrays over the devices (labelled with the first context)."""

    def __init__(self, module, symbol, lay, args, grads, aux, outs, reqs):
        self._mod = weakref.ref(module)
        self._symbol = symbol
        self.lay = lay
        self._args, self._grads, self._aux, self._outs = args, grads, aux, outs
        self._reqs = reqs
        self._arg_names = symbol.list_arguments()
        self._aux_names = symbol.list_auxiliary_states()

    def _sync(self, what):
        mod = self._mod()
        if mod is not None and mod._exec is self:
            mod._materialize(what)

    # MXNet's Executor surface (reads see the results of any deferred work)
    arg_arrays = property(lambda self: list(self._args))
    grad_arrays = _synced("_grads", "grads")
    aux_arrays = _synced("_aux", "aux")
    outputs = _synced("_outs", "outputs")


def grad_reqs(module, grad_req):
    """MXNet's per-argument grad_req table (DataParallelExecutorGroup.__init__): a str or
    dict applies to parameters that are not fixed, and to the data with inputs_need_grad."""
    arg_names = module._symbol.list_arguments()
    data_names = [x.name for x in module._data_shapes]
    if not module.for_training:
        grad_req = "null"

    def default(k, req):
        if k in module._param_names:
            return "null" if k in module._fixed_param_names else req
        if k in data_names:
            return req if module.inputs_need_grad else "null"
        return "null"
    if isinstance(grad_req, str):
        reqs = {k: default(k, grad_req) for k in arg_names}
    elif isinstance(grad_req, (list, tuple)):
        _assert(len(grad_req) == len(arg_names))
        reqs = dict(zip(arg_names, grad_req))
    elif isinstance(grad_req, dict):
        reqs = {k: default(k, "write") for k in arg_names}
        reqs.update(grad_req)
    else:
        raise ValueError("grad_req must be one of str, list, tuple, or dict.")
    out = []
    for k in arg_names:
        r = reqs.get(k, "null")
        if r not in ("write", "add", "null", "inplace"):
            raise ValueError("grad_req must be 'write', 'add' or 'null', got %r" % (r,))
        out.append("write" if r == "inplace" else r)
    return out


def bind_exec(module, data_shapes, label_shapes, shared_exec=None, base=None):
    """``module``'s arrays for these shapes (MXNet's decide_slices and _bind_ith_exec);
    parameters, gradients and aux states are shared with ``base`` (a reshape) or
    ``shared_exec`` (a bucket) where the shapes agree."""
    sym = module._symbol
    devs = module._devs
    descs = list(data_shapes) + list(label_shapes or [])
    # batch size and the per-device slices (MXNet's decide_slices)
    batch_size, slices = None, None
    axes = {}
    for group in (data_shapes, label_shapes or []):
        for d in group:
            ax = _batch_axis(getattr(d, "layout", None))
            axes[d.name] = ax
            if ax == -1:
                continue
            size = d.shape[ax]
            if batch_size is not None:
                _assert(size == batch_size, "all data must have the same batch size: "
                        "batch_size = %d, but %s has shape %s" % (batch_size, d.name, d.shape))
            else:
                batch_size = size
                slices = _split_input_slice(batch_size, module._work_load_list)
    module._batch_size = batch_size
    if slices is None:
        slices = [slice(0, 1)] * devs.n
    input_shapes = {d.name: tuple(d.shape) for d in descs}
    input_types = {d.name: d.dtype for d in data_shapes}
    attrs = sym.attr_dict()
    for name in sym.list_inputs():
        if name in input_types and name in attrs and "__dtype__" in attrs[name] \
                and attrs[name]["__dtype__"] != "-1":
            flags = list(DTYPES.values())
            flag = int(attrs[name]["__dtype__"])
            if 0 <= flag < len(flags):
                input_types[name] = flags[flag]
    for d in label_shapes or []:
        input_types[d.name] = d.dtype
    try:
        arg_shapes, out_shapes, aux_shapes = sym.infer_shape(**input_shapes)
    except MXNetError as e:
        raise RuntimeError("simple_bind error. Arguments:\n%s\n%s" % (
            "\n".join("%s: %s" % (k, v) for k, v in input_shapes.items()), e)) from e
    if arg_shapes is None:
        raise RuntimeError("simple_bind error: cannot infer the shapes of all arguments "
                           "from %s" % input_shapes)
    arg_types, out_types, aux_types = sym.infer_type(**input_types)
    arg_names = sym.list_arguments()
    arg_axes = [axes.get(n, -1) for n in arg_names]
    if devs.n > 1 and batch_size is not None:
        arg_axes = _inferred_batch_axes(sym, descs, axes, slices[0], arg_shapes, arg_axes)
    out_axes = [_batch_axis(sym[i].attr("__layout__")) for i in range(len(out_shapes))]
    lay = _Layout(devs, slices, arg_axes, out_axes)
    ctx = devs.ctx
    reqs = module._reqs
    src = base if base is not None else shared_exec
    share = src is not None
    src_args = dict(zip(src._arg_names, src._args)) if share else {}
    src_grads = dict(zip(src._arg_names, src._grads)) if share else {}
    src_aux = dict(zip(src._aux_names, src._aux)) if share else {}
    args, grads = [], []
    for i, (name, shape, dt) in enumerate(zip(arg_names, arg_shapes, arg_types)):
        shape = tuple(shape)
        shared_ok = name in src_args and (base is not None or name in module._param_names)
        if shared_ok and src_args[name].shape == shape and name not in input_shapes:
            args.append(src_args[name])
            g = src_grads.get(name)
            if reqs[i] != "null" and g is None:
                g = _zeros(shape, dt, lay.arg_sharding(i), ctx)
            grads.append(g if reqs[i] != "null" else None)
            continue
        if shared_exec is not None and name in module._param_names and name in src_args:
            raise MXNetError("bind: the shared module's %s has shape %s, this module needs %s"
                             % (name, src_args[name].shape, shape))
        args.append(_zeros(shape, dt, lay.arg_sharding(i), ctx))
        grads.append(None if reqs[i] == "null" else _zeros(shape, dt, lay.arg_sharding(i), ctx))
    _, grad_stypes = _storage(sym, None)   # row_sparse gradients (Embedding's sparse_grad)
    if grad_stypes and devs.n == 1:
        grads = [g.tostype(grad_stypes[n]) if g is not None and n in grad_stypes else g
                 for n, g in zip(arg_names, grads)]
    aux = []
    for name, shape, dt in zip(sym.list_auxiliary_states(), aux_shapes, aux_types):
        a = src_aux.get(name)
        aux.append(a if a is not None and a.shape == tuple(shape)
                   else _zeros(shape, dt, devs.replicated, ctx))
    outs = [_zeros(s, t, lay.out_sharding(i), ctx)
            for i, (s, t) in enumerate(zip(out_shapes, out_types))]
    exe = _Exec(module, sym, lay, args, grads, aux, outs, reqs)
    exe._graph = graph_function(sym)
    exe._progs = _Programs.get(exe._graph, lay)
    exe._has_rng = any(n.op is not None and n.op.rng for n in exe._graph.nodes)
    exe._mask = tuple(r != "null" for r in reqs)
    exe._add_mask = tuple(r == "add" for r in reqs if r != "null")
    exe._fixg = _fixed_gamma_args(exe._graph, arg_names)
    exe._data_idx = [arg_names.index(d.name) for d in data_shapes]
    exe._label_idx = [arg_names.index(d.name) for d in label_shapes or []]
    if base is not None:  # a reshape keeps the monitor set on the executor, as MXNet's does
        exe._monitor, exe._monitor_all = base._monitor, base._monitor_all
    return exe


def _inferred_batch_axes(sym, descs, axes, first, arg_shapes, arg_axes):
    """Batch axes of the arguments that are not inputs but whose shapes follow the batch
    (RNN begin states declared with shape (0, num_hidden)).

    MXNet binds each context's executor from that context's slice of the inputs, so such an
    argument is inferred per device with the slice's batch size. xnd binds one global array;
    it is split like the inputs along the axis whose inferred size moves with the batch
    (inferred again with the first slice's input shapes)."""
    size = first.stop - first.start
    sliced = {d.name: tuple(size if j == axes[d.name] else x for j, x in enumerate(d.shape))
              for d in descs}
    if all(sliced[d.name] == tuple(d.shape) for d in descs):
        return arg_axes
    local, _, _ = sym.infer_shape(**sliced)
    if local is None:
        return arg_axes
    out = list(arg_axes)
    for k, (g, l) in enumerate(zip(arg_shapes, local)):
        moved = [j for j, (a, b) in enumerate(zip(g, l)) if a != b]
        if out[k] == -1 and len(moved) == 1 and l[moved[0]] == size:
            out[k] = moved[0]
    return out


def _fixed_gamma_args(graph, arg_names):
    """Argument positions of the gammas of BatchNorm nodes with fix_gamma=True: MXNet writes
    1s into those arrays at every forward (the op itself ignores them)."""
    pos = {n: i for i, n in enumerate(arg_names)}
    out = set()
    for node in graph.nodes:
        if node.op is None or "gamma" not in (node.op.inputs or ()):
            continue
        try:
            fixed = node.params().get("fix_gamma", False)
        except Exception:  # pragma: no cover - attributes were validated at bind
            fixed = False
        if not fixed:
            continue
        for j, (src, _) in enumerate(node.inputs):
            if node.input_slot(j) == "gamma" and src.op is None and src.name in pos:
                out.add(pos[src.name])
    return tuple(sorted(out))


def _write_ones(exe):
    for i in exe._fixg:
        h = exe._args[i]
        _own(h, jnp.ones(h.shape, h._val().dtype, device=exe.lay.arg_sharding(i)))


def _vals(handles):
    return [h._val() for h in handles]


def _src_val(src, dtype):
    if isinstance(src, NDArray):
        v = src._val()
    else:
        v = jnp.asarray(np.asarray(src))
    return v if v.dtype == dtype else v.astype(dtype)


def _copy_into(src, dst, name):
    """``src.copyto(dst)`` for init_params (a cpu copy the module owns)."""
    v = _src_val(src, dst.dtype)
    if tuple(v.shape) != tuple(dst.shape):
        raise MXNetError("Check failed: assign(&dattr, vec.at(i)): Incompatible attr in node  at "
                         "0-th output: expected %s, got %s (parameter %s)"
                         % (list(dst.shape), list(v.shape), name))
    dst._write(_fresh(v, dst.context.jax_device()))


def _load_input(exe, i, src):
    """Load one batch array into argument i (never donating the caller's buffer)."""
    h = exe._args[i]
    if isinstance(src, NDArray):
        v = src._val()
    else:
        v = jnp.asarray(np.asarray(src))
    if tuple(v.shape) != h.shape:
        raise MXNetError("Check failed: assign(&dattr, vec.at(i)): Incompatible attr in node  at "
                         "0-th output: expected %s, got %s (input %s)"
                         % (list(v.shape), list(h.shape), exe._arg_names[i]))
    copied = False
    if v.dtype != h._data.dtype:
        v = v.astype(h._data.dtype)
        copied = True
    target = exe.lay.arg_sharding(i)
    if v.sharding != target:
        v = jax.device_put(v, target)
        copied = True
    h._data = v
    h._ag = None
    if copied:
        h._shared = False
    else:                       # the caller's buffer: neither side may donate it now
        h._shared = True
        if isinstance(src, NDArray) and src._base is None:
            src._shared = True


def _donatable(handles):
    """Whether a jitted call may donate these handles' buffers: no other handle or pending
    computation holds them (pending lazy work on them is then run first)."""
    ok = all(_exclusive(h) for h in handles)
    if ok and _PENDING:
        for h in handles:
            _flush_pending(h._data)
    return ok


def _write_outs(exe, outs):
    if outs:
        _RECENT.append(weakref.ref(outs[-1]))   # nd.waitall() waits for it
    hs = exe._outs
    if len(hs) == len(outs) and all(h.shape == tuple(v.shape) and h._data is not None
                                    and h._data.dtype == v.dtype for h, v in zip(hs, outs)):
        for h, v in zip(hs, outs):
            h._write(v)
    else:
        exe._outs = [_wrap(v, exe.lay.devs.ctx) for v in outs]


def _write_step(exe, outs, new_aux, *pairs):
    """Store a training step's results: outputs and aux states into the executor, and each
    ``(handles, values)`` pair (gradients, parameters, optimizer-state leaves) handle by
    handle; ``nd.waitall`` waits for the new parameters."""
    _write_outs(exe, outs)
    for h, v in zip(exe._aux, new_aux):
        _own(h, v)
    for handles, values in pairs:
        for h, v in zip(handles, values):
            _own(h, v)
    params = pairs[1][1] if len(pairs) > 1 else ()
    if params:
        _RECENT.append(weakref.ref(params[0]))


def _gather(o, devs):
    """A global array as one array on the first context (MXNet's merge_multi_context)."""
    return _wrap(jax.device_put(o._val(), devs.devices[0]), devs.ctx)


def _split(o, axis, lay, devs):
    v = o._val()
    out = []
    for d, (a, b) in enumerate(lay.slices):
        part = _take(v, (a, b), axis) if axis >= 0 else v
        out.append(_wrap(jax.device_put(part, devs.devices[d]), devs.contexts[d]))
    return out


def _slice_nd(x, a, b, axis):
    if axis < 0 or (a == 0 and b == x.shape[axis]):
        return x
    if axis == 0:
        return x[a:b]
    return nd.slice_axis(x, axis=axis, begin=a, end=b)


@_fields(symbol="_mod._symbol", contexts="_mod._context", workload="_mod._work_load_list",
         batch_size="_mod._batch_size", param_names="_mod._param_names",
         data_shapes="_mod._data_shapes", label_shapes="_mod._label_shapes",
         for_training="_mod.for_training", inputs_need_grad="_mod.inputs_need_grad")
class DataParallelExecutorGroup:
    """MXNet's DataParallelExecutorGroup (see the module docstring)."""

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names,
                 for_training, inputs_need_grad, shared_group=None, logger=logging,
                 fixed_param_names=None, grad_req="write", state_names=None, group2ctxs=None):
        from ..io import DataDesc
        data_names = [d.name if isinstance(d, DataDesc) else d[0] for d in data_shapes]
        label_names = [d.name if isinstance(d, DataDesc) else d[0] for d in label_shapes or []]
        fixed = [n for n in symbol.list_arguments()
                 if n not in param_names and n not in data_names + label_names]
        mod = MODULE_CLASS(symbol, data_names=data_names, label_names=label_names or None,
                     logger=logger, context=contexts, work_load_list=workload,
                     fixed_param_names=list(fixed_param_names or []) + fixed,
                     state_names=state_names, group2ctxs=group2ctxs)
        shared = shared_group._mod if shared_group is not None else None
        mod.bind(data_shapes, label_shapes, for_training=for_training,
                 inputs_need_grad=inputs_need_grad, shared_module=shared, grad_req=grad_req)
        if shared is None:
            mod.params_initialized = True    # MXNet's group leaves its arrays uninitialized
        self._mod = mod
        mod._exec_group = self
        # the arguments this group shares with ``shared_group`` (MXNet's shared_arg_names);
        # every other argument (inputs, and a bigger bucket's extra layers) goes through
        # the family's shared_data_arrays
        self._shared_params = list(param_names)
        # MXNet's groups of one bucket family fill one dict per context
        self._shared_data = (shared_group.shared_data_arrays if shared_group is not None
                             else [{} for _ in mod._context])
        for buf in self._shared_data:
            self._share_buffer(buf)

    @classmethod
    def _of_module(cls, module):
        """The group of a bound Module (what Module.bind stores as ``_exec_group``)."""
        g = cls.__new__(cls)
        g._mod, g._shared_data = module, None
        g._shared_params = list(module._param_names)
        return g

    def _share_buffer(self, buf):
        """MXNet's simple_bind(shared_buffer=...) for one context (ReshapeOrCreate): each
        argument outside the shared parameters, and its gradient as ``'grad of <name>'``
        where its grad_req is not 'null', is looked up by name. A buffer entry at least as
        big is reused, else this group's array becomes the entry (a new name, or a larger
        bucket). MXNet's executor then computes in (a reshape of) the entry; xnd's executor
        takes the entry itself where shape, dtype and placement agree, and keeps its own
        array otherwise (xnd gains nothing from reusing a larger buffer)."""
        exe = self._mod._exec
        params = set(self._shared_params)
        for i, name in enumerate(exe._arg_names):
            if name in params:
                continue
            for key, handles in ((name, exe._args), ("grad of " + name, exe._grads)):
                h = handles[i]
                if h is None:
                    continue
                have = buf.get(key)
                if have is None or have.size < h.size:
                    buf[key] = h
                elif have is not h and have.shape == h.shape and have.dtype == h.dtype \
                        and have._val().sharding == h._val().sharding:
                    handles[i] = have

    # ---- what MXNet's group holds -------------------------------------------------------
    @property
    def execs(self):
        return [self._mod._exec]

    @property
    def slices(self):
        return [slice(a, b) for a, b in self._mod._exec.lay.slices]

    @property
    def arg_names(self):
        return self._mod._symbol.list_arguments()

    @property
    def aux_names(self):
        return self._mod._symbol.list_auxiliary_states()

    @property
    def state_names(self):
        return list(self._mod._state_names)

    @property
    def fixed_param_names(self):
        return list(self._mod._fixed_param_names)

    @property
    def grad_req(self):
        return dict(zip(self.arg_names, self._mod._exec._reqs))

    @property
    def param_arrays(self):
        d = self._mod._exec.arg_dict
        return [[d[n]] for n in self._mod._param_names]

    @property
    def grad_arrays(self):
        d = self._mod._exec.grad_dict
        return [[d[n]] for n in self._mod._param_names]

    @property
    def aux_arrays(self):
        return [[a] for a in self._mod._exec.aux_arrays]

    @property
    def state_arrays(self):
        d = self._mod._exec.arg_dict
        return [[d[n]] for n in self._mod._state_names]

    def _inputs(self, descs):
        if descs is None:
            return None
        d = self._mod._exec.arg_dict
        return [[(slice(0, self._mod._batch_size), d[x.name])] for x in descs]

    @property
    def data_arrays(self):
        return self._inputs(self._mod._data_shapes)

    @property
    def label_arrays(self):
        return self._inputs(self._mod._label_shapes)

    @property
    def input_grad_arrays(self):
        if not self._mod.inputs_need_grad:
            return []
        d = self._mod._exec.grad_dict
        return [[d[x.name]] for x in self._mod._data_shapes]

    @property
    def shared_data_arrays(self):
        """MXNet's shared_data_arrays: per context, a dict name -> NDArray of the arguments
        that are not shared parameters (inputs, a bigger bucket's extra arguments) and, where
        their grad_req is not 'null', their gradients as ``'grad of <name>'``; one dict per
        context for the whole family of groups built with ``shared_group``."""
        if self._shared_data is not None:
            return self._shared_data
        # a Module's group: a family of one, read from its current binding
        bufs = [{} for _ in self._mod._context]
        for buf in bufs:
            self._share_buffer(buf)
        return bufs

    @property
    def data_names(self):
        return [x.name for x in self._mod._data_shapes]

    @property
    def label_names(self):
        return [x.name for x in self._mod._label_shapes or []]

    # ---- what MXNet's group does --------------------------------------------------------
    def get_output_shapes(self):
        return self._mod.output_shapes

    def forward(self, data_batch, is_train=None):
        self._mod.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        self._mod.backward(out_grads)

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        outs = self._mod.get_outputs(merge_multi_context)[begin:end]
        return outs if merge_multi_context else [[o] if not isinstance(o, list) else o
                                                 for o in outs]

    def get_input_grads(self, merge_multi_context=True):
        return self._mod.get_input_grads(merge_multi_context)

    def get_states(self, merge_multi_context=True):
        return self._mod.get_states(merge_multi_context)

    def set_states(self, states=None, value=None):
        self._mod.set_states(states, value)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._mod.update_metric(eval_metric, labels, pre_sliced)

    def get_params(self, arg_params, aux_params):
        """Copy the current parameters into the dicts ``arg_params``/``aux_params``."""
        arg, aux = self._mod.get_params()
        for src, dst in ((arg, arg_params), (aux, aux_params)):
            for k, v in src.items():
                dst[k] = v.copy()

    def set_params(self, arg_params, aux_params, allow_extra=False):
        self._mod.set_params(arg_params, aux_params, allow_extra=allow_extra)

    def reshape(self, data_shapes, label_shapes):
        self._mod.reshape(data_shapes, label_shapes)

    def install_monitor(self, mon):
        mon.install(self._mod._exec)
