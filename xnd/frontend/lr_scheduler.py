"""mx.lr_scheduler: learning-rate schedules driven by the optimizer's ``num_update``.

A scheduler is called as ``sched(num_update)`` with the largest number of
updates any weight has received; it returns the learning rate. As in MXNet
1.9.1 the schedulers are stateful (FactorScheduler and MultiFactorScheduler
keep the decayed ``base_lr``; Poly and Cosine remember the last value past
``max_update``), so the sequence of calls matters; each rule below reproduces
1.9.1's numbers, log lines and errors.
"""
import logging
import math
from math import pi  # noqa: F401  (MXNet's module imports it)

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler",
           "CosineScheduler"]

_WARMUP_MODES = ("linear", "constant")


class LRScheduler:
    """Base class: holds ``base_lr`` and the warmup rule.

    During the first ``warmup_steps`` updates the rate goes from
    ``warmup_begin_lr`` to ``base_lr`` ('linear') or stays at
    ``warmup_begin_lr`` ('constant').
    """

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        assert isinstance(warmup_steps, int)
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        if warmup_begin_lr > base_lr:
            raise ValueError("Base lr has to be higher than warmup_begin_lr")
        if warmup_steps < 0:
            raise ValueError("Warmup steps has to be positive or 0")
        if warmup_mode not in _WARMUP_MODES:
            raise ValueError("Supports only linear and constant modes of warmup")
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        assert num_update < self.warmup_steps
        if self.warmup_mode == "constant":
            return self.warmup_begin_lr
        if self.warmup_mode == "linear":
            span = self.warmup_final_lr - self.warmup_begin_lr
            return self.warmup_begin_lr + span * float(num_update) / float(self.warmup_steps)
        raise ValueError("Invalid warmup mode %s" % self.warmup_mode)

    def __call__(self, num_update):
        raise NotImplementedError("must override this")


class FactorScheduler(LRScheduler):
    """``base_lr * factor ** floor((num_update - 1) / step)``, floored at ``stop_factor_lr``.

    (With step 2 and factor 0.5 the updates 1, 2, 3, 4, 5 get 1, 1, .5, .5, .25.)
    """

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce")
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        # catch up over every boundary passed since the last call (resumed training)
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                logging.info("Update[%d]: now learning rate arrived at %0.5e, will not "
                             "change in the future", num_update, self.base_lr)
            else:
                logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` once ``num_update`` passes each entry of ``step``."""

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        assert isinstance(step, list) and len(step) >= 1
        for i, s in enumerate(step):
            if i and step[i] <= step[i - 1]:
                raise ValueError("Schedule step must be an increasing integer list")
            if s < 1:
                raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce")
        self.step = step
        self.cur_step_ind = 0
        self.factor = factor
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind < len(self.step) and num_update > self.step[self.cur_step_ind]:
            self.count = self.step[self.cur_step_ind]
            self.cur_step_ind += 1
            self.base_lr *= self.factor
            logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
        return self.base_lr


class _Annealing(LRScheduler):
    """Poly and Cosine: after warmup, ``final_lr + self._decay(t)`` (the subclass's share of
    ``base_lr - final_lr`` at step t) with ``t = num_update - warmup_steps`` and ``T =
    max_update - warmup_steps`` (``max_steps``); past ``max_update`` the last value is kept."""

    def __init__(self, max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                 warmup_mode):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        assert isinstance(max_update, int)
        if max_update < 1:
            raise ValueError("maximum number of updates must be strictly positive")
        self.base_lr_orig = self.base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            self.base_lr = self.final_lr + self._decay(num_update - self.warmup_steps)
        return self.base_lr


class PolyScheduler(_Annealing):
    """``final_lr + (base_lr - final_lr) * (1 - t / T) ** pwr`` after warmup, with
    ``t = num_update - warmup_steps`` and ``T = max_update - warmup_steps``; past
    ``max_update`` the last value is kept."""

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)
        self.power = pwr

    def _decay(self, t):
        frac = float(t) / float(self.max_steps)
        return (self.base_lr_orig - self.final_lr) * pow(1 - frac, self.power)


class CosineScheduler(_Annealing):
    """``final_lr + (base_lr - final_lr) * (1 + cos(pi * t / T)) / 2`` after warmup
    (t, T as in PolyScheduler); past ``max_update`` the last value is kept."""

    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)

    def _decay(self, t):
        angle = math.pi * t / self.max_steps
        return (self.base_lr_orig - self.final_lr) * (1 + math.cos(angle)) / 2
