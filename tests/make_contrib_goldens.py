"""Record what real MXNet 1.9.1 does for the contrib / detection / vision operators.

Run with the reference interpreter (it must import the real ``mxnet``):

    /work/mxref/bin/python tests/make_contrib_goldens.py

Writes ``tests/goldens/contrib/contrib.json`` (one entry per case: function, attributes,
input names, which inputs get gradients, or the error MXNet raised) and
``tests/goldens/contrib/contrib.npz`` (``<case>/in/<name>``, ``<case>/out/<i>``,
``<case>/head/<i>``, ``<case>/grad/<name>``). Deterministic: fixed seeds, sorted keys,
fixed zip timestamps.

Each case runs ``y = mx.nd.<fn>(*inputs, **attrs)`` (``fn`` a dotted path such as
``contrib.box_nms``); with ``grad`` under ``autograd.record()`` and
``autograd.backward(outputs, heads)`` with random head gradients (on the first output
only when ``heads='first'``). The case table is plain data, imported by
tests/test_contrib_ops.py; nothing here imports mxnet at import time.
"""
import os
import sys

import numpy as np

import golden_files

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "goldens", "contrib")
JSON_PATH = os.path.join(OUT_DIR, "contrib.json")
NPZ_PATH = os.path.join(OUT_DIR, "contrib.npz")

CASES = []
_RS = np.random.RandomState(20261201)


def rnd(*shape, lo=None, hi=None, scale=1.0):
    if lo is not None:
        return _RS.uniform(lo, hi, size=shape).astype(np.float32)
    return (_RS.randn(*shape) * scale).astype(np.float32)


def arr(v, dtype=np.float32):
    return np.asarray(v, dtype=dtype)


def case(name, fn, inputs, attrs=None, grad=(), heads="all", compare=None, train=False, aux=()):
    """inputs: list of (name, array); grad: input names that get gradients; compare: output
    indices to compare (default all); train: record in training mode; aux: inputs whose
    values after the call are recorded (moving statistics)."""
    CASES.append(dict(name=name, fn=fn, inputs=inputs, attrs=attrs or {}, grad=list(grad),
                      heads=heads, compare=compare, train=train, aux=list(aux)))


def boxes(n, lo=0.0, hi=10.0, batch=()):
    """n random corner boxes (x1, y1, x2, y2) with x2 > x1, y2 > y1."""
    xy = _RS.uniform(lo, hi, size=batch + (n, 2))
    wh = _RS.uniform(0.5, (hi - lo) / 2, size=batch + (n, 2))
    return np.concatenate([xy, xy + wh], axis=-1).astype(np.float32)


# ---- box_nms ----------------------------------------------------------------------------------
def nms_data(n, batch=(), ids=3, dup=True):
    b = boxes(n, 0, 6, batch)
    if dup:  # near-duplicates so that suppression happens
        b[..., 1::2, :] = b[..., 0::2, :][..., :b[..., 1::2, :].shape[-2], :] + 0.2
    score = _RS.permutation(n * int(np.prod(batch or (1,)))).reshape(batch + (n, 1)) / (2.0 * n)
    cid = _RS.randint(0, ids, size=batch + (n, 1))
    return np.concatenate([cid, score, b], axis=-1).astype(np.float32)


D = nms_data(12)
case("nms_default", "contrib.box_nms", [("data", D)], grad=("data",))
case("nms_thresh", "contrib.box_nms", [("data", D)],
     dict(overlap_thresh=0.3, valid_thresh=0.2), grad=("data",))
case("nms_topk", "contrib.box_nms", [("data", D)], dict(topk=5, overlap_thresh=0.4),
     grad=("data",))
case("nms_id", "contrib.box_nms", [("data", D)], dict(id_index=0, overlap_thresh=0.3),
     grad=("data",))
case("nms_background", "contrib.box_nms", [("data", D)],
     dict(id_index=0, background_id=1, overlap_thresh=0.3), grad=("data",))
_DB = D.copy()
_DB[[2, 5, 7], 0] = -1  # class -1 rows: dropped with the default background_id=-1
case("nms_class_minus_one", "contrib.box_nms", [("data", _DB)], dict(id_index=0),
     grad=("data",))
case("nms_class_minus_one_kept", "contrib.box_nms", [("data", _DB)],
     dict(id_index=0, background_id=2))
case("nms_force", "contrib.box_nms", [("data", D)],
     dict(id_index=0, force_suppress=True, overlap_thresh=0.3))
case("nms_center_in", "contrib.box_nms", [("data", D)], dict(in_format="center"),
     grad=("data",))
case("nms_center_out", "contrib.box_nms", [("data", D)], dict(out_format="center"),
     grad=("data",))
case("nms_center_both", "contrib.box_nms", [("data", D)],
     dict(in_format="center", out_format="center", overlap_thresh=0.2))
_D2 = np.concatenate([D[:, 2:], D[:, 1:2], D[:, :1]], axis=1)  # coords first, score, id
case("nms_columns", "contrib.box_nms", [("data", _D2)],
     dict(coord_start=0, score_index=4, id_index=5, overlap_thresh=0.3), grad=("data",))
case("nms_batch", "contrib.box_nms", [("data", nms_data(7, batch=(2, 3)))],
     dict(overlap_thresh=0.25, topk=4), grad=("data",))
case("nms_alias", "contrib.box_non_maximum_suppression", [("data", nms_data(6, batch=(2,)))],
     dict(overlap_thresh=0.1))
case("nms_extra_columns", "contrib.box_nms", [("data", rnd(2, 9, 8, lo=0, hi=5))],
     dict(overlap_thresh=0.2, valid_thresh=1.0))
case("err_nms_coord_start", "contrib.box_nms", [("data", D)], dict(coord_start=4))
case("err_nms_score_index", "contrib.box_nms", [("data", D)], dict(score_index=6))

# ---- box_iou / bipartite_matching / box_encode / box_decode ----------------------------------
case("iou_corner", "contrib.box_iou", [("lhs", boxes(5)), ("rhs", boxes(4))])
case("iou_center", "contrib.box_iou", [("lhs", boxes(3, batch=(2,))), ("rhs", boxes(4))],
     dict(format="center"))
case("iou_grad", "contrib.box_iou", [("lhs", boxes(4)), ("rhs", boxes(3))], grad=("lhs", "rhs"))
case("err_iou_width", "contrib.box_iou", [("lhs", rnd(3, 5)), ("rhs", rnd(2, 4))])
_S = _RS.permutation(24).reshape(1, 4, 6).astype(np.float32) / 24.0
case("bm_default", "contrib.bipartite_matching", [("data", _S)], dict(threshold=0.1))
case("bm_ascend", "contrib.bipartite_matching", [("data", _S)],
     dict(threshold=0.8, is_ascend=True))
case("bm_topk", "contrib.bipartite_matching",
     [("data", _RS.permutation(30).reshape(2, 5, 3).astype(np.float32) / 30.0)],
     dict(threshold=0.2, topk=2))
case("bm_2d", "contrib.bipartite_matching",
     [("data", _RS.permutation(20).reshape(5, 4).astype(np.float32) / 20.0)], dict(threshold=0.3))
_ANC = boxes(6, batch=(2,))
_REF = boxes(3, batch=(2,))
case("box_encode", "contrib.box_encode",
     [("samples", arr([[1, -1, 0, 1, 1, 0], [0, 1, 1, -1, 1, 1]])),
      ("matches", arr([[0, 2, 1, 2, 1, 0], [1, 0, 2, 2, 1, 0]])),
      ("anchors", _ANC), ("refs", _REF),
      ("means", arr([0.0, 0.1, 0.0, -0.1])), ("stds", arr([0.1, 0.1, 0.2, 0.2]))],
     grad=("anchors", "refs"))
case("box_decode_center", "contrib.box_decode",
     [("data", rnd(2, 6, 4, scale=0.5)), ("anchors", rnd(1, 6, 4, lo=1, hi=4))],
     dict(std0=0.1, std1=0.1, std2=0.2, std3=0.2), grad=("data", "anchors"))
case("box_decode_corner_clip", "contrib.box_decode",
     [("data", rnd(2, 6, 4, scale=2.0)), ("anchors", boxes(6, batch=(1,)))],
     dict(format="corner", clip=1.0), grad=("data",))

# ---- MultiBoxPrior / MultiBoxTarget / MultiBoxDetection --------------------------------------
case("prior_default", "contrib.MultiBoxPrior", [("data", rnd(1, 2, 3, 4))], grad=("data",))
case("prior_sizes_ratios", "contrib.MultiBoxPrior", [("data", rnd(2, 1, 5, 3))],
     dict(sizes=(0.3, 0.6, 0.9), ratios=(1, 2, 0.5, 3)))
case("prior_clip_steps", "contrib.MultiBoxPrior", [("data", rnd(1, 1, 4, 4))],
     dict(sizes=(0.5, 0.25), ratios=(2,), clip=True, steps=(0.2, 0.3), offsets=(0.3, 0.7)))

_A = _RS.uniform(0, 0.7, size=(1, 30, 2))
_ANCH = np.concatenate([_A, _A + _RS.uniform(0.1, 0.4, size=(1, 30, 2))], axis=-1).astype(np.float32)
_LAB = arr([[[1, 0.1, 0.1, 0.4, 0.45], [0, 0.5, 0.4, 0.9, 0.8], [2, 0.3, 0.0, 0.6, 0.3],
             [-1, -1, -1, -1, -1]],
            [[2, 0.05, 0.5, 0.5, 0.95], [-1, -1, -1, -1, -1], [-1, -1, -1, -1, -1],
             [-1, -1, -1, -1, -1]],
            [[-1, -1, -1, -1, -1], [-1, -1, -1, -1, -1], [-1, -1, -1, -1, -1],
             [-1, -1, -1, -1, -1]]])
_CLS = rnd(3, 4, 30)
case("target_default", "contrib.MultiBoxTarget",
     [("anchor", _ANCH), ("label", _LAB), ("cls_pred", _CLS)], grad=("cls_pred",))
case("target_threshold", "contrib.MultiBoxTarget",
     [("anchor", _ANCH), ("label", _LAB), ("cls_pred", _CLS)],
     dict(overlap_threshold=0.2, variances=(0.1, 0.2, 0.3, 0.4), ignore_label=-2))
case("target_no_threshold", "contrib.MultiBoxTarget",
     [("anchor", _ANCH), ("label", _LAB), ("cls_pred", _CLS)], dict(overlap_threshold=0))
case("target_mining", "contrib.MultiBoxTarget",
     [("anchor", _ANCH), ("label", _LAB), ("cls_pred", _CLS)],
     dict(overlap_threshold=0.3, negative_mining_ratio=3, negative_mining_thresh=0.4,
          minimum_negative_samples=2))
_PROB = _RS.dirichlet(np.ones(4), size=(2, 30)).transpose(0, 2, 1).astype(np.float32)
_LOC = rnd(2, 120, scale=0.5)
case("detect_default", "contrib.MultiBoxDetection",
     [("cls_prob", _PROB), ("loc_pred", _LOC), ("anchor", _ANCH)], grad=("cls_prob", "loc_pred"))
case("detect_force_topk", "contrib.MultiBoxDetection",
     [("cls_prob", _PROB), ("loc_pred", _LOC), ("anchor", _ANCH)],
     dict(force_suppress=True, nms_topk=7, threshold=0.2, nms_threshold=0.3))
case("detect_noclip_variances", "contrib.MultiBoxDetection",
     [("cls_prob", _PROB), ("loc_pred", _LOC), ("anchor", _ANCH)],
     dict(clip=False, variances=(0.2, 0.2, 0.1, 0.1), threshold=0.3))
case("detect_no_nms", "contrib.MultiBoxDetection",
     [("cls_prob", _PROB), ("loc_pred", _LOC), ("anchor", _ANCH)], dict(nms_threshold=0))
case("err_detect_loc", "contrib.MultiBoxDetection",
     [("cls_prob", _PROB), ("loc_pred", rnd(2, 100)), ("anchor", _ANCH)])


# ---- ROIPooling / ROIAlign / PSROIPooling -----------------------------------------------------
_FEAT = rnd(2, 3, 8, 10)
_ROIS = arr([[0, 1.2, 0.7, 6.3, 5.1], [1, 0, 0, 9.5, 7.5], [0, 3.5, 2.5, 4.0, 3.0],
             [1, -2.0, -1.5, 12.0, 10.5], [1, 7.7, 6.2, 9.9, 7.9], [0, 2, 3, 2, 3]])
case("roipool", "ROIPooling", [("data", _FEAT), ("rois", _ROIS)],
     dict(pooled_size=(3, 2), spatial_scale=1.0), grad=("data",))
_ROIS2 = _ROIS * np.array([1, 2, 2, 2, 2], np.float32)  # image coordinates for scale 0.5
case("roipool_scale", "ROIPooling", [("data", _FEAT), ("rois", _ROIS2)],
     dict(pooled_size=(2, 4), spatial_scale=0.5), grad=("data",))
case("roialign", "contrib.ROIAlign", [("data", _FEAT), ("rois", _ROIS)],
     dict(pooled_size=(3, 2), spatial_scale=1.0), grad=("data",))
case("roialign_ratio", "contrib.ROIAlign", [("data", _FEAT), ("rois", _ROIS2)],
     dict(pooled_size=(2, 3), spatial_scale=0.5, sample_ratio=2), grad=("data",))
case("roialign_aligned", "contrib.ROIAlign", [("data", _FEAT), ("rois", _ROIS[:5])],
     dict(pooled_size=(4, 4), spatial_scale=1.0, aligned=True), grad=("data",))
case("err_roialign_4cols", "contrib.ROIAlign", [("data", _FEAT[:1]), ("rois", _ROIS[:, 1:])],
     dict(pooled_size=(2, 2), spatial_scale=1.0, sample_ratio=3))
case("roialign_ps", "contrib.ROIAlign", [("data", rnd(2, 8, 7, 9)), ("rois", _ROIS)],
     dict(pooled_size=(2, 2), spatial_scale=1.0, position_sensitive=True), grad=("data",))
case("roialign_big", "contrib.ROIAlign", [("data", rnd(1, 2, 20, 24)),
                                          ("rois", arr([[0, 0.5, 1.5, 23.0, 19.0], [0, 3, 4, 7.2, 9.1]]))],
     dict(pooled_size=(3, 3), spatial_scale=1.0), grad=("data",))
case("err_roialign_width", "contrib.ROIAlign", [("data", _FEAT), ("rois", rnd(3, 6))],
     dict(pooled_size=(2, 2), spatial_scale=1.0))
case("psroipool", "contrib.PSROIPooling", [("data", rnd(2, 18, 8, 10)), ("rois", _ROIS)],
     dict(spatial_scale=1.0, output_dim=2, pooled_size=3), grad=("data",))
case("psroipool_group", "contrib.PSROIPooling", [("data", rnd(2, 8, 8, 10)), ("rois", _ROIS2)],
     dict(spatial_scale=0.5, output_dim=2, pooled_size=4, group_size=2), grad=("data",))


# ---- BilinearResize2D / AdaptiveAvgPooling2D -------------------------------------------------
_IMG = rnd(2, 3, 5, 7)
case("resize_size", "contrib.BilinearResize2D", [("data", _IMG)], dict(height=8, width=4),
     grad=("data",))
case("resize_size_noalign", "contrib.BilinearResize2D", [("data", _IMG)],
     dict(height=9, width=13, align_corners=False), grad=("data",))
case("resize_down_noalign", "contrib.BilinearResize2D", [("data", rnd(1, 2, 9, 11))],
     dict(height=4, width=3, align_corners=False), grad=("data",))
case("resize_scale", "contrib.BilinearResize2D", [("data", _IMG)],
     dict(scale_height=1.5, scale_width=0.6), grad=("data",))
case("resize_to_one", "contrib.BilinearResize2D", [("data", _IMG)], dict(height=1, width=3))
case("resize_odd_scale", "contrib.BilinearResize2D", [("data", _IMG)],
     dict(mode="odd_scale", scale_height=2.0, scale_width=0.5), grad=("data",))
for _m in ("to_even_down", "to_even_up", "to_odd_down", "to_odd_up"):
    case("resize_" + _m, "contrib.BilinearResize2D", [("data", _IMG)], dict(mode=_m),
         grad=("data",))
case("resize_like", "contrib.BilinearResize2D", [("data", _IMG), ("like", rnd(2, 3, 6, 10))],
     dict(mode="like", align_corners=False), grad=("data", "like"))
case("adaptive_1", "contrib.AdaptiveAvgPooling2D", [("data", _IMG)], grad=("data",))
case("adaptive_int", "contrib.AdaptiveAvgPooling2D", [("data", _IMG)], dict(output_size=3),
     grad=("data",))
case("adaptive_pair", "contrib.AdaptiveAvgPooling2D", [("data", _IMG)],
     dict(output_size=(4, 9)), grad=("data",))

# ---- arrays: boolean_mask, index_copy, index_array, arange_like, allclose, ... ----------------
_X = rnd(5, 3)
case("boolean_mask", "contrib.boolean_mask", [("data", _X), ("index", arr([1, 0, 1, 1, 0]))],
     grad=("data",))
case("err_boolean_mask_axis1", "contrib.boolean_mask",
     [("data", rnd(2, 4, 3)), ("index", arr([0, 1, 0, 1]))], dict(axis=1), grad=("data",))
case("index_copy", "contrib.index_copy",
     [("old_tensor", _X), ("index_vector", arr([3, 0])), ("new_tensor", rnd(2, 3))],
     grad=("old_tensor", "new_tensor"))
case("index_array", "contrib.index_array", [("data", rnd(2, 3, 2))])
case("index_array_axes", "contrib.index_array", [("data", rnd(2, 3, 4))], dict(axes=(2, 0)))
case("arange_like", "contrib.arange_like", [("data", rnd(3, 4))], dict(start=2, step=0.5))
case("arange_like_axis", "contrib.arange_like", [("data", rnd(3, 4))],
     dict(start=1, axis=1, repeat=2))
case("allclose_true", "contrib.allclose", [("a", _X), ("b", _X + 1e-6)], dict(rtol=1e-3))
case("allclose_false", "contrib.allclose", [("a", _X), ("b", _X + 1e-3)])
case("allclose_nan", "contrib.allclose",
     [("a", arr([1.0, np.nan])), ("b", arr([1.0, np.nan]))], dict(equal_nan=False))
case("gradientmultiplier", "contrib.gradientmultiplier", [("data", _X)], dict(scalar=-0.7),
     grad=("data",))
case("quadratic", "contrib.quadratic", [("data", _X)], dict(a=0.5, b=-2, c=3), grad=("data",))
case("div_sqrt_dim", "contrib.div_sqrt_dim", [("data", rnd(2, 3, 6))], grad=("data",))

# ---- NLP attention kernels ---------------------------------------------------------------------
_QKV = rnd(4, 2, 3 * 3 * 5)   # T=4, B=2, heads=3, head_dim=5
_ATT = rnd(6, 4, 4)
_Q = rnd(3, 2, 3 * 5)
_KV = rnd(4, 2, 3 * 2 * 5)
case("selfatt_qk", "contrib.interleaved_matmul_selfatt_qk", [("queries_keys_values", _QKV)],
     dict(heads=3), grad=("queries_keys_values",))
case("selfatt_valatt", "contrib.interleaved_matmul_selfatt_valatt",
     [("queries_keys_values", _QKV), ("attention", _ATT)], dict(heads=3),
     grad=("queries_keys_values", "attention"))
case("encdec_qk", "contrib.interleaved_matmul_encdec_qk", [("queries", _Q), ("keys_values", _KV)],
     dict(heads=3), grad=("queries", "keys_values"))
case("encdec_valatt", "contrib.interleaved_matmul_encdec_valatt",
     [("keys_values", _KV), ("attention", rnd(6, 3, 4))], dict(heads=3),
     grad=("keys_values", "attention"))


# ---- SyncBatchNorm (one device: BatchNorm's numbers) -------------------------------------------
def _bn_in(c):
    return [("data", rnd(4, c, 3, 2)), ("gamma", rnd(c, lo=0.5, hi=1.5)), ("beta", rnd(c)),
            ("moving_mean", rnd(c, scale=0.3)), ("moving_var", rnd(c, lo=0.5, hi=1.5))]


case("syncbn_train", "contrib.SyncBatchNorm", _bn_in(3), dict(key="s1", fix_gamma=False),
     grad=("data", "gamma", "beta"), train=True, heads="first", aux=("moving_mean", "moving_var"))
case("syncbn_fix_gamma", "contrib.SyncBatchNorm", _bn_in(2), dict(key="s2", momentum=0.7),
     grad=("data", "gamma", "beta"), train=True, heads="first", aux=("moving_mean", "moving_var"))
case("syncbn_predict", "contrib.SyncBatchNorm", _bn_in(3), dict(key="s3", eps=1e-4))
case("syncbn_global", "contrib.SyncBatchNorm", _bn_in(3),
     dict(key="s4", use_global_stats=True, fix_gamma=False, output_mean_var=True),
     grad=("data", "gamma"), train=True, heads="first", compare=[0])  # MXNet leaves mean/var unset


# ---- BilinearSampler / GridGenerator / SpatialTransformer / Correlation -----------------------
_SD = rnd(2, 3, 5, 6)
case("sampler", "BilinearSampler", [("data", _SD), ("grid", rnd(2, 2, 4, 3, lo=-1.3, hi=1.3))],
     grad=("data", "grid"))
case("gridgen_affine", "GridGenerator", [("data", rnd(2, 6))],
     dict(transform_type="affine", target_shape=(4, 5)), grad=("data",))
case("gridgen_warp", "GridGenerator", [("data", rnd(2, 2, 3, 4, scale=2.0))],
     dict(transform_type="warp"), grad=("data",))
case("spatial_transformer", "SpatialTransformer",
     [("data", _SD), ("loc", arr([[0.9, 0.1, 0.05, -0.2, 1.1, 0.1], [1.2, -0.3, 0.2, 0.2, 0.7, -0.1]]))],
     dict(target_shape=(4, 4), transform_type="affine", sampler_type="bilinear"),
     grad=("data", "loc"))
_C1, _C2 = rnd(2, 3, 7, 8), rnd(2, 3, 7, 8)
case("correlation", "Correlation", [("data1", _C1), ("data2", _C2)], grad=("data1", "data2"))
case("correlation_big", "Correlation", [("data1", _C1), ("data2", _C2)],
     dict(kernel_size=3, max_displacement=2, stride1=2, stride2=1, pad_size=2),
     grad=("data1", "data2"))
case("correlation_abs", "Correlation", [("data1", _C1), ("data2", _C2)],
     dict(kernel_size=1, max_displacement=4, stride1=1, stride2=2, pad_size=3, is_multiply=False),
     grad=("data1", "data2"))


# ---- DeformableConvolution / ModulatedDeformableConvolution ------------------------------------
_DX = rnd(2, 4, 6, 7)
DG = ("data", "offset", "weight", "bias")
case("deform_conv", "contrib.DeformableConvolution",
     [("data", _DX), ("offset", rnd(2, 18, 4, 5, scale=1.5)), ("weight", rnd(3, 4, 3, 3)),
      ("bias", rnd(3))], dict(kernel=(3, 3), num_filter=3), grad=DG)
case("deform_conv_groups", "contrib.DeformableConvolution",
     [("data", _DX), ("offset", rnd(2, 2 * 2 * 4, 4, 4, scale=1.5)), ("weight", rnd(4, 2, 2, 2)),
      ("bias", rnd(4))],
     dict(kernel=(2, 2), stride=(2, 2), pad=(1, 1), dilate=(1, 1), num_filter=4, num_group=2,
          num_deformable_group=2), grad=DG)
case("deform_conv_dilate_nobias", "contrib.DeformableConvolution",
     [("data", _DX), ("offset", rnd(2, 18, 6, 7, scale=2.0)), ("weight", rnd(2, 4, 3, 3))],
     dict(kernel=(3, 3), pad=(2, 2), dilate=(2, 2), num_filter=2, no_bias=True),
     grad=("data", "offset", "weight"))
# ModulatedDeformableConvolution: MXNet 1.9.1 runs it on GPU only (tests/test_contrib_ops.py
# checks it against a direct evaluation of its formula instead)
case("err_deform_offset", "contrib.DeformableConvolution",
     [("data", _DX), ("offset", rnd(2, 8, 4, 5)), ("weight", rnd(3, 4, 3, 3)), ("bias", rnd(3))],
     dict(kernel=(3, 3), num_filter=3))


# ---- Proposal / MultiProposal ------------------------------------------------------------------
def _rpn(n, a=6, h=5, w=6):
    fg = _RS.uniform(0, 1, size=(n, a, h, w))
    return [("cls_prob", np.concatenate([1 - fg, fg], axis=1).astype(np.float32)),
            ("bbox_pred", rnd(n, 4 * a, h, w, scale=0.3)),
            ("im_info", arr([[70, 90, 1.0], [80, 96, 0.5]][:n]))]


_RPN = dict(scales=(2, 4), ratios=(0.5, 1, 2), feature_stride=16, rpn_pre_nms_top_n=60,
            rpn_post_nms_top_n=25, threshold=0.6, rpn_min_size=12)
case("proposal", "contrib.Proposal", _rpn(1), dict(_RPN, output_score=True),
     grad=("cls_prob", "bbox_pred"))
case("proposal_iou_loss", "contrib.Proposal", _rpn(1),
     dict(_RPN, iou_loss=True, rpn_post_nms_top_n=80, rpn_pre_nms_top_n=-1, threshold=0.3))
case("err_proposal_im_info", "contrib.Proposal", _rpn(1, a=3, h=4, w=4),
     dict(scales=(8,), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=30, rpn_post_nms_top_n=10))
case("proposal_rois_only", "contrib.Proposal", _rpn(1, a=3, h=5, w=6),
     dict(scales=(8,), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=30, rpn_post_nms_top_n=10))
case("multi_proposal", "contrib.MultiProposal", _rpn(2), dict(_RPN, output_score=True))
case("err_proposal_batch", "contrib.Proposal", _rpn(2), _RPN)


# ---- DeformablePSROIPooling --------------------------------------------------------------------
_DPS = rnd(2, 2 * 3 * 3, 8, 10)
case("dpsroi", "contrib.DeformablePSROIPooling",
     [("data", _DPS), ("rois", _ROIS), ("trans", rnd(6, 4, 3, 3, scale=0.5))],
     dict(spatial_scale=1.0, output_dim=2, group_size=3, pooled_size=3, sample_per_part=2,
          trans_std=0.1), grad=("data", "trans"))
case("dpsroi_parts", "contrib.DeformablePSROIPooling",
     [("data", _DPS), ("rois", _ROIS2), ("trans", rnd(6, 2, 2, 2, scale=0.5))],
     dict(spatial_scale=0.5, output_dim=2, group_size=3, pooled_size=4, part_size=2,
          sample_per_part=3, trans_std=0.2), grad=("data", "trans"))
case("dpsroi_no_trans", "contrib.DeformablePSROIPooling", [("data", _DPS), ("rois", _ROIS)],
     dict(spatial_scale=1.0, output_dim=2, group_size=3, pooled_size=3, no_trans=True),
     grad=("data",))


def _tied_scores(n, batch=()):
    """nms_data with scores from only four values: many ties among the topk rows."""
    d = nms_data(n, batch)
    d[..., 1] = _RS.randint(1, 5, size=d.shape[:-1]) / 4.0
    return d


# topk much smaller than the rows (xnd takes the topk rows with lax.top_k): ties, several
# classes, a batch, gradients
case("nms_topk_ties", "contrib.box_nms", [("data", _tied_scores(40, batch=(2,)))],
     dict(topk=7, overlap_thresh=0.3, id_index=0, valid_thresh=0.3), grad=("data",))
case("nms_topk_ties_force", "contrib.box_nms", [("data", _tied_scores(40))],
     dict(topk=12, overlap_thresh=0.2, force_suppress=True, valid_thresh=0.5), grad=("data",))

# straight-through estimators: round/sign forward, the head gradient unchanged
_STE = arr([-2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 0.3, -0.3, 7.49])
case("round_ste", "contrib.round_ste", [("data", _STE)], grad=("data",))
case("sign_ste", "contrib.sign_ste", [("data", _STE.reshape(2, 5))], grad=("data",))


# ---- recording (on MXNet 1.9.1) ---------------------------------------------------------------
def _message(e):
    """The first meaningful line of MXNet's error (its C++ stack trace left out)."""
    lines = [ln for ln in str(e).splitlines() if ln.strip()]
    for ln in lines:
        if "Check failed" in ln or "Error" in ln or "error" in ln:
            return ln.strip()[:400]
    return (lines[-1] if lines else "").strip()[:400]


def resolve(nd, path):
    f = nd
    for part in path.split("."):
        f = getattr(f, part)
    return f


def run_case(mx, c):
    from mxnet import autograd, nd
    ins = [(n, nd.array(a, dtype=a.dtype)) for n, a in c["inputs"]]
    arrays = {}
    for n, v in ins:
        if n in c["grad"]:
            v.attach_grad()
    fn = resolve(nd, c["fn"])
    vals = [v for _, v in ins]
    if c["grad"]:
        with autograd.record(train_mode=c["train"]):
            out = fn(*vals, **c["attrs"])
    else:
        out = fn(*vals, **c["attrs"])
    outs = out if isinstance(out, (list, tuple)) else [out]
    for i, o in enumerate(outs):
        arrays[f"out/{i}"] = o.asnumpy()
    if c["grad"]:
        heads_for = outs[:1] if c["heads"] == "first" else outs
        heads = [nd.array(rnd(*o.shape)) for o in heads_for]
        autograd.backward(heads_for, heads)
        for i, h in enumerate(heads):
            arrays[f"head/{i}"] = h.asnumpy()
        for n, v in ins:
            if n in c["grad"]:
                arrays[f"grad/{n}"] = v.grad.asnumpy()
    nd.waitall()
    for n, v in ins:
        if n in c["aux"]:
            arrays[f"aux/{n}"] = v.asnumpy()
    return arrays, len(outs)


def main():
    import mxnet as mx
    if getattr(mx, "__version__", None) != "1.9.1" or \
            os.path.basename(os.path.dirname(mx.__file__)) != "mxnet":
        sys.exit("make_contrib_goldens.py needs the real MXNet 1.9.1")
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names)), "duplicate case names"
    entries, arrays = {}, {}
    for c in CASES:
        if os.environ.get("CONTRIB_GOLDENS_VERBOSE"):
            print(c["name"], flush=True)
        meta = dict(fn=c["fn"], attrs={k: list(v) if isinstance(v, tuple) else v
                                       for k, v in c["attrs"].items()},
                    inputs=[n for n, _ in c["inputs"]], grad=c["grad"], heads=c["heads"],
                    compare=c["compare"], train=c["train"], aux=c["aux"])
        for n, a in c["inputs"]:
            arrays[f"{c['name']}/in/{n}"] = a
        try:
            got, n_out = run_case(mx, c)
        except Exception as e:  # noqa: BLE001 - MXNet raises MXNetError (or TypeError...)
            meta["error"] = dict(cls=type(e).__name__, message=_message(e))
        else:
            meta["num_outputs"] = n_out
            for k, v in got.items():
                arrays[f"{c['name']}/{k}"] = v
        entries[c["name"]] = meta
    golden_files.write(JSON_PATH, NPZ_PATH, dict(mxnet="1.9.1", cases=entries), arrays)


if __name__ == "__main__":
    main()
