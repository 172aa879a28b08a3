"""mx.module.bucketing_module: BucketingModule, one Module per bucket key, all sharing the
parameters (MXNet 1.9.1's python/mxnet/module/bucketing_module.py).

``sym_gen(bucket_key) -> (symbol, data_names, label_names)``; the module of
``default_bucket_key`` is bound first and owns the parameter, gradient and
auxiliary-state arrays; every other bucket's module is bound with it as
``shared_module``, so it uses those very arrays (an update through any bucket
is seen by all) and the same optimizer and optimizer states. Each bucket's
training step compiles once per bucket shape.
"""
import logging
import warnings

import numpy as np

from ... import context as _context
from ... import symbol as _sym
from ...name import NameManager
from .. import initializer as _init
from .. import ndarray as nd
from ..model import load_params
from .base_module import (_NEED_INIT, _NEED_INPUT_GRAD, _NEED_OPT, BaseModule, _assert, _field,
                          _input_names)
from .module import Module
# names MXNet's module holds by importing them (its users import them from here)
from ..initializer import Uniform  # noqa: E402,F401
from ... import symbol as sym  # noqa: E402,F401

__all__ = ["BucketingModule"]


class BucketingModule(BaseModule):
    """Modules for variable-length inputs (mx.mod.BucketingModule)."""

    def __init__(self, sym_gen, default_bucket_key=None, logger=logging,
                 context=_context.cpu(), work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        _assert(default_bucket_key is not None)
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        _, _, state_names, fixed_param_names = _input_names(
            symbol, data_names, label_names, state_names, fixed_param_names)
        self._compression_params = compression_params
        self._fixed_param_names = fixed_param_names
        self._state_names = state_names
        self._context = context
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._params_dirty = False
        self._monitor = self._grad_req = None
        self._reset_bind()

    def _reset_bind(self):
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    def _call_sym_gen(self, *args, **kwargs):
        with NameManager():
            return self._sym_gen(*args, **kwargs)

    def _new_module(self, symbol, data_names, label_names):
        return Module(symbol, data_names, label_names, logger=self.logger,
                      context=self._context, work_load_list=self._work_load_list,
                      fixed_param_names=self._fixed_param_names, state_names=self._state_names,
                      group2ctxs=self._group2ctxs, compression_params=self._compression_params)

    @property
    def data_names(self):
        if self.binded:
            return self._curr_module.data_names
        _, data_names, _ = self._call_sym_gen(self._default_bucket_key)
        return data_names

    @property
    def output_names(self):
        if self.binded:
            return self._curr_module.output_names
        symbol, _, _ = self._call_sym_gen(self._default_bucket_key)
        return symbol.list_outputs()

    data_shapes = _field("_curr_module.data_shapes", bound=True)
    label_shapes = _field("_curr_module.label_shapes", bound=True)
    output_shapes = _field("_curr_module.output_shapes", bound=True)

    def get_params(self):
        _assert(self.params_initialized)
        self._curr_module._params_dirty = self._params_dirty
        params = self._curr_module.get_params()
        self._params_dirty = False
        return params

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init)
            return
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. "
                          "set_params call ignored.", stacklevel=2)
            return
        self._curr_module.set_params(arg_params, aux_params, allow_missing=allow_missing,
                                     force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def init_params(self, initializer=_init.Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            return
        _assert(self.binded, "call bind before initializing the parameters")
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params,
                                      aux_params=aux_params, allow_missing=allow_missing,
                                      force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True

    def get_states(self, merge_multi_context=True):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        return self._curr_module.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        self._curr_module.set_states(states, value)

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Bind the default bucket's module (the one that owns the parameters)."""
        if self.params_initialized:
            arg_params, aux_params = self.get_params()
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        _assert(shared_module is None, "shared_module for BucketingModule is not supported")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.binded = True
        self._grad_req = grad_req
        symbol, data_names, label_names = self._call_sym_gen(self._default_bucket_key)
        if self._default_bucket_key not in self._buckets:
            module = self._new_module(symbol, data_names, label_names)
        else:
            module = self._buckets[self._default_bucket_key]
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                    force_rebind=False, shared_module=None, grad_req=self._grad_req)
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        if self.params_initialized:
            self.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Make ``bucket_key``'s module current (binding it, sharing the parameters)."""
        _assert(self.binded, "call bind before switching bucket")
        if bucket_key not in self._buckets:
            symbol, data_names, label_names = self._call_sym_gen(bucket_key)
            module = self._new_module(symbol, data_names, label_names)
            module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                        self._curr_module.inputs_need_grad, force_rebind=False,
                        shared_module=self._buckets[self._default_bucket_key],
                        grad_req=self._grad_req)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            self._buckets[bucket_key] = module
        else:
            module = self._buckets[bucket_key]
            if not module.binded:
                module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                            self._curr_module.inputs_need_grad, force_rebind=False,
                            shared_module=self._buckets[self._default_bucket_key],
                            grad_req=self._grad_req)
        self._curr_module = self._buckets[bucket_key]
        self._curr_bucket_key = bucket_key

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        if self._skip_init_optimizer(force_init):
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params,
                                         force_init=force_init)
        for mod in self._buckets.values():
            if mod is not self._curr_module:
                mod.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    def prepare(self, data_batch, sparse_row_id_fn=None):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        bucket_key = data_batch.bucket_key
        original_bucket_key = self._curr_bucket_key
        self.switch_bucket(bucket_key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(original_bucket_key, None, None)

    def forward(self, data_batch, is_train=None):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data,
                           data_batch.provide_label)
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        self._curr_module.backward(out_grads=out_grads)

    def update(self):
        _assert(self.binded and self.params_initialized and self.optimizer_initialized,
                _NEED_OPT)
        self._params_dirty = True
        self._curr_module.update()

    def get_outputs(self, merge_multi_context=True):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        _assert(self.binded and self.params_initialized and self.inputs_need_grad,
                _NEED_INPUT_GRAD)
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        _assert(self.binded and self.params_initialized, _NEED_INIT)
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    @property
    def symbol(self):
        _assert(self.binded)
        return self._curr_module.symbol

    def install_monitor(self, mon):
        _assert(self.binded)
        self._monitor = mon
        for mod in self._buckets.values():
            mod.install_monitor(mon)

    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False):
        """``prefix-%04d.params``, one ``prefix-<key>-symbol.json`` per bucket and
        ``prefix.buckets`` (the keys)."""
        _assert(len(self._buckets) > 0, "Empty BucketingModule cannot be saved")
        param_name = "%s-%04d.params" % (prefix, epoch)
        self.save_params(param_name)
        for bucket_key in self._buckets:
            symbol, _, _ = self._sym_gen(bucket_key)
            symbol.save("%s-%s-symbol.json" % (prefix, bucket_key), remove_amp_cast=remove_amp_cast)
        nd.save("%s.buckets" % prefix, nd.array(list(self._buckets.keys()), dtype=np.int32))

    @staticmethod
    def load(prefix, epoch, sym_gen=None, default_bucket_key=None, **kwargs):
        _assert(sym_gen is not None, "sym_gen is required for loading BucketingModule")
        _assert(default_bucket_key is not None,
                "default_bucket_key is required for loading BucketingModule")
        buckets = nd.load("%s.buckets" % prefix)
        buckets = list(buckets[0].asnumpy().astype("int32"))
        bucketing_mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for bucket_key in buckets:
            _, data_names, label_names = sym_gen(bucket_key)
            symbol = _sym.load("%s-%s-symbol.json" % (prefix, bucket_key))
            bucketing_mod._buckets[bucket_key] = Module(symbol, data_names, label_names, **kwargs)
            if bucket_key == default_bucket_key:
                bucketing_mod._curr_module = bucketing_mod._buckets[bucket_key]
        arg_params, aux_params = load_params(prefix, epoch)
        bucketing_mod._curr_module._arg_params = arg_params
        bucketing_mod._curr_module._aux_params = aux_params
        bucketing_mod._curr_module.params_initialized = True
        bucketing_mod.params_initialized = True
        return bucketing_mod

    @staticmethod
    def load_dict(sym_dict=None, sym_gen=None, default_bucket_key=None, arg_params=None,
                  aux_params=None, **kwargs):
        _assert(sym_dict is not None, "sym_dict needs to be provided for BucketingModule.load_dict")
        _assert(arg_params is not None,
                "arg_params need to be provided for BucketingModule.load_dict")
        _assert(aux_params is not None,
                "aux_params need to be provided for BucketingModule.load_dict")
        _assert(default_bucket_key is not None,
                "default_bucket_key needs to be provided for BucketingModule.load_dict")
        bucketing_mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for bucket_key, loaded_sym in sym_dict.items():
            _, data_names, label_names = sym_gen(default_bucket_key)
            bucketing_mod._buckets[bucket_key] = Module(loaded_sym, data_names, label_names,
                                                        **kwargs)
            if bucket_key == default_bucket_key:
                bucketing_mod._curr_module = bucketing_mod._buckets[bucket_key]
        bucketing_mod._curr_module._arg_params = arg_params
        bucketing_mod._curr_module._aux_params = aux_params
        bucketing_mod._curr_module.params_initialized = True
        bucketing_mod.params_initialized = True
        return bucketing_mod
