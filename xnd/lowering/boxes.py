"""Bounding-box operators of MXNet's contrib set: ``_contrib_box_nms`` (alias
``_contrib_box_non_maximum_suppression``), ``_contrib_box_iou``, ``_contrib_bipartite_matching``,
``_contrib_box_encode`` and ``_contrib_box_decode``.

Boxes are 4 coordinates in ``corner`` (x1, y1, x2, y2) or ``center`` (cx, cy, w, h) format;
areas are ``w * h`` (no +1). MXNet defines no gradient for box_iou, box_encode, box_decode
and bipartite_matching (its backward writes zeros): they stop the gradient here too.
box_nms passes the output's gradient back to the input rows it kept, unchanged (also
through a format conversion), as MXNet's backward does.
"""
import jax
import jax.numpy as jnp
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Float, Int, choice
from .nn_common import fmt
from .registry import register

_FORMAT = choice("center", "corner")


def to_corner(b):
    cx, cy, w, h = (b[..., i] for i in range(4))
    return jnp.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=-1)


def to_center(b):
    x1, y1, x2, y2 = (b[..., i] for i in range(4))
    w, h = x2 - x1, y2 - y1
    return jnp.stack([x1 + w / 2, y1 + h / 2, w, h], axis=-1)


def iou(a, b):
    """IoU of corner boxes a (..., 4) and b (..., 4), broadcast against each other."""
    zero = jnp.zeros((), a.dtype)
    iw = jnp.maximum(jnp.minimum(a[..., 2], b[..., 2]) - jnp.maximum(a[..., 0], b[..., 0]), zero)
    ih = jnp.maximum(jnp.minimum(a[..., 3], b[..., 3]) - jnp.maximum(a[..., 1], b[..., 1]), zero)
    inter = iw * ih
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    union = area_a + area_b - inter
    return jnp.where(union > 0, inter / jnp.where(union > 0, union, 1), zero)


def _check_index(op, name, idx, width, shape):
    if not 0 <= idx < width:
        raise MXNetError(f"Operator {op}: {name}={idx} is out of range [0, {width}) for data "
                         f"{fmt(shape)}")


def nms_keep(boxes, valid, ids, overlap_thresh, force_suppress, inclusive=False):
    """Greedy NMS over boxes already sorted by descending score: a (N,) keep mask.

    Box i survives when valid and not suppressed by a kept box before it of the same class
    (any class with ``force_suppress`` or no ids) with IoU > overlap_thresh (>= when
    ``inclusive``); one lax loop over i, O(N) memory."""
    n = boxes.shape[0]
    pos = jnp.arange(n)

    def body(i, state):
        keep, sup = state
        k = valid[i] & ~sup[i]
        ov = iou(boxes[i], boxes)
        over = ov >= overlap_thresh if inclusive else ov > overlap_thresh
        if ids is not None and not force_suppress:
            over = over & (ids == ids[i])
        sup = sup | (k & over & (pos > i))
        return keep.at[i].set(k), sup

    keep, _ = lax.fori_loop(0, n, body, (jnp.zeros((n,), bool), jnp.zeros((n,), bool)))
    return keep


def _nms_one(x, overlap_thresh, valid_thresh, topk, coord_start, score_index, id_index,
             background_id, force_suppress, in_format, out_format):
    n = x.shape[0]
    score = x[:, score_index]
    valid = score > valid_thresh
    ids = x[:, id_index] if id_index >= 0 else None
    if ids is not None:  # background_id=-1 (the default) drops the rows of class -1
        valid = valid & (ids != background_id)
    # only the first topk rows of the descending score order can survive: the greedy loop
    # runs over those alone, found by lax.top_k (ties in index order, as the stable sort's;
    # a full sort of GluonCV SSD's 154,400 rows took 136 ms, top_k of 400 of them 2 ms)
    m = min(topk, n) if topk > 0 else n
    if m < n:
        order = lax.top_k(jnp.where(valid, score, -jnp.inf), m)[1]
    else:
        order = jnp.argsort(jnp.where(valid, -score, jnp.inf), stable=True)
    xs = x[order]
    vs = valid[order]
    coords = lax.stop_gradient(xs[:, coord_start:coord_start + 4])
    corner = to_corner(coords) if in_format == "center" else coords
    keep = nms_keep(corner, vs, None if ids is None else ids[order], overlap_thresh,
                    force_suppress)
    # kept rows first, in score order; -1 rows after them
    dest = jnp.where(keep, jnp.cumsum(keep) - 1, m)
    src = jnp.zeros((m + 1,), jnp.int32).at[dest].set(jnp.arange(m, dtype=jnp.int32))[:m]
    filled = jnp.arange(m) < jnp.sum(keep)
    out = xs[src]
    if in_format != out_format:
        c = out[:, coord_start:coord_start + 4]
        conv = to_center(c) if out_format == "center" else to_corner(c)
        # the gradient passes the conversion unchanged (MXNet's backward copies rows)
        out = out.at[:, coord_start:coord_start + 4].set(c + lax.stop_gradient(conv - c))
    out = jnp.where(filled[:, None], out, jnp.asarray(-1, x.dtype))
    return jnp.concatenate([out, jnp.full((n - m, x.shape[1]), -1, x.dtype)]) if m < n else out


@register("_contrib_box_nms", "_contrib_box_non_maximum_suppression", num_outputs=1)
def box_nms(data, *, overlap_thresh: Float = 0.5, valid_thresh: Float = 0.0, topk: Int = -1,
            coord_start: Int = 2, score_index: Int = 1, id_index: Int = -1,
            background_id: Int = -1, force_suppress: Bool = False,
            in_format: _FORMAT = "corner", out_format: _FORMAT = "corner"):
    """Non-maximum suppression on (..., N, K) rows [.., id, score, x1, y1, x2, y2, ..].

    Rows with score <= valid_thresh, or with id_index >= 0 of class background_id (-1 by
    default), are dropped, the rest sorted
    by descending score (only the first ``topk`` kept when topk > 0) and greedily
    suppressed when their IoU with a kept row of the same class (any class with
    force_suppress or id_index < 0) exceeds overlap_thresh. Output: the kept rows first, in
    score order, coordinates converted to out_format, then rows of -1."""
    op = "_contrib_box_nms"
    if data.ndim < 2:
        raise MXNetError(f"Operator {op}: data must be at least 2-D (..., N, K), got "
                         f"{fmt(data.shape)}")
    width = data.shape[-1]
    if not (coord_start >= 0 and coord_start + 3 < width):
        raise MXNetError(f"Operator {op}: coord_start={coord_start} leaves no 4 coordinates "
                         f"(columns {coord_start}..{coord_start + 3}) in data {fmt(data.shape)} "
                         f"of width {width}")
    _check_index(op, "score_index", score_index, width, data.shape)
    if id_index >= 0:
        _check_index(op, "id_index", id_index, width, data.shape)
    x = data.reshape((-1,) + data.shape[-2:])
    f = jax.vmap(lambda b: _nms_one(b, overlap_thresh, valid_thresh, topk, coord_start,
                                    score_index, id_index, background_id, force_suppress,
                                    in_format, out_format))
    return f(x).reshape(data.shape)


@register("_contrib_box_iou")
def box_iou(lhs, rhs, *, format: _FORMAT = "corner"):
    """IoU of every lhs box with every rhs box: shape lhs.shape[:-1] + rhs.shape[:-1]."""
    for name, v in (("lhs", lhs), ("rhs", rhs)):
        if v.shape[-1] != 4:
            raise MXNetError(f"Operator _contrib_box_iou: last dimension of {name} must be 4, "
                             f"got {fmt(v.shape)}")
    a, b = lax.stop_gradient(lhs), lax.stop_gradient(rhs)
    if format == "center":
        a, b = to_corner(a), to_corner(b)
    a = a.reshape(a.shape[:-1] + (1,) * (b.ndim - 1) + (4,))
    return iou(a, b).astype(lhs.dtype)


def _match_one(s, is_ascend, threshold, rounds):
    n, m = s.shape
    big = jnp.asarray(jnp.inf, s.dtype)
    score = -s if is_ascend else s
    ok = (s < threshold) if is_ascend else (s > threshold)
    score = jnp.where(ok, score, -big)

    def body(_, state):
        rows, cols, free = state
        flat = jnp.where(free, score, -big).reshape(-1)
        k = jnp.argmax(flat)
        hit = flat[k] > -big
        r, c = (k // m).astype(jnp.int32), (k % m).astype(jnp.int32)
        rows = jnp.where(hit, rows.at[r].set(c), rows)
        cols = jnp.where(hit, cols.at[c].set(r), cols)
        free = jnp.where(hit, free.at[r, :].set(False).at[:, c].set(False), free)
        return rows, cols, free

    init = (jnp.full((n,), -1, jnp.int32), jnp.full((m,), -1, jnp.int32), jnp.ones((n, m), bool))
    rows, cols, _ = lax.fori_loop(0, rounds, body, init)
    return rows, cols


@register("_contrib_bipartite_matching", num_outputs=2)
def bipartite_matching(data, *, is_ascend: Bool = False, threshold: Float, topk: Int = -1):
    """Greedy matching on a (..., N, M) score matrix: repeatedly the best remaining entry
    (largest, or smallest with is_ascend) that passes the threshold (> threshold, or <)
    matches its row and column. MXNet 1.9.1 stops after topk + 1 matches when topk > 0.
    Returns (row -> column, column -> row), -1 where unmatched, in data's dtype."""
    if data.ndim < 2:
        raise MXNetError(f"Operator _contrib_bipartite_matching: data must be at least 2-D, "
                         f"got {fmt(data.shape)}")
    n, m = data.shape[-2:]
    rounds = min(n, m) if topk <= 0 else min(n, m, topk + 1)
    x = lax.stop_gradient(data).reshape((-1, n, m))
    rows, cols = jax.vmap(lambda s: _match_one(s, is_ascend, threshold, rounds))(x)
    lead = data.shape[:-2]
    return rows.reshape(lead + (n,)).astype(data.dtype), cols.reshape(lead + (m,)).astype(data.dtype)


@register("_contrib_box_encode", num_outputs=2)
def box_encode(samples, matches, anchors, refs, means, stds):
    """Regression targets of anchors (B, N, 4, corner) against their matched refs (B, M, 4):
    ((ref_c - anchor_c) / anchor_size - mean) / std for the centres and
    (log(ref_size / anchor_size) - mean) / std for the sizes, where samples > 0.5; zeros
    elsewhere. Returns (targets, masks) with masks 1 on the positive rows."""
    op = "_contrib_box_encode"
    if anchors.shape[-1] != 4 or refs.shape[-1] != 4:
        raise MXNetError(f"Operator {op}: anchors {fmt(anchors.shape)} and refs "
                         f"{fmt(refs.shape)} must end in 4 coordinates")
    if samples.shape != anchors.shape[:-1] or matches.shape != samples.shape:
        raise MXNetError(f"Operator {op}: samples {fmt(samples.shape)} and matches "
                         f"{fmt(matches.shape)} must be anchors' {fmt(anchors.shape[:-1])}")
    a = to_center(lax.stop_gradient(anchors))
    idx = jnp.clip(lax.stop_gradient(matches).astype(jnp.int32), 0, refs.shape[-2] - 1)
    r = jnp.take_along_axis(lax.stop_gradient(refs), idx[..., None], axis=-2)
    r = to_center(r)
    mean, std = lax.stop_gradient(means), lax.stop_gradient(stds)
    t = jnp.stack([((r[..., 0] - a[..., 0]) / a[..., 2] - mean[0]) / std[0],
                   ((r[..., 1] - a[..., 1]) / a[..., 3] - mean[1]) / std[1],
                   (jnp.log(r[..., 2] / a[..., 2]) - mean[2]) / std[2],
                   (jnp.log(r[..., 3] / a[..., 3]) - mean[3]) / std[3]], axis=-1)
    pos = (lax.stop_gradient(samples) > 0.5)[..., None]
    zero = jnp.zeros((), anchors.dtype)
    return (jnp.where(pos, t, zero).astype(anchors.dtype),
            jnp.broadcast_to(pos, t.shape).astype(anchors.dtype))


@register("_contrib_box_decode")
def box_decode(data, anchors, *, std0: Float = 1.0, std1: Float = 1.0, std2: Float = 1.0,
               std3: Float = 1.0, clip: Float = -1.0, format: _FORMAT = "center"):
    """Corner boxes from deltas data (B, N, 4) on anchors (1, N, 4) given in ``format``:
    centre = d * std * anchor_size + anchor_centre, size = exp(d * std) * anchor_size
    (the scaled log-size delta capped at ``clip`` when clip > 0)."""
    op = "_contrib_box_decode"
    if data.shape[-1] != 4 or anchors.shape[-1] != 4:
        raise MXNetError(f"Operator {op}: data {fmt(data.shape)} and anchors "
                         f"{fmt(anchors.shape)} must end in 4 coordinates")
    d = lax.stop_gradient(data)
    a = lax.stop_gradient(anchors)
    if format == "corner":
        a = to_center(a)
    ox = d[..., 0] * std0 * a[..., 2] + a[..., 0]
    oy = d[..., 1] * std1 * a[..., 3] + a[..., 1]
    dw, dh = d[..., 2] * std2, d[..., 3] * std3
    if clip > 0:
        dw, dh = jnp.minimum(dw, clip), jnp.minimum(dh, clip)
    ow, oh = jnp.exp(dw) * a[..., 2] / 2, jnp.exp(dh) * a[..., 3] / 2
    return jnp.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1).astype(data.dtype)
