"""Run GluonCV 0.10.5's model zoo on xnd (and on MXNet 1.9.1) and print issue 15's table.

    python benchmarks/gluoncv_table.py                       # xnd only: self-consistency
    python benchmarks/gluoncv_table.py --mxnet-python /work/mxref/bin/python
    python benchmarks/gluoncv_table.py --only resnet18_v1 cifar_resnet20_v1 --timeout 600

GluonCV stays outside the repository: install it next to xnd
(``pip install gluoncv==0.10.5.post0 --no-deps`` plus tqdm, portalocker, yacs; Pillow on the
MXNet side).  The python that runs this script must see both xnd and gluoncv.

For each model (``pretrained=False, pretrained_base=False``) a fresh child process per library:
  1 build    build, initialize (Xavier, seed 0), one forward to settle deferred shapes
  2 infer    forward in inference mode
  3 hybrid   hybridize, forward again
  4 train    one recorded step in training mode (when xnd and MXNet differ by more than the
             tolerance, both are compared with the same step in MXNet's float64, which xnd's
             float64 matches to 1e-12: on small batches a float32 step is ill-conditioned,
             MXNet's own float32 gradients lie up to 2e-1 from it, so the cell is ok when
             xnd's float32 lies within the tolerance of it or at most EXACT_RATIO times as
             far as MXNet's float32, and quotes both distances): softmax cross entropy for classifiers,
             the mean of every output for the others (predict mode for YOLOv3 / Faster R-CNN,
             whose training forward needs targets); loss and every parameter's gradient
             (a gradient's scale is at least 1e-3 of the largest gradient's; the cell names
             the worst parameter)
  5 export   export, ``SymbolBlock.imports``, forward
With a reference, MXNet runs first and saves its parameters; xnd loads them, so every step
compares numbers: max |xnd - mxnet| / max |mxnet| per output (or gradient), ok at <= 1e-4.
Without one, step 3 compares with step 2 and step 5 with step 3.  Dropout rates are set to 0
on both sides, so the training step is deterministic.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback

TOL = 1e-4
EXACT_RATIO = 2.0  # train cell: xnd's float32 at most this much farther from the exact step
# train cell: xnd at most this many times MXNet's own float32 spread (its step again, and with
# the input one ulp away) from MXNet's step: where a float32 step moves that much by itself,
# no implementation's float32 numbers can be nearer than that
SPREAD_RATIO = 4.0
EXACT_TRUSTED = 0.5  # ... where MXNet's float32 is this close to its float64 (a model whose
#                      float64 cast takes another path, CenterNet's decoder, is not compared)
CLS = {"size": (1, 3, 224, 224), "kind": "cls"}
# model -> input shape, kind, extra get_model kwargs, training mode
MODELS = {
    "resnet18_v1": CLS,
    "resnet50_v1b": CLS,
    "resnet50_v1d": CLS,
    "resnet101_v2": CLS,
    "mobilenet1.0": CLS,
    "mobilenetv2_1.0": CLS,
    "mobilenetv3_small": CLS,
    "vgg11_bn": CLS,
    "densenet121": CLS,
    "squeezenet1.1": CLS,
    "inceptionv3": {"size": (1, 3, 299, 299), "kind": "cls"},
    "se_resnext50_32x4d": CLS,
    "resnest50": CLS,
    "cifar_resnet20_v1": {"size": (2, 3, 32, 32), "kind": "cls"},
    "cifar_wideresnet16_10": {"size": (2, 3, 32, 32), "kind": "cls"},
    "ssd_300_vgg16_atrous_voc": {"size": (1, 3, 300, 300), "kind": "det"},
    "ssd_512_resnet50_v1_voc": {"size": (1, 3, 256, 256), "kind": "det"},
    "yolo3_darknet53_voc": {"size": (1, 3, 256, 256), "kind": "det", "train": "pred"},
    "yolo3_mobilenet1.0_coco": {"size": (1, 3, 256, 256), "kind": "det", "train": "pred"},
    "faster_rcnn_resnet50_v1b_voc": {"size": (1, 3, 256, 256), "kind": "det", "train": "pred"},
    "center_net_resnet18_v1b_voc": {"size": (1, 3, 256, 256), "kind": "det"},
    "fcn_resnet50_voc": {"size": (1, 3, 224, 224), "kind": "seg",
                         "kwargs": {"crop_size": 224, "base_size": 256, "aux": False}},
    "psp_resnet50_ade": {"size": (1, 3, 224, 224), "kind": "seg",
                         "kwargs": {"crop_size": 224, "base_size": 256, "aux": False}},
    "deeplab_resnet50_ade": {"size": (1, 3, 224, 224), "kind": "seg",
                             "kwargs": {"crop_size": 224, "base_size": 256, "aux": False}},
    "simple_pose_resnet18_v1b": {"size": (1, 3, 128, 96), "kind": "pose"},
}
STEPS = ("build", "infer", "hybrid", "train", "export")


# ----------------------------------------------------------------------------- child side
def _flatten(out):
    if isinstance(out, (list, tuple)):
        return [a for o in out for a in _flatten(o)]
    return [out]


def _numpy(arrays):
    import numpy as np
    return [np.asarray(a.asnumpy(), dtype=np.float64) for a in arrays]


def _zero_dropout(net):
    def zero(block):
        if type(block).__name__ == "Dropout":
            block._rate = 0.0
    net.apply(zero)


def _build(mx, name, spec):
    from gluoncv import model_zoo
    kwargs = dict(spec.get("kwargs", {}))
    try:
        return model_zoo.get_model(name, pretrained=False, pretrained_base=False, **kwargs)
    except TypeError as e:
        if "pretrained_base" not in str(e):
            raise
        return model_zoo.get_model(name, pretrained=False, **kwargs)


_BN_DEFAULTS = {"gamma": "ones", "beta": "zeros", "moving_mean": "zeros", "moving_var": "ones",
                "running_mean": "zeros", "running_var": "ones"}


def _untag_batchnorm_xavier(net):
    """GluonCV's FeatureExpander (ssd_512_resnet50_v1_voc) is a SymbolBlock whose BatchNorm
    vectors have no initializer of their own, so ``initialize(Xavier())`` reaches them, which
    MXNet 1.9.1 refuses as xnd does ("Xavier initializer cannot be applied to vector"): give
    those BatchNorm's own initializers, on both sides."""
    for name, p in net.collect_params().items():
        suffix = next((s for s in _BN_DEFAULTS if name.endswith("_" + s)), None)
        if suffix and p.init is None:
            p.init = _BN_DEFAULTS[suffix]


def _params(net):
    """Structural name -> Parameter (the names load_parameters matches)."""
    return net._collect_params_with_prefix()


def child(args):
    import numpy as np
    if args.side == "xnd":  # as `xnd run` would run a GluonCV script
        import xnd.compat
        from xnd.porting import numpy1
        xnd.compat.alias_mxnet()
        if numpy1.enabled():
            numpy1.restore_aliases()  # GluonCV's anchor generators write np.float
    import mxnet as mx
    from mxnet import autograd, gluon

    spec = MODELS[args.model]
    work = args.workdir
    result = {}
    saved = {}

    def step(label, fn):
        t0 = time.time()
        try:
            value = fn()
            result[label] = {"ok": True, "s": round(time.time() - t0, 2)}
            return value
        except BaseException as e:  # noqa: BLE001 - the table reports every failure
            first = (str(e).strip().splitlines() or [""])[0]
            result[label] = {"ok": False, "error": f"{type(e).__name__}: {first}"[:200],
                             "trace": traceback.format_exc()[-2000:]}
            return None

    rng = np.random.RandomState(0)
    x = mx.nd.array(rng.uniform(-1, 1, spec["size"]).astype("float32"))
    param_file = os.path.join(work, "mxnet.params")

    def build():
        mx.random.seed(0)
        net = _build(mx, args.model, spec)
        _zero_dropout(net)
        _untag_batchnorm_xavier(net)
        net.initialize(mx.init.Xavier())
        net(x)  # settles deferred shapes
        if args.side == "mxnet" or not os.path.exists(param_file):
            net.save_parameters(param_file)
        else:
            net.load_parameters(param_file)
        return net

    net = step("build", build)
    if net is None:
        return result, saved

    def infer():
        with autograd.predict_mode():
            return _numpy(_flatten(net(x)))

    saved["infer"] = step("infer", infer)

    def hybrid():
        net.hybridize()
        return infer()

    saved["hybrid"] = step("hybrid", hybrid)

    def export():
        prefix = os.path.join(work, f"{args.side}-export")
        net.export(prefix)
        sb = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
        return _numpy(_flatten(sb(x)))

    saved["export"] = step("export", export)

    def train(x=x, dtype="float32"):
        mode = spec.get("train", "train")
        with autograd.record(train_mode=(mode == "train")):
            outs = _flatten(net(x))
            if spec["kind"] == "cls":
                n, classes = outs[0].shape[:2]
                label = mx.nd.array(np.arange(n) % classes, dtype=dtype)
                loss = gluon.loss.SoftmaxCrossEntropyLoss()(outs[0], label).mean()
            else:
                loss = sum(o.astype(dtype).mean() for o in outs if o.dtype != np.int32)
        loss.backward()
        grads = {"loss": np.asarray(loss.asnumpy(), dtype=np.float64).reshape(-1)}
        for key, p in sorted(_params(net).items()):
            if p.grad_req != "null":
                grads["grad:" + key] = np.asarray(p.grad().asnumpy(), dtype=np.float64)
        return grads

    saved["train"] = step("train", train)
    if args.side == "mxnet" and saved["train"] is not None:
        # MXNet's own float32 spread for this step: the same step again (MXNet 1.9.1's
        # Faster R-CNN gradients differ between two runs), and with the input one ulp away
        saved["train_again"] = step("train_again", train)
        saved["train_nudged"] = step("train_nudged", lambda: train(
            mx.nd.array(np.nextafter(x.asnumpy(), np.float32(np.inf)))))
        def train64():  # the step's exact numbers (up to float64 rounding), MXNet's float64
            net.cast("float64")
            return train(x.astype("float64"), "float64")

        saved["train64"] = step("train64", train64)
    return result, saved


def _child_main(args):
    import numpy as np
    result, saved = child(args)
    for key, arrays in saved.items():
        if arrays is not None:
            if not isinstance(arrays, dict):
                arrays = {f"out{i}": a for i, a in enumerate(arrays)}
            np.savez(os.path.join(args.workdir, f"{args.side}-{key}.npz"), **arrays)
    with open(os.path.join(args.workdir, f"{args.side}.json"), "w") as f:
        json.dump(result, f)


# ----------------------------------------------------------------------------- parent side
def _load(work, side, key):
    import numpy as np
    path = os.path.join(work, f"{side}-{key}.npz")
    if not os.path.exists(path):
        return None
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def _detections_in_order(arrays):
    """A detector's outputs (``(1, N, k)`` each: ids, scores, boxes) with each one's rows
    sorted: two boxes whose scores tie to float rounding (1e-8 apart among faster_rcnn's
    6,000) may leave the NMS in either order, which swaps their rows in every output. (This
    compares each output as a set of rows, not their alignment.)"""
    import numpy as np
    if not arrays:
        return arrays
    out = {}
    for k, v in arrays.items():
        if v.ndim == 3 and v.shape[0] == 1:
            rows = v[0]
            v = rows[np.lexsort(rows.T[::-1])][None]
        out[k] = v
    return out


def _rel_err(got, want):
    """(largest max|got-want| / max|want| over the named arrays, its name); None if the
    names or shapes disagree."""
    import numpy as np
    if got is None or want is None or list(got) != list(want):
        return None
    worst = (0.0, "")
    # A gradient that is zero in exact arithmetic (a bias before a BatchNorm) holds rounding
    # noise only: scale every gradient by at least 1e-3 of the largest one.
    floor = 1e-3 * max([float(np.max(np.abs(w))) for k, w in want.items()
                        if k.startswith("grad:") and w.size] or [0.0])
    for key, w in want.items():
        g = got[key]
        if g.shape != w.shape:
            return None
        scale = max(float(np.max(np.abs(w))) if w.size else 0.0, 1e-12)
        if key.startswith("grad:"):
            scale = max(scale, floor)
        diff = float(np.max(np.abs(g - w))) if w.size else 0.0
        err = diff / scale if np.isfinite(diff) else float("inf")
        worst = max(worst, (err, key))
    return worst


def _run_child(python, side, model, work, timeout):
    env = dict(os.environ)
    cmd = [python, os.path.abspath(__file__), "--child", model, "--side", side, "--workdir", work]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"_error": f"timeout after {timeout} s"}
    path = os.path.join(work, f"{side}.json")
    if not os.path.exists(path):
        tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
        return {"_error": f"child exited {p.returncode}: {tail}"[:200]}
    with open(path) as f:
        return json.load(f)


def _cell(res, label, err):
    if "_error" in res:
        return "FAIL " + res["_error"]
    r = res.get(label)
    if r is None:
        return "-"
    if not r["ok"]:
        return "FAIL " + r["error"].replace("|", "/")
    if err is None:
        return "ok" if label == "build" else "FAIL numbers differ in shape/count"
    if err == "n/a":
        return "ok"
    err, key = err
    where = f" ({key})" if err > TOL and key.startswith("grad:") else ""
    return ("ok" if err <= TOL else "FAIL") + f" {err:.1e}{where}"


def run_model(model, args):
    work = tempfile.mkdtemp(prefix=f"gcv_{model}_")
    ref = None
    if args.mxnet_python:
        ref = _run_child(args.mxnet_python, "mxnet", model, work, args.timeout)
    res = _run_child(sys.executable, "xnd", model, work, args.timeout)
    cells = []
    for label in STEPS:
        if label == "build":
            err = None
        elif ref is not None:
            if "_error" in ref or not ref.get(label, {}).get("ok"):
                r = ref.get(label, {})
                cells.append("ref FAIL " + (ref.get("_error") or r.get("error", "?")))
                continue
            got, want = _load(work, "xnd", label), _load(work, "mxnet", label)
            if MODELS[model]["kind"] == "det" and label != "train":
                got, want = _detections_in_order(got), _detections_in_order(want)
            err = _rel_err(got, want)
            if label == "train" and err is not None and err[0] > TOL:
                spread = max([e[0] for e in (
                    _rel_err(_load(work, "mxnet", k), want) for k in ("train_again",
                                                                      "train_nudged"))
                    if e is not None] or [0.0])
                if err[0] <= SPREAD_RATIO * spread:
                    cells.append(f"ok {err[0]:.1e} (MXNet's own float32 spread: {spread:.1e})")
                    continue
                exact = _load(work, "mxnet", "train64")
                err64 = _rel_err(_load(work, "xnd", label), exact)
                mx32 = _rel_err(_load(work, "mxnet", label), exact)
                if err64 is not None and mx32 is not None and mx32[0] <= EXACT_TRUSTED and \
                        err64[0] <= max(TOL, EXACT_RATIO * mx32[0]):
                    cells.append(f"ok {err64[0]:.1e} vs MXNet float64 (MXNet float32: "
                                 f"{mx32[0]:.1e})")
                    continue
        else:
            base = {"hybrid": "infer", "export": "hybrid"}.get(label)
            err = _rel_err(_load(work, "xnd", label), _load(work, "xnd", base)) if base else "n/a"
        cells.append(_cell(res, label, err))
    if args.verbose:
        for side, r in (("mxnet", ref), ("xnd", res)):
            for label, v in (r or {}).items():
                if isinstance(v, dict) and not v.get("ok", True):
                    print(f"--- {model} {side} {label}\n{v['trace']}", file=sys.stderr)
    return cells


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mxnet-python", help="python of a venv with MXNet 1.9.1 and gluoncv")
    ap.add_argument("--only", nargs="*", help="model names (default: all 25)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per child process")
    ap.add_argument("--verbose", action="store_true", help="print each failure's traceback")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--side", help=argparse.SUPPRESS)
    ap.add_argument("--workdir", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        args.model = args.child
        _child_main(args)
        return
    models = args.only or list(MODELS)
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {unknown}; choose from {list(MODELS)}")
    print("| model | " + " | ".join(STEPS) + " |")
    print("|---" * (len(STEPS) + 1) + "|")
    for model in models:
        cells = run_model(model, args)
        print(f"| {model} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
