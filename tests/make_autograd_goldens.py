"""Golden gradients from real MXNet 1.9.1 for tests/test_autograd.py.

Run with the reference interpreter (it must import the real ``mxnet``):

    /work/mxref/bin/python tests/make_autograd_goldens.py

Writes ``tests/goldens/autograd/cases.json`` (one entry per case) and
``tests/goldens/autograd/cases.npz`` (the arrays), byte-for-byte
deterministic (sorted keys, fixed zip timestamps).

A case is a function ``f(mx, nd, ag)`` written against the MXNet 1.x API
only, so that the very same function runs on xnd (``test_autograd.py``
imports this file without running it). It returns an ordered list of
``(name, value)``: NDArrays (compared by dtype, shape and value), None, bools,
numbers, strings. A case that raises is recorded as an error (class name and
message); xnd must raise the same kind of error. ``needs`` lists the ``nd``
functions a case uses beyond the core, so xnd skips it until they exist.

JSON entry: ``{"kind": "ok", "outputs": [[name, enc], ...]}`` or
``{"kind": "error", "cls": ..., "message": ...}``; ``enc`` is
``{"t": "array", "dtype", "shape", "npz"}``, ``{"t": "none"}``,
``{"t": "scalar", "value"}`` or ``{"t": "str", "value"}``.
"""
import io
import json
import os
import re
import sys
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(HERE, "goldens", "autograd")
JSON_PATH = os.path.join(GOLDEN_DIR, "cases.json")
NPZ_PATH = os.path.join(GOLDEN_DIR, "cases.npz")

CASES = {}   # name -> (function, needs)


def case(name, needs=()):
    def deco(f):
        if name in CASES:
            raise ValueError("duplicate case " + name)
        CASES[name] = (f, tuple(needs))
        return f
    return deco


def rs(seed):
    return np.random.RandomState(seed)


def var(nd, data, dtype="float32", req="write"):
    x = nd.array(np.asarray(data), dtype=dtype)
    x.attach_grad(req)
    return x


# ---------------------------------------------------------------------------------------------
# elementwise math: d/dx of f(x) with a random head gradient
# ---------------------------------------------------------------------------------------------
_U = rs(0).uniform(0.2, 0.8, (2, 3))
_S = np.array([[-0.7, 0.4, -0.25], [0.9, -1.3, 0.6]])
UNARY = {
    "sin": _U, "cos": _U, "tan": _U, "arcsin": _U, "arccos": _U, "arctan": _S, "sinh": _S,
    "cosh": _S, "tanh": _S, "arcsinh": _S, "arccosh": _U + 1.1, "arctanh": _U - 0.3, "exp": _S,
    "expm1": _S, "log": _U, "log2": _U, "log10": _U, "log1p": _U, "sqrt": _U, "rsqrt": _U,
    "cbrt": _U, "rcbrt": _U, "square": _S, "reciprocal": _U, "abs": _S, "sigmoid": _S,
    "relu": _S, "softsign": _S, "erf": _S, "erfinv": _U - 0.5, "gamma": _U + 0.5,
    "gammaln": _U + 0.5, "degrees": _S, "radians": _S, "negative": _S, "sign": _S, "round": _S,
    "floor": _S, "ceil": _S, "trunc": _S, "fix": _S, "rint": _S,
}


def _unary_case(name, data):
    def f(mx, nd, ag):
        x = var(nd, data)
        h = nd.array(rs(1).uniform(-1, 1, data.shape))
        with ag.record():
            y = getattr(nd, name)(x)
        y.backward(h)
        return [("y", y), ("grad", x.grad)]
    return f


for _n, _d in UNARY.items():
    case("unary_" + _n, needs=(_n,))(_unary_case(_n, _d))


# ---------------------------------------------------------------------------------------------
# binary ops, same shape and broadcasting, and scalar ops
# ---------------------------------------------------------------------------------------------
_A = rs(2).uniform(0.5, 1.5, (2, 3))
_B = rs(3).uniform(0.5, 1.5, (2, 3))
BINARY = ["elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "maximum", "minimum",
          "power", "broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div",
          "broadcast_power", "broadcast_maximum", "broadcast_minimum", "broadcast_hypot",
          "add", "subtract", "multiply", "divide"]


def _binary_case(name, shape_b):
    def f(mx, nd, ag):
        a = var(nd, _A)
        b = var(nd, _B[:shape_b[0], :shape_b[1]])
        h = nd.array(rs(4).uniform(-1, 1, (2, 3)))
        with ag.record():
            y = getattr(nd, name)(a, b)
        y.backward(h)
        return [("y", y), ("ga", a.grad), ("gb", b.grad)]
    return f


for _n in BINARY:
    case("binary_" + _n, needs=(_n,))(_binary_case(_n, (2, 3)))
    if _n.startswith("broadcast_") or _n in ("add", "subtract", "multiply", "divide", "maximum",
                                              "minimum", "power"):
        case("bcast_row_" + _n, needs=(_n,))(_binary_case(_n, (1, 3)))
        case("bcast_col_" + _n, needs=(_n,))(_binary_case(_n, (2, 1)))

OPERATORS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "pow": lambda a, b: a ** b, "mod": lambda a, b: a % b,
    "neg_mix": lambda a, b: -a * b + a / (b + 1),
}
for _n, _f in OPERATORS.items():
    def _op_case(fn=_f):
        def f(mx, nd, ag):
            a, b = var(nd, _A * 2), var(nd, _B)
            with ag.record():
                y = fn(a, b)
            y.backward()
            return [("y", y), ("ga", a.grad), ("gb", b.grad)]
        return f
    case("operator_" + _n)(_op_case())

SCALAR = {
    "plus": lambda x: x + 2, "rplus": lambda x: 2 + x, "minus": lambda x: x - 2,
    "rminus": lambda x: 2 - x, "mul": lambda x: x * 3, "rmul": lambda x: 3 * x,
    "div": lambda x: x / 4, "rdiv": lambda x: 4 / x, "pow": lambda x: x ** 3,
    "rpow": lambda x: 2 ** x, "mod": lambda x: x % 0.7, "rmod": lambda x: 5.0 % x,
}
for _n, _f in SCALAR.items():
    def _scalar_case(fn=_f):
        def f(mx, nd, ag):
            x = var(nd, _A)
            with ag.record():
                y = fn(x)
            y.backward()
            return [("y", y), ("grad", x.grad)]
        return f
    case("scalar_" + _n)(_scalar_case())


@case("scalar_maximum_minimum_clip", needs=("maximum", "minimum", "clip"))
def _(mx, nd, ag):
    x = var(nd, _S)
    with ag.record():
        y = nd.maximum(x, 0.1) + nd.minimum(x, -0.3) + nd.clip(x, -0.5, 0.5) * 2
    y.backward()
    return [("y", y), ("grad", x.grad)]


# ---------------------------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------------------------
_R = rs(5).permutation(24).reshape(2, 3, 4).astype(np.float32) / 10 + 0.1
REDUCE = {
    "sum": lambda nd, x: nd.sum(x),
    "sum_axis1": lambda nd, x: nd.sum(x, axis=1),
    "sum_axes_keepdims": lambda nd, x: nd.sum(x, axis=(0, 2), keepdims=True),
    "sum_exclude": lambda nd, x: nd.sum(x, axis=1, exclude=True),
    "mean": lambda nd, x: nd.mean(x),
    "mean_axis0": lambda nd, x: nd.mean(x, axis=0),
    "max": lambda nd, x: nd.max(x),
    "max_axis2": lambda nd, x: nd.max(x, axis=2),
    "min_axis1": lambda nd, x: nd.min(x, axis=1),
    "prod": lambda nd, x: nd.prod(x, axis=2),
    "nansum": lambda nd, x: nd.nansum(x, axis=0),
    "norm": lambda nd, x: nd.norm(x),
    "norm_axis": lambda nd, x: nd.norm(x, axis=1),
    "norm_l1": lambda nd, x: nd.norm(x - 1.25, ord=1, axis=2),
    "method_sum_mean": lambda nd, x: x.sum(axis=0) * x.mean(),
}
for _n, _f in REDUCE.items():
    def _reduce_case(fn=_f):
        def f(mx, nd, ag):
            x = var(nd, _R)
            with ag.record():
                y = fn(nd, x)
            h = nd.array(rs(6).uniform(-1, 1, y.shape))
            y.backward(h)
            return [("y", y), ("grad", x.grad)]
        return f
    case("reduce_" + _n)(_reduce_case())


# subgradients where the function is not differentiable (MXNet's choices)
TIES = {
    "abs_at_zero": (lambda nd, x: nd.abs(x), [0., 1, -1]),
    "relu_at_zero": (lambda nd, x: nd.relu(x), [0., 1, -1]),
    "activation_relu_at_zero": (lambda nd, x: nd.Activation(x, act_type="relu"), [0., 1, -1]),
    "norm_l1_at_zero": (lambda nd, x: nd.norm(x, ord=1), [0., 1, -1]),
    "max_ties": (lambda nd, x: nd.max(x), [1., 3, 3]),
    "max_axis_ties": (lambda nd, x: nd.max(x, axis=1), [[1., 3, 3], [2, 2, 2]]),
    "min_ties": (lambda nd, x: nd.min(x), [1., 1, 3]),
    "maximum_ties": (lambda nd, x: nd.maximum(x, nd.array([1., 1, 4])), [1., 2, 3]),
    "maximum_ties_rhs": (lambda nd, x: nd.maximum(nd.array([1., 1, 4]), x), [1., 2, 3]),
    "minimum_ties": (lambda nd, x: nd.minimum(x, nd.array([1., 1, 4])), [1., 2, 3]),
    "maximum_scalar_tie": (lambda nd, x: nd.maximum(x, 2.0), [1., 2, 3]),
    "minimum_scalar_tie": (lambda nd, x: nd.minimum(x, 2.0), [1., 2, 3]),
    "clip_bounds": (lambda nd, x: nd.clip(x, 1.0, 2.0), [1., 2, 3, 1.5, 0]),
    "topk_ties": (lambda nd, x: nd.topk(x, k=2, ret_typ="value"), [3., 3, 3, 1]),
    "pool_max_ties": (lambda nd, x: nd.Pooling(x, kernel=(2, 2), pool_type="max"),
                      [[[[1., 1], [1, 1]]]]),
    "smooth_l1_at_sigma": (lambda nd, x: nd.smooth_l1(x, scalar=1.0), [1., -1, 0]),
}
for _n, (_f, _d) in TIES.items():
    def _tie_case(fn=_f, data=_d):
        def f(mx, nd, ag):
            x = var(nd, data)
            with ag.record():
                y = fn(nd, x)
            y.backward()
            return [("y", y), ("grad", x.grad)]
        return f
    case("tie_" + _n, needs=("Pooling",) if "pool" in _n else ())(_tie_case())


# ---------------------------------------------------------------------------------------------
# dot, batch_dot, linalg
# ---------------------------------------------------------------------------------------------
@case("dot")
def _(mx, nd, ag):
    a, b = var(nd, rs(7).randn(2, 3)), var(nd, rs(8).randn(3, 4))
    with ag.record():
        y = nd.dot(a, b)
    y.backward(nd.array(rs(9).randn(2, 4)))
    return [("y", y), ("ga", a.grad), ("gb", b.grad)]


@case("dot_transpose")
def _(mx, nd, ag):
    a, b = var(nd, rs(7).randn(3, 2)), var(nd, rs(8).randn(4, 3))
    with ag.record():
        y = nd.dot(a, b, transpose_a=True, transpose_b=True)
    y.backward()
    return [("y", y), ("ga", a.grad), ("gb", b.grad)]


@case("dot_vector")
def _(mx, nd, ag):
    a, b = var(nd, [1., 2, 3]), var(nd, [4., 5, 6])
    with ag.record():
        y = nd.dot(a, b)
    y.backward()
    return [("y", y), ("ga", a.grad), ("gb", b.grad)]


@case("batch_dot")
def _(mx, nd, ag):
    a, b = var(nd, rs(7).randn(2, 2, 3)), var(nd, rs(8).randn(2, 4, 3))
    with ag.record():
        y = nd.batch_dot(a, b, transpose_b=True)
    y.backward(nd.array(rs(9).randn(2, 2, 4)))
    return [("y", y), ("ga", a.grad), ("gb", b.grad)]


@case("linalg_gemm2", needs=("linalg_gemm2",))
def _(mx, nd, ag):
    a, b = var(nd, rs(7).randn(2, 3)), var(nd, rs(8).randn(3, 2))
    with ag.record():
        y = nd.linalg_gemm2(a, b, alpha=2.0)
    y.backward()
    return [("y", y), ("ga", a.grad), ("gb", b.grad)]


# ---------------------------------------------------------------------------------------------
# shapes, views, slicing, indexing
# ---------------------------------------------------------------------------------------------
_M = np.arange(24, dtype=np.float32).reshape(4, 6) / 10
SHAPE = {
    "reshape_method": lambda nd, x: x.reshape((3, 8)) * nd.array(np.arange(24).reshape(3, 8)),
    "reshape_codes": lambda nd, x: nd.reshape(x, shape=(-1, 0)) * 2,
    "reshape_view_chain": lambda nd, x: x.reshape((2, 12))[1].reshape((3, 4))[1:] * 3,
    "getitem_row": lambda nd, x: x[1] * 2,
    "getitem_rows": lambda nd, x: x[1:3] * 2,
    "getitem_col": lambda nd, x: x[:, 1] * nd.array([1., 2, 3, 4]),
    "getitem_int_int": lambda nd, x: x[1, 2] * 5,
    "getitem_step": lambda nd, x: x[::2, 1:5:2] * 2,
    "getitem_negative_step": lambda nd, x: x[::-1] * nd.array(np.arange(24).reshape(4, 6)),
    "getitem_ellipsis_newaxis": lambda nd, x: x[None, ..., 2] * 3,
    "getitem_ndarray": lambda nd, x: x[nd.array([1, 1, 3])] * 2,
    "getitem_list": lambda nd, x: x[[0, 2, 2]] * 2,
    "getitem_2d_adv": lambda nd, x: x[nd.array([0, 1, 1]), nd.array([2, 3, 3])] * 2,
    "transpose": lambda nd, x: nd.transpose(x) * nd.array(np.arange(24).reshape(6, 4)),
    "T": lambda nd, x: x.T * nd.array(np.arange(24).reshape(6, 4)),
    "expand_dims": lambda nd, x: nd.expand_dims(x, axis=1) * 2,
    "flatten": lambda nd, x: nd.flatten(x.reshape((2, 3, 4))) * 2,
    "squeeze": lambda nd, x: nd.squeeze(x.reshape((1, 4, 1, 6))) * 2,
    "swapaxes": lambda nd, x: nd.swapaxes(x, 0, 1) * nd.array(np.arange(24).reshape(6, 4)),
    "tile": lambda nd, x: nd.tile(x, reps=(2, 1)),
    "repeat": lambda nd, x: nd.repeat(x, repeats=2, axis=1),
    "reverse": lambda nd, x: nd.reverse(x, axis=1) * nd.array(np.arange(24).reshape(4, 6)),
    "broadcast_to": lambda nd, x: nd.broadcast_to(x[0:1], shape=(3, 6)) * 2,
    "broadcast_axis": lambda nd, x: nd.broadcast_axis(x[:, 0:1], axis=1, size=3),
    "slice": lambda nd, x: nd.slice(x, begin=(1, 0), end=(3, 5), step=(1, 2)),
    "slice_axis": lambda nd, x: nd.slice_axis(x, axis=1, begin=-3, end=None) * 2,
    "take": lambda nd, x: nd.take(x, nd.array([3, 0, 3])),
    "take_axis1": lambda nd, x: nd.take(x, nd.array([[1, 5], [5, 5]]), axis=1),
    "pick": lambda nd, x: nd.pick(x, nd.array([0, 5, 2, 2]), axis=1),
    "pick_keepdims": lambda nd, x: nd.pick(x, nd.array([0, 1, 2, 3, 0, 1]), axis=0,
                                           keepdims=True),
    "gather_nd": lambda nd, x: nd.gather_nd(x, nd.array([[0, 3, 3], [1, 2, 2]])),
    "where": lambda nd, x: nd.where(nd.array((np.arange(24).reshape(4, 6) % 3 == 0) * 1.0),
                                    x, x * 3),
    "concat": lambda nd, x: nd.concat(x, x * 2, dim=0),
    "concat_dim1": lambda nd, x: nd.concat(x[0:2], x[2:4], dim=1) * 2,
    "stack": lambda nd, x: nd.stack(x, x * x, axis=1),
    "add_n": lambda nd, x: nd.add_n(x, x * 2, x * x),
    "cast": lambda nd, x: nd.cast(x, dtype="float64") * 2,
    "astype": lambda nd, x: x.astype("float64") * 2,
    "softmax": lambda nd, x: nd.softmax(x) * nd.array(np.arange(24).reshape(4, 6)),
    "softmax_axis0_temperature": lambda nd, x: nd.softmax(x, axis=0, temperature=2.0)
    * nd.array(np.arange(24).reshape(4, 6)),
    "log_softmax": lambda nd, x: nd.log_softmax(x) * nd.array(np.arange(24).reshape(4, 6)),
    "softmin": lambda nd, x: nd.softmin(x) * nd.array(np.arange(24).reshape(4, 6)),
    "smooth_l1": lambda nd, x: nd.smooth_l1(x - 1.2, scalar=1.5),
    "sort": lambda nd, x: nd.sort(nd.sin(x * 7), axis=1) * nd.array(np.arange(24).reshape(4, 6)),
    "topk_value": lambda nd, x: nd.topk(nd.sin(x * 7), k=2, ret_typ="value") * 3,
    "cumsum": lambda nd, x: nd.cumsum(x, axis=1) * x,
    "diag": lambda nd, x: nd.diag(x[:, 0:4]) * 2,
    "broadcast_like": lambda nd, x: nd.broadcast_like(x[0:1], x) * x,
    "slice_like": lambda nd, x: nd.slice_like(x, nd.zeros((2, 3))) * 2,
    "reshape_like": lambda nd, x: nd.reshape_like(x, nd.zeros((6, 4))) * 2,
}
_SHAPE_NEEDS = {"gather_nd": ("gather_nd",), "where": ("where",), "smooth_l1": ("smooth_l1",),
                "sort": ("sort",), "topk_value": ("topk",), "cumsum": ("cumsum",),
                "diag": ("diag",), "broadcast_like": ("broadcast_like",),
                "slice_like": ("slice_like",), "reshape_like": ("reshape_like",),
                "add_n": ("add_n",), "cast": ("cast",)}
for _n, _f in SHAPE.items():
    def _shape_case(fn=_f):
        def f(mx, nd, ag):
            x = var(nd, _M + 0.05)
            with ag.record():
                y = fn(nd, x)
            y.backward()
            return [("y", y), ("grad", x.grad)]
        return f
    case("shape_" + _n, needs=_SHAPE_NEEDS.get(_n, ()))(_shape_case())


@case("split_outputs")
def _(mx, nd, ag):
    x = var(nd, _M)
    with ag.record():
        a, b, c = nd.split(x, num_outputs=3, axis=1)
        y = a * 2 + c * c
    y.backward()
    return [("y", y), ("grad", x.grad)]


@case("split_squeeze_heads")
def _(mx, nd, ag):
    x = var(nd, _M)
    with ag.record():
        parts = nd.split(x, num_outputs=4, axis=0, squeeze_axis=True)
    ag.backward(parts[1:3], [nd.ones(6) * 2, nd.ones(6) * 3])
    return [("grad", x.grad)]


# ---------------------------------------------------------------------------------------------
# in-place writes, out=, views and copies
# ---------------------------------------------------------------------------------------------
@case("setitem_full_into_constant")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    t = nd.zeros(3)
    with ag.record():
        t[:] = x * 2
        u = t * 3
    u.backward()
    return [("t", t), ("grad", x.grad)]


@case("out_into_constant")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    t = nd.zeros(3)
    with ag.record():
        nd.elemwise_mul(x, x, out=t)
        u = t * 3
    u.backward()
    return [("t", t), ("grad", x.grad)]


@case("inplace_outside_record_then_use")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    x += 1
    c = nd.array([1., 1, 1])
    c *= 5
    with ag.record():
        y = x * c
    y.backward()
    return [("grad", x.grad)]


@case("reuse_after_backward")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    with ag.record():
        y = x * 2
        z = y * 3
    z.backward()
    g1 = x.grad.copy()
    with ag.record():
        y += 1  # y's history was freed by the backward: allowed again
        w = y * x
    w.backward()
    return [("g1", g1), ("y", y), ("grad", x.grad)]


@case("copy_and_context")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    with ag.record():
        y = x.as_in_context(mx.cpu()) * 2 + x.copy() * 3 + x.copyto(mx.cpu()) * 4
    y.backward()
    return [("grad", x.grad)]


@case("identity_and_detach")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    with ag.record():
        y = nd.identity(x) * x.detach() * 2
    y.backward()
    return [("grad", x.grad)]


@case("detach_view_outside_record")
def _(mx, nd, ag):
    x = var(nd, [[1., 2], [3, 4]])
    v = x[1]  # a view made outside record is not in the graph
    with ag.record():
        y = x * v
    y.backward()
    return [("grad", x.grad)]


@case("pause_constants")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    with ag.record():
        y = x * 2
        with ag.pause():
            z = y * 3
        w = z * x
    w.backward()
    return [("grad", x.grad)]


@case("block_grad", needs=("BlockGrad", "stop_gradient"))
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    with ag.record():
        y = nd.BlockGrad(x * x) + x
    y.backward()
    g1 = x.grad.copy()
    with ag.record():
        y = nd.stop_gradient(x * x) * x
    y.backward()
    return [("y", y), ("g1", g1), ("g2", x.grad)]


@case("make_loss", needs=("make_loss", "MakeLoss"))
def _(mx, nd, ag):
    x = var(nd, [[1., -2, 3], [0.5, 0, -1]])
    out = []
    for i, kw in enumerate([{}, {"grad_scale": 3}, {"normalization": "batch"},
                            {"normalization": "valid"},
                            {"normalization": "valid", "valid_thresh": 100}]):
        with ag.record():
            y = nd.MakeLoss(x * 2, **kw)
        y.backward(nd.ones((2, 3)) * 7)
        out.append(("MakeLoss%d" % i, x.grad.copy()))
    with ag.record():
        y = nd.make_loss(x * 2)
    y.backward(nd.ones((2, 3)) * 7)
    out.append(("make_loss", x.grad))
    out.append(("y", y))
    return out


# ---------------------------------------------------------------------------------------------
# grad_req, heads, several backwards
# ---------------------------------------------------------------------------------------------
@case("grad_after_attach")
def _(mx, nd, ag):
    x = nd.array([1., 2, 3])
    before = x.grad
    x.attach_grad()
    g0 = x.grad.copy()
    xi = nd.array([1, 2], dtype="int32")
    xi.attach_grad()
    xd = nd.array([1, 2], dtype="float64")
    xd.attach_grad()
    return [("before", before), ("g0", g0), ("gi", xi.grad), ("gd", xd.grad)]


@case("grad_req_write_overwrites")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    for k in (2, 5):
        with ag.record():
            y = x * x * k
        y.backward()
    return [("grad", x.grad)]


@case("grad_req_add_accumulates")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3], req="add")
    with ag.record():
        y = x * x
    y.backward(retain_graph=True)
    g1 = x.grad.copy()
    y.backward(retain_graph=True)
    g2 = x.grad.copy()
    y.backward()
    g3 = x.grad.copy()
    with ag.record():
        z = nd.sin(x)
    z.backward()
    g4 = x.grad.copy()
    x.grad[:] = 0
    with ag.record():
        z = x * 3
    z.backward()
    return [("g1", g1), ("g2", g2), ("g3", g3), ("g4", g4), ("g5", x.grad)]


@case("grad_req_null_with_other")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    n = var(nd, [4., 5, 6], req="null")
    before = n.grad
    with ag.record():
        y = x * n
    y.backward()
    return [("before", before), ("gx", x.grad), ("gn", n.grad)]


@case("retain_graph_twice")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    with ag.record():
        y = nd.exp(x) * x
    y.backward(retain_graph=True)
    g1 = x.grad.copy()
    y.backward(nd.array([1., 2, 3]))
    return [("g1", g1), ("g2", x.grad)]


@case("head_grad_seed")
def _(mx, nd, ag):
    x = nd.array([[1, 2], [3, 4]])
    x.attach_grad()
    with ag.record():
        y = x * 2
        z = y * x
    z.backward()
    g1 = x.grad.copy()
    with ag.record():
        y = x * 2
        z = y * x
    z.backward(nd.array([[10, 1.], [.1, .01]]))
    return [("g1", g1), ("eq", x.grad == 4 * x), ("g2", x.grad)]


@case("heads_several")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    with ag.record():
        y1 = x * x
        y2 = nd.sin(x)
        a = x * 2
        y3 = a * 3
    ag.backward([y1, y2], [None, nd.array([1., 10, 100])])
    g1 = x.grad.copy()
    ag.backward([y3, a])
    return [("g1", g1), ("g2", x.grad)]


@case("heads_shared_subgraph")
def _(mx, nd, ag):
    x = var(nd, [0.5, 1., 1.5])
    w = var(nd, [0.2, 0.3, 0.4])
    with ag.record():
        h = nd.tanh(x * w)
        y1 = (h * h).sum()
        y2 = (h * x).sum()
    ag.backward([y1, y2])
    return [("gx", x.grad), ("gw", w.grad)]


@case("variable_is_head")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    x.backward()
    return [("grad", x.grad)]


@case("same_variable_twice_and_chain")
def _(mx, nd, ag):
    x = var(nd, rs(10).uniform(0.1, 1, (3,)))
    with ag.record():
        y = x
        for _i in range(4):
            y = y * x + nd.sin(y)
    y.backward()
    return [("y", y), ("grad", x.grad)]


@case("dtype_float64")
def _(mx, nd, ag):
    x = var(nd, [1., 2], dtype="float64")
    with ag.record():
        y = nd.exp(x) * x
    y.backward()
    return [("grad", x.grad)]


@case("dtype_float16")
def _(mx, nd, ag):
    x = var(nd, [1., 2], dtype="float16")
    with ag.record():
        y = x * x
    y.backward()
    return [("grad", x.grad)]


@case("dtype_int32_variable")
def _(mx, nd, ag):
    x = var(nd, [1, 2, 3], dtype="int32")
    with ag.record():
        y = x * x * 3
    y.backward()
    return [("grad", x.grad)]


@case("mark_variables")
def _(mx, nd, ag):
    a = nd.array([1., 2])
    ga = nd.zeros(2)
    ag.mark_variables([a], [ga])
    with ag.record():
        y = a * a * a
    y.backward()
    b = nd.array([1., 2])
    gb = nd.ones(2)
    ag.mark_variables(b, gb, "add")
    with ag.record():
        y = b * b
    y.backward()
    return [("ga", ga), ("a_grad", a.grad), ("gb", gb)]


# ---------------------------------------------------------------------------------------------
# autograd.grad, higher order
# ---------------------------------------------------------------------------------------------
@case("grad_function")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    w = var(nd, [0.5, -1, 2])
    with ag.record():
        y = nd.sin(x) * w
    gx, gw = ag.grad(y, [x, w], head_grads=nd.array([1., 2, 3]), retain_graph=True)
    single = ag.grad(y, x, retain_graph=True)
    y.backward()
    return [("gx", gx), ("gw", gw), ("n_single", len(single)), ("single", single[0]),
            ("x_grad", x.grad)]


@case("grad_leaves_dot_grad_untouched")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3], req="add")
    with ag.record():
        y = x * x
    g = ag.grad(y, [x])
    return [("g", g[0]), ("x_grad", x.grad)]


SECOND = {
    "sin": lambda nd, x: nd.sin(x), "cos": lambda nd, x: nd.cos(x),
    "exp": lambda nd, x: nd.exp(x), "log": lambda nd, x: nd.log(x),
    "tanh": lambda nd, x: nd.tanh(x), "sigmoid": lambda nd, x: nd.sigmoid(x),
    "sqrt": lambda nd, x: nd.sqrt(x), "reciprocal": lambda nd, x: nd.reciprocal(x),
    "square": lambda nd, x: nd.square(x), "arctan": lambda nd, x: nd.arctan(x),
    "sin_exp": lambda nd, x: nd.sin(nd.exp(x)), "log_sin": lambda nd, x: nd.log(nd.sin(x)),
    "sin_plus_cos": lambda nd, x: nd.elemwise_add(nd.sin(x), nd.cos(x)),
}
for _n, _f in SECOND.items():
    def _second_case(fn=_f):
        def f(mx, nd, ag):
            x = var(nd, [0.3, 0.5, 0.7])
            with ag.record():
                y = fn(nd, x)
                dy = ag.grad(y, [x], create_graph=True)[0]
            dy.backward()
            return [("dy", dy), ("d2", x.grad)]
        return f
    case("second_order_" + _n)(_second_case())


@case("third_order_sin")
def _(mx, nd, ag):
    x = var(nd, [0.3, 0.5, 0.7])
    with ag.record():
        y = nd.sin(x)
        d1 = ag.grad(y, [x], create_graph=True)[0]
        d2 = ag.grad(d1, [x], create_graph=True)[0]
    d2.backward()
    return [("d1", d1), ("d2", d2), ("d3", x.grad)]


@case("second_order_outside_record")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    with ag.record():
        y = nd.exp(x)
    dy = ag.grad(y, [x], create_graph=True)[0]
    with ag.record():
        z = dy * 2
    z.backward()
    g1 = x.grad.copy()
    with ag.record():
        y = nd.exp(x)
    dy = ag.grad(y, [x], create_graph=True)[0]
    dy.backward()
    return [("g1", g1), ("g2", x.grad)]


@case("second_order_mixed_with_first")
def _(mx, nd, ag):
    x = var(nd, [0.3, 0.5, 0.7])
    with ag.record():
        y = nd.sin(x)
        dy = ag.grad(y, [x], create_graph=True)[0]
        z = nd.elemwise_add(dy, nd.exp(x))
    z.backward()
    return [("grad", x.grad)]


# ---------------------------------------------------------------------------------------------
# custom Function, control flow, modes
# ---------------------------------------------------------------------------------------------
@case("function_sigmoid")
def _(mx, nd, ag):
    flags = []

    class Sigmoid(ag.Function):
        def forward(self, x):
            flags.append(("fwd", ag.is_recording(), ag.is_training()))
            y = 1 / (1 + nd.exp(-x))
            self.save_for_backward(y)
            return y

        def backward(self, dy):
            y, = self.saved_tensors
            return dy * y * (1 - y)

    x = var(nd, [0., 1, 2])
    with ag.record():
        m = Sigmoid()(x)
        z = m * 3
    z.backward()
    return [("m", m), ("grad", x.grad), ("flags", str(flags))]


@case("function_two_outputs")
def _(mx, nd, ag):
    class Two(ag.Function):
        def forward(self, a, b):
            self.save_for_backward(a, b)
            return a * b, a + b

        def backward(self, g1, g2):
            a, b = self.saved_tensors
            return g1 * b + g2, g1 * a + g2

    a, b = var(nd, [1., 2]), var(nd, [3., 4])
    with ag.record():
        p, s = Two()(a, b)
        out = p * s
    out.backward()
    return [("ga", a.grad), ("gb", b.grad)]


@case("function_unrecorded_and_once")
def _(mx, nd, ag):
    class Id(ag.Function):
        def forward(self, x):
            return x * 1

        def backward(self, dy):
            return dy

    f = Id()
    y = f(nd.array([1., 2]))
    try:
        f(nd.array([1., 2]))
        again = "no error"
    except AssertionError as e:
        again = str(e)
    return [("y", y), ("again", again)]


@case("control_flow_seed")
def _(mx, nd, ag):
    def f(a):
        b = a * 2
        while nd.norm(b).asscalar() < 1000:
            b = b * 2
        if nd.sum(b).asscalar() > 0:
            c = b
        else:
            c = 100 * b
        return c
    out = []
    for i, data in enumerate([[0.3, -1.2, 0.4], [-0.5, -0.1, 0.2]]):
        a = var(nd, data)
        with ag.record():
            c = f(a)
        c.backward()
        out += [("c%d" % i, c), ("grad%d" % i, a.grad)]
    return out


@case("modes_table")
def _(mx, nd, ag):
    out = [("outside", str((ag.is_recording(), ag.is_training())))]
    with ag.record():
        out.append(("record", str((ag.is_recording(), ag.is_training()))))
        with ag.pause():
            out.append(("record_pause", str((ag.is_recording(), ag.is_training()))))
            with ag.train_mode():
                out.append(("record_pause_train", str((ag.is_recording(), ag.is_training()))))
        with ag.pause(train_mode=True):
            out.append(("record_pause_true", str((ag.is_recording(), ag.is_training()))))
        with ag.predict_mode():
            out.append(("record_predict", str((ag.is_recording(), ag.is_training()))))
    with ag.record(train_mode=False):
        out.append(("record_false", str((ag.is_recording(), ag.is_training()))))
        with ag.train_mode():
            out.append(("record_false_train", str((ag.is_recording(), ag.is_training()))))
    with ag.train_mode():
        out.append(("train", str((ag.is_recording(), ag.is_training()))))
    with ag.predict_mode():
        out.append(("predict", str((ag.is_recording(), ag.is_training()))))
    sets = [ag.set_recording(True), ag.set_recording(True), ag.set_recording(False),
            ag.set_training(True), ag.set_training(False), ag.set_training(False)]
    out.append(("sets", str(sets)))
    out.append(("after", str((ag.is_recording(), ag.is_training()))))
    return out


# ---------------------------------------------------------------------------------------------
# layers (skipped on xnd until the ops exist)
# ---------------------------------------------------------------------------------------------
@case("fully_connected_mlp", needs=("FullyConnected", "Activation", "softmax_cross_entropy"))
def _(mx, nd, ag):
    r = rs(11)
    x = nd.array(r.randn(4, 5))
    w1, b1 = var(nd, r.randn(6, 5) * 0.5), var(nd, r.randn(6) * 0.1)
    w2, b2 = var(nd, r.randn(3, 6) * 0.5), var(nd, r.randn(3) * 0.1)
    label = nd.array([0, 2, 1, 2])
    with ag.record():
        h = nd.Activation(nd.FullyConnected(x, w1, b1, num_hidden=6), act_type="tanh")
        o = nd.FullyConnected(h, w2, b2, num_hidden=3)
        loss = nd.softmax_cross_entropy(o, label)
    loss.backward()
    return [("loss", loss), ("w1", w1.grad), ("b1", b1.grad), ("w2", w2.grad), ("b2", b2.grad)]


@case("softmax_output_ignores_head", needs=("SoftmaxOutput",))
def _(mx, nd, ag):
    x = var(nd, rs(12).randn(3, 4))
    label = nd.array([0, 3, 1])
    with ag.record():
        y = nd.SoftmaxOutput(x, label)
    y.backward(nd.ones((3, 4)) * 5)
    g1 = x.grad.copy()
    with ag.record():
        y = nd.SoftmaxOutput(x, label, normalization="batch", grad_scale=2)
    y.backward()
    return [("y", y), ("g1", g1), ("g2", x.grad)]


@case("regression_outputs", needs=("LinearRegressionOutput", "LogisticRegressionOutput",
                                   "MAERegressionOutput"))
def _(mx, nd, ag):
    x = var(nd, [[1., 2], [3, 5]])
    label = nd.array([[0., 0], [1, 1]])
    out = []
    for name in ("LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput"):
        with ag.record():
            y = getattr(nd, name)(x, label)
        y.backward()
        out.append((name, x.grad.copy()))
    return out


@case("convolution_pooling", needs=("Convolution", "Pooling"))
def _(mx, nd, ag):
    r = rs(13)
    x = var(nd, r.randn(2, 2, 5, 5))
    w = var(nd, r.randn(3, 2, 3, 3) * 0.3)
    b = var(nd, r.randn(3) * 0.1)
    with ag.record():
        c = nd.Convolution(x, w, b, kernel=(3, 3), num_filter=3, pad=(1, 1))
        p = nd.Pooling(c, kernel=(2, 2), stride=(2, 2), pool_type="max")
        q = nd.Pooling(c, kernel=(3, 3), stride=(1, 1), pool_type="avg")
        y = p.sum() + (q * q).sum()
    y.backward()
    return [("y", y), ("gx", x.grad), ("gw", w.grad), ("gb", b.grad)]


@case("leaky_relu_embedding_layernorm", needs=("LeakyReLU", "Embedding", "LayerNorm"))
def _(mx, nd, ag):
    r = rs(14)
    idx = nd.array([[0, 2], [3, 2]])
    emb = var(nd, r.randn(4, 5))
    g, b = var(nd, r.uniform(0.5, 1.5, 5)), var(nd, r.randn(5) * 0.1)
    with ag.record():
        e = nd.Embedding(idx, emb, input_dim=4, output_dim=5)
        h = nd.LeakyReLU(e, act_type="leaky", slope=0.1)
        y = nd.LayerNorm(h, g, b) * nd.array(np.arange(20).reshape(2, 2, 5))
    y.backward()
    return [("y", y), ("gemb", emb.grad), ("gg", g.grad), ("gb", b.grad)]


@case("batchnorm_stats_update_in_backward", needs=("BatchNorm",))
def _(mx, nd, ag):
    x = var(nd, [[1., 2], [3, 5], [0, 1]])
    g = var(nd, [1., 2])
    b, mm, mv = nd.array([0., 0.5]), nd.zeros(2), nd.ones(2)
    w = nd.array([[1, 2], [3, 4], [5, 6]])
    with ag.record():
        y = nd.BatchNorm(x, g, b, mm, mv, fix_gamma=False)
        loss = y * y * w
    after_fwd = (mm.copy(), mv.copy())
    loss.backward()
    nd.waitall()
    out = [("mm_fwd", after_fwd[0]), ("mv_fwd", after_fwd[1]), ("mm", mm.copy()),
           ("mv", mv.copy()), ("gx", x.grad.copy()), ("gg", g.grad.copy())]
    with ag.record():
        y = nd.BatchNorm(x, g, b, mm, mv, fix_gamma=False)
        z = nd.BatchNorm(y, g, b, mm, mv, fix_gamma=False)
        loss = z * y
    loss.backward()
    nd.waitall()
    out += [("mm2", mm.copy()), ("mv2", mv.copy())]
    with ag.record(train_mode=False):
        y = nd.BatchNorm(x, g, b, mm, mv, fix_gamma=False)
    y.backward()
    nd.waitall()
    out += [("y_predict", y), ("mm3", mm), ("mv3", mv)]
    return out


# ---------------------------------------------------------------------------------------------
# errors (xnd must raise the same kind)
# ---------------------------------------------------------------------------------------------
@case("err_backward_unrecorded")
def _(mx, nd, ag):
    x = var(nd, [1., 2])
    y = x * 2
    y.backward()


@case("err_backward_twice")
def _(mx, nd, ag):
    x = var(nd, [1., 2])
    with ag.record():
        y = x * x
    y.backward()
    y.backward()


@case("err_backward_constant_only")
def _(mx, nd, ag):
    a = nd.array([1., 2])
    with ag.record():
        y = a * 2
    y.backward()


@case("err_grad_req_null_only")
def _(mx, nd, ag):
    z = var(nd, [1., 2], req="null")
    with ag.record():
        w = z * 2
    w.backward()


@case("err_grad_variable_not_marked")
def _(mx, nd, ag):
    x = var(nd, [1., 2])
    a = nd.array([3., 4])
    with ag.record():
        y = x * a
    ag.grad(y, [x, a])


@case("err_grad_variable_intermediate")
def _(mx, nd, ag):
    x = var(nd, [1., 2])
    with ag.record():
        b = x * 2
        d = b * 3
    ag.grad(d, [b])


@case("err_grad_variable_unreachable")
def _(mx, nd, ag):
    x, c = var(nd, [1., 2]), var(nd, [1., 2])
    with ag.record():
        d = x * 3
    ag.grad(d, [x, c])


@case("err_grad_empty_variables")
def _(mx, nd, ag):
    x = var(nd, [1., 2])
    with ag.record():
        d = x * 3
    ag.grad(d, [])


@case("err_inplace_on_graph_array")
def _(mx, nd, ag):
    x = var(nd, [1., 2])
    with ag.record():
        y = x * 2
        y += 1


@case("err_setitem_on_variable")
def _(mx, nd, ag):
    x = var(nd, [1., 2])
    with ag.record():
        x[:] = 5


@case("err_inplace_on_variable_after_backward")
def _(mx, nd, ag):
    x = var(nd, [1., 2])
    with ag.record():
        y = x * 2
    y.backward()
    with ag.record():
        x += 1


@case("err_inplace_on_graph_constant")
def _(mx, nd, ag):
    x = var(nd, [1., 2])
    k = nd.ones(2)
    with ag.record():
        x * k  # k becomes a constant of the graph
        k += 1


@case("err_partial_setitem_into_constant")
def _(mx, nd, ag):
    x = var(nd, [1., 2, 3])
    t = nd.zeros(3)
    with ag.record():
        t[1:] = x[:2] * 2


@case("err_inplace_constant_with_graph_operand")
def _(mx, nd, ag):
    x = var(nd, [1., 2])
    t = nd.zeros(2)
    with ag.record():
        t += x


@case("err_out_into_own_input")
def _(mx, nd, ag):
    x = var(nd, [1., 2])
    t = nd.zeros(2)
    with ag.record():
        nd.elemwise_add(t, x, out=t)


@case("err_out_into_graph_array")
def _(mx, nd, ag):
    x = var(nd, [1., 2])
    with ag.record():
        y = x * 2
        nd.elemwise_mul(x, x, out=y)


@case("err_function_called_twice")
def _(mx, nd, ag):
    class Id(ag.Function):
        def forward(self, x):
            return x * 1

        def backward(self, dy):
            return dy

    f = Id()
    f(nd.array([1.]))
    f(nd.array([1.]))


@case("err_get_symbol_not_in_graph")
def _(mx, nd, ag):
    ag.get_symbol(nd.array([1., 2]))


# ---------------------------------------------------------------------------------------------
# encoding and the driver (real MXNet only)
# ---------------------------------------------------------------------------------------------
def encode(name, value, key, arrays, ndarray_cls):
    if value is None:
        return {"t": "none"}
    if isinstance(value, ndarray_cls):
        a = value.asnumpy()
        arrays[key] = a
        return {"t": "array", "dtype": a.dtype.name, "shape": list(a.shape), "npz": key}
    if isinstance(value, str):
        return {"t": "str", "value": value}
    if isinstance(value, (bool, int, float, np.generic)):
        v = value.item() if isinstance(value, np.generic) else value
        return {"t": "scalar", "value": v, "type": type(v).__name__}
    raise TypeError("case output %s: cannot encode %r" % (name, type(value)))


def clean_message(msg):
    lines = [ln for ln in str(msg).splitlines() if ln.strip()]
    for ln in reversed(lines):
        if "Check failed" in ln or ln.startswith("MXNetError") or "Error" in ln.split(":")[0]:
            text = ln.split("MXNetError: ", 1)[-1]
            if "Check failed" in text:
                # "Check failed: <expr>: <message>" -> <message>
                text = re.split(r"\)\s?:\s", text)[-1]
            return text.strip()[:300]
    return (lines[-1] if lines else "")[:300]


def main():
    try:
        import mxnet as mx
    except ImportError:  # pragma: no cover
        sys.exit("make_autograd_goldens.py needs the real MXNet: run it with /work/mxref/bin/python")
    if getattr(mx, "__version__", None) != "1.9.1" or \
            os.path.basename(os.path.dirname(mx.__file__)) != "mxnet":
        sys.exit("make_autograd_goldens.py needs the real mxnet 1.9.1, got %s" % mx.__file__)
    from mxnet import autograd as ag
    from mxnet import nd
    results, arrays = {}, {}
    for name, (fn, _needs) in CASES.items():
        mx.random.seed(0)
        try:
            outs = fn(mx, nd, ag)
            nd.waitall()
            if outs is None:
                raise RuntimeError("case %s returned nothing and raised nothing" % name)
            enc = [[k, encode(k, v, "%s.%s" % (name, k), arrays, nd.NDArray)] for k, v in outs]
            results[name] = {"kind": "ok", "outputs": enc}
        except Exception as e:  # noqa: BLE001
            if not name.startswith("err_"):
                print("note: case %s raised %s: %s" % (name, type(e).__name__,
                                                       clean_message(e)))
            results[name] = {"kind": "error", "cls": type(e).__name__,
                             "mxnet_error": isinstance(e, mx.base.MXNetError),
                             "message": clean_message(e)}
        # every case leaves autograd's flags as it found them
        ag.set_recording(False)
        ag.set_training(False)
    doc = {"generator": "tests/make_autograd_goldens.py", "mxnet_version": mx.__version__,
           "numpy_version": np.__version__, "cases": results}
    os.makedirs(GOLDEN_DIR, exist_ok=True)
    with open(JSON_PATH, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for key in sorted(arrays):
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            data = io.BytesIO()
            np.lib.format.write_array(data, np.asarray(arrays[key]), allow_pickle=False)
            zf.writestr(info, data.getvalue())
    with open(NPZ_PATH, "wb") as f:
        f.write(buf.getvalue())
    n_err = sum(1 for r in results.values() if r["kind"] == "error")
    print("%d cases (%d errors, %d arrays) -> %s" % (len(results), n_err, len(arrays), JSON_PATH))


if __name__ == "__main__":
    main()
