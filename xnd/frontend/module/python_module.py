"""mx.module.python_module: PythonModule and PythonLossModule, modules written in Python
(MXNet 1.9.1's python/mxnet/module/python_module.py)."""
import logging

from .. import initializer as _init
from .. import ndarray as nd
from .base_module import BaseModule, _abstract_method, _assert, _field
# names MXNet's module holds by importing them (its users import them from here)
from ..initializer import Uniform  # noqa: E402,F401

__all__ = ["PythonModule", "PythonLossModule"]


class PythonModule(BaseModule):
    """A module whose computation is Python code; no parameters, nothing to optimize.
    Subclasses define ``_compute_output_shapes``, ``forward``, ``backward``,
    ``get_outputs`` and ``get_input_grads``."""

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super().__init__(logger=logger)
        if isinstance(data_names, tuple):
            data_names = list(data_names)
        if isinstance(label_names, tuple):
            label_names = list(label_names)
        self._data_names = data_names
        self._label_names = label_names
        self._output_names = output_names
        self._data_shapes = None
        self._label_shapes = None
        self._output_shapes = None

    data_names = _field("_data_names")
    output_names = _field("_output_names")
    data_shapes = _field("_data_shapes")
    label_shapes = _field("_label_shapes")
    output_shapes = _field("_output_shapes")

    def get_params(self):
        return (dict(), dict())

    def init_params(self, initializer=_init.Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        pass

    def update(self):
        pass

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        if self._label_shapes is None:
            return
        if pre_sliced:
            raise RuntimeError("PythonModule does not support presliced labels")
        eval_metric.update(labels, self.get_outputs())

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        _assert(grad_req == "write", "Python module only support write gradient")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        _assert(len(data_shapes) == len(self._data_names))
        _assert([x[0] for x in data_shapes] == self._data_names)
        self._data_shapes = data_shapes
        self._label_shapes = label_shapes
        if label_shapes is not None:
            _assert(self._label_names is not None)
            _assert(len(self._label_names) == len(label_shapes))
            _assert([x[0] for x in label_shapes] == self._label_names)
        self._output_shapes = self._compute_output_shapes()

    _compute_output_shapes = _abstract_method("_compute_output_shapes")

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        pass


class PythonLossModule(PythonModule):
    """A loss written in Python: outputs its input; ``grad_func(scores, labels)`` gives the
    gradient handed to the module below (e.g. in a SequentialModule)."""

    def __init__(self, name="pyloss", data_names=("data",), label_names=("softmax_label",),
                 logger=logging, grad_func=None):
        super().__init__(data_names, label_names, [name + "_output"], logger=logger)
        self._name = name
        _assert(len(data_names) == 1)
        _assert(len(label_names) == 1)
        self._scores = None
        self._labels = None
        self._scores_grad = None
        if grad_func is not None:
            _assert(callable(grad_func))
        self._grad_func = grad_func

    def _compute_output_shapes(self):
        return [(self._name + "_output", self._data_shapes[0][1])]

    def forward(self, data_batch, is_train=None):
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context=True):
        _assert(merge_multi_context is True)
        return [self._scores]

    def backward(self, out_grads=None):
        _assert(out_grads is None, "For a loss module, out_grads should be None")
        _assert(self.for_training)
        self._backward_impl()

    def _backward_impl(self):
        if self._grad_func is not None:
            grad = self._grad_func(self._scores, self._labels)
            if not isinstance(grad, nd.NDArray):
                grad = nd.array(grad)
            self._scores_grad = grad
        else:
            raise NotImplementedError(
                "PythonLossModule.backward needs grad_func (the gradient of the loss with "
                "respect to the scores), or a subclass overriding _backward_impl")

    def get_input_grads(self, merge_multi_context=True):
        _assert(merge_multi_context is True)
        return [self._scores_grad]

    install_monitor = _abstract_method("install_monitor")
