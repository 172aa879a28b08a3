"""Faster R-CNN's region proposal operators ``_contrib_Proposal`` (one image) and
``_contrib_MultiProposal`` (a batch), as MXNet 1.9.1's CPU kernels compute them.

Anchors: for each ratio, each scale, the feature_stride square's area over the ratio
(floored), its rounded square root times the scale as width, the rounded width/scale times
ratio times the scale as height, centred on (stride - 1) / 2; shifted by the stride over
the (H, W) map, ordered (h, w, anchor). Each anchor moves by its predicted deltas (Fast
R-CNN's transform with the +1 pixel convention, or plain corner deltas with iou_loss) and is
clipped to the image; anchors past im_info's size on the map and boxes smaller than
rpn_min_size * scale (which are widened by that size) score -1. The
rpn_pre_nms_top_n best (stable sort) go through greedy NMS (IoU with +1 areas >
threshold) until rpn_post_nms_top_n are kept; the kept rows repeat cyclically to fill
rpn_post_nms_top_n (an im_info larger than the map raises eagerly, as in MXNet). Outputs: rois (n, 5) [batch, x1, y1, x2, y2] and, with output_score,
the scores (n, 1). No gradient, as in MXNet.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Float, Int
from .multibox import Floats
from .nn_common import fmt
from .registry import register


def _anchors(stride, ratios, scales):
    f = np.float32
    w = h = f(stride)
    ctr = f(0) + f(0.5) * (w - f(1))
    out = []
    for r in ratios:
        for s in scales:
            size_r = np.floor(w * h / f(r))
            nw = np.floor(np.sqrt(size_r) + f(0.5)) * f(s)
            nh = np.floor(nw / f(s) * f(r) + f(0.5)) * f(s)
            out.append([ctr - f(0.5) * (nw - f(1)), ctr - f(0.5) * (nh - f(1)),
                        ctr + f(0.5) * (nw - f(1)), ctr + f(0.5) * (nh - f(1))])
    return np.asarray(out, f)


def _nms_plus_one(boxes, thresh, limit):
    """Greedy NMS on sorted boxes, areas with the +1 convention, stopping after ``limit``
    kept: a keep mask."""
    n = boxes.shape[0]
    area = (boxes[:, 2] - boxes[:, 0] + 1) * (boxes[:, 3] - boxes[:, 1] + 1)
    pos = jnp.arange(n)

    def body(i, state):
        keep, sup, count = state
        k = ~sup[i] & (count < limit)
        b = boxes[i]
        iw = jnp.maximum(0.0, jnp.minimum(b[2], boxes[:, 2]) - jnp.maximum(b[0], boxes[:, 0]) + 1)
        ih = jnp.maximum(0.0, jnp.minimum(b[3], boxes[:, 3]) - jnp.maximum(b[1], boxes[:, 1]) + 1)
        inter = iw * ih
        ovr = inter / (area[i] + area - inter)
        sup = sup | (k & (ovr > thresh) & (pos > i))
        return keep.at[i].set(k), sup, count + k.astype(jnp.int32)

    keep, _, _ = lax.fori_loop(0, n, body, (jnp.zeros((n,), bool), jnp.zeros((n,), bool),
                                            jnp.zeros((), jnp.int32)))
    return keep


def _one_image(score_map, deltas, info, anchors, stride, pre_n, post_n, post_param, thresh,
               min_size, iou_loss):
    a = anchors.shape[0]
    h, w = score_map.shape[1:]
    f32 = jnp.float32
    shift_x = jnp.arange(w, dtype=f32) * stride
    shift_y = jnp.arange(h, dtype=f32) * stride
    anc = jnp.asarray(anchors)[None, None]                                       # (1,1,A,4)
    sx = jnp.broadcast_to(shift_x[None, :, None], (h, w, 1))
    sy = jnp.broadcast_to(shift_y[:, None, None], (h, w, 1))
    base = anc + jnp.stack([sx, sy, sx, sy], axis=-1)                            # (H,W,A,4)
    score = jnp.transpose(score_map, (1, 2, 0)).astype(f32)                       # (H, W, A)
    d = jnp.transpose(deltas.reshape(a, 4, h, w), (2, 3, 0, 1)).astype(f32)      # (H, W, A, 4)
    im_h, im_w, im_scale = info[0], info[1], info[2]
    if iou_loss:
        box = base + d
    else:
        bw = base[..., 2] - base[..., 0] + 1.0
        bh = base[..., 3] - base[..., 1] + 1.0
        cx, cy = base[..., 0] + 0.5 * (bw - 1.0), base[..., 1] + 0.5 * (bh - 1.0)
        px, py = d[..., 0] * bw + cx, d[..., 1] * bh + cy
        pw, ph = jnp.exp(d[..., 2]) * bw, jnp.exp(d[..., 3]) * bh
        box = jnp.stack([px - 0.5 * (pw - 1.0), py - 0.5 * (ph - 1.0),
                         px + 0.5 * (pw - 1.0), py + 0.5 * (ph - 1.0)], axis=-1)
    lim = jnp.stack([im_w - 1.0, im_h - 1.0, im_w - 1.0, im_h - 1.0])
    box = jnp.maximum(jnp.minimum(box, lim), 0.0)
    real_h = (im_h / stride).astype(jnp.int32)
    real_w = (im_w / stride).astype(jnp.int32)
    padded = (jnp.arange(h)[:, None, None] >= real_h) | (jnp.arange(w)[None, :, None] >= real_w)
    score = jnp.where(padded, -1.0, score)
    ms = min_size * im_scale
    small = ((box[..., 2] - box[..., 0] + 1.0) < ms) | ((box[..., 3] - box[..., 1] + 1.0) < ms)
    box = jnp.where(small[..., None], box + jnp.stack([-ms, -ms, ms, ms]) / 2, box)
    score = jnp.where(small, -1.0, score)
    box, score = box.reshape(-1, 4), score.reshape(-1)
    order = jnp.argsort(-score, stable=True)[:pre_n]
    box, score = box[order], score[order]
    keep = _nms_plus_one(box, thresh, post_n)
    n_keep = jnp.sum(keep)
    dest = jnp.where(keep, jnp.cumsum(keep) - 1, pre_n)
    kept = jnp.zeros((pre_n + 1,), jnp.int32).at[dest].set(jnp.arange(pre_n, dtype=jnp.int32))
    sel = kept[jnp.arange(post_param) % jnp.maximum(n_keep, 1)]
    return box[sel], score[sel][:, None]


def _proposal(op, cls_prob, bbox_pred, im_info, pre, post, threshold, min_size, scales, ratios,
              stride, iou_loss):
    if cls_prob.ndim != 4 or bbox_pred.ndim != 4 or im_info.ndim != 2:
        raise MXNetError(f"Operator {op}: expects cls_prob (N, 2A, H, W), bbox_pred (N, 4A, H, "
                         f"W) and im_info (N, 3), got {fmt(cls_prob.shape)}, "
                         f"{fmt(bbox_pred.shape)}, {fmt(im_info.shape)}")
    n, c2, h, w = cls_prob.shape
    a = c2 // 2
    if a != len(ratios) * len(scales):
        raise MXNetError(f"Operator {op}: cls_prob has {a} anchors per position but ratios x "
                         f"scales give {len(ratios) * len(scales)}")
    if bbox_pred.shape != (n, 4 * a, h, w) or im_info.shape[0] != n or im_info.shape[1] < 3:
        raise MXNetError(f"Operator {op}: bbox_pred {fmt(bbox_pred.shape)} must be "
                         f"{fmt((n, 4 * a, h, w))} and im_info {fmt(im_info.shape)} ({n}, 3)")
    count = a * h * w
    pre_n = min(pre if pre > 0 else count, count)
    post_n = min(post, pre_n)
    anchors = _anchors(stride, ratios, scales)
    f = jax.vmap(lambda s, d, i: _one_image(s, d, i, anchors, float(stride), pre_n, post_n, post,
                                            threshold, float(min_size), iou_loss))
    boxes, scores = f(lax.stop_gradient(cls_prob)[:, a:], lax.stop_gradient(bbox_pred),
                      lax.stop_gradient(im_info).astype(jnp.float32))
    batch = jnp.broadcast_to(jnp.arange(n, dtype=jnp.float32)[:, None, None], (n, post, 1))
    rois = jnp.concatenate([batch, boxes], axis=-1).reshape(n * post, 5)
    return rois.astype(cls_prob.dtype), scores.reshape(n * post, 1).astype(cls_prob.dtype)


def _check_im_info(attrs, cls_prob, bbox_pred, im_info):
    """Eager check (MXNet's): im_info's size over feature_stride must fit the score map."""
    if cls_prob.ndim != 4 or im_info.ndim != 2 or im_info.shape[1] < 2:
        return
    info = np.asarray(im_info)
    stride = attrs["feature_stride"]
    h, w = cls_prob.shape[2:]
    for b in range(info.shape[0]):
        rh, rw = int(info[b, 0] / stride), int(info[b, 1] / stride)
        if rh > h or rw > w:
            raise MXNetError(f"Operator _contrib_Proposal: im_info {info[b].tolist()} of image "
                             f"{b} covers ({rh}, {rw}) feature positions, more than the "
                             f"(H, W) = ({h}, {w}) of cls_prob")


def _visible(attrs):
    return 2 if attrs.get("output_score") else 1


@register("_contrib_Proposal", num_outputs=2, num_visible=_visible, output_names=("output", "score"),
          kernel_check=_check_im_info)
def proposal(cls_prob, bbox_pred, im_info, *, rpn_pre_nms_top_n: Int = 6000,
             rpn_post_nms_top_n: Int = 300, threshold: Float = 0.7, rpn_min_size: Int = 16,
             scales: Floats = (4.0, 8.0, 16.0, 32.0), ratios: Floats = (0.5, 1.0, 2.0),
             feature_stride: Int = 16, output_score: Bool = False, iou_loss: Bool = False):
    """Region proposals of one image (see module doc): rois (post, 5) and scores (post, 1)."""
    if cls_prob.ndim >= 1 and cls_prob.shape[0] != 1:
        raise MXNetError(f"Operator _contrib_Proposal: multiple images each device is not "
                         f"implemented (cls_prob {fmt(cls_prob.shape)}); use MultiProposal")
    return _proposal("_contrib_Proposal", cls_prob, bbox_pred, im_info, rpn_pre_nms_top_n,
                     rpn_post_nms_top_n, threshold, rpn_min_size, scales, ratios,
                     feature_stride, iou_loss)


@register("_contrib_MultiProposal", num_outputs=2, num_visible=_visible,
          output_names=("output", "score"), kernel_check=_check_im_info)
def multi_proposal(cls_prob, bbox_pred, im_info, *, rpn_pre_nms_top_n: Int = 6000,
                   rpn_post_nms_top_n: Int = 300, threshold: Float = 0.7, rpn_min_size: Int = 16,
                   scales: Floats = (4.0, 8.0, 16.0, 32.0), ratios: Floats = (0.5, 1.0, 2.0),
                   feature_stride: Int = 16, output_score: Bool = False, iou_loss: Bool = False):
    """Region proposals of each image of the batch: rois (N * post, 5), scores (N * post, 1)."""
    return _proposal("_contrib_MultiProposal", cls_prob, bbox_pred, im_info, rpn_pre_nms_top_n,
                     rpn_post_nms_top_n, threshold, rpn_min_size, scales, ratios,
                     feature_stride, iou_loss)
