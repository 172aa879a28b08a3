"""Record what real MXNet 1.9.1 does for the operators that MXNet's test_operator.py taught
xnd about (histogram, unravel_index with a leading -1, symbol.split_v2, gather_nd's
bounds check, Pooling's pad checks, linalg's syevd, potrf/potri(lower=False), gemm's axis).

    /work/mxref/bin/python tests/make_operator_conformance_goldens.py

Writes ``tests/goldens/operator_conformance/cases.json``: per case the call, its inputs and
MXNet's outputs (values and dtypes). Deterministic (fixed inputs); the case table ``CASES``
is plain data, imported by tests/test_operator_conformance_ops.py.
"""
import json
import os
import warnings

import golden_files

HERE = os.path.dirname(os.path.abspath(__file__))
JSON_PATH = os.path.join(HERE, "goldens", "operator_conformance", "cases.json")

_X = [-3.0, -1.0, 0.0, 0.5, 1.0, 2.5, 2.4999, 7.0, -2.5, 1.25]
# (name, fn, [(input values, dtype)], keyword attributes, bins given as an array (or None))
CASES = [
    ("hist_uniform_f32", "histogram", [(_X, "float32")], {"bins": 4, "range": (-2.5, 2.5)}, None),
    ("hist_uniform_f64", "histogram", [(_X, "float64")], {"bins": 7, "range": (-2.0, 3.0)}, None),
    ("hist_uniform_int", "histogram", [(_X, "int32")], {"bins": 4, "range": (-2.0, 3.0)}, None),
    ("hist_edges", "histogram", [(_X, "float32")], {}, ([-1.0, 0.5, 2.0, 4.5, 50.0], "float32")),
    ("hist_edges_2d", "histogram", [([[0.5, 2.0], [4.5, 9.0]], "float64")], {},
     ([0.5, 2.0, 4.5, 9.0], "float64")),
    ("hist_numpy", "histogram", [([1.0, 2.0, 3.0, 9.0], "float32")], {"bins": 3}, None),
    ("unravel_lead_minus1", "unravel_index", [([5, 7, 49, 200], "float32")],
     {"shape": (-1, 7)}, None),
    ("unravel_no_wrap", "unravel_index", [([5, 7, 49, 200], "float32")], {"shape": (3, 7)}, None),
    ("ravel_lead_minus1", "ravel_multi_index", [([[0, 1, 7], [5, 0, 0]], "float32")],
     {"shape": (-1, 7)}, None),
]
GATHER_CASES = [  # gather_nd on [[0, 1, 2], [3, 4, 5]]: negative coordinates wrap, others raise
    ("gather_negative", [[-2, 1, 0], [0, 1, -3]]),
    ("gather_too_big", [[0, 1, 0], [0, 1, 3]]),
    ("gather_too_small", [[0, 1, 0], [0, 1, -5]]),
]
POOL_CASES = [  # 1-D max Pooling of arange(10): 'same' reads pad[0..2], which must all be 0
    ("pool_same", dict(kernel=2, stride=2, pad=(0, 0, 0), pooling_convention="same")),
    ("pool_same_pad", dict(kernel=2, stride=2, pad=2, pooling_convention="same")),
    ("pool_same_pad_late", dict(kernel=2, stride=2, pad=(0, 1), pooling_convention="same")),
    ("pool_long_pad", dict(kernel=2, stride=(2, 1), pad=(1, 0, 0))),
]
SPLIT_CASES = [  # symbol.split_v2(data (4, 3), indices_or_sections, axis)
    ("split_indices", (1, 3), 0),
    ("split_sections", 3, 1),
]


_SYM = [[4.0, 1.0, -2.0, 0.5], [1.0, 3.0, 0.0, 1.0], [-2.0, 0.0, 5.0, -1.5], [0.5, 1.0, -1.5, 2.0]]
_SPD = [[4.0, 2.0, 0.4], [2.0, 5.0, 1.0], [0.4, 1.0, 3.0]]
_GEMM_A = [[[[1.0, 2.0], [3.0, 4.0]]], [[[0.5, -1.0], [2.0, 0.0]]]]           # (2, 1, 2, 2)
_GEMM_B = [[[[2.0, 0.0], [1.0, 1.0]]], [[[1.0, 3.0], [-1.0, 2.0]]]]
def _rows_on_1(m):
    """(2, 1, 2, 2) nested lists -> (2, 2, 1, 2): the matrix rows on axis 1 (-3)."""
    return [[[row] for row in mats[0]] for mats in m]


# (name, linalg function, [(input values, dtype)], attributes); inputs of gemm cases are laid
# out with the matrix rows on ``axis``
LINALG_CASES = [
    ("syevd_f64", "syevd", [(_SYM, "float64")], {}),
    ("syevd_f32", "syevd", [([[1.0, 2.0], [2.0, 4.0]], "float32")], {}),
    ("syevd_batch", "syevd", [([_SYM, [[2.0, 0.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0],
                                       [0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 1.0]]], "float64")], {}),
    ("potrf_upper", "potrf", [(_SPD, "float64")], {"lower": False}),
    ("potri_upper", "potri", [([[2.0, 1.0, 0.2], [0.0, 2.0, 0.4], [0.0, 0.0, 1.5]], "float64")],
     {"lower": False}),
    ("gemm2_axis0", "gemm2", [(_GEMM_A, "float64"), (_GEMM_B, "float64")], {"axis": 0}),
    ("gemm2_axis-3", "gemm2", [(_rows_on_1(_GEMM_A), "float64"), (_rows_on_1(_GEMM_B), "float64")],
     {"axis": -3, "alpha": 2.0}),
    ("gemm_axis0", "gemm", [(_GEMM_A, "float64"), (_GEMM_B, "float64"), (_GEMM_A, "float64")],
     {"axis": 0, "alpha": 4.0, "beta": 7.0, "transpose_a": True}),
]


def _linalg(mx, np, out):
    for name, fn, ins, attrs in LINALG_CASES:
        res = getattr(mx.nd.linalg, fn)(*[mx.nd.array(v, dtype=d) for v, d in ins], **attrs)
        res = res if isinstance(res, (list, tuple)) else [res]
        out[name] = {"outputs": [r.asnumpy().tolist() for r in res],
                     "dtypes": [np.dtype(r.dtype).name for r in res]}
    # syevd's gradient (the symmetric one) for given head gradients of U and L
    a = mx.nd.array(_SYM, dtype="float64")
    a.attach_grad()
    with mx.autograd.record():
        u, lam = mx.nd.linalg.syevd(a)
        loss = (u * mx.nd.array(np.arange(16.0).reshape(4, 4) / 10, dtype="float64")).sum() + \
            (lam * mx.nd.array([1.0, -2.0, 0.5, 3.0], dtype="float64")).sum()
    loss.backward()
    out["syevd_grad"] = {"outputs": [a.grad.asnumpy().tolist()]}
    # shape inference of a weight multiplied with a float64 constant (no dtype conflict)
    mask = mx.sym.one_hot(mx.sym.arange(start=0, stop=3, step=1, dtype="int32"), depth=3,
                          dtype="float64")
    s = mx.sym.broadcast_mul(mx.sym.var("w"), mx.sym.reshape(mask, shape=(1, 3, 3)))
    out["infer_f64_constant"] = {"shapes": [list(x) for x in s.infer_shape(w=(2, 3, 3))[1]],
                                 "types": [np.dtype(t).name for t in s.infer_type()[0]]}


# symbols made with an explicit axis=None: (name, op, attributes); MXNet stores "None"
NONE_AXIS_CASES = [("sort_none", "sort", {"axis": None}), ("topk_none", "topk", {"axis": None, "k": 3}),
                   ("sum_none", "sum", {"axis": None}), ("argsort_none", "argsort", {"axis": None})]


NON_DIFFERENTIABLE_CASES = [
    ("nodiff_batch_take", lambda mx, x, idx: mx.sym.batch_take(x, idx), {"x": (4, 3), "idx": (4,)}),
    ("nodiff_argmax_channel", lambda mx, x, idx: mx.sym.argmax_channel(x), {"x": (4, 3)}),
    ("nodiff_behind_stop_gradient",
     lambda mx, x, idx: mx.sym.stop_gradient(mx.sym.batch_take(x, idx)), {"x": (4, 3), "idx": (4,)}),
]


_SQ = [[0.0, 0.0, 0.0], [1.0, -2.0, 0.5], [0.0, 0.0, 0.0], [3.0, 4.0, -1.0]]
# (name, input (values, dtype), attributes): value, and gradient for the head arange(1, n+1)
SQUARE_SUM_CASES = [
    ("square_sum_axis1", (_SQ, "float32"), {"axis": 1}),
    ("square_sum_axis1_keepdims", (_SQ, "float32"), {"axis": 1, "keepdims": True}),
    ("square_sum_axis0", (_SQ, "float32"), {"axis": 0}),
    ("square_sum_axis0_keepdims", (_SQ, "float32"), {"axis": 0, "keepdims": True}),
    ("square_sum_axis_tuple", (_SQ, "float32"), {"axis": (1,)}),
    ("square_sum_axis_negative", (_SQ, "float32"), {"axis": -1}),
    ("square_sum_no_axis", (_SQ, "float32"), {}),
    ("square_sum_3d", ([[[1.0, 2.0], [3.0, 4.0]]], "float32"), {"axis": 1}),
]


def _square_sum(mx, np, out):
    for name, (v, dt), attrs in SQUARE_SUM_CASES:
        x = mx.nd.array(v, dtype=dt).tostype("row_sparse")
        try:
            y = mx.nd._internal._square_sum(x, **attrs)
            y.wait_to_read()
        except mx.base.MXNetError as e:
            out[name] = {"error": "MXNetError", "message": [
                ln for ln in str(e).splitlines() if "Check failed" in ln][-1]}
            continue
        x.attach_grad(stype="row_sparse")
        with mx.autograd.record():
            y = mx.nd._internal._square_sum(x, **attrs)
        n = int(np.prod(y.shape))
        y.backward(mx.nd.array(np.arange(1, n + 1).reshape(y.shape), dtype=dt))
        out[name] = {"outputs": [y.asnumpy().tolist()], "dtypes": [np.dtype(y.dtype).name],
                     "grad": x.grad.asnumpy().tolist()}
    v = mx.sym.var("v", stype="row_sparse")
    s = mx.sym._internal._square_sum(v, axis=1, keepdims=True)
    out["square_sum_sym"] = {"attrs": s.list_attr(),
                             "shapes": [list(x) for x in s.infer_shape(v=(4, 3))[1]],
                             "types": [np.dtype(t).name for t in s.infer_type(v="float64")[1]]}


def _none_axis(mx, out):
    import numpy as np
    for name, fn, attrs in NONE_AXIS_CASES:
        s = getattr(mx.sym, fn)(mx.sym.var("a"), **attrs)
        out[name] = {"attrs": s.list_attr(), "shapes": [list(x) for x in s.infer_shape(a=(5, 5, 5, 5))[1]]}
    # an argmax output takes any head gradient: MXNet never reads it
    a = mx.sym.var("a")
    exe = mx.sym.argmax(a, axis=1, keepdims=True).bind(mx.cpu(), {"a": mx.nd.ones((2, 3))},
                                                       args_grad={"a": mx.nd.ones((2, 3))})
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((2, 3)))
    out["argmax_any_head"] = {"grad": exe.grad_arrays[0].asnumpy().tolist()}
    # ops without any gradient: binding them for gradients fails, grad_req='null' binds
    types = {"x": np.float32, "idx": np.int32, "not_an_input": np.float16}
    for name, make, shapes in NON_DIFFERENTIABLE_CASES:
        x, idx = mx.sym.var("x"), mx.sym.var("idx")
        s = make(mx, x, idx)
        rec = {"null": list(s.simple_bind(mx.cpu(), grad_req="null", type_dict=types,
                                          **shapes).arg_arrays[0].shape)}
        try:
            s.simple_bind(mx.cpu(), type_dict=types, **shapes)
            rec["write"] = "bound"
        except Exception as e:  # noqa: BLE001  (MXNet raises a RuntimeError subclass)
            rec["write"] = [ln for ln in str(e).splitlines() if "differentiable" in ln][0]
        out[name] = rec


def main():
    mx = golden_files.real_mxnet()
    import numpy as np
    out = {}
    for name, fn, ins, attrs, bins in CASES:
        args = [mx.nd.array(v, dtype=d) for v, d in ins]
        kw = dict(attrs)
        if bins is not None:
            kw["bins"] = mx.nd.array(bins[0], dtype=bins[1])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            res = getattr(mx.nd, fn)(*args, **kw)
        res = res if isinstance(res, (list, tuple)) else [res]
        out[name] = {"outputs": [r.asnumpy().tolist() for r in res],
                     "dtypes": [np.dtype(r.dtype).name for r in res],
                     "warnings": [str(x.message) for x in w]}
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    for name, ios, axis in SPLIT_CASES:
        s = mx.sym.split_v2(mx.sym.var("data"), indices_or_sections=ios, axis=axis)
        ex = s.bind(mx.cpu(), {"data": mx.nd.array(data)})
        out[name] = {"list_outputs": s.list_outputs(),
                     "outputs": [o.asnumpy().tolist() for o in ex.forward()]}
    for name, bad in (("split_bad", [1]),):
        try:
            mx.sym.split_v2(mx.sym.var("data"), bad)
        except Exception as e:  # noqa: BLE001  (record MXNet's error type and text)
            out[name] = {"error": type(e).__name__, "message": str(e)}
    try:
        mx.sym.histogram(mx.sym.var("a"), bins=3)
    except Exception as e:  # noqa: BLE001
        out["sym_hist_no_range"] = {"error": type(e).__name__, "message": str(e)}
    data = mx.nd.array([[0, 1, 2], [3, 4, 5]])
    for name, idx in GATHER_CASES:
        try:
            out[name] = {"outputs": mx.nd.gather_nd(data, mx.nd.array(idx)).asnumpy().tolist()}
        except IndexError as e:
            out[name] = {"error": "IndexError", "message": str(e).strip().splitlines()[-1]}
    x = mx.nd.array(np.arange(10.0).reshape(1, 1, 10))
    for name, kw in POOL_CASES:
        try:
            out[name] = {"outputs": mx.nd.Pooling(x, pool_type="max", **kw).asnumpy().tolist()}
        except mx.base.MXNetError as e:
            out[name] = {"error": "MXNetError",
                         "message": [ln for ln in str(e).splitlines() if "Check failed" in ln][-1]}
    _linalg(mx, np, out)
    _none_axis(mx, out)
    _square_sum(mx, np, out)
    os.makedirs(os.path.dirname(JSON_PATH), exist_ok=True)
    with open(JSON_PATH, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
