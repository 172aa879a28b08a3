"""mx.gluon.loss: per-sample losses (MXNet 1.9.1 formulas, ``weight``/``batch_axis``/
``sample_weight`` semantics). Each loss returns one value per sample: the mean (or sum)
over every axis but ``batch_axis``."""
import numbers

import numpy as np

from .block import HybridBlock
# names MXNet's module holds by importing them (its users import them from here)
from ...base import numeric_types  # noqa: E402,F401
from ..util import is_np_array  # noqa: E402,F401
from .. import ndarray  # noqa: E402,F401

__all__ = ["Loss", "L2Loss", "L1Loss", "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss",
           "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", "KLDivLoss", "CTCLoss", "HuberLoss",
           "HingeLoss", "SquaredHingeLoss", "LogisticLoss", "TripletLoss", "PoissonNLLLoss",
           "CosineEmbeddingLoss", "SDMLLoss"]


def _is_nd(F):
    from .. import ndarray as nd
    return F is nd


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        assert isinstance(weight, numbers.Number), "weight must be a number"
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    if _is_nd(F):
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


class Loss(HybridBlock):
    """Base class of losses: ``weight`` (a global scalar) and ``batch_axis``."""

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return f"{self.__class__.__name__}(batch_axis={self._batch_axis}, w={self._weight})"

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError

    def _weighted_mean(self, F, loss, sample_weight, weight=None):
        """The losses' common end: times ``weight`` (the loss's own by default) and
        ``sample_weight``, then the mean over every axis but the batch axis."""
        loss = _apply_weighting(F, loss, self._weight if weight is None else weight,
                                sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class L2Loss(Loss):
    """``0.5 * (label - pred)^2`` (times ``weight``, default 1)."""

    def __init__(self, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        return self._weighted_mean(F, loss, sample_weight, self._weight / 2)


class L1Loss(Loss):
    """``|label - pred|``."""

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        return self._weighted_mean(F, loss, sample_weight)


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross entropy on logits (or probabilities with ``from_sigmoid=True``),
    optional ``pos_weight``."""

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if not self._from_sigmoid:
            if pos_weight is None:
                # log(1 + exp(-|x|)) + max(x, 0) - x * z: stable
                loss = F.relu(pred) - pred * label + \
                    F.Activation(-F.abs(pred), act_type="softrelu")
            else:
                log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = pred - pred * label + log_weight * \
                    (F.Activation(-F.abs(pred), act_type="softrelu") + F.relu(-pred))
        else:
            eps = 1e-12
            if pos_weight is None:
                loss = -(F.log(pred + eps) * label + F.log(1.0 - pred + eps) * (1.0 - label))
            else:
                loss = -(F.broadcast_mul(F.log(pred + eps) * label, pos_weight)
                         + F.log(1.0 - pred + eps) * (1.0 - label))
        return self._weighted_mean(F, loss, sample_weight)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """``-log softmax(pred)[label]`` (sparse labels) or ``-sum(label * log softmax(pred))``."""

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None, batch_axis=0,
                 **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        return self._weighted_mean(F, loss, sample_weight)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """``label * (log(label) - pred)`` summed per sample (pred are log-probabilities unless
    ``from_logits=False``)."""

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class CTCLoss(Loss):
    """Connectionist temporal classification loss: one negative log-likelihood per sample.

    ``pred`` is (N, T, C) for ``layout='NTC'`` or (T, N, C) for ``'TNC'`` (unnormalised
    activations), ``label`` (N, L) for ``label_layout='NT'`` or (L, N) for ``'TN'``. As in
    MXNet 1.9.1 the blank is the last class (C-1) and label rows are padded with -1;
    optional ``pred_lengths`` / ``label_lengths`` (N,) set each sample's lengths. The result
    (N,) is multiplied by ``sample_weight`` (broadcast) and ``weight``.
    """

    def __init__(self, layout="NTC", label_layout="NT", weight=None, **kwargs):
        assert layout in ("NTC", "TNC"), \
            f"Only 'NTC' and 'TNC' layouts for pred are supported. Got: {layout}"
        assert label_layout in ("NT", "TN"), \
            f"Only 'NT' and 'TN' layouts for label are supported. Got: {label_layout}"
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find("N"), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None,
                       sample_weight=None):
        if self._layout == "NTC":
            pred = F.swapaxes(pred, dim1=0, dim2=1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, dim1=0, dim2=1)
        loss = F.CTCLoss(pred, label, pred_lengths, label_lengths,
                         use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label="last")
        return _apply_weighting(F, loss, self._weight, sample_weight)


class HuberLoss(Loss):
    """Smooth L1: ``0.5/rho * d^2`` for ``|d| <= rho``, ``|d| - 0.5 rho`` beyond."""

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = F.where(loss > self._rho, loss - 0.5 * self._rho,
                       (0.5 / self._rho) * F.square(loss))
        return self._weighted_mean(F, loss, sample_weight)


class _Hinge(Loss):
    """HingeLoss and SquaredHingeLoss: ``max(0, margin - pred * label)``, squared or not."""
    _squared = False

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        if self._squared:
            loss = F.square(loss)
        return self._weighted_mean(F, loss, sample_weight)


class HingeLoss(_Hinge):
    """``max(0, margin - pred * label)`` (labels -1/1)."""


class SquaredHingeLoss(_Hinge):
    """``max(0, margin - pred * label)^2``."""
    _squared = True


class LogisticLoss(Loss):
    """``log(1 + exp(-pred * label))``; labels -1/1 (``signed``) or 0/1 (``binary``)."""

    def __init__(self, weight=None, batch_axis=0, label_format="signed", **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._label_format = label_format
        if self._label_format not in ("signed", "binary"):
            raise ValueError(f"label_format can only be signed or binary, recieved "
                             f"{label_format}.")

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + F.Activation(-F.abs(pred), act_type="softrelu")
        return self._weighted_mean(F, loss, sample_weight)


class TripletLoss(Loss):
    """``max(0, |pred - positive|^2 - |pred - negative|^2 + margin)`` per sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative):
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        loss = F.sum(F.square(positive - pred) - F.square(negative - pred),
                     axis=self._batch_axis, exclude=True)
        loss = F.relu(loss + self._margin)
        return _apply_weighting(F, loss, self._weight, None)


class PoissonNLLLoss(Loss):
    """Negative log likelihood of a Poisson target (mean over all elements)."""

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False,
                 **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            stirling = target * F.log(target) - target + 0.5 * F.log(2 * target * np.pi)
            stirling = stirling * (target > 1)
            loss = loss + stirling
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    """``1 - cos(x1, x2)`` for label 1, ``max(0, cos(x1, x2) - margin)`` for label -1."""

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = F.reshape(label, shape=(-1, 1))
        cos_sim = self._cosine_similarity(F, input1, input2)
        y_1 = label == 1
        y_minus_1 = label == -1
        cos_sim_a = (1 - cos_sim) * y_1
        z_array = F.array([0]) if _is_nd(F) else F.zeros(shape=(1, 1))
        cos_sim_b = F.broadcast_maximum(z_array, y_minus_1 * (cos_sim - self._margin))
        loss = cos_sim_a + cos_sim_b
        return _apply_weighting(F, loss, self._weight, sample_weight)

    def _cosine_similarity(self, F, x, y, axis=-1):
        x_norm = F.reshape(F.norm(x, axis=axis), shape=(-1, 1))
        y_norm = F.reshape(F.norm(y, axis=axis), shape=(-1, 1))
        x_dot_y = F.reshape(F.sum(x * y, axis=axis), shape=(-1, 1))
        eps_arr = F.array([1e-12]) if _is_nd(F) else F.full((1, 1), 1e-12)
        return x_dot_y / F.broadcast_maximum(x_norm * y_norm, eps_arr)


class SDMLLoss(Loss):
    """Smoothed deep metric learning loss over a batch of paired embeddings."""

    def __init__(self, smoothing_parameter=0.3, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def _compute_distances(self, F, x1, x2, batch_size, dim):
        x1_ = F.broadcast_to(F.expand_dims(x1, axis=1), shape=(batch_size, batch_size, dim))
        x2_ = F.broadcast_to(F.expand_dims(x2, axis=0), shape=(batch_size, batch_size, dim))
        return F.sum(F.square(x1_ - x2_), axis=2)

    def _compute_labels(self, F, batch_size):
        gold = np.eye(batch_size)
        labels = gold * (1 - self.smoothing_parameter) + \
            (1 - gold) * self.smoothing_parameter / (batch_size - 1)
        return F.array(labels)

    def hybrid_forward(self, F, x1, x2):
        if not _is_nd(F):
            raise NotImplementedError("SDMLLoss needs concrete batch shapes (not hybridizable)")
        batch_size, dim = x1.shape
        distances = self._compute_distances(F, x1, x2, batch_size, dim)
        log_probabilities = F.log_softmax(-distances, axis=1)
        labels = self._compute_labels(F, batch_size).as_in_context(distances.context)
        return self.kl_loss(log_probabilities, labels) * batch_size
