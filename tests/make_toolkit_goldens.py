"""Record what real MXNet 1.9.1 does for the training toolkit: optimizers,
lr schedulers, metrics, initializers, io iterators, callbacks, kvstore and
mx.model checkpoints.

Run with the reference interpreter (it must import the real ``mxnet``):

    /work/mxref/bin/python tests/make_toolkit_goldens.py

Writes ``tests/goldens/toolkit/toolkit.json`` and ``toolkit.npz``. The output
is deterministic: inputs come from fixed seeds, keys are sorted, npz entries
carry a fixed timestamp. Arrays live in the npz and are referenced from the
JSON as ``{"nd": key}``; containers are ``{"seq": [...], "kind": "tuple"|"list"}``;
errors are ``{"error": class name, "message": first line}``.
"""
import hashlib
import io
import json
import logging
import os
import re
import shutil
import struct
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "goldens", "toolkit")
FIXTURES = os.path.join(HERE, "fixtures")

import numpy as np  # noqa: E402

try:
    import mxnet as mx  # noqa: E402
except ImportError:  # pragma: no cover
    sys.exit("make_toolkit_goldens.py needs the real MXNet: run it with /work/mxref/bin/python")
if getattr(mx, "__version__", None) != "1.9.1" or \
        os.path.basename(os.path.dirname(mx.__file__)) != "mxnet":
    sys.exit("make_toolkit_goldens.py needs the real mxnet 1.9.1, got %r" % mx.__file__)

ARRAYS = {}
GOLD = {}


def put(key, arr):
    arr = np.asarray(arr)
    assert key not in ARRAYS, key
    ARRAYS[key] = arr
    return {"nd": key}


def enc(x, key):
    """JSON form of a value (NDArrays go to the npz under ``key``)."""
    if x is None:
        return None
    if isinstance(x, mx.nd.NDArray):
        return put(key, x.asnumpy())
    if isinstance(x, np.ndarray):
        return put(key, x)
    if isinstance(x, (tuple, list)):
        return {"kind": "tuple" if isinstance(x, tuple) else "list",
                "seq": [enc(v, "%s.%d" % (key, i)) for i, v in enumerate(x)]}
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    return x


def err(e):
    msg = str(e).strip().split("\n")
    # MXNet errors carry a C++ traceback header: keep the last line (the message)
    line = msg[-1] if msg and msg[0].startswith("Traceback") else (msg[0] if msg else "")
    line = re.sub(r"\[\d\d:\d\d:\d\d\] ", "", line)             # MXNet's log timestamp
    line = re.sub(re.escape(tempfile.gettempdir()) + r"/tmp\w+", "<tmp>", line)
    return {"error": type(e).__name__, "message": line[:300]}


# --------------------------------------------------------------------------- optimizers
W_SHAPES = [(3, 4), (5,)]
N_STEPS = 5


def opt_inputs():
    rs = np.random.RandomState(42)
    ws = [rs.randn(*s).astype(np.float32) for s in W_SHAPES]
    gs = [[(rs.randn(*s) * 2).astype(np.float32) for s in W_SHAPES] for _ in range(N_STEPS)]
    return ws, gs


NAMES = {0: "fc_weight", 1: "fc_bias"}

# case id -> (optimizer name, kwargs, setup, dtype)
OPT_CASES = {
    "sgd_plain": ("sgd", {"learning_rate": 0.1}, None, "float32"),
    "sgd_full": ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01, "rescale_grad": 0.5,
                         "clip_gradient": 1.0, "param_idx2name": NAMES}, None, "float32"),
    "sgd_wd_nomom": ("sgd", {"learning_rate": 0.05, "wd": 0.1, "rescale_grad": 0.25}, None, "float32"),
    "sgd_sched": ("sgd", {"momentum": 0.9, "lr_scheduler": ("factor", {"step": 2, "factor": 0.5,
                                                                       "base_lr": 0.2})},
                  None, "float32"),
    "sgd_mult": ("sgd", {"learning_rate": 0.1, "wd": 0.05, "momentum": 0.5},
                 {"lr_mult": {0: 2.0}, "wd_mult": {1: 0.0}}, "float32"),
    "sgd_names_mult": ("sgd", {"learning_rate": 0.1, "wd": 0.05, "param_idx2name": NAMES},
                       {"lr_mult": {"fc_bias": 3.0}}, "float32"),
    "sgd_begin": ("sgd", {"lr_scheduler": ("multifactor", {"step": [4, 6], "factor": 0.1,
                                                           "base_lr": 0.3}),
                          "begin_num_update": 3}, None, "float32"),
    "sgd_mp": ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "multi_precision": True, "wd": 0.01},
               None, "float16"),
    "sgd_f64": ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}, None, "float64"),
    "nag_mom": ("nag", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01, "rescale_grad": 0.5,
                        "clip_gradient": 1.0}, None, "float32"),
    "nag_nomom": ("nag", {"learning_rate": 0.1, "wd": 0.01}, None, "float32"),
    "adam_default": ("adam", {}, None, "float32"),
    "adam_full": ("adam", {"learning_rate": 0.01, "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6,
                           "wd": 0.01, "rescale_grad": 0.5, "clip_gradient": 1.0}, None, "float32"),
    "adam_begin": ("adam", {"learning_rate": 0.01, "begin_num_update": 3}, None, "float32"),
    "adam_mp": ("adam", {"learning_rate": 0.01, "multi_precision": True}, None, "float16"),
    "adagrad": ("adagrad", {"learning_rate": 0.1, "wd": 0.01, "rescale_grad": 0.5,
                            "clip_gradient": 1.0, "eps": 1e-6}, None, "float32"),
    "adadelta": ("adadelta", {"rho": 0.8, "epsilon": 1e-4, "wd": 0.01, "rescale_grad": 0.5,
                              "clip_gradient": 1.0}, None, "float32"),
    "rmsprop": ("rmsprop", {"learning_rate": 0.01, "wd": 0.01, "rescale_grad": 0.5,
                            "clip_gradient": 1.0}, None, "float32"),
    "rmsprop_centered": ("rmsprop", {"learning_rate": 0.01, "gamma1": 0.8, "gamma2": 0.7,
                                     "centered": True, "clip_weights": 1.5, "wd": 0.01},
                         None, "float32"),
    "adamax": ("adamax", {"learning_rate": 0.01, "wd": 0.01, "rescale_grad": 0.5,
                          "clip_gradient": 1.0}, None, "float32"),
    "nadam": ("nadam", {"learning_rate": 0.01, "wd": 0.01, "rescale_grad": 0.5,
                        "clip_gradient": 1.0, "schedule_decay": 0.04}, None, "float32"),
    "signum": ("signum", {"learning_rate": 0.01, "momentum": 0.8, "wd": 0.01, "wd_lh": 0.1,
                          "rescale_grad": 0.5, "clip_gradient": 1.0}, None, "float32"),
    "signsgd": ("signum", {"learning_rate": 0.01, "momentum": 0.0, "wd": 0.05}, None, "float32"),
    "ftrl": ("ftrl", {"learning_rate": 0.1, "lamda1": 0.05, "beta": 0.5, "wd": 0.01,
                      "rescale_grad": 0.5, "clip_gradient": 1.0}, None, "float32"),
    "ftml": ("ftml", {"learning_rate": 0.01, "beta1": 0.7, "wd": 0.01, "rescale_grad": 0.5,
                      "clip_gradient": 1.0}, None, "float32"),
    "lamb": ("lamb", {"learning_rate": 0.01, "wd": 0.01, "rescale_grad": 0.5,
                      "clip_gradient": 1.0}, None, "float32"),
    "lamb_nobias_bounds": ("lamb", {"learning_rate": 0.01, "bias_correction": False,
                                    "lower_bound": 0.5, "upper_bound": 2.0}, None, "float32"),
    "dcasgd": ("dcasgd", {"learning_rate": 0.1, "lamda": 0.1, "wd": 0.01, "rescale_grad": 0.5,
                          "clip_gradient": 1.0}, None, "float32"),
    "lars": ("lars", {"learning_rate": 0.1, "momentum": 0.9, "eta": 0.01, "wd": 0.01,
                      "param_idx2name": NAMES}, None, "float32"),
    "lars_nomom": ("lars", {"learning_rate": 0.1, "eta": 0.02, "eps": 1e-3,
                            "rescale_grad": 0.5}, None, "float32"),
    "ccsgd": ("ccsgd", {"learning_rate": 0.1, "momentum": 0.5}, None, "float32"),
}
MODES = ("update", "updater")


def make_sched(spec):
    kind, kw = spec
    return {"factor": mx.lr_scheduler.FactorScheduler,
            "multifactor": mx.lr_scheduler.MultiFactorScheduler,
            "poly": mx.lr_scheduler.PolyScheduler,
            "cosine": mx.lr_scheduler.CosineScheduler}[kind](**kw)


def run_opt_case(case, mode):
    name, kwargs, setup, dtype = OPT_CASES[case]
    kwargs = dict(kwargs)
    if "lr_scheduler" in kwargs:
        kwargs["lr_scheduler"] = make_sched(kwargs["lr_scheduler"])
    ws, gs = opt_inputs()
    opt = mx.optimizer.create(name, **kwargs)
    if setup:
        if "lr_mult" in setup:
            opt.set_lr_mult(setup["lr_mult"])
        if "wd_mult" in setup:
            opt.set_wd_mult(setup["wd_mult"])
    weights = [mx.nd.array(w, dtype=dtype) for w in ws]
    steps = []
    try:
        if mode == "update":
            states = [opt.create_state_multi_precision(i, w) for i, w in enumerate(weights)]
        else:
            upd = mx.optimizer.get_updater(opt)
        for s in range(N_STEPS):
            grads = [mx.nd.array(g, dtype=dtype) for g in gs[s]]
            if mode == "update":
                for i in range(len(weights)):
                    opt.update_multi_precision(i, weights[i], grads[i], states[i])
            else:
                upd(list(range(len(weights))), grads, weights)
                states = [upd.states[i] for i in range(len(weights))]
            key = "opt/%s/%s/%d" % (case, mode, s)
            steps.append({
                "weights": [enc(w, "%s/w%d" % (key, i)) for i, w in enumerate(weights)],
                "states": [enc(st, "%s/s%d" % (key, i)) for i, st in enumerate(states)],
                "num_update": opt.num_update,
                "index_update_count": sorted([[k, v] for k, v in opt._index_update_count.items()]),
                "learning_rate": float(opt.learning_rate),
            })
    except Exception as e:  # noqa: BLE001
        return {"error": err(e), "steps": steps}
    return {"steps": steps}


def gold_optimizers():
    ws, gs = opt_inputs()
    out = {"inputs": {"weights": [put("opt_in/w%d" % i, w) for i, w in enumerate(ws)],
                      "grads": [[put("opt_in/g%d_%d" % (s, i), g) for i, g in enumerate(step)]
                                for s, step in enumerate(gs)]},
           "cases": {}}
    for case in OPT_CASES:
        name, kwargs, setup, dtype = OPT_CASES[case]
        spec = {"name": name, "kwargs": {k: (list(v) if isinstance(v, tuple) else v)
                                         for k, v in kwargs.items()},
                "setup": {k: sorted([[kk, vv] for kk, vv in v.items()], key=str)
                          for k, v in (setup or {}).items()},
                "dtype": dtype}
        spec["kwargs"].pop("param_idx2name", None)
        if "param_idx2name" in kwargs:
            spec["param_idx2name"] = sorted([[k, v] for k, v in kwargs["param_idx2name"].items()])
        out["cases"][case] = {"spec": spec, "runs": {m: run_opt_case(case, m) for m in MODES}}

    # Optimizer attributes and errors
    attrs = {}
    for n in ["sgd", "nag", "adam", "adagrad", "adadelta", "rmsprop", "adamax", "nadam", "signum",
              "ftrl", "ftml", "lamb", "dcasgd", "lars", "sgld", "ccsgd", "lbsgd"]:
        o = mx.optimizer.create(n)
        d = {"class": type(o).__name__, "lr": o.lr, "wd": o.wd, "rescale_grad": o.rescale_grad,
             "clip_gradient": o.clip_gradient, "num_update": o.num_update,
             "aggregate_num": o.aggregate_num, "multi_precision": o.multi_precision}
        for a in ["momentum", "beta1", "beta2", "epsilon", "gamma1", "gamma2", "centered", "rho",
                  "float_stable_eps", "lamda1", "beta", "schedule_decay", "wd_lh", "lamda",
                  "eta", "eps", "lazy_update", "bias_correction", "lower_bound", "upper_bound",
                  "clip_weights", "momentum_correction"]:
            if hasattr(o, a):
                d[a] = getattr(o, a)
        attrs[n] = d
    out["defaults"] = attrs
    out["registry"] = sorted(mx.optimizer.Optimizer.opt_registry)
    errors = {}
    try:
        mx.optimizer.create("nosuchopt")
    except Exception as e:  # noqa: BLE001
        errors["unknown"] = err(e)
    try:
        o = mx.optimizer.SGD(lr_scheduler=mx.lr_scheduler.FactorScheduler(step=2))
        o.set_learning_rate(0.5)
    except Exception as e:  # noqa: BLE001
        errors["set_lr_with_sched"] = err(e)
    try:
        mx.optimizer.DCASGD(momentum=0.9).update(0, mx.nd.ones((3,)), mx.nd.ones((3,)),
                                                 mx.optimizer.DCASGD(momentum=0.9)
                                                 .create_state(0, mx.nd.ones((3,))))
    except Exception as e:  # noqa: BLE001
        errors["dcasgd_momentum"] = err(e)
    out["errors"] = errors
    # learning_rate property / set_learning_rate / scheduler base_lr override
    o = mx.optimizer.SGD(learning_rate=0.3)
    o.set_learning_rate(0.7)
    sch = mx.lr_scheduler.FactorScheduler(step=2, base_lr=0.5)
    o2 = mx.optimizer.SGD(learning_rate=0.2, lr_scheduler=sch)
    o3 = mx.optimizer.SGD(lr_scheduler=mx.lr_scheduler.FactorScheduler(step=2, base_lr=0.5))
    out["lr_props"] = {"set": o.learning_rate, "override": [o2.learning_rate, sch.base_lr],
                       "from_sched": o3.learning_rate,
                       "wd_mult_names": sorted(mx.optimizer.SGD(
                           param_idx2name={0: "a_weight", 1: "a_bias", 2: "b_gamma",
                                           3: "b_beta"}).wd_mult.items())}
    # symbol attributes __lr_mult__/__wd_mult__
    data = mx.sym.var("data")
    w = mx.sym.var("fc_weight", lr_mult=2.0, wd_mult=0.5)
    net = mx.sym.FullyConnected(data, weight=w, num_hidden=3, name="fc")
    o = mx.optimizer.SGD(sym=net, param_idx2name={0: "fc_weight", 1: "fc_bias"}, wd=0.1)
    out["sym_mult"] = {"lr_mult": sorted(o.lr_mult.items()), "wd_mult": sorted(o.wd_mult.items()),
                       "lrs": o._get_lrs([0, 1]), "wds": o._get_wds([0, 1])}
    GOLD["optimizer"] = out


# --------------------------------------------------------------------------- schedulers
SCHED_CASES = {
    "factor": ("factor", {"step": 2, "factor": 0.5, "base_lr": 1.0}),
    "factor_stop": ("factor", {"step": 3, "factor": 0.1, "stop_factor_lr": 1e-3, "base_lr": 1.0}),
    "factor_warm_linear": ("factor", {"step": 2, "factor": 0.5, "base_lr": 1.0, "warmup_steps": 4,
                                      "warmup_begin_lr": 0.1}),
    "factor_warm_const": ("factor", {"step": 2, "factor": 0.5, "base_lr": 1.0, "warmup_steps": 3,
                                     "warmup_begin_lr": 0.2, "warmup_mode": "constant"}),
    "multifactor": ("multifactor", {"step": [2, 4], "factor": 0.1, "base_lr": 1.0}),
    "multifactor_warm": ("multifactor", {"step": [5, 8, 11], "factor": 0.5, "base_lr": 0.4,
                                         "warmup_steps": 3, "warmup_begin_lr": 0.1}),
    "poly": ("poly", {"max_update": 10, "base_lr": 1.0, "pwr": 2, "final_lr": 0.01}),
    "poly_warm": ("poly", {"max_update": 12, "base_lr": 0.5, "pwr": 1, "warmup_steps": 4,
                           "warmup_begin_lr": 0.05}),
    "cosine": ("cosine", {"max_update": 10, "base_lr": 1.0, "final_lr": 0.1}),
    "cosine_warm": ("cosine", {"max_update": 10, "base_lr": 1.0, "final_lr": 0.0,
                               "warmup_steps": 3, "warmup_begin_lr": 0.2,
                               "warmup_mode": "constant"}),
}
SCHED_ERRORS = {
    "factor_step0": ("factor", {"step": 0}),
    "factor_gt1": ("factor", {"step": 2, "factor": 1.5}),
    "warm_mode": ("factor", {"step": 2, "warmup_mode": "foo"}),
    "warm_begin": ("factor", {"step": 2, "base_lr": 0.1, "warmup_begin_lr": 0.5}),
    "warm_neg": ("factor", {"step": 2, "warmup_steps": -1}),
    "multi_order": ("multifactor", {"step": [3, 2]}),
    "multi_zero": ("multifactor", {"step": [0, 2]}),
    "multi_gt1": ("multifactor", {"step": [2], "factor": 2}),
    "poly_zero": ("poly", {"max_update": 0}),
    "cosine_zero": ("cosine", {"max_update": 0}),
}


def gold_schedulers():
    out = {"cases": {}, "errors": {}, "jumps": {}}
    for case, spec in SCHED_CASES.items():
        s = make_sched(spec)
        out["cases"][case] = {"kind": spec[0], "kwargs": spec[1],
                              "values": [s(n) for n in range(0, 16)]}
    for case, spec in SCHED_CASES.items():
        s = make_sched(spec)
        out["jumps"][case] = [s(n) for n in [1, 7, 3, 12, 5, 20, 9]]
    for case, spec in SCHED_ERRORS.items():
        try:
            make_sched(spec)
            out["errors"][case] = {"kind": spec[0], "kwargs": spec[1], "error": None}
        except Exception as e:  # noqa: BLE001
            out["errors"][case] = {"kind": spec[0], "kwargs": spec[1], "error": err(e)}
    GOLD["lr_scheduler"] = out


# --------------------------------------------------------------------------- metrics
def metric_inputs():
    rs = np.random.RandomState(7)
    p1 = rs.rand(6, 4).astype(np.float32)
    p1 /= p1.sum(axis=1, keepdims=True)
    l1 = np.array([0, 1, 2, 3, 1, 2], np.float32)
    p2 = rs.rand(5, 4).astype(np.float32)
    p2 /= p2.sum(axis=1, keepdims=True)
    l2 = np.array([3, 3, 0, 1, 2], np.float32)
    b1 = rs.rand(8, 2).astype(np.float32)
    bl1 = np.array([0, 1, 1, 0, 1, 0, 0, 1], np.float32)
    b2 = rs.rand(6, 2).astype(np.float32)
    bl2 = np.array([1, 1, 0, 0, 1, 1], np.float32)
    r1 = rs.randn(6).astype(np.float32)
    rl1 = (r1 + rs.randn(6) * 0.5).astype(np.float32)
    r2 = rs.randn(4, 1).astype(np.float32)
    rl2 = (r2[:, 0] + rs.randn(4) * 0.5).astype(np.float32)
    return {"p1": p1, "l1": l1, "p2": p2, "l2": l2, "b1": b1, "bl1": bl1, "b2": b2, "bl2": bl2,
            "r1": r1, "rl1": rl1, "r2": r2, "rl2": rl2,
            "cls1": np.array([0, 1, 3, 3, 1, 2], np.float32), "r2f": r2.ravel()}


def feval_pair(label, pred):
    return float(np.abs(label.ravel() - pred.argmax(axis=1)).sum()), label.size


def feval_scalar(label, pred):
    return float(np.mean(label.ravel() == pred.argmax(axis=1)))


# case -> (create args, create kwargs, [(labels keys, preds keys)])
METRIC_CASES = {
    "acc": ("acc", {}, [(["l1"], ["p1"]), (["l2"], ["p2"])]),
    "acc_same_shape": ("acc", {}, [(["l1"], ["cls1"])]),
    "accuracy_axis": ("accuracy", {"axis": 1}, [(["l1", "l2"], ["p1", "p2"])]),
    "top_k_2": ("top_k_accuracy", {"top_k": 2}, [(["l1"], ["p1"]), (["l2"], ["p2"])]),
    "top_k_3": ("top_k_acc", {"top_k": 3}, [(["l1"], ["p1"])]),
    "f1": ("f1", {}, [(["bl1"], ["b1"]), (["bl2"], ["b2"])]),
    "f1_micro": ("f1", {"average": "micro"}, [(["bl1"], ["b1"]), (["bl2"], ["b2"])]),
    "mcc": ("mcc", {}, [(["bl1"], ["b1"]), (["bl2"], ["b2"])]),
    "mcc_micro": ("mcc", {"average": "micro"}, [(["bl1"], ["b1"]), (["bl2"], ["b2"])]),
    "perplexity": ("perplexity", {"ignore_label": None}, [(["l1"], ["p1"]), (["l2"], ["p2"])]),
    "perplexity_ignore": ("perplexity", {"ignore_label": 3}, [(["l1"], ["p1"]), (["l2"], ["p2"])]),
    "mae": ("mae", {}, [(["rl1"], ["r1"]), (["rl2"], ["r2"])]),
    "mse": ("mse", {}, [(["rl1"], ["r1"]), (["rl2"], ["r2"])]),
    "rmse": ("rmse", {}, [(["rl1"], ["r1"]), (["rl2"], ["r2"])]),
    "ce": ("ce", {}, [(["l1"], ["p1"]), (["l2"], ["p2"])]),
    "nll": ("nll_loss", {}, [(["l1"], ["p1"]), (["l2"], ["p2"])]),
    "pearsonr": ("pearsonr", {}, [(["rl1"], ["r1"]), (["rl2"], ["r2f"])]),
    "pearsonr_micro": ("pearsonr", {"average": "micro"}, [(["rl1"], ["r1"]), (["rl2"], ["r2f"])]),
    "pearsonr_shape": ("pearsonr", {}, [(["rl1"], ["r1"]), (["rl2"], ["r2"])]),
    "loss": ("loss", {}, [([], ["r1"]), ([], ["p2"])]),
    "pcc": ("pcc", {}, [(["l1"], ["p1"]), (["l2"], ["p2"])]),
    "composite": (["acc", "ce", "top_k_accuracy"], {}, [(["l1"], ["p1"]), (["l2"], ["p2"])]),
    "custom_pair": ("__feval_pair", {}, [(["l1"], ["p1"]), (["l2"], ["p2"])]),
    "custom_scalar": ("__feval_scalar", {"name": "myacc"}, [(["l1"], ["p1"]), (["l2"], ["p2"])]),
}


def make_metric(spec, kw):
    if spec == "__feval_pair":
        return mx.metric.create(feval_pair, **kw)
    if spec == "__feval_scalar":
        return mx.metric.np(feval_scalar, **kw)
    if isinstance(spec, list) and "top_k_accuracy" in spec:
        m = mx.metric.CompositeEvalMetric()
        m.add("acc")
        m.add("ce")
        m.add(mx.metric.TopKAccuracy(top_k=2))
        return m
    return mx.metric.create(spec, **kw)


def gold_metrics():
    inp = metric_inputs()
    out = {"inputs": {k: put("metric_in/" + k, v) for k, v in inp.items()}, "cases": {}}
    for case, (spec, kw, batches) in METRIC_CASES.items():
        rec = {"spec": spec, "kwargs": kw, "batches": batches}
        try:
            m = make_metric(spec, kw)
            rec["name"] = m.name
            rec["type"] = type(m).__name__
            rec["initial"] = enc(m.get(), "")
            after = rec["after"] = []
            for labels, preds in batches:
                m.update([mx.nd.array(inp[k]) for k in labels], [mx.nd.array(inp[k]) for k in preds])
                after.append({"get": enc(m.get(), ""), "global": enc(m.get_global(), ""),
                              "name_value": enc(m.get_name_value(), "")})
            m.reset_local()
            rec["after_reset_local"] = {"get": enc(m.get(), ""), "global": enc(m.get_global(), "")}
            m.reset()
            rec["after_reset"] = {"get": enc(m.get(), ""), "global": enc(m.get_global(), "")}
            try:
                cfg = m.get_config()
                rec["config"] = {k: v for k, v in cfg.items() if k != "metrics"}
            except Exception as e:  # noqa: BLE001
                rec["config"] = err(e)
        except Exception as e:  # noqa: BLE001
            rec["error"] = err(e)
        out["cases"][case] = rec
    # single NDArray (not list) inputs, and mismatch errors
    singles = {}
    m = mx.metric.Accuracy()
    m.update(mx.nd.array(inp["l1"]), mx.nd.array(inp["p1"]))
    singles["acc_single"] = m.get()
    m = mx.metric.MSE()
    m.update(mx.nd.array(inp["rl1"]), mx.nd.array(inp["r1"]))
    singles["mse_single"] = m.get()
    out["singles"] = singles
    errs = {}
    for label, (fn) in {
            "acc_len": lambda: mx.metric.Accuracy().update([mx.nd.array(inp["l1"])] * 2,
                                                         [mx.nd.array(inp["p1"])]),
            "acc_shape": lambda: mx.metric.Accuracy().update([mx.nd.array(inp["l2"])],
                                                           [mx.nd.array(inp["p1"])]),
            "unknown": lambda: mx.metric.create("nosuchmetric"),
            "topk1": lambda: mx.metric.TopKAccuracy(top_k=1),
            "f1_multiclass": lambda: mx.metric.F1().update([mx.nd.array(inp["l1"])],
                                                          [mx.nd.array(inp["p1"])]),
            "custom_config": lambda: mx.metric.create(feval_pair).get_config(),
    }.items():
        try:
            fn()
            errs[label] = None
        except Exception as e:  # noqa: BLE001
            errs[label] = err(e)
    out["errors"] = errs
    out["str"] = str(mx.metric.Accuracy())
    GOLD["metric"] = out


# --------------------------------------------------------------------------- initializers
def gold_initializers():
    out = {}
    dumps = {}
    for label, init in {
            "xavier": mx.init.Xavier(),
            "xavier_in": mx.init.Xavier(factor_type="in", magnitude=2.34),
            "xavier_gauss": mx.init.Xavier(rnd_type="gaussian", factor_type="out", magnitude=2),
            "normal": mx.init.Normal(0.5),
            "uniform": mx.init.Uniform(),
            "constant": mx.init.Constant(3.0),
            "constant_arr": mx.init.Constant(mx.nd.array([1.0, 2.0])),
            "zero": mx.init.Zero(),
            "one": mx.init.One(),
            "msra": mx.init.MSRAPrelu(),
            "msra_in": mx.init.MSRAPrelu(factor_type="in", slope=0.1),
            "orthogonal": mx.init.Orthogonal(),
            "bilinear": mx.init.Bilinear(),
            "lstmbias": mx.init.LSTMBias(forget_bias=2.0),
    }.items():
        dumps[label] = init.dumps()
    out["dumps"] = dumps
    # dispatch by name: what each name gets from Constant(5.0)
    names = ["fc_weight", "fc_bias", "bn_gamma", "bn_beta", "q_min", "q_max", "bn_moving_mean",
             "bn_moving_var", "bn_running_mean", "foo", "upsampling0_weight", "stn_loc_weight",
             "fc_weight_quantize"]
    disp = {}
    for mode in ("desc", "str"):
        for n in names:
            arr = mx.nd.full((6,), 7.0)
            try:
                if mode == "desc":
                    mx.init.Constant(5.0)(mx.init.InitDesc(n), arr)
                else:
                    mx.init.Constant(5.0)(n, arr)
                disp["%s/%s" % (mode, n)] = arr.asnumpy().tolist()
            except Exception as e:  # noqa: BLE001
                disp["%s/%s" % (mode, n)] = err(e)
    # __init__ attribute wins over the name
    for label, attrs, n in [("attr_const", {"__init__": '["constant", {"value": 2.5}]'}, "x_bias"),
                            ("attr_zero", {"__init__": '["zero", {}]'}, "bn_moving_mean"),
                            ("attr_one", {"__init__": '["one", {}]'}, "bn_moving_var"),
                            ("attr_name", {"__init__": "ones"}, "z_weight")]:
        arr = mx.nd.full((4,), 7.0)
        mx.init.Uniform()(mx.init.InitDesc(n, attrs), arr)
        disp[label] = arr.asnumpy().tolist()
    out["dispatch"] = disp
    # deterministic initializers
    det = {}
    arr = mx.nd.zeros((2, 3, 4, 4))
    mx.init.Bilinear()(mx.init.InitDesc("up_weight"), arr)
    det["bilinear_2x3x4x4"] = put("init/bilinear", arr.asnumpy())
    arr = mx.nd.zeros((1, 1, 3, 5))
    mx.init.Bilinear()(mx.init.InitDesc("up_weight"), arr)
    det["bilinear_1x1x3x5"] = put("init/bilinear2", arr.asnumpy())
    arr = mx.nd.zeros((12,))
    mx.init.LSTMBias(forget_bias=2.0)(mx.init.InitDesc("lstm_i2h_weight"), arr)
    det["lstmbias"] = arr.asnumpy().tolist()
    arr = mx.nd.zeros((2, 3))
    mx.init.Constant(mx.nd.array([[1, 2, 3], [4, 5, 6]]))(mx.init.InitDesc("c_weight"), arr)
    det["constant_nd"] = arr.asnumpy().tolist()
    arr = mx.nd.zeros((3,), dtype="int32")
    mx.init.One()(mx.init.InitDesc("c_weight"), arr)
    det["one_int32"] = [arr.asnumpy().tolist(), str(arr.dtype)]
    out["deterministic"] = det
    # create()
    cr = {}
    for label, args in {"name": ("xavier",), "json": ('["normal", {"sigma": 0.5}]',),
                        "alias_zeros": ("zeros",), "alias_ones": ("ones",),
                        "kw": ("uniform",)}.items():
        kw = {"scale": 0.3} if label == "kw" else {}
        i = mx.init.create(*args, **kw)
        cr[label] = [type(i).__name__, i.dumps()]
    try:
        mx.init.create("nosuchinit")
    except Exception as e:  # noqa: BLE001
        cr["unknown"] = err(e)
    out["create"] = cr
    errs = {}
    for label, fn in {
            "xavier_vector": lambda: mx.init.Xavier()(mx.init.InitDesc("v_weight"), mx.nd.zeros((4,))),
            "xavier_factor": lambda: mx.init.Xavier(factor_type="foo")(mx.init.InitDesc("v_weight"),
                                                                       mx.nd.zeros((4, 4))),
            "xavier_rnd": lambda: mx.init.Xavier(rnd_type="foo")(mx.init.InitDesc("v_weight"),
                                                                 mx.nd.zeros((4, 4))),
            "mixed_nomatch": lambda: mx.init.Mixed(["bias"], [mx.init.Zero()])("w", mx.nd.zeros((2,))),
            "load_missing": lambda: mx.init.Load({"a": mx.nd.zeros((2,))})("b", mx.nd.zeros((2,))),
            "load_shape": lambda: mx.init.Load({"arg:a": mx.nd.zeros((2,))})("a", mx.nd.zeros((3,))),
    }.items():
        try:
            fn()
            errs[label] = None
        except Exception as e:  # noqa: BLE001
            errs[label] = err(e)
    out["errors"] = errs
    # Load / Mixed behaviour
    arr = mx.nd.zeros((2,))
    mx.init.Load({"arg:a": mx.nd.array([1, 2])})("a", arr)
    b = mx.nd.zeros((2,))
    mx.init.Load({"arg:a": mx.nd.array([1, 2])}, default_init=mx.init.One())(
        mx.init.InitDesc("b_weight"), b)
    m1, m2 = mx.nd.zeros((2,)), mx.nd.zeros((2,))
    mix = mx.init.Mixed(["bias", ".*"], [mx.init.Zero(), mx.init.Constant(4.0)])
    mix(mx.init.InitDesc("fc_bias"), m1)
    mix(mx.init.InitDesc("fc_weight"), m2)
    out["load_mixed"] = {"load": arr.asnumpy().tolist(), "load_default": b.asnumpy().tolist(),
                         "mixed_bias": m1.asnumpy().tolist(), "mixed_weight": m2.asnumpy().tolist()}
    out["eq"] = [mx.init.Xavier() == mx.init.Xavier(), mx.init.Xavier() == mx.init.Xavier(magnitude=2),
                 mx.init.Normal() == mx.init.Uniform()]
    GOLD["initializer"] = out


# --------------------------------------------------------------------------- io
def batch_rec(b, key):
    return {"data": [enc(d, "%s/d%d" % (key, i)) for i, d in enumerate(b.data)],
            "label": None if b.label is None else [enc(d, "%s/l%d" % (key, i))
                                                    for i, d in enumerate(b.label)],
            "pad": b.pad, "index": None if b.index is None else np.asarray(b.index).tolist()}


def desc_rec(descs):
    return [[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout] if isinstance(d, mx.io.DataDesc)
            else [d[0], list(d[1])] for d in descs]


def iter_epochs(it, key, epochs=3):
    out = []
    for ep in range(epochs):
        batches = []
        for j, b in enumerate(it):
            batches.append(batch_rec(b, "%s/e%d/b%d" % (key, ep, j)))
        out.append(batches)
        it.reset()
    return out


IO_CASES = {
    "pad_4": ({"batch_size": 4, "last_batch_handle": "pad"}, "arr"),
    "pad_3": ({"batch_size": 3, "last_batch_handle": "pad"}, "arr"),
    "discard_4": ({"batch_size": 4, "last_batch_handle": "discard"}, "arr"),
    "roll_over_4": ({"batch_size": 4, "last_batch_handle": "roll_over"}, "arr"),
    "roll_over_3": ({"batch_size": 3, "last_batch_handle": "roll_over"}, "arr"),
    "roll_over_5": ({"batch_size": 5, "last_batch_handle": "roll_over"}, "arr"),
    "pad_big": ({"batch_size": 23, "last_batch_handle": "pad"}, "arr"),
    "pad_big_exact": ({"batch_size": 20, "last_batch_handle": "pad"}, "arr"),
    "dict": ({"batch_size": 4}, "dict"),
    "list": ({"batch_size": 4, "last_batch_handle": "discard"}, "list"),
    "nolabel": ({"batch_size": 4}, "nolabel"),
    "names": ({"batch_size": 4, "data_name": "x", "label_name": "y"}, "arr"),
    "nd_int": ({"batch_size": 4}, "nd_int"),
    "np_int": ({"batch_size": 4}, "np_int"),
    "shuffle": ({"batch_size": 4, "shuffle": True}, "arr"),
    "shuffle_roll": ({"batch_size": 4, "shuffle": True, "last_batch_handle": "roll_over"}, "arr"),
}


def io_data(kind):
    data = np.arange(20, dtype=np.float32).reshape(10, 2)
    label = np.arange(10, dtype=np.float32) + 100
    if kind == "arr":
        return data, label
    if kind == "dict":
        return {"b": data, "a": data[:, :1] * 10}, {"lab2": label, "lab1": label * 2}
    if kind == "list":
        return [data, data * -1], [label]
    if kind == "nolabel":
        return data, None
    if kind == "nd_int":
        return mx.nd.array(data, dtype="int32"), mx.nd.array(label, dtype="int64")
    if kind == "np_int":
        return data.astype(np.int64), label.astype(np.int32)
    raise KeyError(kind)


def gold_io():
    out = {"ndarrayiter": {}}
    for case, (kw, kind) in IO_CASES.items():
        np.random.seed(11)
        data, label = io_data(kind)
        it = mx.io.NDArrayIter(data, label, **kw)
        out["ndarrayiter"][case] = {
            "kwargs": kw, "kind": kind,
            "provide_data": desc_rec(it.provide_data), "provide_label": desc_rec(it.provide_label),
            "epochs": iter_epochs(it, "io/" + case)}
    # manual protocol: iter_next/getdata/getpad
    data, label = io_data("arr")
    it = mx.io.NDArrayIter(data, label, batch_size=4)
    proto = []
    while it.iter_next():
        proto.append([it.getdata()[0].asnumpy().tolist(), it.getlabel()[0].asnumpy().tolist(),
                      it.getpad(), it.getindex()])
    out["protocol"] = proto
    errs = {}
    for lab, fn in {"no_data": lambda: mx.io.NDArrayIter(None),
                    "bad_type": lambda: mx.io.NDArrayIter({"a": "xyz"}),
                    }.items():
        try:
            fn()
            errs[lab] = None
        except Exception as e:  # noqa: BLE001
            errs[lab] = err(e)
    out["errors"] = errs
    d = mx.io.DataDesc("data", (2, 3))
    out["datadesc"] = {"repr": repr(d), "tuple": list(d), "dtype": np.dtype(d.dtype).name,
                       "layout": d.layout, "batch_axis": [mx.io.DataDesc.get_batch_axis("NCHW"),
                                                          mx.io.DataDesc.get_batch_axis("TNC"),
                                                          mx.io.DataDesc.get_batch_axis(None)],
                       "get_list": desc_rec(mx.io.DataDesc.get_list([("a", (1, 2)), ("b", (3,))],
                                                                    [("a", np.int32), ("b", np.float16)]))}
    b = mx.io.DataBatch([mx.nd.zeros((2, 3))], [mx.nd.zeros((2,))])
    out["databatch_str"] = str(b)
    # ResizeIter
    data, label = io_data("arr")
    it = mx.io.ResizeIter(mx.io.NDArrayIter(data, label, batch_size=4), 5)
    out["resize"] = iter_epochs(it, "io/resize", epochs=2)
    it = mx.io.ResizeIter(mx.io.NDArrayIter(data, label, batch_size=4), 2, reset_internal=False)
    out["resize_noreset"] = iter_epochs(it, "io/resize_noreset", epochs=3)
    # PrefetchingIter
    it = mx.io.PrefetchingIter([mx.io.NDArrayIter(data, label, batch_size=4),
                                mx.io.NDArrayIter(data * 2, label, batch_size=4, data_name="d2",
                                                  label_name="l2")])
    out["prefetch"] = {"provide_data": desc_rec(it.provide_data),
                       "provide_label": desc_rec(it.provide_label),
                       "epochs": iter_epochs(it, "io/prefetch", epochs=2)}
    it = mx.io.PrefetchingIter(mx.io.NDArrayIter(data, label, batch_size=4),
                               rename_data=[{"data": "x"}], rename_label=[{"softmax_label": "y"}])
    out["prefetch_rename"] = {"provide_data": desc_rec(it.provide_data),
                              "provide_label": desc_rec(it.provide_label)}
    del it
    # CSVIter / MNISTIter on synthetic files
    tmp = tempfile.mkdtemp()
    try:
        write_csv_mnist(tmp)
        csv = {}
        for lab, kw in {
                "round": {"data_csv": "d.csv", "data_shape": (2,), "label_csv": "l.csv",
                          "batch_size": 2},
                "noround": {"data_csv": "d.csv", "data_shape": (2,), "label_csv": "l.csv",
                            "batch_size": 2, "round_batch": False},
                "nolabel_3d": {"data_csv": "d.csv", "data_shape": (1, 2), "batch_size": 3},
                "exact": {"data_csv": "d6.csv", "data_shape": (3,), "batch_size": 2},
                "big_batch": {"data_csv": "d.csv", "data_shape": (2,), "batch_size": 7},
                "labshape": {"data_csv": "d.csv", "data_shape": (2,), "label_csv": "l2.csv",
                             "label_shape": (2,), "batch_size": 2}}.items():
            kw = dict(kw)
            kw["data_csv"] = os.path.join(tmp, kw["data_csv"])
            if "label_csv" in kw:
                kw["label_csv"] = os.path.join(tmp, kw["label_csv"])
            try:
                it = mx.io.CSVIter(**kw)
                csv[lab] = {"provide_data": desc_rec(it.provide_data),
                            "provide_label": desc_rec(it.provide_label),
                            "epochs": iter_epochs(it, "io/csv/" + lab, epochs=3)}
            except Exception as e:  # noqa: BLE001
                csv[lab] = {"error": err(e)}
        out["csv"] = csv
        mn = {}
        for lab, kw in {"plain": {"batch_size": 3, "shuffle": False},
                        "flat": {"batch_size": 3, "shuffle": False, "flat": True},
                        "exact": {"batch_size": 7, "shuffle": False}}.items():
            it = mx.io.MNISTIter(image=os.path.join(tmp, "img"), label=os.path.join(tmp, "lab"),
                                 silent=True, **kw)
            mn[lab] = {"provide_data": desc_rec(it.provide_data),
                       "provide_label": desc_rec(it.provide_label),
                       "epochs": iter_epochs(it, "io/mnist/" + lab, epochs=2)}
        it = mx.io.MNISTIter(image=os.path.join(tmp, "img"), label=os.path.join(tmp, "lab"),
                             batch_size=2, silent=True)
        labels = sorted(sum([b.label[0].asnumpy().tolist() for b in it], []))
        mn["shuffle_labels_sorted"] = labels
        out["mnist"] = mn
    finally:
        shutil.rmtree(tmp)
    GOLD["io"] = out


def write_csv_mnist(d):
    np.savetxt(os.path.join(d, "d.csv"), np.arange(10).reshape(5, 2), delimiter=",", fmt="%g")
    np.savetxt(os.path.join(d, "d6.csv"), np.arange(12).reshape(4, 3) * 0.5, delimiter=",", fmt="%g")
    np.savetxt(os.path.join(d, "l.csv"), np.arange(5) + 100, delimiter=",", fmt="%g")
    np.savetxt(os.path.join(d, "l2.csv"), np.arange(10).reshape(5, 2) - 3, delimiter=",", fmt="%g")
    n = 7
    imgs = (np.arange(n * 28 * 28) % 251).astype(np.uint8).reshape(n, 28, 28)
    labs = (np.arange(n) * 3 % 10).astype(np.uint8)
    with open(os.path.join(d, "img"), "wb") as f:
        f.write(struct.pack(">iiii", 2051, n, 28, 28))
        f.write(imgs.tobytes())
    with open(os.path.join(d, "lab"), "wb") as f:
        f.write(struct.pack(">ii", 2049, n))
        f.write(labs.tobytes())


# --------------------------------------------------------------------------- callbacks
class _Capture(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


class _FakeMetric:
    def __init__(self):
        self.resets = 0

    def get_name_value(self):
        return [("accuracy", 0.5), ("cross-entropy", 1.25)]

    def reset_local(self):
        self.resets += 1


def gold_callbacks():
    cap = _Capture()
    root = logging.getLogger()
    old_level = root.level
    root.setLevel(logging.INFO)
    root.addHandler(cap)
    real_time = time.time
    clock = [1000.0]

    def fake_time():
        clock[0] += 0.5
        return clock[0]
    time.time = fake_time
    out = {}
    try:
        for label, kw in {"auto": {"batch_size": 10, "frequent": 2},
                          "noauto": {"batch_size": 10, "frequent": 3, "auto_reset": False}}.items():
            cap.lines = []
            sp = mx.callback.Speedometer(**kw)
            metric = _FakeMetric()
            for epoch in range(2):
                for nb in range(7):
                    sp(mx.model.BatchEndParam(epoch=epoch, nbatch=nb, eval_metric=metric, locals=None))
            out["speedometer_" + label] = {"lines": cap.lines, "resets": metric.resets}
        cap.lines = []
        sp = mx.callback.Speedometer(8, 2)
        for nb in range(5):
            sp(mx.model.BatchEndParam(epoch=3, nbatch=nb, eval_metric=None, locals=None))
        out["speedometer_nometric"] = cap.lines
        cap.lines = []
        cb = mx.callback.log_train_metric(2, auto_reset=True)
        m = _FakeMetric()
        for nb in range(5):
            cb(mx.model.BatchEndParam(epoch=1, nbatch=nb, eval_metric=m, locals=None))
        out["log_train_metric"] = {"lines": cap.lines, "resets": m.resets}
        cap.lines = []
        pb = mx.callback.ProgressBar(total=7, length=20)
        for nb in [0, 3, 7]:
            pb(mx.model.BatchEndParam(epoch=0, nbatch=nb, eval_metric=None, locals=None))
        out["progressbar"] = cap.lines
        cap.lines = []
        cb = mx.callback.LogValidationMetricsCallback()
        cb(mx.model.BatchEndParam(epoch=4, nbatch=0, eval_metric=_FakeMetric(), locals=None))
        out["logvalidation"] = cap.lines
    finally:
        time.time = real_time
        root.removeHandler(cap)
        root.setLevel(old_level)
    out["batchendparam"] = [mx.model.BatchEndParam.__name__, list(mx.model.BatchEndParam._fields)]
    GOLD["callback"] = out


# --------------------------------------------------------------------------- model checkpoint
def gold_model():
    out = {}
    src = os.path.join(FIXTURES, "lenet")
    sym, arg, aux = mx.model.load_checkpoint(src, 2)
    out["load"] = {"arguments": sym.list_arguments(), "aux_states": sym.list_auxiliary_states(),
                   "arg_params": {k: list(v.shape) for k, v in arg.items()},
                   "aux_params": {k: list(v.shape) for k, v in aux.items()},
                   "arg_order": list(arg), "aux_order": list(aux)}
    tmp = tempfile.mkdtemp()
    try:
        prefix = os.path.join(tmp, "ck")
        mx.model.save_checkpoint(prefix, 7, sym, arg, aux)
        out["files"] = sorted(os.listdir(tmp))
        with open(prefix + "-0007.params", "rb") as f:
            out["params_sha256"] = hashlib.sha256(f.read()).hexdigest()
        a2, x2 = mx.model.load_params(prefix, 7)
        out["load_params_keys"] = [sorted(a2), sorted(x2)]
        # empty params file
        mx.nd.save(os.path.join(tmp, "e-0001.params"), {})
        out["empty"] = [len(v) for v in mx.model.load_params(os.path.join(tmp, "e"), 1)]
        try:
            mx.model.load_checkpoint(os.path.join(tmp, "missing"), 1)
        except Exception as e:  # noqa: BLE001
            out["missing"] = err(e)
    finally:
        shutil.rmtree(tmp)
    GOLD["model"] = out


# --------------------------------------------------------------------------- kvstore
def gold_kvstore():
    out = {}
    kv = mx.kv.create("local")
    out["props"] = [kv.type, kv.rank, kv.num_workers]
    kv.init(3, mx.nd.ones((2, 3)))
    a = mx.nd.zeros((2, 3))
    kv.pull(3, out=a)
    out["init_pull"] = a.asnumpy().tolist()
    kv.push(3, [mx.nd.ones((2, 3)) * 2, mx.nd.ones((2, 3)) * 3])
    kv.pull(3, out=a)
    out["push_list"] = a.asnumpy().tolist()
    kv.init(["x", "y"], [mx.nd.ones((2,)), mx.nd.ones((2,)) * 2]) if False else None
    kv2 = mx.kv.create("device")
    kv2.init(["x", "y"], [mx.nd.ones((2,)), mx.nd.ones((2,)) * 2])
    outs = [[mx.nd.zeros((2,)), mx.nd.zeros((2,))], [mx.nd.zeros((2,))]]
    kv2.pull(["x", "y"], out=outs)
    out["multi_pull"] = [[o.asnumpy().tolist() for o in g] for g in outs]
    kv2.pushpull("x", [mx.nd.ones((2,)) * 5, mx.nd.ones((2,))], out=outs[0])
    out["pushpull"] = [o.asnumpy().tolist() for o in outs[0]]
    kv3 = mx.kv.create("local")
    kv3.init(0, mx.nd.ones((3,)))
    kv3.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    for s in range(3):
        kv3.push(0, [mx.nd.ones((3,)) * (s + 1), mx.nd.ones((3,))])
    o = mx.nd.zeros((3,))
    kv3.pull(0, out=o)
    out["optimizer_push"] = o.asnumpy().tolist()
    errs = {}
    for lab, fn in {"dup": lambda: kv.init(3, mx.nd.ones((2, 3))),
                    "uninit": lambda: kv.pull(7, out=a),
                    "compression": lambda: kv.set_gradient_compression({"type": "2bit"}),
                    "mixed_keys": lambda: kv.init([1, "x"], [mx.nd.ones(1), mx.nd.ones(1)]),
                    "bad_name": lambda: mx.kv.create(3)}.items():
        try:
            fn()
            errs[lab] = None
        except Exception as e:  # noqa: BLE001
            errs[lab] = err(e)
    out["errors"] = errs
    GOLD["kvstore"] = out


# --------------------------------------------------------------------------- main
def write():
    os.makedirs(OUT_DIR, exist_ok=True)
    with open(os.path.join(OUT_DIR, "toolkit.json"), "w") as f:
        json.dump(GOLD, f, indent=1, sort_keys=True, default=lambda o: o.tolist()
                  if hasattr(o, "tolist") else str(o))
        f.write("\n")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for key in sorted(ARRAYS):
            b = io.BytesIO()
            np.save(b, ARRAYS[key], allow_pickle=False)
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, b.getvalue())
    with open(os.path.join(OUT_DIR, "toolkit.npz"), "wb") as f:
        f.write(buf.getvalue())


def main():
    logging.getLogger().setLevel(logging.WARNING)
    gold_optimizers()
    gold_schedulers()
    gold_metrics()
    gold_initializers()
    gold_io()
    gold_callbacks()
    gold_model()
    gold_kvstore()
    write()
    print("wrote %d arrays, sections: %s" % (len(ARRAYS), ", ".join(sorted(GOLD))))


if __name__ == "__main__":
    main()
