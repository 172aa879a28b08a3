"""Record what real MXNet 1.9.1's CTC loss does, for tests/test_ctc.py.

Run with the reference interpreter (it must import the real ``mxnet``):

    /work/mxref/bin/python tests/make_ctc_goldens.py

Writes ``tests/goldens/ctc/ctc.npz`` (inputs, outputs, input gradients of the ``CTCLoss``
operator and of ``gluon.loss.CTCLoss``) and ``tests/goldens/ctc/ctc.json`` (case facts,
error messages, MXNet's symbol JSON). Deterministic: fixed seeds, sorted keys, fixed zip
timestamps.

The case tables below are plain data, imported by the tests too; nothing here imports mxnet
at import time.
"""
import os

import numpy as np

import golden_files

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "goldens", "ctc")
JSON_PATH = os.path.join(OUT_DIR, "ctc.json")
NPZ_PATH = os.path.join(OUT_DIR, "ctc.npz")

# ---- operator cases -------------------------------------------------------------------------
# T, C: data (T, N, C); label rows (N = len(label)); dl / ll: data_lengths / label_lengths
# (None: the attribute use_*_lengths stays False); head: backward with a random head gradient
# (else loss.backward(), head 1); grad_rows: the samples whose data gradient MXNet defines
# (it leaves the gradient of unalignable samples uninitialised, see also below); scale:
# activation spread.
# Not recorded: a data length of 0 with an empty label (MXNet returns inf there but corrupts
# its heap doing so), lengths beyond T or L and negative ones (out-of-bounds reads).
OP_CASES = {
    "first": dict(T=8, C=6, blank="first",
                  label=[[1, 2, 3, 0], [2, 2, 0, 0], [0, 0, 0, 0], [5, 1, 5, 1]]),
    "first_labels_after_padding": dict(T=8, C=6, blank="first",
                                       label=[[1, 0, 2, 3], [0, 4, 4, 0], [3, 1, 0, 1]]),
    "last": dict(T=8, C=6, blank="last",
                 label=[[0, 1, 2, -1], [3, 3, -1, -1], [-1, -1, -1, -1], [4, 0, 4, 0]]),
    "first_data_lengths": dict(T=8, C=6, blank="first", dl=[8, 5, 3, 6],
                               label=[[1, 2, 3, 0], [2, 2, 0, 0], [0, 0, 0, 0], [5, 1, 5, 1]]),
    "last_label_lengths": dict(T=8, C=6, blank="last", ll=[2, 1, 0, 4],
                               label=[[0, 1, 2, 3], [3, 3, 1, 0], [2, 4, 1, 0], [4, 0, 4, 0]]),
    # a label equal to the blank (0 inside label_lengths): MXNet's loss treats it as a label,
    # its gradient on the blank channel disagrees with that loss (sample 0): not recorded
    "first_label_lengths_keep_zeros": dict(T=8, C=6, blank="first", ll=[3, 1, 2],
                                           label=[[1, 0, 2, 0], [0, 0, 0, 0], [1, 2, 3, 4]],
                                           grad_rows=[1, 2]),
    "last_both_lengths": dict(T=9, C=5, blank="last", dl=[9, 4, 7, 2], ll=[3, 2, 0, 1],
                              label=[[0, 1, 0, 2], [2, 2, 3, 3], [1, 1, 1, 1], [3, 0, 0, 0]]),
    "first_head_grad": dict(T=7, C=5, blank="first", head=True,
                            label=[[1, 2, 0], [4, 4, 4], [3, 0, 0], [2, 1, 2]]),
    "repeats": dict(T=10, C=4, blank="first", label=[[1, 1, 1, 1], [2, 2, 3, 3], [1, 2, 1, 2],
                                                     [3, 3, 3, 0], [1, 1, 0, 0]]),
    "unalignable": dict(T=5, C=6, blank="first", dl=[5, 5, 2, 0, 1, 3], head=True,
                        label=[[1, 1, 1, 1, 1], [1, 2, 3, 4, 5], [1, 2, 0, 0, 0],
                               [1, 0, 0, 0, 0], [0, 0, 0, 0, 0], [2, 2, 0, 0, 0]],
                        grad_rows=[1, 2, 4, 5]),
    "float_rounding": dict(T=8, C=6, blank="first", dl=[7.5, 6.4, 2.5, 8.0],
                           label=[[1.7, 0.4, 2.0, 0.0], [1.0, 0.6, 2.0, 0.0],
                                  [2.49, 0.0, 0.0, 0.0], [3.5, 4.2, 5.0, 1.0]]),
    "last_float_rounding": dict(T=8, C=6, blank="last",
                                label=[[0.0, -0.6, 2.0, -1.0], [0.0, -0.4, 2.0, -1.0],
                                       [4.4, 3.6, -1.0, -1.0]]),
    "int32_label": dict(T=8, C=6, blank="last", label_dtype="int32",
                        label=[[0, 1, 2, -1], [3, 3, -1, -1], [-1, -1, -1, -1], [4, 0, 4, 0]]),
    "long": dict(T=40, C=12, blank="first", seed_label=12, N=5, L=12, dl=[40, 33, 25, 18, 40],
                 ll=[12, 9, 5, 7, 1], scale=3.0, head=True),
}


def op_inputs(case, seed):
    """{name: array} of one operator case: data, label, [data_lengths], [label_lengths], [head]."""
    c = OP_CASES[case]
    rs = np.random.RandomState(seed)
    if "seed_label" in c:
        lrs = np.random.RandomState(c["seed_label"])
        label = lrs.randint(1, c["C"], size=(c["N"], c["L"])).astype(np.float32)
    else:
        label = np.array(c["label"], dtype=np.float32)
    n = label.shape[0]
    out = {"data": (rs.randn(c["T"], n, c["C"]) * c.get("scale", 1.0)).astype(np.float32),
           "label": label.astype(c.get("label_dtype", "float32"))}
    if c.get("dl") is not None:
        out["data_lengths"] = np.array(c["dl"], dtype=np.float32)
    if c.get("ll") is not None:
        out["label_lengths"] = np.array(c["ll"], dtype=np.float32)
    if c.get("head"):
        out["head"] = rs.uniform(-2, 2, size=(n,)).astype(np.float32)
    return out


def op_attrs(case):
    c = OP_CASES[case]
    return {"use_data_lengths": c.get("dl") is not None,
            "use_label_lengths": c.get("ll") is not None, "blank_label": c["blank"]}


# ---- gluon cases ----------------------------------------------------------------------------
# kwargs of gluon.loss.CTCLoss; N, T, C, L; which optional call arguments are given.
GLUON_CASES = {
    "ntc": dict(kw={}, N=4, T=9, C=6, L=4, args=()),
    "tnc": dict(kw=dict(layout="TNC", label_layout="TN"), N=4, T=9, C=6, L=4, args=()),
    "tnc_label_nt": dict(kw=dict(layout="TNC"), N=3, T=7, C=5, L=3, args=()),
    "ntc_lengths": dict(kw={}, N=4, T=9, C=6, L=4, args=("pred_lengths", "label_lengths")),
    "ntc_pred_lengths": dict(kw={}, N=4, T=9, C=6, L=4, args=("pred_lengths",)),
    "ntc_label_lengths": dict(kw=dict(weight=2.0), N=4, T=9, C=6, L=4,
                              args=("label_lengths",)),
    "sample_weight": dict(kw=dict(weight=0.5), N=4, T=9, C=6, L=4, args=("sample_weight",)),
    "sample_weight_column": dict(kw={}, N=3, T=6, C=5, L=3, args=("sample_weight_col",)),
    "tnc_all": dict(kw=dict(layout="TNC", label_layout="TN", weight=1.5), N=3, T=8, C=5, L=3,
                    args=("pred_lengths", "label_lengths", "sample_weight")),
}
GLUON_ARGS = ("pred_lengths", "label_lengths", "sample_weight")


def gluon_inputs(case, seed):
    """{name: array}: pred, label (padded with -1), optional arguments, head (the
    output's shape)."""
    c = GLUON_CASES[case]
    rs = np.random.RandomState(seed)
    n, t, k, ln = c["N"], c["T"], c["C"], c["L"]
    lengths = rs.randint(0, ln + 1, size=(n,))
    lengths[0] = ln
    label = rs.randint(0, k - 1, size=(n, ln)).astype(np.float32)
    label[np.arange(ln)[None, :] >= lengths[:, None]] = -1
    tnc = c["kw"].get("layout") == "TNC"
    pred = rs.randn(t, n, k) if tnc else rs.randn(n, t, k)
    out = {"pred": pred.astype(np.float32),
           "label": (label.T if c["kw"].get("label_layout") == "TN" else label).copy()}
    if "pred_lengths" in c["args"]:
        out["pred_lengths"] = rs.randint(2 * ln, t + 1, size=(n,)).astype(np.float32)
    if "label_lengths" in c["args"]:
        out["label_lengths"] = lengths.astype(np.float32)
    if "sample_weight" in c["args"]:
        out["sample_weight"] = rs.uniform(0.5, 2, size=(n,)).astype(np.float32)
    if "sample_weight_col" in c["args"]:
        out["sample_weight"] = rs.uniform(0.5, 2, size=(n, 1)).astype(np.float32)
    return out


def gluon_call_args(xs):
    """The call arguments after (pred, label): None for an absent optional one, trailing
    Nones dropped."""
    args = [xs.get(a) for a in GLUON_ARGS]
    while args and args[-1] is None:
        args.pop()
    return args


# ---- error cases: (data shape, label shape, data_lengths shape, label_lengths shape, attrs) --
ERROR_CASES = {
    "data_2d": ((6, 3), (3, 2), None, None, {}),
    "data_4d": ((6, 3, 5, 1), (3, 2), None, None, {}),
    "label_1d": ((6, 3, 5), (3,), None, None, {}),
    "label_batch": ((6, 3, 5), (2, 2), None, None, {}),
    "label_longer_than_data": ((2, 3, 5), (3, 4), None, None, {}),
    "data_lengths_shape": ((6, 3, 5), (3, 2), (2,), None, dict(use_data_lengths=True)),
    "label_lengths_shape": ((6, 3, 5), (3, 2), None, (4,), dict(use_label_lengths=True)),
    "blank_label": ((6, 3, 5), (3, 2), None, None, dict(blank_label="middle")),
    "missing_data_lengths": ((6, 3, 5), (3, 2), None, None, dict(use_data_lengths=True)),
    "unflagged_data_lengths": ((6, 3, 5), (3, 2), (3,), None, {}),
}


def run_op(mx, autograd, xs, attrs):
    """CTCLoss forward and backward on a case's inputs, on MXNet (here) or xnd (the test):
    (loss, data with its gradient, label, length arrays)."""
    data = mx.nd.array(xs["data"])
    data.attach_grad()
    label = mx.nd.array(xs["label"], dtype=xs["label"].dtype)
    extra = [mx.nd.array(xs[k]) for k in ("data_lengths", "label_lengths") if k in xs]
    with autograd.record():
        out = mx.nd.CTCLoss(data, label, *extra, **attrs)
    if "head" in xs:
        out.backward(mx.nd.array(xs["head"]))
    else:
        out.backward()
    return out, data, label, extra


def main():
    import mxnet as mx
    from mxnet import autograd, gluon

    meta, arrays = {"op": {}, "gluon": {}, "errors": {}}, {}

    for ci, case in enumerate(sorted(OP_CASES)):
        xs = op_inputs(case, 100 + ci)
        attrs = op_attrs(case)
        for k, v in xs.items():
            arrays[f"op/{case}/in/{k}"] = v
        out, data, label, extra = run_op(mx, autograd, xs, attrs)
        arrays[f"op/{case}/out"] = out.asnumpy()
        rows = OP_CASES[case].get("grad_rows")
        grad = data.grad.asnumpy()
        if rows is not None:  # the rest is uninitialised memory or inconsistent in MXNet
            grad = grad[:, rows]
        arrays[f"op/{case}/grad"] = grad
        # the same through the other names and without autograd
        for alias in (mx.nd.ctc_loss, mx.nd.contrib.CTCLoss, mx.nd.contrib.ctc_loss):
            again = alias(mx.nd.array(xs["data"]), label, *extra, **attrs).asnumpy()
            assert np.array_equal(again, out.asnumpy(), equal_nan=True), (case, alias)
        meta["op"][case] = {"attrs": attrs, "inputs": sorted(xs), "grad_rows": rows}

    for ci, case in enumerate(sorted(GLUON_CASES)):
        c = GLUON_CASES[case]
        xs = gluon_inputs(case, 300 + ci)
        for k, v in xs.items():
            arrays[f"gluon/{case}/in/{k}"] = v
        results = []
        for hybridize in (False, True):
            loss_fn = gluon.loss.CTCLoss(**c["kw"])
            if hybridize:
                loss_fn.hybridize()
            pred = mx.nd.array(xs["pred"])
            pred.attach_grad()
            args = [None if a is None else mx.nd.array(a) for a in gluon_call_args(xs)]
            with autograd.record():
                out = loss_fn(pred, mx.nd.array(xs["label"]), *args)
            rs = np.random.RandomState(400 + ci)
            head = rs.uniform(-2, 2, size=out.shape).astype(np.float32)
            out.backward(mx.nd.array(head))
            results.append((out.asnumpy(), pred.grad.asnumpy(), head))
        (o0, g0, h0), (o1, g1, _) = results
        np.testing.assert_allclose(o1, o0, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(g1, g0, rtol=1e-6, atol=1e-6)
        arrays[f"gluon/{case}/out"] = o0
        arrays[f"gluon/{case}/grad"] = g0
        arrays[f"gluon/{case}/head"] = h0
        meta["gluon"][case] = {"kw": c["kw"], "args": [a is not None for a in
                                                       gluon_call_args(xs)]}

    for case, (dshape, lshape, dlshape, llshape, attrs) in sorted(ERROR_CASES.items()):
        ins = [mx.nd.ones(dshape), mx.nd.ones(lshape)]
        ins += [mx.nd.ones(s) for s in (dlshape, llshape) if s is not None]
        try:
            mx.nd.CTCLoss(*ins, **attrs).wait_to_read()
            meta["errors"][case] = None
        except mx.MXNetError as e:
            msg = str(e)
            line = [ln for ln in msg.splitlines() if "Check failed" in ln or "Invalid" in ln]
            meta["errors"][case] = (line or msg.splitlines() or [""])[0].strip()

    try:
        mx.nd.CTCLoss(mx.nd.ones((4, 2, 3), dtype="float64"),
                      mx.nd.ones((2, 2), dtype="float64")).wait_to_read()
        meta["float64_supported"] = True
    except mx.MXNetError:
        meta["float64_supported"] = False

    d, lab = mx.sym.var("data"), mx.sym.var("label")
    meta["symbols"] = {
        "plain": mx.sym.CTCLoss(d, lab, name="ctc").tojson(),
        "label_lengths": mx.sym.CTCLoss(d, lab, use_label_lengths=True, blank_label="last",
                                        name="ctc").tojson(),
        "both_lengths": mx.sym.CTCLoss(d, lab, use_data_lengths=True, use_label_lengths=True,
                                       name="ctc").tojson(),
    }
    meta["list_arguments"] = {
        k: mx.sym.load_json(v).list_arguments() for k, v in meta["symbols"].items()}
    meta["list_outputs"] = mx.sym.load_json(meta["symbols"]["plain"]).list_outputs()

    golden_files.write(JSON_PATH, NPZ_PATH, meta, arrays)


if __name__ == "__main__":
    main()
