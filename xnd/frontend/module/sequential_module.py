"""mx.module.sequential_module: SequentialModule, a chain of modules, each one's outputs the
next one's data (MXNet 1.9.1's python/mxnet/module/sequential_module.py)."""
import copy
import logging

from .. import initializer as _init
from .base_module import _NEED_INIT, _NEED_INPUT_GRAD, _NEED_OPT, BaseModule, _assert, _field
# names MXNet's module holds by importing them (its users import them from here)
from ..initializer import Uniform  # noqa: E402,F401

__all__ = ["SequentialModule"]


class SequentialModule(BaseModule):
    """Modules run one after another (``add(module, take_labels=..., auto_wiring=...)``);
    backward hands each module's input gradients to the module before it."""

    META_TAKE_LABELS = "take_labels"
    META_AUTO_WIRING = "auto_wiring"

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        self._data_shapes = None
        self._meta_keys = {getattr(SequentialModule, x) for x in dir(SequentialModule)
                           if x.startswith("META_")}

    def add(self, module, **kwargs):
        """Append ``module``; ``take_labels=True`` feeds it the labels (and its metric),
        ``auto_wiring=True`` renames the previous outputs to its data names. Returns self."""
        self._modules.append(module)
        for key in kwargs:
            _assert(key in self._meta_keys, 'Unknown meta "%s", a typo?' % key)
        self._metas.append(kwargs)
        self.binded = False
        self.params_initialized = False
        self.optimizer_initialized = False
        return self

    @property
    def data_names(self):
        if len(self._modules) > 0:
            return self._modules[0].data_names
        return []

    @property
    def output_names(self):
        if len(self._modules) > 0:
            return self._modules[-1].output_names
        return []

    @property
    def data_shapes(self):
        _assert(self.binded)
        return self._modules[0].data_shapes

    label_shapes = _field("_label_shapes", bound=True)

    @property
    def output_shapes(self):
        _assert(self.binded)
        return self._modules[-1].output_shapes

    def get_params(self):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        arg_params, aux_params = {}, {}
        for module in self._modules:
            arg, aux = module.get_params()
            arg_params.update(arg)
            aux_params.update(aux)
        return (arg_params, aux_params)

    def init_params(self, initializer=_init.Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            return
        _assert(self.binded, "call bind before initializing the parameters")
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params,
                               aux_params=aux_params, allow_missing=allow_missing,
                               force_init=force_init, allow_extra=allow_extra)

        def _check_name(known_names, new_names, modules, i):
            for name in new_names:
                _assert(name not in known_names, "Duplicated parameter names: " +
                        ('name "%s" in layer %d (%s) is already ' % (name, i, type(modules[i]))) +
                        ("used in layer %d (%s)." % (known_names.get(name, -1),
                                                     type(modules[known_names.get(name, 0)]))))
                known_names[name] = i

        arg_names, aux_names = {}, {}
        for i_layer, module in enumerate(self._modules):
            arg_params_, aux_params_ = module.get_params()
            _check_name(arg_names, arg_params_.keys(), self._modules, i_layer)
            _check_name(aux_names, aux_params_.keys(), self._modules, i_layer)
        self.params_initialized = True

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if inputs_need_grad:
            _assert(for_training is True)
        _assert(shared_module is None, "Shared module is not supported")
        _assert(len(self._modules) > 0, "Attempting to bind an empty SequentialModule")
        self.binded = True
        self._label_shapes = label_shapes
        my_data_shapes = data_shapes
        anybody_ever_needs_label = False
        for i_layer, module in enumerate(self._modules):
            meta = self._metas[i_layer]
            if meta.get(SequentialModule.META_TAKE_LABELS):
                my_label_shapes = label_shapes
                anybody_ever_needs_label = True
            else:
                my_label_shapes = None
            my_inputs_need_grad = bool(inputs_need_grad or (for_training and i_layer > 0))
            if meta.get(SequentialModule.META_AUTO_WIRING, False):
                data_names = module.data_names
                _assert(len(data_names) == len(my_data_shapes))
                my_data_shapes = [(new_name, shape) for (new_name, (_, shape))
                                  in zip(data_names, my_data_shapes)]
            module.bind(data_shapes=my_data_shapes, label_shapes=my_label_shapes,
                        for_training=for_training, inputs_need_grad=my_inputs_need_grad,
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            my_data_shapes = module.output_shapes
        if not anybody_ever_needs_label:
            self._label_shapes = None

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        if self._skip_init_optimizer(force_init):
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                                  optimizer_params=optimizer_params, force_init=force_init)
        self.optimizer_initialized = True

    def forward(self, data_batch, is_train=None):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        data_batch = copy.copy(data_batch)
        for i_layer, module in enumerate(self._modules):
            module.forward(data_batch, is_train=is_train)
            if i_layer + 1 == len(self._modules):
                break
            data_batch.data = module.get_outputs()
            if hasattr(data_batch, "provide_data"):
                data_names = [x[0] for x in module.output_shapes]
                _assert(len(data_names) == len(data_batch.data))
                data_batch.provide_data = [(name, x.shape) for name, x in
                                           zip(data_names, data_batch.data)]

    def backward(self, out_grads=None):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        for i_layer, module in reversed(list(zip(range(len(self._modules)), self._modules))):
            module.backward(out_grads=out_grads)
            if i_layer == 0:
                break
            out_grads = module.get_input_grads()

    def update(self):
        _assert(self.binded and self.params_initialized and self.optimizer_initialized,
                _NEED_OPT)
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context=True):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        _assert(self.binded and self.params_initialized and self.inputs_need_grad,
                _NEED_INPUT_GRAD)
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        for meta, module in zip(self._metas, self._modules):
            if meta.get(SequentialModule.META_TAKE_LABELS):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        _assert(self.binded)
        for module in self._modules:
            module.install_monitor(mon)
