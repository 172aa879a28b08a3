"""mx.np / mx.npx against MXNet 1.9.1 goldens (tests/make_np_goldens.py, cases in np_cases.py):
numpy-mode dtype rules, 0-d results, printing, indexing, autograd, every npx operator, errors;
plus hand-computed checks of what MXNet 1.9.1 lacks (npx.masked_softmax) and of Gluon in
numpy mode."""
import json
import os

import numpy as onp
import pytest

import xnd.compat

mx = xnd.compat.alias_mxnet()
import np_cases  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GOLD = json.load(open(os.path.join(HERE, "goldens", "np", "np.json")))
ARRAYS = dict(onp.load(os.path.join(HERE, "goldens", "np", "np.npz")))


@pytest.fixture(scope="module")
def env():
    e = np_cases.environment(mx)
    yield e
    mx.npx.reset_np()


def _compare(got, want, key, arrays):
    assert got["kind"] == want["kind"], (key, got, want)
    kind = want["kind"]
    if kind == "error":
        # (xnd's numpy-op errors are MXNetErrors that are also the Python error MXNet raises)
        assert want["type"] in got["classes"], (key, got, want)
    elif kind in ("np", "nd", "onp"):
        assert got["dtype"] == want["dtype"] and got["shape"] == want["shape"], (key, got, want)
        g, w = arrays[key], ARRAYS[key]
        if w.dtype.kind == "f":
            onp.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=key)
        else:
            onp.testing.assert_array_equal(g, w, err_msg=key)
    elif kind in ("list", "tuple"):
        assert len(got["items"]) == len(want["items"]), key
        for i, (g, w) in enumerate(zip(got["items"], want["items"])):
            _compare(g, w, f"{key}.{i}", arrays)
    elif kind == "py":
        assert got["type"] == want["type"], (key, got, want)
        if want["type"] == "float":
            assert got["value"] == pytest.approx(want["value"], rel=1e-6), key
        else:
            assert got["value"] == want["value"], (key, got, want)
    else:
        assert got["repr"] == want["repr"], (key, got, want)


@pytest.mark.parametrize("name", sorted(np_cases.CASES))
def test_case(env, name):
    arrays = {}
    got = np_cases.outcome(name, env, arrays)
    _compare(got, GOLD[name], name, arrays)


def test_masked_softmax_hand_computed(env):
    np, npx = mx.np, mx.npx
    x = np.array([[1.0, 2.0, 3.0]])
    out = npx.masked_softmax(x, np.array([[True, False, True]]))
    e1, e3 = onp.exp(1.0), onp.exp(3.0)
    onp.testing.assert_allclose(out.asnumpy(), [[e1 / (e1 + e3), 0.0, e3 / (e1 + e3)]], rtol=1e-6)


def test_unknown_function_names_itself():
    with pytest.raises(AttributeError, match="frobnicate"):
        mx.np.frobnicate


def test_gluon_numpy_mode(env):
    np = mx.np
    from mxnet import autograd, gluon
    from mxnet.gluon import nn
    net = nn.HybridSequential()
    net.add(nn.Dense(3, activation="relu"), nn.Dense(2))
    net.initialize(mx.init.One())
    x = np.arange(8.0).reshape(2, 4) / 8
    eager = net(x)
    assert type(net[0].weight.data()) is np.ndarray
    assert type(eager) is np.ndarray
    net.hybridize()
    hyb = net(x)
    assert type(hyb) is np.ndarray
    onp.testing.assert_allclose(hyb.asnumpy(), eager.asnumpy(), rtol=1e-6)
    # hand-computed: ones weights, zero bias: relu(sum(x_row)) * 3 per output
    rows = x.asnumpy().sum(1) * 3
    onp.testing.assert_allclose(eager.asnumpy(), onp.stack([rows, rows], 1), rtol=1e-6)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss = gluon.loss.L2Loss()
    with autograd.record():
        lv = loss(net(x), np.zeros((2, 2)))
    lv.backward()
    assert type(net[1].weight.grad()) is np.ndarray
    trainer.step(2)
    # L2Loss = mean_j out_j^2 / 2 per row, so d/d out_j = out_j / 2; every hidden unit is the
    # row sum r and out_j = 3 r: d/d w2[j, k] = sum_rows (3 r / 2) r, over the batch of 2
    r = x.asnumpy().sum(1)
    g = (1.5 * r * r).sum() / 2
    onp.testing.assert_allclose(net[1].weight.data().asnumpy(), 1 - 0.1 * g, rtol=1e-5)


def test_hybrid_forward_with_F_np_hybridizes_and_exports(env, tmp_path):
    np = mx.np
    from mxnet.gluon import HybridBlock, SymbolBlock

    class Block(HybridBlock):
        def hybrid_forward(self, F, x):
            return x * F.np.ones((2, 3)) + 1, F.npx.relu(x - 2), x.sum(axis=1)

    blk = Block()
    x = np.arange(6.0).reshape(2, 3)
    want = [onp.arange(6.0).reshape(2, 3) + 1, onp.maximum(onp.arange(6.0).reshape(2, 3) - 2, 0),
            onp.array([3.0, 12.0])]
    for got, w in zip(blk(x), want):
        assert type(got) is np.ndarray
        onp.testing.assert_array_equal(got.asnumpy(), w)
    blk.hybridize()
    for got, w in zip(blk(x), want):
        assert type(got) is np.ndarray
        onp.testing.assert_array_equal(got.asnumpy(), w)
    prefix = str(tmp_path / "blk")
    blk.export(prefix)
    graph = json.load(open(prefix + "-symbol.json"))
    assert {"_npi_ones", "_npi_multiply", "_npi_add", "_npi_sum"} <= {n["op"] for n in graph["nodes"]}
    loaded = SymbolBlock.imports(prefix + "-symbol.json", ["data"])
    for got, w in zip(loaded(x), want):
        onp.testing.assert_array_equal(got.asnumpy(), w)


def test_spacing_and_in1d_on_every_numpy_and_jax():
    """np.spacing from the bits (jax 0.4.30 has no jnp.spacing; XLA flushes nextafter's
    subnormal differences) and np.in1d (numpy 2.4 removed it) exist and agree with numpy."""
    np = mx.np
    x = onp.array([0.0, 1.0, -1.0, 3.5, 1e-38, onp.inf, onp.nan,
                   onp.finfo(onp.float32).max], onp.float32)
    with onp.errstate(all="ignore"):
        want = onp.spacing(x)
    onp.testing.assert_array_equal(np.spacing(np.array(x)).asnumpy(), want)
    assert np.spacing(np.array([0.0])).asnumpy()[0] == onp.float32(1.4e-45)
    got = np.in1d(np.array([[1, 2], [3, 4]]), np.array([2, 3]))
    assert got.asnumpy().tolist() == [False, True, True, False]


def test_np_symbol_split_returns_a_list_of_parts(env):
    """MXNet's ``F.np.split`` on Symbols is a Python list, one Symbol per part, even of one part
    (``F.np.split(x, 1)[0]`` is the whole array, not its first row)."""
    np = mx.np
    from mxnet.gluon import HybridBlock

    class Halves(HybridBlock):
        def hybrid_forward(self, F, x):
            parts = F.np.split(x, 2, axis=1)
            whole = F.np.split(x, 1)
            assert isinstance(parts, list) and isinstance(whole, list) and len(whole) == 1
            return parts[1] - parts[0], whole[0]

    blk = Halves()
    blk.hybridize()
    x = np.arange(8.0).reshape(2, 4)
    diff, whole = blk(x)
    assert diff.asnumpy().tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert whole.shape == (2, 4)
    sym = mx.sym.np.split(mx.sym.var("x").as_np_ndarray(), 3)
    assert isinstance(sym, list) and len(sym) == 3


def test_deferred_weight_of_np_dot_takes_the_data_dim(env):
    """A parameter declared (0, 5) and used as ``x.dot(w)`` in a hybridized numpy block gets
    (in_units, 5) from the data at the first call, as MXNet's shape inference gives."""
    np = mx.np
    from mxnet.gluon import HybridBlock

    class Linear(HybridBlock):
        def __init__(self):
            super().__init__()
            self.w = self.params.get("w", shape=(0, 5), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return x.dot(w)

    blk = Linear()
    blk.initialize(mx.init.One())
    blk.hybridize()
    out = blk(np.ones((2, 3)))
    assert blk.w.shape == (3, 5)
    assert out.asnumpy().tolist() == [[3.0] * 5] * 2


def test_numpy_op_doc_signatures_forward_to_np(env):
    """mx._numpy_op_doc: MXNet's built-in numpy operators under their names, with MXNet's
    signatures, computing what mx.np computes."""
    import inspect
    from mxnet import _numpy_op_doc as doc
    np = mx.np
    assert str(inspect.signature(doc._np_sum)) == \
        "(a, axis=None, dtype=None, keepdims=False, initial=None, out=None)"
    assert str(inspect.signature(doc._np_atleast_1d)) == "(*arys)"
    assert str(inspect.signature(doc._np_reshape)) == "(a, newshape, order='C', out=None)"
    assert doc._np_sum(np.arange(6.0).reshape(2, 3), axis=1).asnumpy().tolist() == [3.0, 12.0]
    assert doc._np_product(np.array([2.0, 3.0])).item() == 6.0
    assert doc._npx_reshape(np.ones((2, 3)), (-1,)).shape == (6,)


def test_hybridized_block_with_value_dependent_shapes_runs_imperatively(env, tmp_path):
    """np.unique / npx.nonzero in a hybridized block: the result's shape depends on the
    values, so the block runs its hybrid_forward imperatively (numbers as unhybridized), and
    still exports its graph; binding that graph raises a clear MXNetError."""
    np = mx.np
    from mxnet.gluon import HybridBlock

    class Uniq(HybridBlock):
        def hybrid_forward(self, F, a):
            vals, counts = F.np.unique(a, return_counts=True)
            return vals * 2, counts, F.npx.nonzero(a > 1)

    blk = Uniq()
    blk.hybridize()
    vals, counts, nz = blk(np.array([3.0, 1.0, 3.0, 2.0]))
    assert vals.asnumpy().tolist() == [2.0, 4.0, 6.0]
    assert counts.asnumpy().tolist() == [1, 1, 2]
    assert nz.asnumpy().tolist() == [[0], [2], [3]]
    prefix = str(tmp_path / "uniq")
    blk.export(prefix)
    graph = json.load(open(prefix + "-symbol.json"))
    assert "_npi_unique" in {n["op"] for n in graph["nodes"]}
    sym = mx.sym.load(prefix + "-symbol.json")
    exe = sym.bind(mx.cpu(), {"data": mx.nd.array([1.0, 2.0])})
    with pytest.raises(mx.base.MXNetError, match="unique: the shape of its result depends"):
        exe.forward()
        exe.outputs[0].asnumpy()
