"""The optimizers behind ``SVRGModule`` (registered as MXNet registers them).

``_SVRGOptimizer`` routes each parameter by name: keys whose name contains ``full`` (the
full-gradient accumulators ``<param>_full`` that SVRGModule keeps in the KVStore) go to
``_AssignmentOptimizer``, which stores the pushed value; every other key goes to the
default optimizer the user asked for."""
from ... import optimizer as _opt

__all__ = ["_AssignmentOptimizer", "_SVRGOptimizer"]

# the constructor arguments of the Optimizer base class; the rest belong to the default optimizer
_BASE_PARAMS = ("rescale_grad", "param_idx2name", "wd", "clip_gradient", "learning_rate",
                "lr_scheduler", "sym", "begin_num_update", "multi_precision", "param_dict")


@_opt.register
class _AssignmentOptimizer(_opt.Optimizer):
    """``weight[:] = grad``: accumulates full gradients in the KVStore."""

    def update(self, index, weight, grad, state):
        for w, g in zip(*self._lists(index, weight, grad, state)[1:3]):
            w[:] = g


@_opt.register
class _SVRGOptimizer(_opt.Optimizer):
    """Wraps `default_optimizer` (a name or an Optimizer) and an ``_AssignmentOptimizer``."""

    def __init__(self, default_optimizer, **kwargs):
        super().__init__(**self._check_params(**kwargs))
        if isinstance(default_optimizer, str):
            self.default_opt = _opt.create(default_optimizer, **kwargs)
        else:
            self.default_opt = default_optimizer
        self.aux_opt = _opt.create(_AssignmentOptimizer.__name__)

    @staticmethod
    def _check_params(**kwargs):
        """The arguments of `kwargs` that the Optimizer base class takes."""
        return {k: v for k, v in kwargs.items() if k in _BASE_PARAMS}

    def _check_index(self, index):
        """The parameter name of `index` (an int key, or already a name)."""
        return index if index in self.idx2name.values() else self.idx2name[index]

    def _pick(self, index):
        return self.aux_opt if "full" in self._check_index(index) else self.default_opt

    def update(self, index, weight, grad, state):
        for args in zip(*self._lists(index, weight, grad, state)):
            self._pick(args[0]).update(*args)

    def update_multi_precision(self, index, weight, grad, state):
        for args in zip(*self._lists(index, weight, grad, state)):
            self._pick(args[0]).update_multi_precision(*args)

    def create_state(self, index, weight):
        return self._pick(index).create_state(index, weight)

    def create_state_multi_precision(self, index, weight):
        return self._pick(index).create_state_multi_precision(index, weight)
