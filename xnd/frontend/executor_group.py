"""mx.module.executor_group: DataParallelExecutorGroup, the object behind ``mod._exec_group``.

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

__all__ = ["DataParallelExecutorGroup"]


class DataParallelExecutorGroup:
    """MXNet's DataParallelExecutorGroup (see the module docstring)."""

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names,
                 for_training, inputs_need_grad, shared_group=None, logger=logging,
                 fixed_param_names=None, grad_req="write", state_names=None, group2ctxs=None):
        from .module import Module          # the module layer builds groups; not a cycle at load
        from .io import DataDesc
        data_names = [d.name if isinstance(d, DataDesc) else d[0] for d in data_shapes]
        label_names = [d.name if isinstance(d, DataDesc) else d[0] for d in label_shapes or []]
        fixed = [n for n in symbol.list_arguments()
                 if n not in param_names and n not in data_names + label_names]
        mod = Module(symbol, data_names=data_names, label_names=label_names or None,
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
        # MXNet's groups of one bucket family fill one dict per context: a shared group's
        # inputs (and 'grad of <input>' arrays) show in the group it shares with
        self._shared_data = (shared_group.shared_data_arrays if shared_group is not None
                             else [{} for _ in mod._context])
        for d in self._shared_data:
            d.update(self._own_inputs())

    @classmethod
    def _of_module(cls, module):
        """The group of a bound Module (what Module.bind stores as ``_exec_group``)."""
        g = cls.__new__(cls)
        g._mod, g._shared_data = module, None
        return g

    # ---- what MXNet's group holds -------------------------------------------------------
    @property
    def symbol(self):
        return self._mod._symbol

    @property
    def execs(self):
        return [self._mod._exec]

    @property
    def contexts(self):
        return self._mod._context

    @property
    def workload(self):
        return self._mod._work_load_list

    @property
    def batch_size(self):
        return self._mod._batch_size

    @property
    def slices(self):
        return [slice(a, b) for a, b in self._mod._exec.lay.slices]

    @property
    def param_names(self):
        return self._mod._param_names

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

    def _own_inputs(self):
        params = set(self._mod._param_names)
        exe = self._mod._exec
        arrays = {n: a for n, a in exe.arg_dict.items() if n not in params}
        if self._mod.inputs_need_grad:
            grads = exe.grad_dict
            arrays.update(("grad of " + x.name, grads[x.name]) for x in self._mod._data_shapes)
        return arrays

    @property
    def shared_data_arrays(self):
        """Per context: the arguments that are not parameters (inputs), by name, and with
        ``inputs_need_grad`` their gradients as ``'grad of <name>'``."""
        if self._shared_data is not None:
            return self._shared_data
        return [self._own_inputs() for _ in self._mod._context]

    @property
    def data_shapes(self):
        return self._mod._data_shapes

    @property
    def label_shapes(self):
        return self._mod._label_shapes

    @property
    def data_names(self):
        return [x.name for x in self._mod._data_shapes]

    @property
    def label_names(self):
        return [x.name for x in self._mod._label_shapes or []]

    @property
    def for_training(self):
        return self._mod.for_training

    @property
    def inputs_need_grad(self):
        return self._mod.inputs_need_grad

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
