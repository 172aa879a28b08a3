"""mx.contrib.svrg_optimization.svrg_module: ``SVRGModule``, a Module trained with stochastic
variance-reduced gradients (MXNet 1.9.1's contrib/svrg_optimization/svrg_module.py).

Every `update_freq` epochs the full gradient of the loss over all of the training data is
computed at the current weights (the snapshot) by an auxiliary Module that shares the symbol.
Each step then uses, per parameter,

    g = g(batch, w) - g(batch, w_snapshot) + mean over all batches g(batch', w_snapshot)

before the user's optimizer applies it -- MXNet 1.9.1's SVRGModule, including its KVStore
keys ``<param>_full`` for the full gradients."""
import logging

from .... import context as _context
from ... import ndarray as nd
from ... import optimizer as _opt
from ...module import Module
from .svrg_optimizer import _SVRGOptimizer

__all__ = ["SVRGModule"]


class SVRGModule(Module):
    """Module with SVRG updates; `update_freq` (a positive int) is the number of epochs
    between two full-gradient computations.  The other arguments are Module's."""

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=_context.cpu(), work_load_list=None,
                 fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None, update_freq=None):
        super().__init__(symbol, data_names=data_names, label_names=label_names, logger=logger,
                         context=context, work_load_list=work_load_list,
                         fixed_param_names=fixed_param_names, state_names=state_names,
                         group2ctxs=group2ctxs, compression_params=compression_params)
        if not isinstance(update_freq, int):
            raise TypeError("update_freq in SVRGModule must be an integer to represent the "
                            "frequency for calculating full gradients")
        if update_freq <= 0:
            raise ValueError("update_freq in SVRGModule must be a positive integer to represent "
                             "the frequency for calculating full gradients")
        self.update_freq = update_freq
        self._mod_aux = Module(symbol, data_names, label_names, logger, context, work_load_list,
                               fixed_param_names, state_names, group2ctxs, compression_params)
        self._param_dict = None
        self._ctx_len = len(self._context)

    def _reset_bind(self):
        super()._reset_bind()
        self._mod_aux._reset_bind()

    def reshape(self, data_shapes, label_shapes=None):
        super().reshape(data_shapes, label_shapes=label_shapes)
        self._mod_aux.reshape(data_shapes, label_shapes=label_shapes)

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Bind this module and, for training, the auxiliary one."""
        super().bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind,
                     shared_module, grad_req)
        if for_training:
            self._mod_aux.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                               force_rebind, shared_module, grad_req)

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Install an ``_SVRGOptimizer`` wrapping `optimizer`; with a KVStore, also one
        ``<param>_full`` key per parameter for the full gradients."""
        arg_params = self.get_params()[0]
        self._param_dict = [{k: nd.zeros(v.shape, ctx=self._context[i])
                             for k, v in arg_params.items()} for i in range(self._ctx_len)]
        svrg = self._create_optimizer(_SVRGOptimizer.__name__, default_opt=optimizer,
                                      kvstore=kvstore, optimizer_params=optimizer_params)
        super().init_optimizer(kvstore=kvstore, optimizer=svrg,
                               optimizer_params=optimizer_params, force_init=force_init)
        if self._kvstore:
            group = self._exec_group
            for idx, param_on_devs in enumerate(group.param_arrays):
                name = group.param_names[idx]
                self._kvstore.init(name + "_full", nd.zeros(self._arg_params[name].shape))
                if self._update_on_kvstore:
                    # as MXNet does: the store's (zero) full gradient is pulled into the
                    # bound parameters
                    self._kvstore.pull(name + "_full", param_on_devs, priority=-idx)

    def _create_optimizer(self, optimizer, default_opt, kvstore, optimizer_params):
        """The ``_SVRGOptimizer``, with Module's rescale_grad and index -> name table plus
        one ``<param>_full`` entry per parameter."""
        _, _, rescale_grad, idx2name = self._optimizer_defaults(kvstore)
        for key in self._param_dict[0]:
            idx2name[max(idx2name) + 1] = key + "_full"
        params = dict(optimizer_params)
        params.setdefault("rescale_grad", rescale_grad)
        params["default_optimizer"] = default_opt
        params["param_idx2name"] = idx2name
        return _opt.create(optimizer, **params)

    def forward(self, data_batch, is_train=None):
        super().forward(data_batch, is_train)
        if is_train:
            self._mod_aux.forward(data_batch, is_train)

    def backward(self, out_grads=None):
        super().backward(out_grads)
        if self._mod_aux.binded:
            self._mod_aux.backward(out_grads)

    def update(self):
        """Replace each gradient by its SVRG estimate, then let the optimizer update."""
        self._update_svrg_gradients()
        super().update()

    def update_full_grads(self, train_data):
        """The mean gradient over all batches of `train_data` at the current weights (a
        padded last batch counts as the fraction of it that is real data)."""
        names = self._exec_group.param_names
        arg, aux = self.get_params()
        self._mod_aux.set_params(arg_params=arg, aux_params=aux)
        train_data.reset()
        nbatch, padding = 0, 0
        for batch in train_data:
            self._mod_aux.forward(batch, is_train=True)
            self._mod_aux.backward()
            nbatch += 1
            grads = self._mod_aux._exec_group.grad_arrays
            for ctx in range(self._ctx_len):
                for index, name in enumerate(names):
                    self._param_dict[ctx][name] = self._param_dict[ctx][name] + grads[index][ctx]
            padding = batch.pad
        true_num_batch = nbatch - padding / train_data.batch_size
        for name in names:
            grad_list = []
            for i in range(self._ctx_len):
                self._param_dict[i][name] /= true_num_batch
                grad_list.append(self._param_dict[i][name])
            if self._kvstore:
                self._accumulate_kvstore(name, grad_list)

    def _accumulate_kvstore(self, key, value):
        """Sum the full gradients of all devices and workers in the KVStore."""
        self._kvstore.push(key + "_full", value)
        self._kvstore._barrier()
        self._kvstore.pull(key + "_full", value)
        self._allocate_gradients(key, value)

    def _allocate_gradients(self, key, value):
        for i in range(self._ctx_len):
            self._param_dict[i][key] = value[i] / self._ctx_len

    def _svrg_grads_update_rule(self, g_curr_batch_curr_weight, g_curr_batch_special_weight,
                                g_special_weight_all_batch):
        """``g_curr - g_snapshot + g_full``, in place in `g_curr_batch_curr_weight` (an
        NDArray, or a list of them)."""
        pairs = zip(g_curr_batch_curr_weight, g_curr_batch_special_weight,
                    g_special_weight_all_batch) \
            if isinstance(g_curr_batch_curr_weight, list) else \
            [(g_curr_batch_curr_weight, g_curr_batch_special_weight, g_special_weight_all_batch)]
        for g, g_snap, g_full in pairs:
            g -= g_snap
            g += g_full
        return g_curr_batch_curr_weight

    def _update_svrg_gradients(self):
        names = self._exec_group.param_names
        grads = self._exec_group.grad_arrays
        aux_grads = self._mod_aux._exec_group.grad_arrays
        for ctx in range(self._ctx_len):
            for index, name in enumerate(names):
                self._svrg_grads_update_rule(grads[index][ctx], aux_grads[index][ctx],
                                             self._param_dict[ctx][name])

    def prepare(self, data_batch, sparse_row_id_fn=None):
        super().prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self._mod_aux.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)

    # ---- Module.fit with a full-gradient pass (MXNet's SVRGModule.fit) -----------------------
    def _fit_epoch_begin(self, epoch, train_data):
        """Every `update_freq`-th epoch starts with the full gradient at the current weights;
        then the iterator is reset (SVRGModule resets it at an epoch's start, not its end)."""
        if epoch % self.update_freq == 0:
            self.update_full_grads(train_data)
        train_data.reset()

    def _fit_epoch_end(self, train_data):
        """SVRG's full gradient is taken at the next epoch's start, so nothing happens here."""

    @staticmethod
    def _fit_train_values(eval_metric):
        return eval_metric.get_name_value()   # SVRGModule logs the local values
