"""mx.metric's regression and loss metrics (MXNet's metric.py): MAE, MSE, RMSE, CrossEntropy,
NegativeLogLikelihood, PearsonCorrelation, Loss, Torch, Caffe."""
import jax.numpy as jnp
import numpy

from ...ndarray import NDArray
from ._base import EvalMetric, _accumulating, _pair, _vals, alias, check_label_shapes, register

__all__ = ["MAE", "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood", "PearsonCorrelation",
           "Loss", "Torch", "Caffe"]


def _as_2d(x):
    return x.reshape(x.shape[0], 1) if x.ndim == 1 else x


def _mae_impl(label, pred):
    return jnp.mean(jnp.abs(_as_2d(label) - _as_2d(pred))).astype(jnp.float64)


def _mse_impl(label, pred):
    return jnp.mean((_as_2d(label) - _as_2d(pred)) ** 2.0).astype(jnp.float64)


def _rmse_impl(label, pred):
    return jnp.sqrt(jnp.mean((_as_2d(label) - _as_2d(pred)) ** 2.0)).astype(jnp.float64)


_mae, _mse, _rmse = (_accumulating(f) for f in (_mae_impl, _mse_impl, _rmse_impl))


class _Regression(EvalMetric):
    _kernel = None

    def __init__(self, name, output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def _update_one(self, label, pred):
        lv, pv = _pair(label, pred)
        if lv.dtype != pv.dtype:
            dt = jnp.promote_types(lv.dtype, pv.dtype)
            lv, pv = lv.astype(dt), pv.astype(dt)
        self._add_sum(type(self)._kernel, lv, pv)
        self._add_host_count(1)


@register
class MAE(_Regression):
    """Mean absolute error, averaged over updates (name 'mae')."""
    _kernel = staticmethod(_mae)

    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)


@register
class MSE(_Regression):
    """Mean squared error, averaged over updates (name 'mse')."""
    _kernel = staticmethod(_mse)

    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)


@register
class RMSE(_Regression):
    """Root mean squared error, averaged over updates (name 'rmse')."""
    _kernel = staticmethod(_rmse)

    def __init__(self, name="rmse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)


def _nll_impl(label, pred, eps):
    label = label.reshape(-1)
    idx = label.astype(jnp.int64)
    prob = pred[jnp.arange(label.shape[0]), idx]
    return jnp.sum(-jnp.log(prob + eps.astype(pred.dtype))).astype(jnp.float64)


_nll = _accumulating(_nll_impl)


class _LogLoss(EvalMetric):
    def __init__(self, eps, name, output_names, label_names):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def _update_one(self, label, pred):
        n = label.size
        assert n == pred.shape[0], (n, pred.shape[0])
        self._add_sum(_nll, *_pair(label, pred), jnp.asarray(self.eps))
        self._add_host_count(n)


@register
@alias("ce")
class CrossEntropy(_LogLoss):
    """Mean of -log(p[label] + eps) (name 'cross-entropy')."""

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias("nll_loss")
class NegativeLogLikelihood(_LogLoss):
    """Mean of -log(p[label] + eps) (name 'nll-loss')."""

    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of predictions and labels: 'macro' averages per-update
    coefficients, 'micro' pools all values (name 'pearsonr')."""

    def __init__(self, name="pearsonr", output_names=None, label_names=None, average="macro"):
        self.average = average
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        if self.average == "micro":
            self.reset_micro()

    def reset_micro(self):
        self._sse_p = 0
        self._mean_p = 0
        self._sse_l = 0
        self._mean_l = 0
        self._pred_nums = 0
        self._label_nums = 0
        self._conv = 0

    def reset(self):
        super().reset()
        if self.average == "micro":
            self.reset_micro()

    def update_variance(self, new_values, *aggregate):
        count, mean, m_2 = aggregate
        count += len(new_values)
        delta = new_values - mean
        mean += numpy.sum(delta / count)
        delta_2 = new_values - mean
        m_2 += numpy.sum(delta * delta_2)
        return count, mean, m_2

    def update_cov(self, label, pred):
        self._conv = self._conv + numpy.sum((label - self._mean_l) * (pred - self._mean_p))

    def _update_one(self, label, pred):
        check_label_shapes(label, pred, False, True)
        label = label.asnumpy().ravel().astype(numpy.float64)
        pred = pred.asnumpy().ravel().astype(numpy.float64)
        if self.average == "macro":
            self._add_host(numpy.corrcoef(pred, label)[0, 1], 1)
        else:
            self._add_host_count(1)
            self._label_nums, self._mean_l, self._sse_l = \
                self.update_variance(label, self._label_nums, self._mean_l, self._sse_l)
            self.update_cov(label, pred)
            self._pred_nums, self._mean_p, self._sse_p = \
                self.update_variance(pred, self._pred_nums, self._mean_p, self._sse_p)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        if self.average == "macro":
            return (self.name, self.sum_metric / self.num_inst)
        n = self._label_nums
        r = self._conv / ((n - 1) * numpy.sqrt(self._sse_p / (n - 1)) *
                          numpy.sqrt(self._sse_l / (n - 1)))
        return (self.name, r)


def _sum64_impl(x):
    return jnp.sum(x).astype(jnp.float64)


_sum64 = _accumulating(_sum64_impl)


@register
class Loss(EvalMetric):
    """Mean of the predictions (the loss values); labels ignored (name 'loss')."""

    def __init__(self, name="loss", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, _, preds):
        if isinstance(preds, NDArray):
            preds = [preds]
        for pred in preds:
            self._add_sum(_sum64, _vals(pred))
            self._add_host_count(pred.size)


@register
class Torch(Loss):
    """Dummy metric for torch criterions (a Loss named 'torch')."""

    def __init__(self, name="torch", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    """Dummy metric for caffe criterions (a Loss named 'caffe')."""

    def __init__(self, name="caffe", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)
