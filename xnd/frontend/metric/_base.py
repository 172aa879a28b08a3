"""mx.metric's machinery (MXNet's metric.py): EvalMetric with its device-side accumulation,
the registry and ``create``, CompositeEvalMetric, CustomMetric and ``np``.

A metric is its ``_update_one(label, pred)``: ``EvalMetric.update`` checks the two lists as
MXNet does and calls it per pair. Device metrics add a batch's sum with ``_add_sum`` (an
``_accumulating`` kernel: contribution and running sum in one dispatch) and its count with
``_add_host_count``; host metrics add both with ``_add_host``.
"""
from collections import OrderedDict

import jax
import jax.numpy as jnp
import numpy

from ...lowering import xla_options
from ...ndarray import NDArray
from .. import registry as _registry

__all__ = ["EvalMetric", "CompositeEvalMetric", "CustomMetric", "np", "create", "register",
           "alias", "check_label_shapes"]

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
        # the first zero on the arguments' device: a kernel's output is committed there, and
        # an uncommitted first zero made jit compile the kernel twice
        if pend[0] is None:
            devs = getattr(args[0], "devices", None)
            pend[0] = _zero64(next(iter(devs())) if devs is not None else None)
        pend[0] = kernel(pend[0], *args)

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


def _add64_fn(a, b):
    return a + b


# xnd's own small programs: a signature's first calls on the host (xnd/tiers), so a
# first fit or evaluation compiles no metric
_add64 = xla_options.lazy_jit(_add64_fn)


_ZERO64 = {}


def _zero64(device=None):
    """A float64 zero, uncommitted or committed to ``device``."""
    z = _ZERO64.get(device)
    if z is None:
        z = _ZERO64[device] = jax.device_put(numpy.zeros((), numpy.float64), device)
    return z


def _accumulating(fn, static_argnums=()):
    """jit ``(pending, *args) -> pending + fn(*args)``: a metric's batch contribution and its
    running sum in one dispatch (``static_argnums`` index ``args``)."""
    def acc(pending, *args):
        return pending + fn(*args)
    return xla_options.lazy_jit(acc, static_argnums=tuple(i + 1 for i in static_argnums))


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

    def _each_child(self, method):
        try:
            for metric in self.metrics:
                getattr(metric, method)()
        except AttributeError:  # as MXNet: reset() runs in __init__, before self.metrics
            pass

    def reset(self):
        self._each_child("reset")

    def reset_local(self):
        self._each_child("reset_local")

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
