"""mx.metric's classification metrics (MXNet's metric.py): Accuracy, TopKAccuracy, F1, MCC,
Perplexity, PCC."""
import math

import jax
import jax.numpy as jnp
import numpy

from ...base import MXNetError
from ...lowering import xla_options
from ._base import EvalMetric, _accumulating, _pair, alias, check_label_shapes, register

__all__ = ["Accuracy", "TopKAccuracy", "F1", "MCC", "Perplexity", "PCC"]


def _acc_same_impl(label, pred):
    return jnp.sum(pred.astype(jnp.int32).ravel() == label.astype(jnp.int32).ravel(),
                   dtype=jnp.int64).astype(jnp.float64)


def _acc_argmax_impl(label, pred, axis):
    idx = jnp.argmax(pred, axis=axis)
    return jnp.sum(idx.astype(jnp.int32).ravel() == label.astype(jnp.int32).ravel(),
                   dtype=jnp.int64).astype(jnp.float64)


_acc_same = _accumulating(_acc_same_impl)
_acc_argmax = _accumulating(_acc_argmax_impl, static_argnums=(2,))


@register
@alias("acc")
class Accuracy(EvalMetric):
    """Fraction of correct predictions; predictions of another shape than the labels are
    reduced by argmax over ``axis`` first. Name 'accuracy'."""

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.axis = axis

    def _update_one(self, label, pred):
        lv, pv = _pair(label, pred)
        argmax = tuple(pred.shape) != tuple(label.shape)
        if argmax and not -pv.ndim <= self.axis < pv.ndim:
            raise MXNetError("argmax: axis %d is out of range for predictions of shape %s"
                             % (self.axis, tuple(pv.shape)))
        n_pred = pv.size // pv.shape[self.axis] if argmax else pv.size
        if n_pred != lv.size:
            raise ValueError("Shape of labels {} does not match shape of "
                             "predictions {}".format(lv.size, n_pred))
        axis = self.axis % pv.ndim if argmax else None
        if argmax:
            self._add_sum(_acc_argmax, lv, pv, axis)
        else:
            self._add_sum(_acc_same, lv, pv)
        self._add_host_count(n_pred)


@register
@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Fraction of labels among the ``top_k`` highest predictions; name 'top_k_accuracy_<k>'."""

    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None, label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.top_k = top_k
        assert self.top_k > 1, "Please use Accuracy if top_k is no more than 1"
        self.name += "_%d" % self.top_k

    def _update_one(self, label, pred_label):
        assert len(pred_label.shape) <= 2, "Predictions should be no more than 2 dims"
        pred_label = numpy.argpartition(pred_label.asnumpy().astype("float32"), -self.top_k)
        label = label.asnumpy().astype("int32")
        check_label_shapes(label, pred_label)
        num_samples = pred_label.shape[0]
        num_dims = len(pred_label.shape)
        if num_dims == 1:   # (as MXNet: the global sum is not updated on this path)
            self.sum_metric += (pred_label.flat == label.flat).sum()
        elif num_dims == 2:
            num_classes = pred_label.shape[1]
            for j in range(min(num_classes, self.top_k)):
                self._add_host((pred_label[:, num_classes - 1 - j].flat == label.flat).sum(),
                               0)
        self._add_host_count(num_samples)


_COUNTS = ("true_positives", "false_positives", "false_negatives", "true_negatives")


class _BinaryClassificationMetrics:
    """Confusion counts for the binary F1 and MCC metrics, local (``true_positives``, ...)
    and global (``global_true_positives``, ...), with the scores derived from either."""

    def __init__(self):
        self.reset_stats()

    def update_binary_stats(self, label, pred):
        pred = pred.asnumpy()
        label = label.asnumpy().astype("int32")
        pred_label = numpy.argmax(pred, axis=1)
        check_label_shapes(label, pred)
        if len(numpy.unique(label)) > 2:
            raise ValueError("%s currently only supports binary classification."
                             % self.__class__.__name__)
        pred_true = (pred_label == 1)
        pred_false = 1 - pred_true
        label_true = (label == 1)
        label_false = 1 - label_true
        counts = ((pred_true * label_true).sum(), (pred_true * label_false).sum(),
                  (pred_false * label_true).sum(), (pred_false * label_false).sum())
        for name, n in zip(_COUNTS, counts):
            setattr(self, name, getattr(self, name) + n)
            setattr(self, "global_" + name, getattr(self, "global_" + name) + n)

    def _counts(self, use_global):
        """(tp, fp, fn, tn), local or global."""
        return tuple(getattr(self, ("global_" if use_global else "") + n) for n in _COUNTS)

    @staticmethod
    def _ratio(a, b):
        return float(a) / (a + b) if a + b > 0 else 0.

    def _precision(self, use_global):
        tp, fp, _, _ = self._counts(use_global)
        return self._ratio(tp, fp)

    def _recall(self, use_global):
        tp, _, fn, _ = self._counts(use_global)
        return self._ratio(tp, fn)

    def _fscore(self, use_global):
        p, r = self._precision(use_global), self._recall(use_global)
        return 2 * p * r / (p + r) if p + r > 0 else 0.

    def _total(self, use_global):
        tp, fp, fn, tn = self._counts(use_global)
        return fn + fp + tn + tp

    precision = property(lambda self: self._precision(False))
    global_precision = property(lambda self: self._precision(True))
    recall = property(lambda self: self._recall(False))
    global_recall = property(lambda self: self._recall(True))
    fscore = property(lambda self: self._fscore(False))
    global_fscore = property(lambda self: self._fscore(True))
    total_examples = property(lambda self: self._total(False))
    global_total_examples = property(lambda self: self._total(True))

    def matthewscc(self, use_global=False):
        if not self._total(use_global):
            return 0.
        tp, fp, fn, tn = (float(c) for c in self._counts(use_global))
        denom = 1.
        for t in (tp + fp, tp + fn, tn + fp, tn + fn):
            if t != 0.:
                denom *= t
        return ((tp * tn) - (fp * fn)) / math.sqrt(denom)

    def local_reset_stats(self):
        for name in _COUNTS:
            setattr(self, name, 0)

    def reset_stats(self):
        self.local_reset_stats()
        for name in _COUNTS:
            setattr(self, "global_" + name, 0)


class _BinaryMetric(EvalMetric):
    """F1 and MCC: confusion counts per update; 'macro' averages the per-update scores,
    'micro' pools the counts. ``_attrs`` are MXNet's names of the average and the counts."""
    _attrs = ("average", "metrics")

    def __init__(self, name, output_names, label_names, average):
        setattr(self, self._attrs[0], average)
        setattr(self, self._attrs[1], _BinaryClassificationMetrics())
        EvalMetric.__init__(self, name=name, output_names=output_names, label_names=label_names,
                            has_global_stats=True)

    def _stats(self):
        return getattr(self, self._attrs[1])

    def _score(self, use_global):
        raise NotImplementedError()

    def update(self, labels, preds):
        super().update(labels, preds)
        stats = self._stats()
        if getattr(self, self._attrs[0]) == "macro":
            self.sum_metric += self._score(False)
            self.global_sum_metric += self._score(True)
            self.num_inst += 1
            self.global_num_inst += 1
            stats.reset_stats()
        else:
            self.sum_metric = self._score(False) * stats.total_examples
            self.global_sum_metric = self._score(True) * stats.global_total_examples
            self.num_inst = stats.total_examples
            self.global_num_inst = stats.global_total_examples

    def _update_one(self, label, pred):
        self._stats().update_binary_stats(label, pred)

    def reset(self):
        super().reset()
        self._stats().reset_stats()

    def reset_local(self):
        super().reset_local()
        self._stats().local_reset_stats()


@register
class F1(_BinaryMetric):
    """Binary F1 of argmax predictions; 'macro' averages per-update scores, 'micro' pools
    the counts."""

    def __init__(self, name="f1", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self.metrics.global_fscore if use_global else self.metrics.fscore


@register
class MCC(_BinaryMetric):
    """Binary Matthews correlation coefficient ('macro' or 'micro' as F1)."""
    _attrs = ("_average", "_metrics")
    _zero_count = 0.

    def __init__(self, name="mcc", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self._metrics.matthewscc(use_global=use_global)


def _perplexity_kernel(label, pred, axis, ignore_label):
    return _perplexity_jit(label, pred, axis, ignore_label is not None,
                           0.0 if ignore_label is None else float(ignore_label))


def _perplexity_impl(label, pred, axis, has_ignore, ignore):
    label = label.reshape(-1)
    ax = axis % pred.ndim
    idx_shape = pred.shape[:ax] + pred.shape[ax + 1:]
    idx = jnp.clip(label.astype(jnp.int32).reshape(idx_shape), 0, pred.shape[ax] - 1)
    picked = jnp.take_along_axis(pred, jnp.expand_dims(idx, ax), axis=ax).squeeze(ax)
    num = jnp.asarray(picked.size, jnp.float64)
    if has_ignore:
        ign = (label.reshape(idx_shape) == jnp.asarray(ignore, label.dtype)).astype(pred.dtype)
        num = num - jnp.sum(ign).astype(jnp.float64)
        picked = picked * (1 - ign) + ign
    loss = -jnp.sum(jnp.log(jnp.maximum(jnp.asarray(1e-10, pred.dtype), picked)))
    return loss.astype(jnp.float64), num


_perplexity_jit = xla_options.lazy_jit(_perplexity_impl, static_argnums=(2, 3))


@register
class Perplexity(EvalMetric):
    """exp(mean negative log-probability of the labels), skipping ``ignore_label``."""

    def __init__(self, ignore_label, axis=-1, name="perplexity", output_names=None,
                 label_names=None):
        super().__init__(name, ignore_label=ignore_label, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        assert len(labels) == len(preds)
        for label, pred in zip(labels, preds):
            assert label.size == pred.size / pred.shape[-1], \
                "shape mismatch: %s vs. %s" % (label.shape, pred.shape)
            loss, num = _perplexity_kernel(*_pair(label, pred), self.axis,
                                           self.ignore_label)
            self._add_device(s=loss, n=num)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.sum_metric / self.num_inst))

    def get_global(self):
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.global_sum_metric / self.global_num_inst))


@register
class PCC(EvalMetric):
    """Multiclass Matthews correlation from a growing confusion matrix (name 'pcc')."""

    def __init__(self, name="pcc", output_names=None, label_names=None, has_global_stats=True):
        self.k = 2
        super().__init__(name=name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    def _grow(self, inc):
        self.lcm = numpy.pad(self.lcm, ((0, inc), (0, inc)), "constant", constant_values=(0))
        self.gcm = numpy.pad(self.gcm, ((0, inc), (0, inc)), "constant", constant_values=(0))
        self.k += inc

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x = cmat.sum(axis=1)
        y = cmat.sum(axis=0)
        cov_xx = numpy.sum(x * (n - x))
        cov_yy = numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        i = cmat.diagonal()
        cov_xy = numpy.sum(i * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        super().update(labels, preds)
        self.num_inst += 1
        self.global_num_inst += 1

    def _update_one(self, label, pred):
        label = label.astype("int32", copy=False).asnumpy()
        pred = pred.asnumpy()
        if pred.shape != label.shape:
            pred = pred.argmax(axis=1)
        else:
            pred = pred.astype("int32", copy=False)
        n = max(pred.max(), label.max())
        if n >= self.k:
            self._grow(n + 1 - self.k)
        bcm = numpy.zeros((self.k, self.k))
        for i, j in zip(pred, label):
            bcm[i, j] += 1
        self.lcm += bcm
        self.gcm += bcm

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    def reset(self):
        self._drop_pending()
        self.global_num_inst = 0.
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.
        self.lcm = numpy.zeros((self.k, self.k))
