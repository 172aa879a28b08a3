"""`xnd check` reports keyword arguments that xnd's callable does not take (a signature
without **kwargs, or an operator's inputs and declared attributes), naming the callable
and the keyword; keywords xnd does take, ops without attributes (MXNet ignores unknown
keywords there) and open **kwargs callables are not reported. Each reported call is also
run, to show that it really fails in xnd, and each accepted one runs."""
import textwrap

import pytest

import xnd as mx
from xnd.base import MXNetError
from xnd.porting import check

SOURCE = textwrap.dedent('''
    import mxnet as mx
    from mxnet import nd, gluon
    it = mx.io.NDArrayIter(nd.ones((4, 2)), batch_size=2, foo=2)
    x = nd.ones((2, 3), ctx=mx.cpu(), bar=1)
    y = nd.relu(x, blah=3)
    s = mx.sym.FullyConnected(mx.sym.Variable("d"), num_hidden=3, lr_mult=2, quux=1,
                              __wd_mult__="0", name="fc")
    r = mx.sym.Reshape(mx.sym.Variable("d"), shape=(2,), order="C")
    m = mx.mod.Module(s, context=mx.cpu(), zzz=1)
    m.bind(data_shapes=[("d", (2, 4))], for_training=False, nonsense=True)
    opts = {"shuffle": False}
    it2 = mx.io.NDArrayIter(nd.ones((4, 2)), batch_size=2, **opts)
    u = nd.random.uniform(shape=(2,), ctx=mx.cpu())
    v = nd.random_uniform(shape=(2,), ctx=mx.cpu())
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.Activation(x, act_type="relu", slope=1)
''')

# (text, start of the reason) of each keyword xnd does not take
FLAGGED = {
    "mx.io.NDArrayIter(foo=...)": "xnd's mxnet.io.NDArrayIter does not take the keyword 'foo'",
    "nd.ones(bar=...)": "mxnet.nd.ones (operator _ones) does not take the keyword 'bar'",
    "mx.sym.FullyConnected(quux=...)":
        "mxnet.sym.FullyConnected (operator FullyConnected) does not take the keyword 'quux'",
    "mx.sym.Reshape(order=...)":
        "mxnet.sym.Reshape (operator Reshape) does not take the keyword 'order'",
    "mx.mod.Module(zzz=...)": "xnd's mxnet.mod.Module does not take the keyword 'zzz'",
    "m.bind(nonsense=...)": "xnd's mxnet.mod.Module.bind does not take the keyword 'nonsense'",
    "F.Activation(slope=...)": "mxnet.nd.Activation (operator Activation) and "
                               "mxnet.sym.Activation (operator Activation) do not take the "
                               "keyword 'slope'",
}


@pytest.fixture(scope="module")
def uses(tmp_path_factory):
    path = tmp_path_factory.mktemp("kw") / "script.py"
    path.write_text(SOURCE)
    report = check.run_check([str(path)])
    (f,) = report["files"]
    return f["uses"]


def test_unknown_keywords_are_unsupported(uses):
    got = {u["text"]: u for u in uses if u["text"].endswith("=...)")}
    assert sorted(got) == sorted(FLAGGED)
    for text, reason in FLAGGED.items():
        assert got[text]["status"] == "unsupported"
        assert got[text]["reason"].startswith(reason), got[text]["reason"]


def test_reason_lists_the_keywords_taken(uses):
    (u,) = [u for u in uses if u["text"] == "nd.ones(bar=...)"]
    assert u["reason"].endswith("(keywords: ctx, dtype, name, out, shape)")
    assert u["line"] == 5 and u["api"] == "mxnet.nd.ones(bar=)"


def test_accepted_calls_are_not_flagged(uses):
    texts = {u["text"] for u in uses}
    # nd.ones(ctx=), sym op lr_mult= and __wd_mult__=, relu(blah=) (no attributes: ignored,
    # as in MXNet), **opts and nd.random.uniform(ctx=) are fine
    for bad in ("nd.ones(ctx=...)", "mx.sym.FullyConnected(lr_mult=...)",
                "mx.sym.FullyConnected(__wd_mult__=...)", "nd.relu(blah=...)",
                "nd.random.uniform(ctx=...)", "nd.random_uniform(ctx=...)"):
        assert bad not in texts


def test_flagged_calls_fail_in_xnd_and_accepted_ones_run():
    d = mx.sym.Variable("d")
    bad = [lambda: mx.io.NDArrayIter(mx.nd.ones((4, 2)), batch_size=2, foo=2),
           lambda: mx.nd.ones((2, 3), bar=1),
           lambda: mx.sym.FullyConnected(d, num_hidden=3, quux=1),
           lambda: mx.sym.Reshape(d, shape=(2,), order="C"),
           lambda: mx.mod.Module(d, zzz=1),
           lambda: mx.nd.Activation(mx.nd.ones((2,)), act_type="relu", slope=1)]
    for call in bad:
        with pytest.raises((TypeError, MXNetError)):
            call()
    assert mx.nd.ones((2, 3), ctx=mx.cpu()).shape == (2, 3)
    assert mx.nd.relu(mx.nd.ones((2,)), blah=3).shape == (2,)
    fc = mx.sym.FullyConnected(d, num_hidden=3, lr_mult=2, __wd_mult__="0", name="fc")
    assert fc.list_arguments() == ["d", "fc_weight", "fc_bias"]
    assert mx.nd.random.uniform(shape=(2,), ctx=mx.cpu()).shape == (2,)
    assert mx.nd.random_uniform(shape=(2,), ctx=mx.cpu()).shape == (2,)  # creation ops: ctx=
