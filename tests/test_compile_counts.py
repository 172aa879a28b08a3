"""Eager loops compile a constant number of times: scalars, rng keys and view offsets are
kernel arguments, never baked into a compilation. Graphs nobody binds any more are freed with
their compiled programs."""
import sys

import xnd as mx
from xnd import tiers
from xnd import nd
from xnd.lowering import registry

core = sys.modules["xnd.ndarray"]


def _compiled(opname):
    return sum(k._cache_size() for k in registry.get(opname)._kernels.values())


def test_changing_scalars_rng_draws_and_views_do_not_recompile():
    x = nd.ones((3, 4))
    z = nd.zeros((3, 4))

    def step(i):
        y = x * (0.5 + i) + i            # _mul_scalar, _plus_scalar with new values
        nd.random.uniform(0, 1, shape=(3, 4))
        nd.elemwise_add(y, x, out=z)     # donating out= variant
        return z[i % 3].asnumpy()        # a view at a new offset each time

    # new shapes' uncompiled calls first
    warm = max(tiers.TABLE.bucket_calls, tiers.TABLE.eager_host_calls) + 1
    for i in range(warm):
        step(i)
    before = {n: _compiled(n) for n in ("_mul_scalar", "_plus_scalar", "_random_uniform",
                                        "elemwise_add", "_view_read")}
    for i in range(warm, warm + 20):
        step(i)
    after = {n: _compiled(n) for n in before}
    assert after == before
    assert all(v >= 1 for v in after.values())


def test_graphs_nobody_binds_are_freed_with_their_programs():
    """Binding many distinct graphs (auto-named nodes make each unrolled RNN new) keeps only
    the graphs still bound plus the few most recent: XLA executables hold memory maps, and
    keeping all of them crashed a process in XLA's compiler once the maps ran out."""
    import gc

    from xnd.symbol import executor as E
    x = mx.nd.ones((2, 3))
    kept = []
    for i in range(E.KEEP_RECENT + 8):
        y = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name=f"fc{i}")
        exe = y.simple_bind(mx.cpu(), data=(2, 3))
        exe.forward(data=x)
        if i == 0:
            kept.append(exe)
    gc.collect()
    names = {g.sym.list_arguments()[1] for g in E.live_graphs()}
    assert "fc0_weight" in names                  # still bound
    n = E.KEEP_RECENT + 8
    assert {f"fc{i}_weight" for i in range(n - E.KEEP_RECENT, n)} <= names
    assert not names & {f"fc{i}_weight" for i in range(1, n - E.KEEP_RECENT)}
    # the same graph bound again gets the same GraphFunction, with its compiled programs
    last = [g for g in E.live_graphs() if g.sym.list_arguments()[1] == f"fc{n - 1}_weight"]
    y = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name=f"fc{n - 1}")
    assert last == [E.graph_function(y)]


def test_graphs_that_differ_only_in_operator_names_share_their_programs():
    """MXNet's auto-generated names count up (``_plus0``, ``_plus1``): a network built again
    (RNN cells unrolled per test case) is the same program, traced and compiled once; each
    binding's monitor still reports its own node names."""
    from xnd.symbol import executor as E

    def net(name):
        d = mx.sym.var("data")
        return mx.sym.relu(mx.sym.FullyConnected(d, num_hidden=3, name=name) * 2)

    a, b = net("fc_a"), net("fc_b")
    assert a.tojson() != b.tojson() and a.list_arguments() != b.list_arguments()
    a2, a3 = net("fc_a"), net("fc_a")          # the same arguments, new auto-named nodes
    assert a2.list_outputs() != a3.list_outputs()
    assert E.graph_function(a2) is E.graph_function(a3)
    assert E.graph_function(a) is not E.graph_function(b)     # other argument names
    x = mx.nd.array([[1.0, -2.0]])
    seen = {}
    for sym in (a2, a3):
        exe = sym.simple_bind(mx.cpu(), data=(1, 2))
        exe.arg_dict["fc_a_weight"][:] = mx.nd.array([[1, 0], [0, 1], [1, 1]])
        exe.arg_dict["fc_a_bias"][:] = 0
        names = []
        exe.set_monitor_callback(lambda n, arr, names=names: names.append(n), True)
        exe.forward(data=x)
        np_out = exe.outputs[0].asnumpy()
        assert np_out.tolist() == [[2.0, 0.0, 0.0]]
        seen[sym.list_outputs()[0]] = [n.decode() if isinstance(n, bytes) else n for n in names]
    (out2, names2), (out3, names3) = seen.items()
    assert any(out2.rsplit("_", 1)[0] in n for n in names2)
    assert any(out3.rsplit("_", 1)[0] in n for n in names3)
    assert not any(out3.rsplit("_", 1)[0] in n for n in names2)


_BACKEND_COMPILES = [0]


def _on_compile(event, duration, **_):
    if event == "/jax/core/compile/backend_compile_duration":   # compiled or loaded from cache
        _BACKEND_COMPILES[0] += 1


import jax  # noqa: E402

jax.monitoring.register_event_duration_secs_listener(_on_compile)


def _programs(fn):
    before = _BACKEND_COMPILES[0]
    out = fn()
    return _BACKEND_COMPILES[0] - before, out


def test_zero_buffers_of_new_shapes_compile_nothing():
    """bind's argument and gradient buffers, attach_grad and zero_grad make their zeros on the
    host (xnd._transfer.zeros): a fill program per shape cost 20-120 ms each."""
    import numpy as np
    from xnd import _transfer
    n, z = _programs(lambda: _transfer.zeros((7, 13), np.float32, jax.devices()[0]))
    assert n == 0 and z.shape == (7, 13) and z.dtype == np.float32 and not np.asarray(z).any()
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=11, name="fc_zeros")
    mod = mx.mod.Module(mx.sym.SoftmaxOutput(net, name="softmax"), context=mx.cpu())
    n, _ = _programs(lambda: mod.bind(data_shapes=[("data", (5, 17))],
                                      label_shapes=[("softmax_label", (5,))]))
    assert n == 0
    x = nd.array(np.arange(19 * 3, dtype=np.float32).reshape(19, 3))
    n, _ = _programs(lambda: x.attach_grad())
    assert n == 0 and x.grad.shape == (19, 3) and not x.grad.asnumpy().any()


def test_accuracy_compiles_its_kernel_once_over_batches():
    """The running sum starts from a zero committed to the batch's device: an uncommitted first
    zero gave the second batch a new signature and a second compile."""
    import numpy as np
    acc = mx.metric.Accuracy()
    rng = np.random.default_rng(0)
    batches = [(nd.array(rng.integers(0, 4, 6).astype(np.float32)),
                nd.array(rng.standard_normal((6, 4)).astype(np.float32))) for _ in range(4)]
    counts = [_programs(lambda b=b: acc.update([b[0]], [b[1]]))[0] for b in batches]
    expected = sum((l.asnumpy() == p.asnumpy().argmax(1)).sum() for l, p in batches) / 24
    assert acc.get()[1] == expected
    assert counts[0] <= 1 and counts[1:] == [0, 0, 0]


def test_hybridized_inference_on_new_batch_sizes_compiles_nothing_at_first():
    """A small hybridized MLP's inference: the first calls of a batch size (its own, then the
    row bucket of other sizes, symbol/rows.py) run on the host tier on every supported JAX
    (jax 0.4.30 has no quick compile options: its host tier was skipped, one compile per
    size), with the plain graph's numbers."""
    import numpy as np
    from xnd import gluon
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(16, activation="relu", in_units=8), gluon.nn.Dense(3, in_units=16))
    net.initialize(mx.init.Xavier())
    rs = np.random.RandomState(0)
    xs = [nd.array(rs.normal(size=(n, 8)).astype(np.float32)) for n in (3, 12, 25)]
    want = [net(x).asnumpy() for x in xs]            # (not hybridized yet: the plain graph)
    net.hybridize()
    for x, w in zip(xs, want):
        n, y = _programs(lambda: net(x).asnumpy())
        assert n == 0
        np.testing.assert_allclose(y, w, rtol=1e-5, atol=1e-6)
