"""SSD-style detection inference (issue 15's workload): a hybridized Gluon block with GluonCV's
SSD head and post-processing, ms per batch.

The network, written once against the MXNet API (``F``), is the shape of GluonCV's
``ssd_300_*``: a small strided convolution backbone on 300x300 images (batch 2) gives four
feature maps (38², 19², 10², 5²); per map a ``contrib.MultiBoxPrior`` (2 sizes, 3 ratios: 4
anchors a position, 7,720 in all) and 3x3 class (21 classes) and box convolutions, flattened
and concatenated.  Post-processing is GluonCV's ``SSD.hybrid_forward`` in inference: softmax
over classes, ``NormalizedBoxCenterDecoder`` (stds 0.1/0.2 on the centre-format anchors),
``MultiPerClassDecoder`` (one row [class id, score, box] per anchor and foreground class,
id -1 below the 0.01 score threshold: 154,400 rows), then ``contrib.box_nms``
(overlap 0.45, topk 400, valid 0.01, per class) and the first 100 detections.  Weights come
from numpy (the same on both implementations), the timed run is ``n`` forward calls after a
warm-up; no JAX twin (``IMPLS``).  Checksum: sum of |scores| and |boxes| of the kept rows.
"""
import sys

import numpy as np

N, N_QUICK = 20, 2                # forward calls (batches)
WARMUP = 5
QUICK = "--quick" in sys.argv
BATCH, SIZE = (1, 64) if QUICK else (2, 300)
CLASSES = 20
CHANNELS = (32, 64, 128, 256, 256, 256)          # backbone: stride-2 3x3 convolutions
FEATURES = (2, 3, 4, 5)                          # the backbone stages whose outputs are heads' inputs
SIZES = ((0.1, 0.141), (0.2, 0.272), (0.37, 0.447), (0.54, 0.619))
RATIOS = (1, 2, 0.5)
ANCHORS = len(SIZES[0]) + len(RATIOS) - 1
IMPLS = ("xnd", "mxnet")
METRICS = {"ms/batch": "lower"}
GOAL = "xnd at least MXNet's speed (xnd/MXNet ms/batch <= 1)"
CHECKS = [("ms/batch", "mxnet", "<=", 1.0)]


def metrics(seconds, n, out):
    return {"ms/batch": 1e3 * seconds / n}


def _block(mx):
    nn = mx.gluon.nn

    class SSD(mx.gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.stages = nn.HybridSequential()
                for c in CHANNELS:
                    self.stages.add(nn.Conv2D(c, 3, strides=2, padding=1, activation="relu"))
                self.cls = nn.HybridSequential()
                self.box = nn.HybridSequential()
                for _ in FEATURES:
                    self.cls.add(nn.Conv2D(ANCHORS * (CLASSES + 1), 3, padding=1))
                    self.box.add(nn.Conv2D(ANCHORS * 4, 3, padding=1))

        def hybrid_forward(self, F, x):
            feats, cls, box, anchors = [], [], [], []
            for i, stage in enumerate(self.stages):
                x = stage(x)
                if i in FEATURES:
                    feats.append(x)
            for f, c, b, sizes in zip(feats, self.cls, self.box, SIZES):
                cls.append(F.flatten(F.transpose(c(f), axes=(0, 2, 3, 1))))
                box.append(F.flatten(F.transpose(b(f), axes=(0, 2, 3, 1))))
                anchors.append(F.contrib.MultiBoxPrior(f, sizes=sizes, ratios=RATIOS).reshape((1, -1)))
            cls_prob = F.softmax(F.concat(*cls, dim=1).reshape((0, -1, CLASSES + 1)), axis=-1)
            loc = F.concat(*box, dim=1).reshape((0, -1, 4))
            a = F.concat(*anchors, dim=1).reshape((1, -1, 4))
            # NormalizedBoxCenterDecoder on corner anchors
            al, at, ar, ab = F.split(a, axis=-1, num_outputs=4)
            aw, ah = ar - al, ab - at
            ax, ay = al + aw / 2, at + ah / 2
            px, py, pw, ph = F.split(loc, axis=-1, num_outputs=4)
            ox = F.broadcast_add(F.broadcast_mul(px * 0.1, aw), ax)
            oy = F.broadcast_add(F.broadcast_mul(py * 0.1, ah), ay)
            ow = F.broadcast_mul(F.exp(pw * 0.2), aw) / 2
            oh = F.broadcast_mul(F.exp(ph * 0.2), ah) / 2
            boxes = F.concat(ox - ow, oy - oh, ox + ow, oy + oh, dim=-1)
            # MultiPerClassDecoder, then one box_nms over every class's rows
            rows = []
            for j in range(CLASSES):
                score = F.slice_axis(cls_prob, axis=-1, begin=j + 1, end=j + 2)
                cid = F.where(score > 0.01, F.ones_like(score) * j, F.ones_like(score) * -1)
                rows.append(F.concat(cid, score, boxes, dim=-1))
            result = F.contrib.box_nms(F.concat(*rows, dim=1), overlap_thresh=0.45, topk=400,
                                       valid_thresh=0.01, id_index=0, score_index=1,
                                       coord_start=2, force_suppress=False)
            result = F.slice_axis(result, axis=1, begin=0, end=100)
            return (F.slice_axis(result, axis=2, begin=0, end=1),
                    F.slice_axis(result, axis=2, begin=1, end=2),
                    F.slice_axis(result, axis=2, begin=2, end=6))

    return SSD()


_STATE = {}


def _build(mx):
    rng = np.random.default_rng(0)
    net = _block(mx)
    net.initialize(mx.init.Zero(), ctx=mx.cpu())
    x = mx.nd.array(rng.uniform(0, 1, (BATCH, 3, SIZE, SIZE)).astype("float32"))
    net(x)                                        # deferred shapes
    for name in sorted(net.collect_params().keys()):
        p = net.collect_params()[name]
        if name.endswith("weight"):
            fan_in = int(np.prod(p.shape[1:]))
            v = rng.standard_normal(p.shape) * np.sqrt(2.0 / fan_in)
        else:
            v = rng.standard_normal(p.shape) * 0.1
        p.set_data(mx.nd.array(v.astype("float32")))
    net.hybridize()
    return net, x


def run_mx(mx, n):
    st = _STATE.get("mx")
    if st is None:
        st = _STATE["mx"] = _build(mx)
    net, x = st
    for _ in range(n):
        ids, scores, boxes = net(x)
    mx.nd.waitall()
    s, b = scores.asnumpy().astype("float64"), boxes.asnumpy().astype("float64")
    keep = ids.asnumpy() >= 0
    return {"check": float(np.abs(s[keep]).sum() + np.abs(b[np.broadcast_to(keep, b.shape)]).sum())}
