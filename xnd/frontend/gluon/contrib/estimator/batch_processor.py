"""BatchProcessor: how Estimator computes one training or validation batch."""
from ..... import autograd
from ...utils import split_and_load

__all__ = ['BatchProcessor']


class BatchProcessor(object):
    """Computes one batch for an Estimator; subclass and override fit_batch or
    evaluate_batch to change what a batch does (both return data, label, pred, loss:
    lists with one entry per context)."""

    def __init__(self):
        pass

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        # batch is (data, label, ...): each is sliced over the contexts
        data = split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    def evaluate_batch(self, estimator, val_batch, batch_axis=0):
        """Forward ``estimator.val_net`` and ``estimator.val_loss`` on one batch."""
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(p, y) for p, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator, train_batch, batch_axis=0):
        """Forward and backward ``estimator.net`` and ``estimator.loss`` on one batch.

        The optimizer step is GradientUpdateHandler's, at batch end.
        """
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(p, y) for p, y in zip(pred, label)]
        for value in loss:
            value.backward()
        return data, label, pred, loss
