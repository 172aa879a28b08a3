"""Eager elementwise ops on new shapes run at a bucketed length (xnd/lowering/bucket.py): the
numbers are the exact kernel's, bit for bit, and one program serves many shapes."""
import zlib

import numpy as np
import jax
import pytest

import xnd as mx
from xnd import tiers
from xnd.base import MXNetError
from xnd.lowering import bucket, host_eval, registry

OPS = [registry.get(n) for n in registry.all_ops()]
ELEMENTWISE = sorted({op.name for op in OPS if op.elementwise and op.elementwise != "flat"})
SAMPLERS = sorted({op.name for op in OPS if op.elementwise == "flat"})


def test_the_elementwise_table():
    assert {"elemwise_add", "broadcast_mul", "_plus_scalar", "_rminus_scalar", "exp", "relu",
            "sqrt"} <= set(ELEMENTWISE)
    # XLA:CPU's arctan and arcsinh give other last bits in the vector loop than in the tail
    assert not {"arctan", "arcsinh", "Convolution"} & set(ELEMENTWISE)


def _inputs(op, dtype, shape, rng):
    lo, hi = (0.1, 0.9) if np.dtype(dtype).kind == "f" else (1, 9)
    n = len(op.inputs)
    return [(rng.uniform(lo, hi, shape)).astype(dtype) for _ in range(n)]


# the static attribute values checked for elementwise ops that have some
STATIC_KEYS = {"Cast": [(d,) for d in ("float16", "float32", "float64", "int32", "int8", "uint8")]}


# three shapes (vector loop and scalar tail at different places), three dtypes
CASES = [("float32", (3, 5, 7)), ("float64", (33,)), ("int32", (2, 9))]


@pytest.mark.parametrize("name", ELEMENTWISE)
@pytest.mark.parametrize("dtype,shape", CASES)
def test_bucketed_equals_exact_kernel(name, dtype, shape):
    op = registry.get(name)
    if op.static and name not in STATIC_KEYS:
        pytest.fail(f"{name}: an elementwise op with static attributes needs its keys here")
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    vals = _inputs(op, dtype, shape, rng)
    dyn = (0.5,) * len(op.dynamic)
    for key in STATIC_KEYS.get(name, [()]):
        try:
            want = op.kernel(key)(*[jax.numpy.asarray(v) for v in vals], *dyn)
        except (MXNetError, TypeError):
            continue                             # the op does not take this dtype
        got = bucket.Flat().run(op, key, [jax.numpy.asarray(v) for v in vals], dyn,
                                jax.devices("cpu")[0])
        assert got is not None
        want = want if isinstance(want, (tuple, list)) else [want]
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w), err_msg=f"{name}{key}")


@pytest.mark.parametrize("name", ELEMENTWISE)
@pytest.mark.parametrize("dtype,shape", CASES)
def test_exact_ops_on_the_host_equal_the_kernel(name, dtype, shape):
    """Elementwise ops whose traced jaxpr ``host_jaxpr.exact`` admits run on numpy
    (host_eval) instead of a bucketed kernel: their numbers must be the kernel's, bit for
    bit, negative inputs, run-time scalars and the scalar tail included."""
    op = registry.get(name)
    rng = np.random.RandomState(zlib.crc32(name.encode()) + 1)
    lo, hi = (-3, 3) if np.dtype(dtype).kind == "f" else (-9, 9)
    vals = [jax.numpy.asarray(rng.uniform(lo, hi, shape).astype(dtype)) for _ in op.inputs]
    dyn = (0.5,) * len(op.dynamic)
    for key in STATIC_KEYS.get(name, [()]):
        try:
            want = op.kernel(key)(*vals, *dyn)
        except (MXNetError, TypeError):
            continue
        fn = host_eval._with_dynamic(op, dict(zip(op.static, key)))
        plan = host_eval.plan(fn, list(vals) + list(dyn), exact=True)
        if plan is None:
            continue                              # not exact: bucketed instead
        got = host_eval.run(plan, vals, jax.devices("cpu")[0], dyn=dyn)
        want = want if isinstance(want, (tuple, list)) else [want]
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w), err_msg=f"{name}{key}")


def test_which_elementwise_ops_run_on_the_host():
    x = [jax.numpy.ones((3, 4), "float32")] * 2

    def planned(name, dyn=(), **attrs):
        op = registry.get(name)
        fn = host_eval._with_dynamic(op, attrs)
        assert host_eval.plan(fn, x[:len(op.inputs)] + list(dyn)) is not None
        return host_eval.plan(fn, x[:len(op.inputs)] + list(dyn), exact=True) is not None
    assert planned("elemwise_add") and planned("broadcast_mul") and planned("relu")
    assert planned("_mul_scalar", (2.0,)) and planned("_rminus_scalar", (2.0,))
    assert not planned("exp") and not planned("tanh") and not planned("rsqrt")
    assert planned("softsign")                   # x / (1 + |x|): no product, exact
    assert not planned("hard_sigmoid", alpha=0.2, beta=0.5)   # alpha * x + beta: multiply-add


def test_scalar_arithmetic_on_new_shapes_compiles_nothing():
    """``x * s + t`` on ever new shapes and scalars: the host plans take the scalar as an
    input (one plan per shape, whatever the value), nothing compiles, and the numbers are
    the kernel's."""
    import sys
    core = sys.modules["xnd.ndarray"]
    mul, plus = registry.get("_mul_scalar"), registry.get("_plus_scalar")
    before = [sum(k._cache_size() for k in op._kernels.values()) for op in (mul, plus)]
    rng = np.random.RandomState(5)
    for i, shape in enumerate([(13, 3), (17,), (2, 3, 7)]):
        a = rng.uniform(-2, 2, shape).astype(np.float32)
        for s in (0.3 + i, -1.7):
            got = (mx.nd.array(a) * s + 2.5).asnumpy()
            np.testing.assert_array_equal(got, (a * np.float32(s)) + np.float32(2.5))
        key = ("_mul_scalar", (), ((shape, np.dtype(np.float32)),), (float,))
        assert core._HOST._seen[key][0] == 2            # two values, one plan
    after = [sum(k._cache_size() for k in op._kernels.values()) for op in (mul, plus)]
    assert after == before


def test_many_shapes_share_one_program():
    calls = []
    op = registry.get("elemwise_mul")
    kern = op.kernel(())
    before = kern._cache_size()
    rng = np.random.RandomState(0)
    for shape in [(2, 3), (5,), (4, 4), (1, 7, 9), (3, 3, 3), (6, 10)]:   # all <= 64 elements
        a, b = (mx.nd.array(rng.rand(*shape)) for _ in range(2))
        c = a * b
        calls.append(c.shape)
        np.testing.assert_array_equal(c.asnumpy(), a.asnumpy() * b.asnumpy())
    assert calls[0] == (2, 3) and calls[3] == (1, 7, 9)
    assert kern._cache_size() - before <= 1


def test_broadcast_ops_broadcast_on_the_host():
    a = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = mx.nd.array(np.array([[10], [20]], np.float32))
    np.testing.assert_array_equal(mx.nd.broadcast_add(a, b).asnumpy(),
                                  [[10, 11, 12], [23, 24, 25]])
    np.testing.assert_array_equal(mx.nd.broadcast_maximum(b, a).asnumpy(),
                                  [[10, 10, 10], [20, 20, 20]])


def test_after_the_first_calls_the_exact_kernel_compiles():
    op = registry.get("elemwise_add")
    flat = bucket.Flat()
    x = jax.numpy.ones((3, 11), "float32")
    runs = [flat.run(op, (), [x, x], (), jax.devices("cpu")[0])
            for _ in range(tiers.TABLE.bucket_calls + 2)]
    assert all(r is not None for r in runs[:tiers.TABLE.bucket_calls])
    assert runs[tiers.TABLE.bucket_calls] is None and runs[-1] is None


def test_the_sampler_table():
    assert SAMPLERS == ["_random_exponential", "_random_gamma", "_random_normal",
                        "_random_randint", "_random_uniform"]


SAMPLER_ATTRS = {"_random_randint": {"low": -5, "high": 1000}, "_random_gamma": {"alpha": 0.7}}


@pytest.mark.parametrize("name", SAMPLERS)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_sampler_on_a_new_shape_draws_the_exact_kernels_numbers(name, dtype):
    """Drawn at the bucketed length and cut back, a sample is the exact kernel's, bit for bit:
    the same key gives the same numbers before and after the shape's kernel compiles."""
    fn = getattr(mx.nd.random, name[len("_random_"):])
    attrs = dict(SAMPLER_ATTRS.get(name, {}), dtype="int32" if name == "_random_randint" else dtype)
    op = registry.get(name)
    for shape in [(3, 5, 7), (1,), (2, 1, 33), (64,), (9, 9)]:
        draws = []
        for _ in range(tiers.TABLE.bucket_calls + 1):   # bucketed, bucketed, then the exact kernel
            mx.random.seed(11)
            draws.append(fn(shape=shape, **attrs).asnumpy())
        assert draws[0].shape == shape and draws[0].dtype == np.dtype(attrs["dtype"])
        np.testing.assert_array_equal(draws[0], draws[-1], err_msg=f"{name}{shape}")
        assert len(np.unique(draws[0])) > draws[0].size // 2 or draws[0].size < 4
    pos = op.static.index("shape")
    exact = [f for k, f in op._kernels.items()
             if len(k) == len(op.static) and tuple(k[pos]) == (9, 9)]
    assert exact and sum(f._cache_size() for f in exact) >= 1   # the exact kernel compiled


def test_samplers_share_one_program_across_shapes():
    op = registry.get("_random_uniform")
    before = len(op._kernels)
    for shape in [(2, 3), (5,), (4, 4), (1, 7, 9), (3, 3, 3), (6, 10)]:   # all <= 64 elements
        x = mx.nd.random.uniform(-1, 1, shape=shape, dtype="float32").asnumpy()
        assert x.shape == shape and (x >= -1).all() and (x < 1).all()
    new = [k for k in list(op._kernels)[before:] if len(k) == len(op.static)]
    assert {tuple(k[op.static.index("shape")]) for k in new} <= {(64,)}


def test_errors_still_come_from_the_kernel():
    a = mx.nd.ones((2, 3))
    with pytest.raises(MXNetError, match="elemwise_add: shapes must be equal"):
        mx.nd.elemwise_add(a, mx.nd.ones((3, 2)))
    with pytest.raises(MXNetError, match="elemwise_add: shapes must be equal"):
        mx.nd.elemwise_add(mx.nd.ones((3, 1)), mx.nd.ones((1, 2)))   # no broadcasting
    with pytest.raises(MXNetError, match="broadcast_add"):
        mx.nd.broadcast_add(a, mx.nd.ones((3, 3)))
    assert bucket._out_shape([(2, 3), (3, 2)]) is None
    assert bucket._out_shape([(2, 3), (3,)]) is None
    assert bucket._out_shape([(2, 0)]) is None and bucket._out_shape([()]) is None
    assert bucket._out_shape([(2, 1), (1, 3)]) == (2, 3)
    assert [bucket.bucket_length(n) for n in (1, 64, 65, 1000)] == [64, 64, 128, 1024]


# ---- bound graphs of elementwise ops ----------------------------------------------------
def _bind_run(sym, da, db, head):
    shape = da.shape
    exe = sym.bind(mx.cpu(), args={"a": mx.nd.array(da), "b": mx.nd.array(db)},
                   args_grad=[mx.nd.empty(shape), mx.nd.empty(shape)])
    out = exe.forward(is_train=True)[0].asnumpy()
    exe.backward([mx.nd.array(head)])
    return exe, [out] + [g.asnumpy() for g in exe.grad_arrays]


def _graphs():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    return [a + b, a / b, a ** b, mx.sym.exp(a) * b - 1,
            mx.sym.cast(a, dtype="float64") % mx.sym.cast(b, dtype="float64")]


@pytest.mark.parametrize("k", range(5))
def test_bound_elementwise_graph_bucketed_equals_exact(k):
    rng = np.random.RandomState(k)
    da, db, head = (rng.uniform(0.2, 2.0, (3, 4, 5)) for _ in range(3))
    sym = _graphs()[k]
    exe, first = _bind_run(sym, da, db, head)
    assert exe._graph.elementwise
    for _ in range(tiers.TABLE.bucket_calls + 1):   # the first CALLS calls ran bucketed, then exact
        _, again = _bind_run(sym, da, db, head)
    for x, y in zip(first, again):
        np.testing.assert_array_equal(x, y)
    if k == 0:   # a + b: the gradients are the head, the output the sum (float32)
        np.testing.assert_array_equal(first[1], head.astype(np.float32))
        np.testing.assert_array_equal(first[0], (da.astype(np.float32) + db.astype(np.float32)))


def test_bound_elementwise_graph_compiles_once_for_many_shapes():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    sym = a * b + 3
    rng = np.random.RandomState(1)
    exe = None
    for shape in [(2, 3), (5,), (4, 4), (1, 7, 9), (3, 3, 3), (6, 10), (2, 2, 2, 2)]:
        da, db, head = (rng.rand(*shape) for _ in range(3))
        exe, (out, ga, gb) = _bind_run(sym, da, db, head)
        f32 = [x.astype(np.float32) for x in (da, db, head)]
        np.testing.assert_allclose(out, f32[0] * f32[1] + 3, rtol=1e-6)
        np.testing.assert_array_equal(ga, f32[2] * f32[1])
    graph = exe._graph
    assert _programs(graph.forward) == 1          # every shape: the 64-element program
    assert len(graph._fwd_bwd) == 1 and _programs(next(iter(graph._fwd_bwd.values()))) == 1


def _programs(jitted):
    """Programs compiled per tier (xnd/tiers: the quick one, then the optimized)."""
    jitted = getattr(jitted, "_program", jitted)     # (host_callbacks.Synced's program)
    if isinstance(jitted, tiers.Tiered):
        return max(jitted.quick._cache_size(), jitted.full._cache_size())
    return jitted._cache_size()


def test_graphs_with_state_or_randomness_are_not_bucketed():
    x = mx.sym.var("x")
    assert not mx.sym.Dropout(x, p=0.5).bind(mx.cpu(), {"x": mx.nd.ones((2, 2))})._graph.elementwise
    bn = mx.sym.BatchNorm(x)
    exe = bn.simple_bind(mx.cpu(), x=(2, 3))
    assert not exe._graph.elementwise
    assert not mx.sym.FullyConnected(x, num_hidden=2).simple_bind(
        mx.cpu(), x=(2, 3))._graph.elementwise


def test_recorded_op_on_an_input_still_computed_compiles_instead_of_waiting(monkeypatch):
    """While recording, an elementwise op whose input is still being computed (a training
    step's forward, dispatched asynchronously) takes its kernel: the bucketed path would wait
    for the input on the host before the rest of the step could trace and compile.  Outside
    record, or once the input is ready, the bucketed path runs as before."""
    import sys
    from xnd import _compat_jax
    core = sys.modules["xnd.ndarray"]
    x = mx.nd.array(np.arange(13 * 5, dtype=np.float32).reshape(13, 5))
    x.attach_grad()
    key = ("exp", (), (((13, 5), np.dtype(np.float32)),))
    monkeypatch.setattr(_compat_jax, "computing", lambda vals: True)
    with mx.autograd.record():
        y = mx.nd.exp(x)
    assert key not in core._FLAT._seen                       # the exact kernel ran
    y.backward()
    want = np.asarray(jax.numpy.exp(x._val()))
    np.testing.assert_array_equal(y.asnumpy(), want)
    np.testing.assert_allclose(x.grad.asnumpy(), want, rtol=1e-6)   # (host tier: float64 exp)
    z = mx.nd.exp(x)                                          # not recording: bucketed
    assert core._FLAT._seen.get(key) == 1
    np.testing.assert_array_equal(z.asnumpy(), want)
    monkeypatch.undo()
    assert not _compat_jax.computing([x._val(), np.ones(2)])  # ready arrays, host arrays
