"""SSD's operators: ``_contrib_MultiBoxPrior``, ``_contrib_MultiBoxTarget``
and ``_contrib_MultiBoxDetection``, as MXNet 1.9.1 computes them (its CPU kernels' order of
float operations, ties broken by the first index, stable sorts).

None of the three has a gradient in MXNet (its backward writes zeros): the inputs' gradients
are zero here too.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Float, Int, _literal
from .boxes import iou, nms_keep
from .nn_common import fmt
from .registry import register


def Floats(v):
    """A tuple of floats: ``(1, 0.5)``, ``[1]``, ``0.3`` or ``"(1,0.5)"``."""
    v = _literal(v)
    if isinstance(v, (int, float, np.number)):
        return (float(v),)
    return tuple(float(d) for d in v)


def _prior_boxes(h, w, sizes, ratios, steps, offsets, clip):
    """(h*w*num_anchors, 4) float32 anchors, computed in float32 like MXNet's loop."""
    f = np.float32
    step_y, step_x = (f(steps[0]), f(steps[1])) if steps[0] > 0 and steps[1] > 0 \
        else (f(1) / f(h), f(1) / f(w))
    cy = (np.arange(h, dtype=f) + f(offsets[0])) * step_y
    cx = (np.arange(w, dtype=f) + f(offsets[1])) * step_x
    half = []  # (w/2, h/2) of each anchor at a location
    r0 = np.sqrt(f(ratios[0])) if ratios else f(1)
    for s in sizes:
        half.append((f(s) * f(h) / f(w) * r0 / f(2), f(s) / r0 / f(2)))
    for r in ratios[1:]:
        rr = np.sqrt(f(r))
        half.append((f(sizes[0]) * f(h) / f(w) * rr / f(2), f(sizes[0]) / rr / f(2)))
    hw = np.array(half, dtype=f)                                       # (K, 2)
    gx = np.broadcast_to(cx[None, :, None], (h, w, len(half)))
    gy = np.broadcast_to(cy[:, None, None], (h, w, len(half)))
    out = np.stack([gx - hw[:, 0], gy - hw[:, 1], gx + hw[:, 0], gy + hw[:, 1]], axis=-1)
    out = out.reshape(-1, 4)
    return np.clip(out, 0, 1) if clip else out


@register("_contrib_MultiBoxPrior")
def multibox_prior(data, *, sizes: Floats = (1.0,), ratios: Floats = (1.0,), clip: Bool = False,
                   steps: Floats = (-1.0, -1.0), offsets: Floats = (0.5, 0.5)):
    """Anchors (1, H*W*(len(sizes)+len(ratios)-1), 4), corner format, for the (N, C, H, W)
    feature map: per location first every size at ratios[0], then sizes[0] at each further
    ratio; width size*H/W*sqrt(ratio), height size/sqrt(ratio); centres (i + offset) * step,
    step 1/H and 1/W unless given; clipped to [0, 1] with clip."""
    op = "_contrib_MultiBoxPrior"
    if data.ndim != 4:
        raise MXNetError(f"Operator {op}: data must be 4-D (N, C, H, W), got {fmt(data.shape)}")
    if not sizes or not ratios or len(steps) != 2 or len(offsets) != 2:
        raise MXNetError(f"Operator {op}: needs sizes and ratios (non-empty), 2 steps and 2 "
                         f"offsets, got sizes={sizes}, ratios={ratios}, steps={steps}, "
                         f"offsets={offsets}")
    if steps[0] * steps[1] < 0:
        raise MXNetError(f"Operator {op}: must specify both step_y and step_x, got {steps}")
    a = _prior_boxes(data.shape[2], data.shape[3], sizes, ratios, steps, offsets, clip)
    return jnp.asarray(a[None], data.dtype)


def _loc_targets(anchors, gt, variances):
    """SSD's box regression targets of corner anchors (A, 4) against corner gt (A, 4)."""
    aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    ax, ay = (anchors[:, 0] + anchors[:, 2]) * 0.5, (anchors[:, 1] + anchors[:, 3]) * 0.5
    gw, gh = gt[:, 2] - gt[:, 0], gt[:, 3] - gt[:, 1]
    gx, gy = (gt[:, 0] + gt[:, 2]) * 0.5, (gt[:, 1] + gt[:, 3]) * 0.5
    vx, vy, vw, vh = variances
    return jnp.stack([(gx - ax) / aw / vx, (gy - ay) / ah / vy,
                      jnp.log(gw / aw) / vw, jnp.log(gh / ah) / vh], axis=-1)


def _target_one(anchors, label, cls_pred, overlap_threshold, ignore_label, ratio, neg_thresh,
                variances):
    n_anchor, n_label = anchors.shape[0], label.shape[0]
    # valid ground truths: the rows before the first class -1
    valid = jnp.cumprod(label[:, 0] != -1).astype(bool)
    n_valid = jnp.sum(valid)
    ov = iou(anchors[:, None, :], label[None, :, 1:5])                  # (A, L)
    neg = jnp.asarray(-jnp.inf, ov.dtype)

    def bipartite(_, state):  # the best remaining (anchor, gt) pair above 1e-6, both unmatched
        flag, match, gt_done = state
        m = jnp.where((flag[:, None] != 1) & ~gt_done[None, :] & valid[None, :], ov, neg)
        k = jnp.argmax(m.reshape(-1))
        j, g = (k // n_label).astype(jnp.int32), (k % n_label).astype(jnp.int32)
        hit = m.reshape(-1)[k] > 1e-6
        return (jnp.where(hit, flag.at[j].set(1), flag), jnp.where(hit, match.at[j].set(g), match),
                jnp.where(hit, gt_done.at[g].set(True), gt_done))

    flag0 = jnp.full((n_anchor,), -1, jnp.int32)
    flag, match, _ = lax.fori_loop(0, n_label, bipartite,
                                   (flag0, jnp.zeros((n_anchor,), jnp.int32),
                                    jnp.zeros((n_label,), bool)))
    ovv = jnp.where(valid[None, :], ov, neg)
    best_gt = jnp.argmax(ovv, axis=1).astype(jnp.int32)
    best_iou = jnp.max(ovv, axis=1)
    if overlap_threshold > 0:
        extra = (flag != 1) & (best_iou > overlap_threshold)
        flag = jnp.where(extra, 1, flag)
        match = jnp.where(extra, best_gt, match)
    positive = flag == 1
    if ratio > 0:
        n_pos = jnp.sum(positive)
        n_neg = jnp.minimum((n_pos * ratio).astype(jnp.int32), n_anchor - n_pos)
        cand = ~positive & (best_iou < neg_thresh)
        prob = jax.nn.softmax(cls_pred, axis=0)[0]
        order = jnp.argsort(jnp.where(cand, prob, jnp.inf), stable=True)
        rank = jnp.zeros((n_anchor,), jnp.int32).at[order].set(jnp.arange(n_anchor, dtype=jnp.int32))
        negative = cand & (rank < n_neg)
    else:
        negative = ~positive
    gt = label[match]
    dt = anchors.dtype
    cls_t = jnp.where(positive, gt[:, 0] + 1,
                      jnp.where(negative, jnp.zeros((), dt), jnp.asarray(ignore_label, dt)))
    loc = jnp.where(positive[:, None], _loc_targets(anchors, gt[:, 1:5], variances), 0)
    mask = jnp.broadcast_to(positive[:, None], loc.shape).astype(dt)
    has_gt = n_valid > 0
    cls_t = jnp.where(has_gt, cls_t, jnp.asarray(ignore_label, dt))
    loc = jnp.where(has_gt, loc, 0).astype(dt)
    mask = jnp.where(has_gt, mask, 0)
    return loc.reshape(-1), mask.reshape(-1), cls_t


@register("_contrib_MultiBoxTarget", num_outputs=3)
def multibox_target(anchor, label, cls_pred, *, overlap_threshold: Float = 0.5,
                    ignore_label: Float = -1.0, negative_mining_ratio: Float = -1.0,
                    negative_mining_thresh: Float = 0.5, minimum_negative_samples: Int = 0,
                    variances: Floats = (0.1, 0.1, 0.2, 0.2)):
    """SSD training targets: (loc_target (B, A*4), loc_mask (B, A*4), cls_target (B, A)).

    Ground truths are the label rows [cls, x1, y1, x2, y2, ...] before the first cls -1.
    Each gt first takes its best free anchor (greedy over the IoU matrix, IoU > 1e-6), then
    every other anchor whose best IoU exceeds overlap_threshold is positive (cls + 1).
    Negatives (cls 0): every other anchor, or with negative_mining_ratio > 0 the
    ratio * positives anchors of best IoU < negative_mining_thresh with the lowest
    background probability (softmax of cls_pred); the rest get ignore_label, as does every
    anchor of a sample without ground truth. minimum_negative_samples is accepted and, as
    in MXNet's kernel, unused."""
    op = "_contrib_MultiBoxTarget"
    if anchor.ndim != 3 or anchor.shape[0] != 1 or anchor.shape[2] != 4:
        raise MXNetError(f"Operator {op}: anchor must be (1, num_anchors, 4), got "
                         f"{fmt(anchor.shape)}")
    if label.ndim != 3 or label.shape[2] < 5:
        raise MXNetError(f"Operator {op}: label must be (batch, num_labels, >=5), got "
                         f"{fmt(label.shape)}")
    if cls_pred.ndim != 3 or cls_pred.shape[2] != anchor.shape[1] or \
            cls_pred.shape[0] != label.shape[0]:
        raise MXNetError(f"Operator {op}: cls_pred {fmt(cls_pred.shape)} must be (batch, "
                         f"num_classes, {anchor.shape[1]}) for label {fmt(label.shape)}")
    if len(variances) != 4:
        raise MXNetError(f"Operator {op}: variances must have 4 values, got {variances}")
    if negative_mining_ratio > 0 and negative_mining_thresh <= 0:
        raise MXNetError(f"Operator {op}: negative_mining_thresh must be > 0 with negative "
                         f"mining, got {negative_mining_thresh}")
    a = lax.stop_gradient(anchor)[0]
    f = jax.vmap(lambda lb, cp: _target_one(a, lb, cp, overlap_threshold, ignore_label,
                                            negative_mining_ratio, negative_mining_thresh,
                                            variances))
    return f(lax.stop_gradient(label).astype(a.dtype), lax.stop_gradient(cls_pred))


def _decode(anchors, loc, clip, variances):
    aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    ax, ay = (anchors[:, 0] + anchors[:, 2]) / 2, (anchors[:, 1] + anchors[:, 3]) / 2
    vx, vy, vw, vh = variances
    ox, oy = loc[:, 0] * vx * aw + ax, loc[:, 1] * vy * ah + ay
    ow, oh = jnp.exp(loc[:, 2] * vw) * aw / 2, jnp.exp(loc[:, 3] * vh) * ah / 2
    out = jnp.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1)
    return jnp.clip(out, 0, 1) if clip else out


def _detect_one(prob, loc, anchors, clip, threshold, nms_threshold, force_suppress, variances,
                nms_topk):
    n = anchors.shape[0]
    dt = prob.dtype
    fg = prob[1:]
    score = jnp.max(fg, axis=0)
    cid = jnp.argmax(fg, axis=0).astype(dt)       # class id - 1
    valid = score >= threshold
    rows = jnp.concatenate([cid[:, None], score[:, None], _decode(anchors, loc.reshape(n, 4),
                                                                  clip, variances)], axis=1)
    # valid rows first, in anchor order; -1 after them
    dest = jnp.where(valid, jnp.cumsum(valid) - 1, n)
    pos = jnp.arange(n)
    n_valid = jnp.sum(valid)
    minus = jnp.asarray(-1, dt)
    packed = jnp.full((n + 1, 6), minus, dt).at[dest].set(rows)[:n]
    if nms_threshold <= 0 or nms_threshold > 1:
        return packed
    order = jnp.argsort(jnp.where(pos < n_valid, -packed[:, 1], jnp.inf), stable=True)
    srt = packed[order]
    n_keep = n_valid if nms_topk <= 0 else jnp.minimum(n_valid, nms_topk)
    # rows past nms_topk keep their unsorted place and lose their class
    out = jnp.where((pos < n_keep)[:, None], srt, packed.at[:, 0].set(minus))
    out = jnp.where((pos < n_valid)[:, None], out, minus)
    alive = pos < n_keep
    keep = nms_keep(out[:, 2:6], alive, out[:, 0], nms_threshold, force_suppress,
                    inclusive=True)
    return out.at[:, 0].set(jnp.where(keep | ~alive, out[:, 0], minus))


@register("_contrib_MultiBoxDetection")
def multibox_detection(cls_prob, loc_pred, anchor, *, clip: Bool = True,
                       threshold: Float = 0.01, background_id: Int = 0,
                       nms_threshold: Float = 0.5, force_suppress: Bool = False,
                       variances: Floats = (0.1, 0.1, 0.2, 0.2), nms_topk: Int = -1):
    """SSD detections (B, A, 6) rows [class, score, x1, y1, x2, y2]: per anchor the best
    foreground class of cls_prob (B, C, A) (class 0 is the background, as in MXNet's
    kernel, whatever background_id says) and the decoded box of loc_pred (B, A*4) on anchor
    (1, A, 4), clipped to [0, 1] with clip. Rows scoring below threshold are dropped and
    the rest packed first; those are sorted by score (the first nms_topk kept) and
    suppressed (class -1) when IoU >= nms_threshold with a better one of the same class
    (any with force_suppress). No sorting or NMS unless 0 < nms_threshold <= 1."""
    op = "_contrib_MultiBoxDetection"
    if cls_prob.ndim != 3 or loc_pred.ndim != 2 or anchor.ndim != 3:
        raise MXNetError(f"Operator {op}: expects cls_prob (B, C, A), loc_pred (B, A*4) and "
                         f"anchor (1, A, 4), got {fmt(cls_prob.shape)}, {fmt(loc_pred.shape)}, "
                         f"{fmt(anchor.shape)}")
    n = cls_prob.shape[2]
    if loc_pred.shape != (cls_prob.shape[0], n * 4) or anchor.shape[1:] != (n, 4):
        raise MXNetError(f"Operator {op}: loc_pred {fmt(loc_pred.shape)} and anchor "
                         f"{fmt(anchor.shape)} do not match cls_prob {fmt(cls_prob.shape)}: "
                         f"expected ({cls_prob.shape[0]},{n * 4}) and (1,{n},4)")
    if len(variances) != 4:
        raise MXNetError(f"Operator {op}: variances must have 4 values, got {variances}")
    a = lax.stop_gradient(anchor)[0].astype(cls_prob.dtype)
    f = jax.vmap(lambda p, l: _detect_one(p, l, a, clip, threshold, nms_threshold,
                                          force_suppress, variances, nms_topk))
    return f(lax.stop_gradient(cls_prob), lax.stop_gradient(loc_pred).astype(cls_prob.dtype))
