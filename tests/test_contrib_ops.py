"""The contrib / detection / vision operators against MXNet 1.9.1 (goldens from
tests/make_contrib_goldens.py): every case through ``mx.nd.<fn>`` under autograd (outputs and
input gradients for MXNet's head gradients), the same graph through ``mx.sym`` bound and run
forward, MXNet's error cases as MXNetError naming the operator, and the ``mx.nd.contrib`` /
``mx.sym.contrib`` namespaces.
"""
import importlib
import json
import os

import numpy as np
import pytest

import xnd as mx
from xnd import autograd
from xnd.base import MXNetError
from xnd.lowering import registry

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "contrib", "contrib.json")) as _f:
    GOLD = json.load(_f)["cases"]
NPZ = np.load(os.path.join(HERE, "goldens", "contrib", "contrib.npz"), allow_pickle=False)

TOL = dict(rtol=1e-5, atol=1e-5)
CASE_TOL = {}  # per-case overrides, with the reason next to them

OK = sorted(n for n, m in GOLD.items() if "error" not in m)
GRAD = sorted(n for n in OK if GOLD[n]["grad"])
ERRORS = sorted(n for n, m in GOLD.items() if "error" in m)


def _resolve(root, path):
    f = root
    for part in path.split("."):
        f = getattr(f, part)
    return f


def _inputs(name):
    return [NPZ[f"{name}/in/{n}"] for n in GOLD[name]["inputs"]]


def _attrs(name):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in GOLD[name]["attrs"].items()}


def _as_list(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _compared(name, n):
    c = GOLD[name]["compare"]
    return range(n) if c is None else c


def _close(got, want, what, tol):
    got = np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != MXNet {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != MXNet {want.dtype}"
    np.testing.assert_allclose(got, want, err_msg=what, **tol)


def _run_nd(name):
    m = GOLD[name]
    ins = [mx.nd.array(a, dtype=a.dtype) for a in _inputs(name)]
    for n, v in zip(m["inputs"], ins):
        if n in m["grad"]:
            v.attach_grad()
    f = _resolve(mx.nd, m["fn"])
    if m["grad"]:
        with autograd.record(train_mode=m["train"]):
            out = f(*ins, **_attrs(name))
    else:
        out = f(*ins, **_attrs(name))
    return ins, _as_list(out)


@pytest.mark.parametrize("name", OK)
def test_forward(name):
    m = GOLD[name]
    _, outs = _run_nd(name)
    assert len(outs) == m["num_outputs"], f"{name}: {len(outs)} outputs, MXNet {m['num_outputs']}"
    for i in _compared(name, len(outs)):
        _close(outs[i].asnumpy(), NPZ[f"{name}/out/{i}"], f"{name} output {i}",
               CASE_TOL.get(name, TOL))


@pytest.mark.parametrize("name", GRAD)
def test_gradient(name):
    m = GOLD[name]
    ins, outs = _run_nd(name)
    heads = [mx.nd.array(NPZ[f"{name}/head/{i}"]) for i in range(len(outs))
             if f"{name}/head/{i}" in NPZ.files]
    autograd.backward(outs[:len(heads)], heads)
    for n, v in zip(m["inputs"], ins):
        if n in m["grad"]:
            _close(v.grad.asnumpy(), NPZ[f"{name}/grad/{n}"], f"{name} d/d{n}",
                   CASE_TOL.get(name, TOL))
    for n, v in zip(m["inputs"], ins):
        if n in m["aux"]:
            _close(v.asnumpy(), NPZ[f"{name}/aux/{n}"], f"{name} {n} after the step", TOL)


@pytest.mark.parametrize("name", OK)
def test_symbol_forward(name):
    """The same call as a Symbol: bound with the golden inputs, forward in predict mode."""
    m = GOLD[name]
    if m["train"]:
        return
    vs = [mx.sym.Variable(n) for n in m["inputs"]]
    attrs = _attrs(name)
    if m["fn"] == "contrib.boolean_mask":  # a graph needs the output length (xnd's size=)
        attrs["size"] = int(np.count_nonzero(NPZ[f"{name}/in/index"]))
    s = _resolve(mx.sym, m["fn"])(*vs, **attrs)
    vals = {n: mx.nd.array(a, dtype=a.dtype) for n, a in zip(m["inputs"], _inputs(name))}
    aux_names = s.list_auxiliary_states()
    args = {n: v for n, v in vals.items() if n not in aux_names}
    aux = {n: v for n, v in vals.items() if n in aux_names}
    outs = s.bind(mx.cpu(), args, aux_states=aux or None).forward()
    assert len(outs) == m["num_outputs"]
    for i in _compared(name, len(outs)):
        _close(outs[i].asnumpy(), NPZ[f"{name}/out/{i}"], f"{name} symbol output {i}",
               CASE_TOL.get(name, TOL))


# what xnd's message must mention for each MXNet error case (besides the operator's name)
ERROR_WORDS = {
    "err_nms_coord_start": ["coord_start=4", "(12,6)"],
    "err_nms_score_index": ["score_index=6", "(12,6)"],
    "err_iou_width": ["lhs", "4", "(3,5)"],
    "err_detect_loc": ["loc_pred", "(2,100)", "120"],
    "err_roialign_width": ["rois", "(3,6)", "(num_rois, 5)"],
    "err_roialign_4cols": ["rois", "(6,4)", "(num_rois, 5)"],
    "err_boolean_mask_axis1": ["axis=1", "axis 0"],
    "err_deform_offset": ["offset", "(2,8,4,5)", "(2,18,4,5)"],
    "err_proposal_batch": ["multiple images", "(2,12,5,6)"],
    "err_proposal_im_info": ["im_info", "(4, 5)", "(4, 4)"],
}


@pytest.mark.parametrize("name", ERRORS)
def test_error(name):
    m = GOLD[name]
    ins = [mx.nd.array(a, dtype=a.dtype) for a in _inputs(name)]
    f = _resolve(mx.nd, m["fn"])
    with pytest.raises(MXNetError) as info:
        f(*ins, **_attrs(name)).asnumpy()
    msg = str(info.value)
    op = f.__name__
    assert op in msg, f"{name}: operator {op!r} not named in {msg!r}"
    for w in ERROR_WORDS[name]:
        assert w in msg, f"{name}: {w!r} not in {msg!r}"


def test_boolean_mask_in_a_graph_needs_its_length():
    s = mx.sym.contrib.boolean_mask(mx.sym.Variable("d"), mx.sym.Variable("i"))
    ex = s.bind(mx.cpu(), {"d": mx.nd.ones((3, 2)), "i": mx.nd.array([1, 0, 1])})
    with pytest.raises(MXNetError, match="boolean_mask.*size"):
        ex.forward()


def test_error_table_complete():
    assert sorted(ERROR_WORDS) == ERRORS


def test_every_case_function_is_registered():
    for name, m in GOLD.items():
        f = _resolve(mx.nd, m["fn"])
        assert callable(f), name


def test_contrib_namespaces_are_modules_holding_every_contrib_op():
    """mx.nd.contrib / mx.sym.contrib: importable under MXNet's module names and attributes of
    mx.nd / mx.sym, with every _contrib_* operator under its short name."""
    from xnd.compat import alias_mxnet
    alias_mxnet()
    nd_mods = [importlib.import_module(m) for m in ("mxnet.nd.contrib", "mxnet.ndarray.contrib")]
    sym_mods = [importlib.import_module(m) for m in ("mxnet.sym.contrib", "mxnet.symbol.contrib")]
    assert all(m is mx.nd.contrib for m in nd_mods)
    assert all(m is mx.sym.contrib for m in sym_mods)
    short = sorted(n[len("_contrib_"):] for n in registry.all_ops() if n.startswith("_contrib_"))
    assert {"box_nms", "ROIAlign", "MultiBoxPrior", "bipartite_matching"} <= set(short)
    for n in short:
        assert callable(getattr(mx.nd.contrib, n)), n
        assert callable(getattr(mx.sym.contrib, n)), n
    with mx.name.NameManager():
        s = mx.sym.contrib.box_nms(mx.sym.Variable("d"), overlap_thresh=0.3)
    assert s.name == "box_nms0" and json.loads(s.tojson())["nodes"][1]["op"] == "_contrib_box_nms"
    assert mx.nd.contrib.box_nms.__name__ == "box_nms"
    assert "registry" not in vars(mx.nd.contrib) and "registry" not in vars(mx.sym.contrib)


def _modulated_reference(x, off, mask, wt, bias, stride, pad, dil, gd):
    """ModulatedDeformableConvolution by its definition, pixel by pixel (float64): MXNet
    1.9.1 runs this operator on GPU only, so no golden exists."""
    n, c, h, w = x.shape
    f, cg, kh, kw = wt.shape
    oh, ow = off.shape[2:]
    cols = np.zeros((n, c, kh * kw, oh, ow))
    for b in range(n):
        for ch in range(c):
            g = ch // (c // gd)
            for i in range(kh):
                for j in range(kw):
                    k = i * kw + j
                    for y in range(oh):
                        for xx in range(ow):
                            py = y * stride - pad + i * dil + off[b, g * 2 * kh * kw + 2 * k, y, xx]
                            px = xx * stride - pad + j * dil + off[b, g * 2 * kh * kw + 2 * k + 1, y, xx]
                            val = 0.0
                            if -1 < py < h and -1 < px < w:
                                y0, x0 = int(np.floor(py)), int(np.floor(px))
                                for yy, xi, wgt in ((y0, x0, (1 - (py - y0)) * (1 - (px - x0))),
                                                    (y0, x0 + 1, (1 - (py - y0)) * (px - x0)),
                                                    (y0 + 1, x0, (py - y0) * (1 - (px - x0))),
                                                    (y0 + 1, x0 + 1, (py - y0) * (px - x0))):
                                    if 0 <= yy < h and 0 <= xi < w:
                                        val += wgt * x[b, ch, yy, xi]
                            cols[b, ch, k, y, xx] = val * mask[b, g * kh * kw + k, y, xx]
    out = np.einsum("fck,nckyx->nfyx", wt.reshape(f, cg, kh * kw), cols)
    return out + bias[None, :, None, None]


@pytest.mark.parametrize("gd", [1, 2])
def test_modulated_deformable_convolution_matches_its_definition(gd):
    rs = np.random.RandomState(3)
    x = rs.randn(2, 4, 5, 6)
    off = rs.randn(2, gd * 18, 5, 6) * 1.5
    mask = rs.uniform(0, 1, (2, gd * 9, 5, 6))
    wt, bias = rs.randn(3, 4, 3, 3), rs.randn(3)
    want = _modulated_reference(x, off, mask, wt, bias, 1, 1, 1, gd)
    args = [mx.nd.array(v, dtype="float64") for v in (x, off, mask, wt, bias)]
    got = mx.nd.contrib.ModulatedDeformableConvolution(
        *args, kernel=(3, 3), pad=(1, 1), num_filter=3, num_deformable_group=gd)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-10, atol=1e-10)
    # gradients: the derivative of that formula (central differences on a few entries)
    for v in args:
        v.attach_grad()
    head = rs.randn(*want.shape)
    with autograd.record():
        y = mx.nd.contrib.ModulatedDeformableConvolution(
            *args, kernel=(3, 3), pad=(1, 1), num_filter=3, num_deformable_group=gd)
    y.backward(mx.nd.array(head, dtype="float64"))
    ref = [x, off, mask, wt, bias]
    for pos in range(5):
        flat = ref[pos].reshape(-1)
        for e in rs.choice(flat.size, 3, replace=False):
            hi, lo = [r.copy() for r in ref], [r.copy() for r in ref]
            hi[pos].reshape(-1)[e] += 1e-6
            lo[pos].reshape(-1)[e] -= 1e-6
            fd = np.sum((_modulated_reference(*hi, 1, 1, 1, gd) -
                         _modulated_reference(*lo, 1, 1, 1, gd)) * head) / 2e-6
            np.testing.assert_allclose(args[pos].grad.asnumpy().reshape(-1)[e], fd,
                                       rtol=1e-5, atol=1e-6)


# ---- GPU-only in MXNet 1.9.1 (no golden): fft, ifft, count_sketch against numpy --------------
def _vjp(f, x, head):
    x = mx.nd.array(x, dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = f(x)
    y.backward(mx.nd.array(head, dtype="float64"))
    return y.asnumpy(), x.grad.asnumpy()


def test_fft_ifft_against_numpy():
    rs = np.random.RandomState(5)
    x = rs.randn(3, 8)
    z = np.fft.fft(x, axis=-1)
    head = rs.randn(3, 16)
    y, g = _vjp(mx.nd.contrib.fft, x, head)
    np.testing.assert_allclose(y, np.stack([z.real, z.imag], -1).reshape(3, 16), atol=1e-12)
    hc = head[:, 0::2] + 1j * head[:, 1::2]   # d<y, head>/dx = Re(unnormalised ifft(head))
    np.testing.assert_allclose(g, (np.fft.ifft(hc, axis=-1) * 8).real, atol=1e-12)
    c = rs.randn(2, 3, 12)
    y, g = _vjp(mx.nd.contrib.ifft, c, rs.randn(2, 3, 6))
    want = (np.fft.ifft(c[..., 0::2] + 1j * c[..., 1::2], axis=-1) * 6).real
    np.testing.assert_allclose(y, want, atol=1e-12)
    assert mx.nd.contrib.fft(mx.nd.ones((2, 4))).dtype == np.float32
    with pytest.raises(MXNetError, match="ifft"):
        mx.nd.contrib.ifft(mx.nd.ones((2, 5)))


def test_count_sketch_against_numpy():
    rs = np.random.RandomState(6)
    x = rs.randn(4, 7)
    h = np.array([[0, 3, 1, 3, 2, 0, 4]], np.float64)
    s = np.array([[1, -1, 1, 1, -1, -1, 1]], np.float64)
    want = np.zeros((4, 5))
    for i in range(7):
        want[:, int(h[0, i])] += s[0, i] * x[:, i]
    head = rs.randn(4, 5)
    y, g = _vjp(lambda d: mx.nd.contrib.count_sketch(
        d, mx.nd.array(h, dtype="float64"), mx.nd.array(s, dtype="float64"), out_dim=5), x, head)
    np.testing.assert_allclose(y, want, atol=1e-12)
    np.testing.assert_allclose(g, head[:, h[0].astype(int)] * s[0], atol=1e-12)
    with pytest.raises(MXNetError, match="count_sketch"):
        mx.nd.contrib.count_sketch(mx.nd.ones((2, 3)), mx.nd.ones((1, 2)), mx.nd.ones((1, 2)),
                                   out_dim=2)


def test_sparse_embedding_is_embedding_with_dense_gradients():
    # MXNet 1.9.1: rows of the weight, indices past the end clipped; symbol names its weight
    w = mx.nd.arange(10).reshape((5, 2))
    out = mx.nd.contrib.SparseEmbedding(mx.nd.array([0, 4, 9]), w, input_dim=5, output_dim=2)
    assert out.asnumpy().tolist() == [[0, 1], [8, 9], [8, 9]]
    e = mx.sym.contrib.SparseEmbedding(mx.sym.Variable("data"), input_dim=5, output_dim=2,
                                       name="emb")
    assert e.list_arguments() == ["data", "emb_weight"]
    assert e.infer_shape(data=(3,))[0] == [(3,), (5, 2)]
    with pytest.raises(mx.base.MXNetError, match="weight has shape"):
        mx.nd.contrib.SparseEmbedding(mx.nd.array([0]), w, input_dim=4, output_dim=2)
