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
import math  # noqa: F401

import numpy  # noqa: F401

# modules MXNet's metric.py imports, which libraries take from it (GluonTS:
# ``from mxnet.metric import ndarray``)
from .. import ndarray, registry  # noqa: F401
from . import _base, _classification, _regression
from ._base import (CompositeEvalMetric, CustomMetric, EvalMetric, alias, check_label_shapes,
                    create, np, numeric_types, register)
from ._base import _zero64  # noqa: F401 (the compiled fit loop reads it)
from ._classification import F1, MCC, PCC, Accuracy, Perplexity, TopKAccuracy
from ._classification import _acc_argmax_impl, _acc_same_impl  # noqa: F401 (the fit loop)
from ._regression import (MAE, MSE, RMSE, Caffe, CrossEntropy, Loss, NegativeLogLikelihood,
                          PearsonCorrelation, Torch)
# names MXNet's module holds by importing them (its users import them from here)
from ...base import string_types  # noqa: E402,F401

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC",
           "Perplexity", "MAE", "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood",
           "PearsonCorrelation", "PCC", "Loss", "Torch", "Caffe", "CustomMetric", "np", "create",
           "register", "alias", "check_label_shapes"]
