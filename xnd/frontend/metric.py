"""mx.metric: evaluation metrics with MXNet 1.9.1's names, values and quirks.

Labels and predictions are lists of NDArrays (a single NDArray is accepted as
MXNet does). Accuracy, Loss, CrossEntropy, NegativeLogLikelihood, MAE, MSE,
RMSE and Perplexity compute each batch's contribution on the device and keep
it there: ``update`` never waits for the batch to finish, so a training loop
is not stalled by its metric. ``sum_metric``/``num_inst`` (and the global
pair) are properties that fold the pending device values in when read, so
``get()``, ``get_name_value()`` and direct attribute access see exactly what
MXNet's eager ``asnumpy()`` version computes. The other metrics run on the
host with NumPy as in MXNet.
"""
import math
from collections import OrderedDict

import jax
import jax.numpy as jnp
import numpy

from ..base import MXNetError
from ..ndarray import NDArray
from . import registry as _registry

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC",
           "Perplexity", "MAE", "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood",
           "PearsonCorrelation", "PCC", "Loss", "Torch", "Caffe", "CustomMetric", "np", "create",
           "register", "alias", "check_label_shapes"]

numeric_types = (float, int, numpy.generic)


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """MXNet's check: equal lengths (or shapes with ``shape=True``); ``wrap`` turns a single
    NDArray into a one-element list (after the check, as MXNet does)."""
    if not shape:
        label_shape, pred_shape = len(labels), len(preds)
    else:
        label_shape, pred_shape = labels.shape, preds.shape
    if label_shape != pred_shape:
        raise ValueError("Shape of labels {} does not match shape of "
                         "predictions {}".format(label_shape, pred_shape))
    if wrap:
        if isinstance(labels, NDArray):
            labels = [labels]
        if isinstance(preds, NDArray):
            preds = [preds]
    return labels, preds


def _host(x):
    """Fold a pending device scalar into a host number."""
    return numpy.asarray(x).item()


def _stat(name):
    key = "_" + name

    def get(self):
        self._flush()
        return self.__dict__[key]

    def set(self, value):
        self._flush()
        self.__dict__[key] = value
    return property(get, set)


class EvalMetric:
    """Base class: ``update(labels, preds)``, ``get()`` -> (name, value), ``reset()``, plus
    the global statistics that survive ``reset_local()``."""

    sum_metric = _stat("sum_metric")
    num_inst = _stat("num_inst")
    global_sum_metric = _stat("global_sum_metric")
    global_num_inst = _stat("global_num_inst")
    _zero_count = 0  # what reset() sets the counts to

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    # ---- device-side accumulation -------------------------------------------------------
    def _flush(self):
        pend = self.__dict__.get("_pending")
        if pend is None:
            return
        self.__dict__["_pending"] = None
        s, n = pend
        d = self.__dict__
        if s is not None:
            s = _host(s)
            d["_sum_metric"] = d.get("_sum_metric", 0.0) + s
            d["_global_sum_metric"] = d.get("_global_sum_metric", 0.0) + s
        if n is not None:
            n = _host(n)
            d["_num_inst"] = d.get("_num_inst", 0) + n
            d["_global_num_inst"] = d.get("_global_num_inst", 0) + n

    def _add_device(self, s=None, n=None):
        """Add a batch's (sum, count) -- device scalars -- to the local and global stats."""
        pend = self.__dict__.get("_pending")
        if pend is None:
            self.__dict__["_pending"] = [s, n]
            return
        if s is not None:
            pend[0] = s if pend[0] is None else _add64(pend[0], s)
        if n is not None:
            pend[1] = n if pend[1] is None else _add64(pend[1], n)

    def _add_sum(self, kernel, *args):
        """Add ``kernel``'s batch sum to the pending one in the kernel's own dispatch (an
        ``_accumulating`` kernel: ``kernel(pending, *args) = pending + contribution``)."""
        pend = self.__dict__.get("_pending")
        if pend is None:
            pend = self.__dict__["_pending"] = [None, None]
        pend[0] = kernel(_zero64() if pend[0] is None else pend[0], *args)

    def _add_host(self, s, n):
        """Add a batch's (sum, count), host numbers, to the local and global stats."""
        self._flush()
        d = self.__dict__
        d["_sum_metric"] = d.get("_sum_metric", 0.0) + s
        d["_global_sum_metric"] = d.get("_global_sum_metric", 0.0) + s
        self._add_host_count(n)

    def _add_host_count(self, n):
        d = self.__dict__
        d["_num_inst"] = d.get("_num_inst", 0) + n
        d["_global_num_inst"] = d.get("_global_num_inst", 0) + n

    def _drop_pending(self):
        self.__dict__["_pending"] = None

    # ---- MXNet API ------------------------------------------------------------------------
    def __str__(self):
        return "EvalMetric: {}".format(dict(self.get_name_value()))

    def get_config(self):
        config = self._kwargs.copy()
        config.update({"metric": self.__class__.__name__, "name": self.name,
                       "output_names": self.output_names, "label_names": self.label_names})
        return config

    def update_dict(self, label, pred):
        if self.output_names is not None:
            pred = [pred[name] for name in self.output_names]
        else:
            pred = list(pred.values())
        if self.label_names is not None:
            label = [label[name] for name in self.label_names]
        else:
            label = list(label.values())
        self.update(label, pred)

    def update(self, labels, preds):
        """Check the two lists as MXNet does, then ``_update_one(label, pred)`` per pair: a
        metric is its ``_update_one``."""
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._update_one(label, pred)

    def _update_one(self, label, pred):
        raise NotImplementedError()

    def reset(self):
        self._drop_pending()
        self.num_inst = self._zero_count
        self.sum_metric = 0.0
        self.global_num_inst = self._zero_count
        self.global_sum_metric = 0.0

    def reset_local(self):
        self.num_inst = self._zero_count
        self.sum_metric = 0.0

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.sum_metric / self.num_inst)

    def get_global(self):
        if self._has_global_stats:
            if self.global_num_inst == 0:
                return (self.name, float("nan"))
            return (self.name, self.global_sum_metric / self.global_num_inst)
        return self.get()

    def get_name_value(self):
        return _name_value(self.get())

    def get_global_name_value(self):
        if self._has_global_stats:
            return _name_value(self.get_global())
        return self.get_name_value()


def _name_value(pair):
    """[(name, value), ...] from get()'s pair of a name and a value (or of lists of them)."""
    name, value = pair
    if not isinstance(name, list):
        name = [name]
    if not isinstance(value, list):
        value = [value]
    return list(zip(name, value))


@jax.jit
def _add64(a, b):
    return a + b


_ZERO64 = []


def _zero64():
    if not _ZERO64:
        _ZERO64.append(jnp.zeros((), jnp.float64))
    return _ZERO64[0]


def _accumulating(fn, static_argnums=()):
    """jit ``(pending, *args) -> pending + fn(*args)``: a metric's batch contribution and its
    running sum in one dispatch (``static_argnums`` index ``args``)."""
    def acc(pending, *args):
        return pending + fn(*args)
    return jax.jit(acc, static_argnums=tuple(i + 1 for i in static_argnums))


# ---- registry (mx.registry) -----------------------------------------------------------------
register = _registry.get_register_func(EvalMetric, "metric")
alias = _registry.get_alias_func(EvalMetric, "metric")
_create = _registry.get_create_func(EvalMetric, "metric")


def create(metric, *args, **kwargs):
    """A metric from a name ('acc', 'ce', ...), an instance, a callable ``feval(label, pred)``
    (-> CustomMetric) or a list of those (-> CompositeEvalMetric)."""
    if callable(metric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    return _create(metric, *args, **kwargs)


@register
@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get()`` -> (list of names, list of values)."""

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        if metrics is None:
            metrics = []
        self.metrics = [create(i) for i in metrics]

    def add(self, metric):
        self.metrics.append(create(metric))

    def get_metric(self, index):
        try:
            return self.metrics[index]
        except IndexError:
            return ValueError("Metric index {} is out of range 0 and {}".format(
                index, len(self.metrics)))

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = OrderedDict([i for i in labels.items() if i[0] in self.label_names])
        if self.output_names is not None:
            preds = OrderedDict([i for i in preds.items() if i[0] in self.output_names])
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        try:
            for metric in self.metrics:
                metric.reset()
        except AttributeError:
            pass

    def reset_local(self):
        try:
            for metric in self.metrics:
                metric.reset_local()
        except AttributeError:
            pass

    def _collect(self, getter):
        names, values = [], []
        for metric in self.metrics:
            name, value = getter(metric)
            if isinstance(name, str):
                name = [name]
            if isinstance(value, numeric_types):
                value = [value]
            names.extend(name)
            values.extend(value)
        return (names, values)

    def get(self):
        return self._collect(lambda m: m.get())

    def get_global(self):
        return self._collect(lambda m: m.get_global())

    def get_config(self):
        config = super().get_config()
        config.update({"metrics": [i.get_config() for i in self.metrics]})
        return config


# ---- device kernels ---------------------------------------------------------------------------
def _vals(x):
    return x._val() if isinstance(x, NDArray) else jnp.asarray(x)


def _pair(label, pred):
    """Label and prediction values on the prediction's device (labels often stay on the
    CPU while a GPU module predicts; MXNet's metrics read both through asnumpy)."""
    lv, pv = _vals(label), _vals(pred)
    dev = getattr(pv, "devices", lambda: None)()
    if dev and getattr(lv, "devices", lambda: None)() != dev:
        lv = jax.device_put(lv, next(iter(dev)))
    return lv, pv


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


_perplexity_jit = jax.jit(_perplexity_impl, static_argnums=(2, 3))


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


@register
class CustomMetric(EvalMetric):
    """A metric from ``feval(label, pred)`` on NumPy arrays, returning a value or
    ``(sum_metric, num_inst)``; named after the function ('custom(<lambda>)' for lambdas)."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None,
                 label_names=None):
        if name is None:
            name = feval.__name__
            if name.find("<") != -1:
                name = "custom(%s)" % name
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            reval = self._feval(label.asnumpy(), pred.asnumpy())
            sum_metric, num_inst = reval if isinstance(reval, tuple) else (reval, 1)
            self._add_host(sum_metric, num_inst)

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized")


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """A CustomMetric from a NumPy function ``feval(label, pred)``."""
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
