"""``mx.misc`` (MXNet's ``mxnet/misc.py``): the oldest learning-rate schedulers, called with the
iteration number (``mx.lr_scheduler`` holds the ones optimizers use)."""
import logging
import math


class LearningRateScheduler:
    """Base class: ``scheduler(iteration)`` gives the learning rate; ``base_lr`` is 0.01."""

    def __init__(self):
        self.base_lr = 0.01

    def __call__(self, iteration):
        raise TypeError(f"{type(self).__name__} must override __call__ (MXNet: 'must override "
                        "this')")


class FactorScheduler(LearningRateScheduler):
    """``base_lr * factor ** (iteration // step)``, logging each change of rate."""

    def __init__(self, step, factor=0.1):
        super().__init__()
        if step < 1:
            raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor >= 1.0:
            raise ValueError("Factor must be less than 1 to make lr reduce")
        self.step, self.factor = step, factor
        self.old_lr, self.init = self.base_lr, False

    def __call__(self, iteration):
        if not self.init:
            self.init, self.old_lr = True, self.base_lr
        lr = self.base_lr * math.pow(self.factor, int(iteration / self.step))
        if lr != self.old_lr:
            self.old_lr = lr
            logging.info("At Iteration [%d]: Swith to new learning rate %.5f", iteration, lr)
        return lr
