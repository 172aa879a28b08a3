"""GluonCV 0.10.5's data and training pipeline pieces on xnd against MXNet 1.9.1 (issue 15).

    python benchmarks/gluoncv_pipeline.py --mxnet-python /work/mxref/bin/python
    python benchmarks/gluoncv_pipeline.py --mxnet-python PY --only ssd_train_transform --verbose

gluoncv_table.py covers the models; this covers what feeds and scores them: the presets'
transforms (SSD, YOLOv3, Faster R-CNN, ImageNet, segmentation; the training transforms'
random choices come from numpy's and Python's generators, seeded the same on both sides),
the target generators (SSD's with and without hard-negative mining, YOLOv3's prefetch
generator on a real yolo3 network's anchors, the RPN's), the matchers, GluonCV's bbox blocks
and box coders, and the VOC mAP and segmentation metrics.  Each check runs in a child process
per library on the same inputs and returns arrays; a check passes when every array has
MXNet's shape and max |xnd - mxnet| <= 1e-4 * max(1, max |mxnet|).  GluonCV stays outside the
repository (install as gluoncv_table.py says).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import traceback

import numpy as np

TOL = 1e-4
CHECKS = {}


def check(fn):
    CHECKS[fn.__name__] = fn
    return fn


# ---- inputs: the same on both sides ----------------------------------------------------
def _image(mx, h=240, w=320, seed=0):
    rng = np.random.RandomState(seed)
    return mx.nd.array(rng.randint(0, 256, (h, w, 3)), dtype="uint8")


def _label(n=5, w=320, h=240, classes=20, seed=1):
    rng = np.random.RandomState(seed)
    x1, y1 = rng.uniform(0, w * 0.6, n), rng.uniform(0, h * 0.6, n)
    bw, bh = rng.uniform(20, w * 0.4, n), rng.uniform(20, h * 0.4, n)
    return np.stack([x1, y1, x1 + bw, y1 + bh, rng.randint(0, classes, n)], 1).astype("float32")


def _seed(k):
    np.random.seed(k)
    random.seed(k)


def _anchors(mx, feat=(8, 4), size=64):
    """SSD-style anchors (1, N, 4) in corner format from MultiBoxPrior on small maps."""
    out = [mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((1, 1, f, f)), sizes=(0.2, 0.3),
                                       ratios=(1, 2, 0.5)).reshape((1, -1, 4)) for f in feat]
    return mx.nd.concat(*out, dim=1)


def _np(*arrays):
    return [a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a) for a in arrays]


def _seeded(mx, transform, runs, classes=20):
    """A random transform's outputs on ``runs`` images, the generators seeded per run."""
    out = []
    for k in range(runs):
        _seed(k)
        out += _np(*transform(_image(mx, seed=k), _label(classes=classes, seed=k)))
    return out


# ---- presets ---------------------------------------------------------------------------
@check
def ssd_val_transform(mx, gcv):
    t = gcv.data.transforms.presets.ssd.SSDDefaultValTransform(300, 300)
    return _np(*t(_image(mx), _label()))


@check
def ssd_train_transform(mx, gcv):
    return _seeded(mx, gcv.data.transforms.presets.ssd.SSDDefaultTrainTransform(300, 300), 4)


@check
def ssd_train_transform_targets(mx, gcv):
    t = gcv.data.transforms.presets.ssd.SSDDefaultTrainTransform(
        300, 300, anchors=_anchors(mx))
    _seed(5)
    return _np(*t(_image(mx), _label()))


@check
def yolo3_val_transform(mx, gcv):
    t = gcv.data.transforms.presets.yolo.YOLO3DefaultValTransform(416, 416)
    return _np(*t(_image(mx), _label()))


@check
def yolo3_train_transform_targets(mx, gcv):
    net = gcv.model_zoo.get_model("yolo3_mobilenet1.0_coco", pretrained=False,
                                  pretrained_base=False)
    net.initialize(mx.init.Zero())
    t = gcv.data.transforms.presets.yolo.YOLO3DefaultTrainTransform(320, 320, net=net)
    return _seeded(mx, t, 2, classes=80)


@check
def rcnn_val_transform(mx, gcv):
    t = gcv.data.transforms.presets.rcnn.FasterRCNNDefaultValTransform(short=400, max_size=600)
    return _np(*t(_image(mx), _label()))


@check
def rcnn_train_transform(mx, gcv):
    t = gcv.data.transforms.presets.rcnn.FasterRCNNDefaultTrainTransform(short=400, max_size=600)
    return _seeded(mx, t, 3)


@check
def imagenet_transform_eval(mx, gcv):
    return _np(gcv.data.transforms.presets.imagenet.transform_eval(_image(mx)))


@check
def segmentation_test_transform(mx, gcv):
    return _np(gcv.data.transforms.presets.segmentation.test_transform(_image(mx), mx.cpu()))


@check
def image_helpers(mx, gcv):
    timage = gcv.data.transforms.image
    img, out = _image(mx), []
    for interp in range(5):
        out += _np(timage.imresize(img, 150, 100, interp=interp))
    out += _np(timage.resize_short_within(img, 200, 300, interp=1), timage.resize_long(img, 100))
    _seed(3)
    e, box = timage.random_expand(img, fill=[124, 116, 104])
    out += _np(e, np.asarray(box, "float32"), timage.ten_crop(img, (64, 64)))
    return out


# ---- target generators -----------------------------------------------------------------
def _gt(mx):
    lab = _label(w=1, h=1, seed=7)
    lab[:, :4] /= 320.0
    return mx.nd.array(lab[None, :, :4]), mx.nd.array(lab[None, :, 4:5])


@check
def ssd_target_generator(mx, gcv):
    from gluoncv.model_zoo.ssd.target import SSDTargetGenerator
    anchors = gcv.nn.bbox.BBoxCornerToCenter(split=False)(_anchors(mx))
    boxes, ids = _gt(mx)
    n = anchors.shape[1]
    cls_preds = mx.nd.array(np.random.RandomState(9).randn(1, n, 21).astype("float32"))
    out = []
    for ratio in (-1, 3):
        gen = SSDTargetGenerator(iou_thresh=0.5, negative_mining_ratio=ratio)
        out += _np(*gen(anchors, cls_preds, boxes, ids))
    return out


@check
def rpn_target_generator(mx, gcv):
    from gluoncv.model_zoo.rcnn.rpn.rpn_target import RPNTargetGenerator
    rng = np.random.RandomState(11)
    xy = rng.uniform(-20, 300, (600, 2))
    anchor = mx.nd.array(np.concatenate([xy, xy + rng.uniform(16, 96, (600, 2))], 1))
    bbox = mx.nd.array(_label(seed=12)[:, :4])
    _seed(13)
    gen = RPNTargetGenerator(num_sample=64, pos_iou_thresh=0.5, neg_iou_thresh=0.3)
    return _np(*gen(bbox, anchor, 320, 240))


@check
def matchers(mx, gcv):
    ious = mx.nd.array(np.random.RandomState(14).uniform(0, 1, (2, 30, 6)).astype("float32"))
    m = gcv.nn.matcher
    return _np(m.BipartiteMatcher(share_max=False)(ious), m.BipartiteMatcher(share_max=True)(ious),
               m.MaximumMatcher(0.6)(ious),
               m.CompositeMatcher([m.BipartiteMatcher(share_max=False), m.MaximumMatcher(0.5)])(ious))


# ---- bbox blocks and coders ------------------------------------------------------------
@check
def bbox_blocks(mx, gcv):
    b = gcv.nn.bbox
    a = _anchors(mx)
    c = b.BBoxCornerToCenter(split=False)(a)
    gt, _ = _gt(mx)
    out = _np(c, b.BBoxCenterToCorner(split=False)(c), b.BBoxArea()(a),
              b.BBoxBatchIOU()(a, gt), b.BBoxClipToImage()(a * 2 - 0.5, mx.nd.zeros((1, 3, 1, 1))))
    out += _np(*b.BBoxSplit(axis=-1)(a))
    out += _np(gcv.utils.bbox.bbox_iou(a[0].asnumpy(), gt[0].asnumpy()))
    return out


@check
def box_coders(mx, gcv):
    coder = gcv.nn.coder
    anchors = _anchors(mx)
    n = anchors.shape[1]
    boxes, ids = _gt(mx)
    rng = np.random.RandomState(15)
    matches = mx.nd.array(rng.randint(0, 5, (1, n)))
    samples = mx.nd.array(rng.choice([-1, 0, 1], (1, n)))
    enc = coder.NormalizedBoxCenterEncoder(stds=(0.1, 0.1, 0.2, 0.2))
    out = _np(*enc(samples, matches, anchors, boxes))
    out += _np(coder.MultiClassEncoder()(samples, matches, ids))
    preds = mx.nd.array(rng.randn(1, n, 4).astype("float32") * 0.5)
    center = gcv.nn.bbox.BBoxCornerToCenter(split=False)(anchors)
    out += _np(coder.NormalizedBoxCenterDecoder(stds=(0.1, 0.1, 0.2, 0.2))(preds, center))
    scores = mx.nd.softmax(mx.nd.array(rng.randn(1, n, 5).astype("float32")), axis=-1)
    out += _np(*coder.MultiPerClassDecoder(5, thresh=0.2)(scores))
    out += _np(*coder.MultiClassDecoder(thresh=0.2)(scores))
    return out


# ---- metrics ---------------------------------------------------------------------------
@check
def voc_map(mx, gcv):
    rng = np.random.RandomState(16)
    out = []
    for cls in (gcv.utils.metrics.voc_detection.VOCMApMetric,
                gcv.utils.metrics.voc_detection.VOC07MApMetric):
        m = cls(iou_thresh=0.5, class_names=[str(i) for i in range(4)])
        for _ in range(3):
            gt = _label(n=6, classes=4, seed=int(rng.randint(1000)))
            jitter = rng.uniform(-15, 15, (6, 4)).astype("float32")
            pred = np.concatenate([gt[:, :4] + jitter, gt[:4, :4] + 40], 0)[None]
            pid = np.concatenate([gt[:, 4], rng.randint(0, 4, 4)])[None, :, None]
            score = rng.uniform(0, 1, (1, 10, 1))
            m.update(mx.nd.array(pred), mx.nd.array(pid), mx.nd.array(score),
                     mx.nd.array(gt[None, :, :4]), mx.nd.array(gt[None, :, 4:5]))
        names, values = m.get()
        out.append(np.asarray(values, "float64"))
    return out


@check
def segmentation_metric(mx, gcv):
    rng = np.random.RandomState(17)
    m = gcv.utils.metrics.SegmentationMetric(5)
    for _ in range(3):
        pred = mx.nd.array(rng.randn(2, 5, 16, 16).astype("float32"))
        label = mx.nd.array(rng.randint(-1, 5, (2, 16, 16)))
        m.update(label, pred)
    return [np.asarray(m.get(), "float64")]


# ---- driver ----------------------------------------------------------------------------
def child(impl, names, out_path):
    if impl == "xnd":
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        import xnd.compat
        xnd.compat.alias_mxnet()
    import mxnet as mx
    import gluoncv as gcv
    arrays, errors = {}, {}
    for name in names:
        try:
            for i, a in enumerate(CHECKS[name](mx, gcv)):
                arrays[f"{name}/{i}"] = np.asarray(a)
        except Exception as e:  # noqa: BLE001  (reported in the table)
            errors[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
            if "--verbose" in sys.argv:
                traceback.print_exc()
    np.savez(out_path, **arrays)
    with open(out_path + ".json", "w") as f:
        json.dump(errors, f)


def _run(python, impl, names, tmp, timeout, verbose):
    path = os.path.join(tmp, impl + ".npz")
    cmd = [python, os.path.abspath(__file__), "--child", impl, "--out", path, "--only", *names]
    p = subprocess.run(cmd + (["--verbose"] if verbose else []), capture_output=True, text=True,
                       timeout=timeout)
    if verbose or p.returncode:
        print((p.stdout + p.stderr)[-6000:])
    if p.returncode:
        return None, {n: f"child failed (rc={p.returncode})" for n in names}
    with open(path + ".json") as f:
        errors = json.load(f)
    return dict(np.load(path)), errors


def compare(name, xnd, mx_arrays):
    keys = sorted((k for k in mx_arrays if k.startswith(name + "/")), key=lambda k: int(k.split("/")[1]))
    if not keys:
        return "no output", None
    worst = 0.0
    for k in keys:
        a, b = xnd.get(k), mx_arrays[k]
        if a is None or a.shape != b.shape:
            return f"{k}: shape {None if a is None else a.shape} vs MXNet {b.shape}", None
        if b.size:
            err = float(np.max(np.abs(a.astype("float64") - b.astype("float64"))))
            worst = max(worst, err / max(1.0, float(np.max(np.abs(b.astype("float64"))))))
    return (f"ok ({worst:.1e})" if worst <= TOL else f"differs (worst array {worst:.2e})"), worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mxnet-python")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--child")
    ap.add_argument("--out")
    ap.add_argument("--timeout", type=int, default=1200)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    names = args.only or list(CHECKS)
    if args.child:
        return child(args.child, names, args.out)
    with tempfile.TemporaryDirectory() as tmp:
        got, xerr = _run(sys.executable, "xnd", names, tmp, args.timeout, args.verbose)
        ref, merr = (_run(args.mxnet_python, "mxnet", names, tmp, args.timeout, args.verbose)
                     if args.mxnet_python else (None, {}))
    print(f"{'check':34} {'result (worst relative error)':40} arrays")
    ok = 0
    for name in names:
        if name in xerr:
            res = "xnd: " + xerr[name]
        elif ref is None:
            res = "ran (no reference)"
        elif name in merr:
            res = "MXNet failed: " + merr[name]
        else:
            res, _ = compare(name, got, ref)
        n = len([k for k in (got or {}) if k.startswith(name + "/")])
        ok += res.startswith("ok")
        print(f"{name:34} {res:40} {n}")
    print(f"{ok} of {len(names)} checks match MXNet 1.9.1" if ref is not None else "")


if __name__ == "__main__":
    main()
