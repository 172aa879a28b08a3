"""Checks of the metric arguments that Estimator and its handlers share."""
from ....metric import Accuracy, CompositeEvalMetric, EvalMetric
from ...loss import SoftmaxCrossEntropyLoss


def _check_list(value, cls, message):
    """[value] for one `cls` instance, else the list `value` (None: []) of `cls` instances;
    ValueError(message + the value) otherwise. Metrics and event handlers are given so."""
    if isinstance(value, cls):
        return [value]
    value = value or []
    if not all(isinstance(v, cls) for v in value):
        raise ValueError(message + "{}".format(value))
    return value


def _check_metrics(metrics):
    """One metric, a list of them or a CompositeEvalMetric (flattened) -> list."""
    if isinstance(metrics, CompositeEvalMetric):
        return [leaf for child in metrics.metrics for leaf in _check_metrics(child)]
    return _check_list(metrics, EvalMetric, "metrics must be a Metric or a list of Metric, "
                       "refer to mxnet.metric.EvalMetric: ")


def _check_handler_metric_ref(handler, known_metrics):
    """A handler mixed with default ones may only refer to the estimator's metrics.

    MXNet 1.9.1 looks at the attributes whose name contains 'metric' (its test of
    'monitor' never runs), so a foreign ``monitor`` passes: kept as MXNet does.
    """
    for attribute in dir(handler):
        if 'metric' not in attribute:
            continue
        reference = getattr(handler, attribute)
        if not reference:
            continue
        for metric in (reference if isinstance(reference, list) else [reference]):
            _check_metric_known(handler, metric, known_metrics)


def _check_metric_known(handler, metric, known_metrics):
    if metric not in known_metrics:
        raise ValueError(
            'Event handler {} refers to a metric instance {} outside of '
            'the known training and validation metrics. Please use the metrics from '
            'estimator.train_metrics and estimator.val_metrics '
            'instead.'.format(type(handler).__name__, metric))


def _suggest_metric_for_loss(loss):
    """The default training metric a loss implies besides the loss itself."""
    return Accuracy() if isinstance(loss, SoftmaxCrossEntropyLoss) else None
