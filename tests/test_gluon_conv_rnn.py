"""mx.gluon.contrib.rnn's convolutional cells, rnn_cell.dynamic_unroll and
mx.nd/sym.contrib.foreach against MXNet 1.9.1 (goldens from tests/make_conv_rnn_goldens.py,
whose case tables and run_* functions run here on xnd).

Cells: outputs, final states and gradients (data and every parameter) of an unroll under
autograd with MXNet's weights, eager and hybridized; channel-last layouts against their
channel-first twins (MXNet's CPU cannot compute those); parameter and output names,
inferred shapes, reprs, state_info; constructor errors. dynamic_unroll: values, eager and
hybridized (one ``_foreach`` node, a ``lax.scan``), also at another sequence length with
the same compiled block. foreach: values eagerly and as a bound symbol, MXNet's symbol
JSON written and read back (a nested loop too), inferred shapes, per-step random draws,
errors.
"""
import json

import numpy as np
import pytest

import xnd as mx
from xnd.base import MXNetError

import make_conv_rnn_goldens as cases

with open(cases.JSON_PATH) as _f:
    GOLD = json.load(_f)
NPZ = dict(np.load(cases.NPZ_PATH, allow_pickle=False))
TOL = dict(rtol=1e-5, atol=1e-5)

VALUE_CASES = sorted(c for c in cases.CELL_CASES if not cases.CELL_CASES[c].get("twin"))
TWIN_CASES = sorted(c for c in cases.CELL_CASES if cases.CELL_CASES[c].get("twin"))
# every case eagerly; hybridized (the same hybrid_forward traced with F=sym) one per kind,
# and dynamic_unroll's eager Python loop on two: each run compiles its own programs, and
# the file should stay a few seconds' work
HYBRID_CELLS = ("rnn1d", "lstm2d", "gru3d")
EAGER_UNROLLS = ("rnn_ntc_valid", "lstm_tnc_valid")
CELL_RUNS = [(c, False) for c in VALUE_CASES] + [(c, True) for c in HYBRID_CELLS]
UNROLL_RUNS = [(c, True) for c in sorted(cases.UNROLL_CASES)] + \
    [(c, False) for c in EAGER_UNROLLS]


def _check(res, prefix, names):
    assert sorted(res) == sorted(names)
    for k in names:
        np.testing.assert_allclose(res[k], NPZ[f"{prefix}/res/{k}"], err_msg=k, **TOL)


def _plain(x):
    """Tuples as lists, as the JSON golden has them."""
    return json.loads(json.dumps(x))


@pytest.mark.parametrize("case, hybridize", CELL_RUNS)
def test_cell_values(case, hybridize):
    res = cases.run_cell(mx, case, NPZ, hybridize=hybridize)
    _check(res, f"cell/{case}", GOLD["cells"][case]["results"])


def _channels_last(name, v):
    """A channel-first array of a cell case moved to channel-last: data, heads and outputs
    (N, T, C, ...) at axis 2, states and weights (N or O, C, ...) at axis 1; biases stay."""
    if name.endswith("_bias"):
        return v
    tail = name.rsplit("/", 1)[-1]
    axis = 2 if tail in ("data", "head", "out") else 1
    return np.moveaxis(v, axis, -1)


@pytest.mark.parametrize("case, hybridize", list(zip(TWIN_CASES, (False, True))))
def test_channel_last_matches_channel_first(case, hybridize):
    """NHWC/NDHWC cells give their NCHW/NCDHW twin's numbers with data, weights and states
    moved to channel-last (the convolutions' and SliceChannel's axes follow the layout)."""
    twin = cases.CELL_CASES[case]["twin"]
    src, dst = f"cell/{twin}", f"cell/{case}"
    arrays = {k.replace(src, dst, 1): _channels_last(k, v) for k, v in NPZ.items()
              if k.startswith(src + "/") and "/res/" not in k}
    assert arrays[f"{dst}/data"].shape[2:] == tuple(cases.CELL_CASES[case]["shape"])
    names = GOLD["cells"][twin]["results"]
    res = cases.run_cell(mx, case, arrays, hybridize=hybridize)
    assert sorted(res) == sorted(names)
    for k in names:
        np.testing.assert_allclose(res[k], _channels_last(k, NPZ[f"{src}/res/{k}"]),
                                   err_msg=k, **TOL)


@pytest.mark.parametrize("case", sorted(cases.CELL_CASES))
def test_cell_symbol_facts(case):
    """Parameter names and shapes, output names (t<k>_out, the final states), inferred
    shapes, repr and state_info of a cell unrolled on Symbols are MXNet's."""
    got = _plain(cases.cell_symbol_facts(mx, case))
    want = {k: v for k, v in GOLD["cells"][case].items() if k != "results"}
    assert got == want


@pytest.mark.parametrize("case", sorted(cases.ERROR_CASES))
def test_constructor_errors(case):
    cls, args, kw = cases.ERROR_CASES[case]
    with pytest.raises(AssertionError) as e:
        getattr(mx.gluon.contrib.rnn, cls)(*args, **kw)
    assert str(e.value) == GOLD["errors"][case]


def test_activation_block_is_a_child():
    """An activation block (nn.LeakyReLU) becomes a child of the cell, as in MXNet, whose
    unroll then fails resetting it; stepping works (test_cell_values' gru1d_leaky)."""
    cell = cases.make_cell(mx, "gru1d_leaky")
    assert list(cell._children) == ["_activation"]
    with pytest.raises(AttributeError) as e:
        cell.unroll(cases.T, mx.sym.var("x"))
    assert str(e.value) == GOLD["block_activation_error"]


@pytest.mark.parametrize("hybridize", [False, True], ids=["eager", "hybridized"])
def test_input_channels_inferred(hybridize):
    """input_shape with 0 channels: the i2h weight's channels come from the first input
    (deferred initialization), as MXNet's test_conv_fill_shape checks."""
    cell = mx.gluon.contrib.rnn.Conv2DGRUCell((0, 6, 5), 4, 3, 3, conv_layout="NCHW")
    assert cell.i2h_weight.shape == (12, 0, 3, 3)
    cell.initialize()
    if hybridize:
        cell.hybridize()
    out, states = cell.unroll(3, mx.nd.ones((2, 3, 7, 6, 5)), merge_outputs=True)
    assert cell.i2h_weight.shape == (12, 7, 3, 3)
    assert out.shape == (2, 3, 4, 4, 3) and states[0].shape == (2, 4, 4, 3)


@pytest.mark.parametrize("case, hybridize", UNROLL_RUNS)
def test_dynamic_unroll(case, hybridize):
    res = cases.run_unroll(mx, case, NPZ, hybridize=hybridize)
    _check(res, f"unroll/{case}", GOLD["unroll"][case]["results"])


def test_dynamic_unroll_any_length():
    """One hybridized dynamic_unroll (a lax.scan) serves every sequence length: the same
    block at T=5 and T=8 gives the cell's own unroll at each."""
    net = cases.make_unroll_net(mx, "gru_ntc_valid")
    net.initialize()
    net.hybridize()
    cell = net.cell
    rs = np.random.RandomState(0)
    for t in (5, 8):
        x = mx.nd.array(rs.uniform(-1, 1, (cases.U_N, t, cases.U_C)))
        h = [mx.nd.array(rs.uniform(-1, 1, (cases.U_N, cases.U_H)))]
        valid = mx.nd.array([t, 2, 3, 1])
        out, states = net(x, h, valid)
        want, want_states = cell.unroll(t, x, h, layout="NTC", merge_outputs=True,
                                        valid_length=valid)
        np.testing.assert_allclose(out.asnumpy(), want.asnumpy(), **TOL)
        np.testing.assert_allclose(states[0].asnumpy(), want_states[0].asnumpy(), **TOL)
    assert [n.op.name for n in net._cached_op.graph.nodes if n.op is not None].count(
        "_foreach") == 1


def test_foreach_nd():
    _check(cases.run_foreach_nd(mx, NPZ), "foreach", GOLD["foreach"]["results"])


def test_foreach_symbol():
    """Bound and run forward and backward: the loop's values and input gradients, output
    names, and the shape of w (read inside the body) inferred through the subgraph."""
    _check(cases.run_foreach_sym(mx, NPZ), "foreach", GOLD["foreach"]["results"])
    sym = cases.foreach_symbol(mx)
    assert sym.list_outputs() == GOLD["foreach"]["outputs"]
    shapes = {k: s for k, s in cases.FOREACH_INPUTS.items() if k != "w"}
    arg_shapes, out_shapes, _ = sym.infer_shape(**shapes)
    assert dict(zip(sym.list_arguments(), _plain(arg_shapes))) == GOLD["foreach"]["args"]
    assert _plain(out_shapes) == GOLD["foreach"]["out_shapes"]


def _doc(text):
    """A symbol JSON document with its subgraph names (a process-wide counter) erased."""
    doc = json.loads(text)

    def scrub(graph):
        for n in graph["nodes"]:
            n.get("attrs", {}).pop("__subgraph_name__", None)
            for sub in n.get("subgraphs", []):
                scrub(sub)
    scrub(doc)
    return doc


def test_foreach_json():
    """xnd writes MXNet's graph: the _foreach node, its attributes and its "subgraphs" (the
    outer `scale` cut into a variable); MXNet's file reads back and runs."""
    want = GOLD["foreach"]["json"]
    assert _doc(cases.foreach_symbol(mx).tojson()) == _doc(want)
    loaded = mx.sym.load_json(want)
    assert json.loads(loaded.tojson()) == json.loads(want)
    _check(cases.run_foreach_sym(mx, NPZ, sym=loaded), "foreach", GOLD["foreach"]["results"])


def test_nested_foreach():
    """A foreach inside a foreach body: MXNet's graph (the inner body's reads of the outer
    body cut into variables of its own) and values, built here and read from MXNet's file."""
    want = GOLD["nested"]["json"]
    assert _doc(cases.nested_foreach_symbol(mx).tojson()) == _doc(want)
    _check(cases.run_nested_foreach(mx, NPZ), "nested", ["out0", "out1"])
    _check(cases.run_nested_foreach(mx, NPZ, sym=mx.sym.load_json(want)), "nested",
           ["out0", "out1"])


def test_foreach_dropout_draws_per_step():
    """A random op in a symbolic body draws anew at every step (and every forward), and is
    the identity when not training."""
    out, _ = mx.sym.contrib.foreach(lambda x, st: (mx.sym.Dropout(x, p=0.5), [st[0] + 1]),
                                    mx.sym.var("d"), [mx.sym.var("s")])
    ex = out.bind(mx.cpu(), {"d": mx.nd.ones((4, 64)), "s": mx.nd.zeros((1,))})
    a = ex.forward(is_train=True)[0].asnumpy()
    b = ex.forward(is_train=True)[0].asnumpy()
    assert set(np.unique(a)) <= {0.0, 2.0}
    assert len({row.tobytes() for row in a}) == 4 and (a != b).any()
    np.testing.assert_array_equal(ex.forward(is_train=False)[0].asnumpy(), 1.0)


def test_foreach_errors():
    assert cases.foreach_errors(mx) == GOLD["foreach"]["errors"]


def test_foreach_op_needs_a_body():
    """The _foreach operator runs only with the body foreach gives it."""
    from xnd.lowering import registry
    with pytest.raises(MXNetError, match="needs its loop body"):
        registry.get("_foreach").fn(np.ones((2, 3), np.float32), num_args=2, num_outputs=1,
                                    num_out_data=1, in_state_locs=(), in_data_locs=(0,),
                                    remain_locs=(), key=None)
