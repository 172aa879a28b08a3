"""The CTC loss against MXNet 1.9.1 (goldens from tests/make_ctc_goldens.py).

The ``CTCLoss`` operator (and its aliases) eagerly under autograd and as a bound symbol
(forward and backward with the head gradient, through symbol JSON too), and
``gluon.loss.CTCLoss`` imperatively and hybridized (also exported and imported back):
losses and data gradients. Then MXNet's error checks, dtypes beyond MXNet's float32, and
loops of same-shape batches that must not recompile.
"""
import json
import os

import jax
import numpy as np
import pytest

import xnd as mx
from xnd import tiers
from xnd import autograd
from xnd.base import MXNetError
from xnd.frontend import gluon as G
from xnd.lowering import registry

import make_ctc_goldens as cases

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "ctc", "ctc.json")) as _f:
    GOLD = json.load(_f)
NPZ = np.load(os.path.join(HERE, "goldens", "ctc", "ctc.npz"), allow_pickle=False)
TOL = dict(rtol=1e-5, atol=1e-5)
LENGTHS = ("data_lengths", "label_lengths")


def _op_in(case):
    return {k: NPZ[f"op/{case}/in/{k}"] for k in GOLD["op"][case]["inputs"]}


# MXNet's float32 warp-ctc drifts over 40 peaky frames: its gradients differ from the float64
# values by up to 4e-5 there, xnd's float32 ones by 1e-6
GRAD_TOL = {"long": dict(rtol=1e-5, atol=1e-4)}


def _check_grad(case, grad):
    rows = GOLD["op"][case]["grad_rows"]
    want = NPZ[f"op/{case}/grad"]
    tol = GRAD_TOL.get(case, TOL)
    if rows is None:
        np.testing.assert_allclose(grad, want, **tol)
        return
    np.testing.assert_allclose(grad[:, rows], want, **tol)
    # unalignable samples: loss 0 and (xnd's choice where MXNet leaves memory) gradient 0
    zero = [n for n in range(grad.shape[1])
            if n not in rows and NPZ[f"op/{case}/out"][n] == 0]
    np.testing.assert_array_equal(grad[:, zero], 0)


def test_gradient_is_exact_where_mxnet_is_not():
    """A label equal to the blank: MXNet's loss counts it as a label, but its gradient on the
    blank channel does not match that loss; xnd's gradient is the derivative of the loss."""
    xs = _op_in("first_label_lengths_keep_zeros")
    attrs = GOLD["op"]["first_label_lengths_keep_zeros"]["attrs"]
    data = xs["data"].astype(np.float64)
    args = [mx.nd.array(xs[k], dtype="float64") for k in ("label", "label_lengths")]

    def loss0(d):
        return mx.nd.CTCLoss(mx.nd.array(d, dtype="float64"), *args, **attrs).asnumpy()[0]

    x = mx.nd.array(data, dtype="float64")
    x.attach_grad()
    with autograd.record():
        out = mx.nd.CTCLoss(x, *args, **attrs)
    out.backward(mx.nd.array([1.0, 0.0, 0.0], dtype="float64"))
    eps = 1e-5
    for t in range(data.shape[0]):
        hi, lo = data.copy(), data.copy()
        hi[t, 0, 0] += eps
        lo[t, 0, 0] -= eps
        fd = (loss0(hi) - loss0(lo)) / (2 * eps)
        assert abs(x.grad.asnumpy()[t, 0, 0] - fd) < 1e-6


# ---- the operator -------------------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(cases.OP_CASES))
def test_op(case):
    xs = _op_in(case)
    attrs = GOLD["op"][case]["attrs"]
    out, data, label, _ = cases.run_op(mx, autograd, xs, attrs)   # as MXNet ran it
    assert out.shape == (xs["data"].shape[1],) and out.dtype == np.float32
    np.testing.assert_allclose(out.asnumpy(), NPZ[f"op/{case}/out"], **TOL)
    _check_grad(case, data.grad.asnumpy())
    # without autograd, through keywords (the input slots by name)
    kw = {k: mx.nd.array(xs[k]) for k in LENGTHS if k in xs}
    again = mx.nd.ctc_loss(data=mx.nd.array(xs["data"]), label=label, **kw, **attrs)
    np.testing.assert_allclose(again.asnumpy(), NPZ[f"op/{case}/out"], **TOL)


def test_op_names():
    xs = _op_in("last_label_lengths")
    want = NPZ["op/last_label_lengths/out"]
    args = [mx.nd.array(xs[k]) for k in ("data", "label")]
    ll = mx.nd.array(xs["label_lengths"])
    for f in (mx.nd.CTCLoss, mx.nd.ctc_loss, mx.nd.contrib.CTCLoss, mx.nd.contrib.ctc_loss):
        # MXNet's positional convention: None for an absent data_lengths
        out = f(*args, None, ll, use_label_lengths=True, blank_label="last")
        np.testing.assert_allclose(out.asnumpy(), want, **TOL)
    for name in ("CTCLoss", "ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"):
        assert registry.get(name) is registry.get("CTCLoss")
    for f in (mx.sym.CTCLoss, mx.sym.ctc_loss, mx.sym.contrib.CTCLoss, mx.sym.contrib.ctc_loss):
        s = f(mx.sym.var("data"), mx.sym.var("label"), name="ctc")
        assert s.list_arguments() == GOLD["list_arguments"]["plain"]
    assert "blank_label" in mx.nd.CTCLoss.__doc__


# ---- symbols ------------------------------------------------------------------------------
def _json_doc(text):
    doc = json.loads(text)
    return {k: doc[k] for k in ("nodes", "arg_nodes", "node_row_ptr", "heads")}


@pytest.mark.parametrize("kind", ["plain", "label_lengths", "both_lengths"])
def test_symbol_graph_matches_mxnet(kind):
    attrs = {"plain": {}, "label_lengths": dict(use_label_lengths=True, blank_label="last"),
             "both_lengths": dict(use_data_lengths=True, use_label_lengths=True)}[kind]
    s = mx.sym.CTCLoss(mx.sym.var("data"), mx.sym.var("label"), name="ctc", **attrs)
    assert s.list_arguments() == GOLD["list_arguments"][kind]
    assert s.list_outputs() == GOLD["list_outputs"]
    assert _json_doc(s.tojson()) == _json_doc(GOLD["symbols"][kind])
    loaded = mx.sym.load_json(GOLD["symbols"][kind])
    assert loaded.list_arguments() == GOLD["list_arguments"][kind]


@pytest.mark.parametrize("case", sorted(cases.OP_CASES))
def test_symbol_bind(case):
    xs = _op_in(case)
    attrs = GOLD["op"][case]["attrs"]
    n = xs["data"].shape[1]
    # implicit variables for the lengths (ctc_data_lengths, ctc_label_lengths)
    sym = mx.sym.CTCLoss(mx.sym.var("data"), mx.sym.var("label"), name="ctc", **attrs)
    sym = mx.sym.load_json(sym.tojson())
    args = {"data": mx.nd.array(xs["data"]),
            "label": mx.nd.array(xs["label"], dtype=xs["label"].dtype)}
    for k in LENGTHS:
        if k in xs:
            args[f"ctc_{k}"] = mx.nd.array(xs[k])
    assert sorted(sym.list_arguments()) == sorted(args)
    grads = {"data": mx.nd.zeros(xs["data"].shape)}
    exe = sym.bind(mx.cpu(), args, args_grad=grads, grad_req={k: "write" if k == "data"
                                                                   else "null" for k in args})
    out = exe.forward(is_train=True)[0]
    np.testing.assert_allclose(out.asnumpy(), NPZ[f"op/{case}/out"], **TOL)
    head = xs["head"] if "head" in xs else np.ones((n,), np.float32)
    exe.backward(mx.nd.array(head))
    _check_grad(case, exe.grad_dict["data"].asnumpy())
    _, out_shapes, _ = sym.infer_shape(**{k: v.shape for k, v in args.items()})
    assert out_shapes == [(n,)]


# ---- gluon --------------------------------------------------------------------------------
def _gluon_in(case):
    names = ("pred", "label", "pred_lengths", "label_lengths", "sample_weight")
    return {k: NPZ[f"gluon/{case}/in/{k}"] for k in names if f"gluon/{case}/in/{k}" in NPZ}


def _gluon_run(case, loss_fn):
    xs = _gluon_in(case)
    pred = mx.nd.array(xs["pred"])
    pred.attach_grad()
    args = [None if a is None else mx.nd.array(a) for a in cases.gluon_call_args(xs)]
    with autograd.record():
        out = loss_fn(pred, mx.nd.array(xs["label"]), *args)
    out.backward(mx.nd.array(NPZ[f"gluon/{case}/head"]))
    np.testing.assert_allclose(out.asnumpy(), NPZ[f"gluon/{case}/out"], **TOL)
    np.testing.assert_allclose(pred.grad.asnumpy(), NPZ[f"gluon/{case}/grad"], **TOL)
    return xs, args


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("case", sorted(cases.GLUON_CASES))
def test_gluon(case, hybridize):
    loss_fn = G.loss.CTCLoss(**GOLD["gluon"][case]["kw"])
    if hybridize:
        loss_fn.hybridize()
    _gluon_run(case, loss_fn)
    if hybridize:  # the second call runs the cached graph
        _gluon_run(case, loss_fn)


@pytest.mark.parametrize("case", ["ntc", "tnc_all"])
def test_gluon_export_import(case, tmp_path):
    loss_fn = G.loss.CTCLoss(**GOLD["gluon"][case]["kw"])
    loss_fn.hybridize()
    xs, args = _gluon_run(case, loss_fn)
    path = str(tmp_path / "ctc")
    loss_fn.export(path)
    with open(path + "-symbol.json") as f:
        nodes = json.load(f)["nodes"]
    assert [nd_["op"] for nd_ in nodes].count("CTCLoss") == 1
    inputs = [nd_["name"] for nd_ in nodes if nd_["op"] == "null"]
    net = G.SymbolBlock.imports(path + "-symbol.json", inputs)
    given = [mx.nd.array(xs["pred"]), mx.nd.array(xs["label"])] + [a for a in args
                                                                    if a is not None]
    assert len(given) == len(inputs)
    np.testing.assert_allclose(net(*given).asnumpy(), NPZ[f"gluon/{case}/out"], **TOL)


def test_gluon_repr_and_layout_checks():
    assert repr(G.loss.CTCLoss()) == "CTCLoss(batch_axis=0, w=None)"
    assert G.loss.CTCLoss(label_layout="TN")._batch_axis == 1
    with pytest.raises(AssertionError):
        G.loss.CTCLoss(layout="NCT")
    with pytest.raises(AssertionError):
        G.loss.CTCLoss(label_layout="NN")


# ---- errors -------------------------------------------------------------------------------
ERROR_TEXT = {  # what xnd's message names besides the op: the argument and the shapes
    "data_2d": ("data", "(6,3)"),
    "data_4d": ("data", "(6,3,5,1)"),
    "label_1d": ("label", "(3,)"),
    "label_batch": ("label", "(2,2)", "(6,3,5)"),
    "label_longer_than_data": ("label", "(3,4)", "(2,3,5)"),
    "data_lengths_shape": ("data_lengths", "(3,)", "(2,)"),
    "label_lengths_shape": ("label_lengths", "(3,)", "(4,)"),
    "blank_label": ("blank_label", "middle"),
    "missing_data_lengths": ("expects 3 inputs", "got 2"),
    "unflagged_data_lengths": ("expects 2 inputs", "got 3"),
}


@pytest.mark.parametrize("case", sorted(cases.ERROR_CASES))
def test_errors(case):
    assert GOLD["errors"][case] is not None  # MXNet raises too
    dshape, lshape, dlshape, llshape, attrs = cases.ERROR_CASES[case]
    ins = [mx.nd.ones(dshape), mx.nd.ones(lshape)]
    ins += [mx.nd.ones(s) for s in (dlshape, llshape) if s is not None]
    with pytest.raises(MXNetError) as e:
        mx.nd.CTCLoss(*ins, **attrs).wait_to_read()
    msg = str(e.value)
    assert "CTCLoss" in msg
    for part in ERROR_TEXT[case]:
        assert part in msg, (part, msg)


def test_symbol_errors():
    s = mx.sym.CTCLoss(mx.sym.var("data"), mx.sym.var("label"))
    with pytest.raises(MXNetError, match="CTCLoss"):
        s.infer_shape(data=(6, 3, 5), label=(2, 2))
    with pytest.raises(MXNetError, match="blank_label"):
        mx.sym.CTCLoss(mx.sym.var("data"), mx.sym.var("label"), blank_label="middle")


# ---- dtypes (MXNet 1.9.1 takes float32 data only: xnd extends) ------------------------------
def test_float64_and_float16_data():
    assert GOLD["float64_supported"] is False
    xs = _op_in("long")
    attrs = GOLD["op"]["long"]["attrs"]
    extra = [mx.nd.array(xs[k], dtype="int32") for k in LENGTHS]  # integer lengths too
    for dtype, tol in (("float64", TOL), ("float16", dict(rtol=2e-3, atol=2e-2))):
        data = mx.nd.array(xs["data"], dtype=dtype)
        data.attach_grad()
        with autograd.record():
            out = mx.nd.CTCLoss(data, mx.nd.array(xs["label"]), *extra, **attrs)
        out.backward(mx.nd.array(xs["head"], dtype=dtype))
        assert out.dtype == np.dtype(dtype) and data.grad.dtype == np.dtype(dtype)
        np.testing.assert_allclose(out.asnumpy().astype(np.float64), NPZ["op/long/out"], **tol)
        np.testing.assert_allclose(data.grad.asnumpy().astype(np.float64), NPZ["op/long/grad"],
                                   **dict(tol, atol=max(tol["atol"], 1e-4)))


def test_label_and_length_gradients_are_zero():
    xs = _op_in("last_both_lengths")
    ins = [mx.nd.array(xs[k]) for k in ("data", "label", "data_lengths", "label_lengths")]
    for a in ins:
        a.attach_grad()
    with autograd.record():
        out = mx.nd.CTCLoss(*ins, **GOLD["op"]["last_both_lengths"]["attrs"])
    out.backward()
    for a in ins[1:]:
        np.testing.assert_array_equal(a.grad.asnumpy(), 0)


# ---- compile counts -----------------------------------------------------------------------
class _Compiles:
    def __enter__(self):
        self.n = 0

        self.active = True

        def listener(event, _secs, **_kw):
            if self.active and event == "/jax/core/compile/backend_compile_duration":
                self.n += 1
        jax.monitoring.register_event_duration_secs_listener(listener)
        return self

    def __exit__(self, *exc):
        self.active = False  # (jax 0.4.30 has no unregister_event_duration_listener)


def _batches(k, seed=0, layout="NTC"):
    rs = np.random.RandomState(seed)
    for _ in range(k):
        label = rs.randint(0, 5, size=(4, 3)).astype(np.float32)
        lengths = rs.randint(1, 4, size=(4,))
        label[np.arange(3)[None] >= lengths[:, None]] = -1
        pred = rs.randn(4, 10, 6)
        yield (mx.nd.array(pred if layout == "NTC" else pred.transpose(1, 0, 2)),
               mx.nd.array(label), mx.nd.array(rs.randint(6, 11, size=(4,)).astype(np.float32)))


def _kernels():
    return sum(k._cache_size() for k in registry.get("CTCLoss")._kernels.values())


def test_eager_loop_does_not_recompile():
    # a shape's first HOST_CALLS calls run on the host (lowering/host_eval.py), then it compiles
    for pred, label, plen in _batches(tiers.TABLE.eager_host_calls + 1, layout="TNC"):
        mx.nd.CTCLoss(pred, label, plen, use_data_lengths=True, blank_label="last").asnumpy()
    before = _kernels()
    with _Compiles() as c:
        for pred, label, plen in _batches(10, seed=1, layout="TNC"):
            mx.nd.CTCLoss(pred, label, plen, use_data_lengths=True,
                          blank_label="last").asnumpy()
    assert c.n == 0 and _kernels() == before >= 1


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
def test_gluon_training_loop_does_not_recompile(hybridize):
    loss_fn = G.loss.CTCLoss()
    if hybridize:
        loss_fn.hybridize()

    def step(pred, label, plen):
        pred.attach_grad()
        with autograd.record():
            loss = loss_fn(pred, label, plen)
        loss.backward()
        return pred.grad.asnumpy()

    # data-movement ops run on the host for a shape's first HOST_CALLS calls, then compile
    for batch in _batches(tiers.TABLE.eager_host_calls + 1):
        step(*batch)
    with _Compiles() as c:
        for batch in _batches(10, seed=1):
            g = step(*batch)
    assert np.isfinite(g).all()
    assert c.n == 0
