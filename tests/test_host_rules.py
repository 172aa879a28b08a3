"""Every rule of the host tier (xnd/lowering/host_jaxpr.RULES) against XLA on random inputs.

The test enumerates the rule table: a rule without a case here fails, so a new rule is
covered the day it is added.  Each case is a JAX function whose jaxpr holds the rule's
primitive; its jaxpr runs on the host evaluator and the function under ``jax.jit``, and
the two agree bit for bit where the host claims XLA's exact numbers (``host_jaxpr.exact``),
else to float tolerance.  Every equation's parameters are ones the rule's table lists
(``host_params``), so a JAX release that adds one is seen here first.  Runs at both ends of
the supported range (jax 0.4.30 and the newest).
"""
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from xnd.lowering import host_jaxpr, host_params

# primitives that exist at one end of the supported JAX range only: at the other end the
# case's function emits another primitive (the case still runs and is compared)
ONE_END = {"pjit", "jit", "custom_vjp_call", "custom_vjp_call_jaxpr", "split", "square",
           "stack", "tile", "optimization_barrier"}


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def _f(r, *s):
    return r.standard_normal(s).astype(np.float32)


def _pos(r, *s):
    return (np.abs(r.standard_normal(s)) + 0.1).astype(np.float32)


def _unit(r, *s):
    return r.uniform(-0.95, 0.95, s).astype(np.float32)


def _i(r, *s, lo=-50, hi=50, dtype=np.int32):
    return r.integers(lo, hi, s).astype(dtype)


def _odd(r, *s):
    """Floats with the values where rules differ: NaN, infinities, zeros of both signs (in
    every pairing across two draws), halves."""
    x = (r.integers(-8, 8, s) / 2).astype(np.float32).reshape(-1)
    odd = [np.nan, np.inf, -np.inf, -0.0, 0.0] + ([-0.0, 0.0] if r.integers(2) else [0.0, -0.0])
    x[:len(odd)] = odd[:x.size]
    return x.reshape(s)


def _odd_pair(r, *s):
    """Two ``_odd`` draws whose zeros meet with opposite signs and with equal ones."""
    x, y = _odd(r, *s), _odd(r, *s).reshape(-1)
    y[3:7] = [-v if i % 2 == 0 else v for i, v in enumerate(x.reshape(-1)[3:7])]
    return [x, y.reshape(s)]


def _maxpool(x, op=lax.max, init=-np.inf):
    return lax.reduce_window(x, np.float32(init), op, (1, 1, 3, 3), (1, 1, 2, 2),
                             ((0, 0), (0, 0), (1, 1), (1, 1)))


def _unary(fn, gen=_f):
    return fn, lambda r: [gen(r, 3, 5)]


def _binary(fn, gen=_f):
    return fn, lambda r: [gen(r, 3, 5), gen(r, 3, 5)]


def _ints(fn):
    return fn, lambda r: [_i(r, 4, 5), _i(r, 4, 5, lo=-3, hi=4)]


def _rewrite(fn, name):
    """``fn``'s jaxpr with its jit equations renamed to call primitive ``name`` (a primitive
    no public function emits by itself: the evaluator meets it inside JAX's own rewrites)."""
    prim = getattr(jax.extend.core.primitives, name + "_p")

    def make(*args):
        closed = jax.make_jaxpr(fn)(*args)
        eqns = [e.replace(primitive=prim, params={"call_jaxpr": e.params["jaxpr"]})
                if e.primitive.name in ("pjit", "jit") else e for e in closed.jaxpr.eqns]
        return jax.extend.core.ClosedJaxpr(closed.jaxpr.replace(eqns=eqns), closed.consts)
    make.reference = fn
    return make


_JITTED = jax.jit(lambda x: jnp.sin(x) * 2)


def _custom_vjp():
    f = jax.custom_vjp(lambda x: x * 3.0)
    f.defvjp(lambda x: (x * 3.0, None), lambda _, g: (g * 3.0,))
    return f


def _threefry_bits(partitionable):
    def fn(k):
        return jax.extend.random.threefry_prng_impl.random_bits(k, 32, (3, 5))
    fn.partitionable = partitionable
    return fn


def _cases():
    c = {}
    for name, fn in [("neg", jnp.negative), ("sign", jnp.sign), ("floor", jnp.floor),
                     ("ceil", jnp.ceil), ("is_finite", jnp.isfinite), ("abs", jnp.abs),
                     ("exp", jnp.exp), ("exp2", jnp.exp2), ("expm1", jnp.expm1),
                     ("tanh", jnp.tanh), ("logistic", jax.nn.sigmoid), ("sin", jnp.sin),
                     ("cos", jnp.cos), ("tan", jnp.tan), ("atan", jnp.arctan),
                     ("sinh", jnp.sinh), ("cosh", jnp.cosh), ("asinh", jnp.arcsinh),
                     ("cbrt", jnp.cbrt), ("square", jnp.square), ("erf", lax.erf),
                     ("erfc", lax.erfc)]:
        c[name] = _unary(fn, _odd if name in ("neg", "sign", "floor", "ceil", "is_finite",
                                              "abs") else _f)
    for name, fn in [("log", jnp.log), ("log1p", jnp.log1p), ("sqrt", jnp.sqrt),
                     ("rsqrt", lax.rsqrt), ("lgamma", lax.lgamma)]:
        c[name] = _unary(fn, _pos)
    for name, fn in [("asin", jnp.arcsin), ("acos", jnp.arccos), ("atanh", jnp.arctanh),
                     ("erf_inv", lax.erf_inv)]:
        c[name] = _unary(fn, _unit)
    c["acosh"] = _unary(lambda x: jnp.arccosh(x + 1), _pos)
    c["round"] = _unary(lambda x: (lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
                                   lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)), _odd)
    c["not"] = lambda x, b: (~x, ~b), lambda r: [_i(r, 7), _i(r, 7, lo=0, hi=2) > 0]
    c["integer_pow"] = _unary(lambda x: (x ** 3, x ** -2, x ** 0, x ** 1))
    for name, fn in [("add", jnp.add), ("sub", jnp.subtract), ("mul", jnp.multiply),
                     ("max", jnp.maximum), ("min", jnp.minimum), ("atan2", jnp.arctan2),
                     ("nextafter", lax.nextafter)]:
        c[name] = (fn, lambda r: _odd_pair(r, 3, 5)) if name in ("max", "min", "nextafter") \
            else _binary(fn)
    c["add_any"] = _unary(jax.grad(lambda x: (x * x).sum()))
    c["pow"] = lambda x, y: x ** y, lambda r: [_pos(r, 3, 5), _f(r, 3, 5)]
    c["div"] = lambda x, y, i, j: (x / y, lax.div(i, j)), lambda r: [
        _f(r, 4, 5), _f(r, 4, 5), np.array([7, -7, 5, -2 ** 31, 0, 13], np.int32),
        np.array([0, 2, -1, -1, 0, -4], np.int32)]
    c["rem"] = lambda x, y, i, j: (lax.rem(x, y), lax.rem(i, j)), c["div"][1]
    for name, fn in [("and", jnp.bitwise_and), ("or", jnp.bitwise_or),
                     ("xor", jnp.bitwise_xor), ("eq", jnp.equal), ("ne", jnp.not_equal),
                     ("lt", jnp.less), ("le", jnp.less_equal), ("gt", jnp.greater),
                     ("ge", jnp.greater_equal)]:
        c[name] = _ints(fn)
    for name, fn in [("shift_left", lax.shift_left),
                     ("shift_right_arithmetic", lax.shift_right_arithmetic),
                     ("shift_right_logical", lax.shift_right_logical)]:
        c[name] = fn, lambda r: [_i(r, 4, 5, lo=-2 ** 31, hi=2 ** 31 - 1),
                                 _i(r, 4, 5, lo=-2, hi=40)]
    c["select_n"] = lambda p, i, x, y, z: (lax.select(p, x, y), lax.select_n(i, x, y, z)), \
        lambda r: [_f(r, 6) > 0, _i(r, 6, lo=0, hi=3), _odd(r, 6), _f(r, 6), _f(r, 6)]
    c["clamp"] = lambda x, y: (lax.clamp(np.float32(-0.5), x, np.float32(0.5)),
                               lax.clamp(y, x, np.float32(9)), lax.clamp(np.float32(-9), x, y),
                               lax.clamp(x, y, np.float32(9)), lax.clamp(np.float32(-9), y, x)), \
        lambda r: _odd_pair(r, 3, 5)
    c["convert_element_type"] = _unary(lambda x: (
        (x * 1e9).astype(jnp.int32), x.astype(jnp.uint8), x.astype(jnp.float64),
        x.astype(jnp.bool_), x.astype(jnp.float16), x.astype(jnp.int64)), _odd)
    c["bitcast_convert_type"] = lambda x, b: (
        lax.bitcast_convert_type(x, jnp.int32), lax.bitcast_convert_type(x, jnp.uint16),
        lax.bitcast_convert_type(b, jnp.float32)), \
        lambda r: [_odd(r, 3, 4), _i(r, 3, 4, lo=0, hi=255, dtype=np.uint8)]
    # shapes and data movement
    c["broadcast_in_dim"] = _unary(lambda x: jnp.broadcast_to(x[:, None], (3, 4, 5)))
    c["reshape"] = _unary(lambda x: (x.reshape(5, 3), lax.reshape(x, (15,), (1, 0))))
    c["transpose"] = _unary(lambda x: x.T)
    c["squeeze"] = _unary(lambda x: lax.squeeze(x[:, :1], (1,)))
    c["rev"] = _unary(lambda x: (jnp.flip(x, 0), lax.rev(x, (0, 1))))
    c["slice"] = _unary(lambda x: (lax.slice(x, (1, 0), (3, 5), (1, 2)), x[1:3]))
    c["dynamic_slice"] = lambda x, k: lax.dynamic_slice(x, (k, 1), (2, 3)), \
        lambda r: [_f(r, 4, 5), np.int64(3)]
    c["dynamic_update_slice"] = lambda x, u, k: lax.dynamic_update_slice(x, u, (k, 4)), \
        lambda r: [_f(r, 4, 5), _f(r, 2, 2), np.int64(3)]
    c["pad"] = _unary(lambda x: lax.pad(x, np.float32(0.5), ((1, -1, 1), (-2, 3, 2))))
    c["iota"] = lambda: (lax.broadcasted_iota(jnp.int32, (3, 4), 1),
                         lax.iota(jnp.float32, 5)), lambda r: []
    c["split"] = _unary(lambda x: jnp.split(x, [1, 3], axis=1))
    c["concatenate"] = _binary(lambda x, y: jnp.concatenate([x, y, x], 1))
    c["tile"] = _unary(lambda x: jnp.tile(x, (2, 1)))
    c["stack"] = _binary(lambda x, y: jnp.stack([x, y], 1))
    c["copy"] = _unary(lambda x: jnp.array(x, copy=True) + 0)
    c["stop_gradient"] = _unary(lambda x: lax.stop_gradient(x) * 2)
    barrier = getattr(lax, "optimization_barrier", lambda xs: xs)      # (public from 0.4.31)
    c["optimization_barrier"] = _binary(lambda x, y: barrier((x * 2, y)))
    c["sharding_constraint"] = _unary(lambda x: lax.with_sharding_constraint(
        x * 2, jax.sharding.SingleDeviceSharding(jax.devices("cpu")[0])))
    # reductions, scans, sorting
    for name, fn in [("reduce_sum", lambda x: (x.sum(0), x.sum())),
                     ("reduce_prod", lambda x: x.prod(1)),
                     ("reduce_max", lambda x: (x.max(1), jnp.max(x[:0], 0, initial=-3.0))),
                     ("reduce_min", lambda x: x.min(0)), ("argmax", lambda x: jnp.argmax(x, 1)),
                     ("argmin", lambda x: jnp.argmin(x, 0)),
                     ("cumsum", lambda x: lax.cumsum(x, 1, reverse=True)),
                     ("cumprod", lambda x: lax.cumprod(x, 0)),
                     ("cummax", lambda x: lax.cummax(x, 1, reverse=True)),
                     ("cummin", lambda x: lax.cummin(x, 0)),
                     ("sort", lambda x: (jnp.sort(x, 1), lax.sort((x[0], x[1]), num_keys=2))),
                     ("top_k", lambda x: lax.top_k(x, 3))]:
        c[name] = _unary(fn)
    for name in ("and", "or", "xor"):
        prim = getattr(lax, f"reduce_{name}_p")
        c[f"reduce_{name}"] = (lambda x, b, prim=prim: (prim.bind(x, axes=(1,)),
                                                        prim.bind(b, axes=(0,)))), \
            lambda r: [_i(r, 4, 5), _i(r, 4, 5, lo=0, hi=2) > 0]
    # products, windows, indexing
    c["dot_general"] = lambda a, b, i, j: (
        lax.dot_general(a, b, (((2, 0), (3, 1)), ((1,), (0,)))),
        jnp.dot(i, j, preferred_element_type=jnp.int32)), lambda r: [
        _f(r, 4, 3, 5), _f(r, 3, 4, 2, 5), _i(r, 4, 5, dtype=np.int8), _i(r, 5, 3, dtype=np.int8)]
    c["conv_general_dilated"] = lambda x, w: (
        lax.conv_general_dilated(x, w, (2, 1), ((1, 1), (0, 2)), (1, 1), (1, 2)),
        lax.conv_general_dilated(x[:, :2], w[:2, :1], (1, 1), "SAME", feature_group_count=2),
        jax.grad(lambda x: lax.conv_general_dilated(x, w, (2, 2), "VALID").sum())(x)), \
        lambda r: [_f(r, 2, 3, 9, 8), _f(r, 4, 3, 3, 2)]
    c["reduce_window_sum"] = _unary(lambda x: _maxpool(x, lax.add, 0.0), lambda r, *_: _f(r, 2, 3, 9, 9))
    c["reduce_window_max"] = _unary(_maxpool, lambda r, *_: _f(r, 2, 3, 9, 9))
    c["reduce_window_min"] = _unary(lambda x: _maxpool(x, lax.min, np.inf),
                                    lambda r, *_: _f(r, 2, 3, 9, 9))
    ties = lambda r, *_: _i(r, 2, 3, 9, 9, lo=-2, hi=2).astype(np.float32)  # noqa: E731
    c["select_and_scatter_add"] = _unary(jax.grad(lambda x: (_maxpool(x) ** 2).sum()), ties)
    c["select_and_gather_add"] = lambda x, t: jax.jvp(_maxpool, (x,), (t,)), \
        lambda r: [ties(r), _f(r, 2, 3, 9, 9)]
    idx = lambda r: [_f(r, 4, 5), np.array([3, 0, 7, -2, 1], np.int32)]  # noqa: E731
    c["gather"] = lambda a, i: (jnp.take(a, i, axis=0, mode="clip"),
                                jnp.take(a, i, axis=0, mode="fill"), a[i % 4, 2]), idx
    upd = lambda r: idx(r) + [_f(r, 5, 5)]  # noqa: E731
    c["scatter-add"] = lambda a, i, u: a.at[i].add(u[:, 0], mode="drop"), upd
    c["scatter-mul"] = lambda a, i, u: a.at[i, 1].multiply(u[0], mode="clip"), upd
    c["scatter-min"] = lambda a, i, u: a.at[i % 4].min(u), upd
    c["scatter-max"] = lambda a, i, u: a.at[i % 4, 2].max(u[1]), upd
    c["scatter"] = lambda a, i, u: a.at[i].set(u, mode="drop"), upd
    # random bits
    seeds = lambda r: [np.array([7, 12345], np.uint32)]  # noqa: E731
    c["random_seed"] = lambda s: jax.random.key_data(jax.random.key(s)), lambda r: [np.int64(-5)]
    c["random_wrap"] = lambda k: jax.random.key_data(jax.random.wrap_key_data(k)), seeds
    c["random_unwrap"] = c["random_wrap"]
    c["random_bits"] = lambda k: (
        jax.random.bits(jax.random.wrap_key_data(k), (3, 5)),
        jax.random.uniform(jax.random.wrap_key_data(k), (4,), jnp.float32)), seeds
    c["random_split"] = lambda k: jax.random.key_data(
        jax.random.split(jax.random.wrap_key_data(k), 3)), seeds
    c["random_fold_in"] = lambda k: jax.random.key_data(
        jax.random.fold_in(jax.random.wrap_key_data(k), 99)), seeds
    c["threefry2x32"] = _threefry_bits(False), seeds
    c["iota_2x32_shape"] = _threefry_bits(True), seeds
    c["rng_bit_generator"] = lambda k: lax.rng_bit_generator(k, (3, 5), dtype=jnp.uint32)[1], \
        lambda r: [np.array([1, 2, 3, 4], np.uint32)]
    # calls and control flow
    c["pjit"] = c["jit"] = _unary(lambda x: _JITTED(x) + 1)
    c["closed_call"] = _rewrite(lambda x: _JITTED(x) + 1, "closed_call"), c["pjit"][1]
    c["custom_jvp_call"] = _unary(lambda x: jax.nn.relu(x) * 2)
    c["custom_vjp_call"] = c["custom_vjp_call_jaxpr"] = _unary(
        lambda x: _custom_vjp()(x) + 1)
    c["remat2"] = _unary(lambda x: jax.checkpoint(lambda y: jnp.sin(y) * y)(x) + 1)
    c["cond"] = lambda x, p: lax.cond(p, lambda y: y * 2, lambda y: y - 1, x), \
        lambda r: [_f(r, 3, 5), np.bool_(True)]
    c["while"] = _unary(lambda x: lax.while_loop(lambda s: s[0] < 5,
                                                 lambda s: (s[0] + 1, s[1] * 1.5), (0, x))[1])
    c["scan"] = _unary(lambda x: lax.scan(lambda s, y: (s + y, s * y),
                                          jnp.zeros(5, jnp.float32), x, reverse=True))
    c["pure_callback"] = _unary(lambda x: jax.pure_callback(
        lambda y: np.asarray(y) * 2, jax.ShapeDtypeStruct(x.shape, x.dtype), x) + 1)
    return c


CASES = _cases()


def _names(jaxpr, acc):
    for eqn in jaxpr.eqns:
        acc.setdefault(eqn.primitive.name, []).append(eqn)
        for inner in host_jaxpr._sub_jaxprs(eqn):
            _names(inner, acc)
    return acc


def test_every_rule_has_a_case_and_a_parameter_table():
    assert sorted(set(host_jaxpr.RULES) - set(CASES)) == []
    assert sorted(set(host_jaxpr.RULES) ^ set(host_params.PARAMS)) == []


@pytest.mark.parametrize("name", sorted(host_jaxpr.RULES))
def test_rule_agrees_with_xla(name):
    fn, make_args = CASES[name]
    args = make_args(_rng(name))
    old = jax.config.jax_threefry_partitionable
    jax.config.update("jax_threefry_partitionable", getattr(fn, "partitionable", old))
    try:
        ref = getattr(fn, "reference", None)
        closed, ref = (fn(*args), ref) if ref else (jax.make_jaxpr(fn)(*args), fn)
        want = [np.asarray(w) for w in jax.tree_util.tree_leaves(jax.jit(ref)(*args))]
        assert host_jaxpr.unsupported(closed.jaxpr) is None
        got = host_jaxpr.evaluate(closed, [np.asarray(a) for a in args])
    finally:
        jax.config.update("jax_threefry_partitionable", old)
    seen = _names(closed.jaxpr, {})
    assert name in seen or name in ONE_END, sorted(seen)
    for prim, eqns in seen.items():
        for eqn in eqns:
            assert host_params.rejected(eqn) is None, sorted(eqn.params)
    exact = host_jaxpr.exact(closed.jaxpr)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert (g.shape, g.dtype) == (w.shape, w.dtype)
        if w.dtype.kind != "f" or exact:
            _bits_equal(g, w)
        else:
            finite = np.where(np.isfinite(w), w, 0).astype(np.float64)
            scale = max(1.0, float(np.abs(finite).max())) if w.size else 1.0
            tol = 1e-3 if w.dtype == np.float16 else 3e-6
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale, equal_nan=True)
            np.testing.assert_array_equal(np.isnan(g), np.isnan(w))


def _bits_equal(g, w):
    """Equal bit for bit (-0.0 is not 0.0), any NaN matching any NaN."""
    if w.dtype.kind == "f":
        nan = np.isnan(w)
        np.testing.assert_array_equal(np.isnan(g), nan)
        g, w = np.where(nan, 0, g).astype(w.dtype), np.where(nan, 0, w)
        it = np.dtype(f"u{w.dtype.itemsize}")
        np.testing.assert_array_equal(g.view(it), w.view(it))
    else:
        np.testing.assert_array_equal(g, w)


def test_rules_name_exactly_their_parameters():
    """No rule swallows parameters (``**``): each names those its table lists, so a
    parameter the table does not know never reaches a rule that would ignore it.  (Calls
    read their jaxpr from the equation: their other parameters change no value.)"""
    import inspect
    for name, rule in host_jaxpr.RULES.items():
        if name in host_jaxpr._CALLS:
            continue
        sig = inspect.signature(rule).parameters.values()
        assert not any(p.kind == p.VAR_KEYWORD for p in sig), name
        named = {p.name for p in sig if p.kind == p.KEYWORD_ONLY}
        assert named == set(host_params.PARAMS[name]), name


def _with_params(closed, prim, **params):
    eqns = [e.replace(params={**e.params, **params}) if e.primitive.name == prim else e
            for e in closed.jaxpr.eqns]
    return jax.extend.core.ClosedJaxpr(closed.jaxpr.replace(eqns=eqns), closed.consts)


def test_unknown_parameters_and_values_decline_the_plan():
    """A parameter no rule knows, or a value the rule does not follow, makes the program
    compile: XLA computes it, the host never guesses."""
    x = np.ones((2, 3), np.float32)
    closed = jax.make_jaxpr(jnp.exp)(x)
    assert host_jaxpr.unsupported(closed.jaxpr) is None
    assert host_jaxpr.unsupported(_with_params(closed, "exp", future=1).jaxpr) == \
        "exp: parameter future"
    assert host_jaxpr.unsupported(_with_params(closed, "exp", accuracy=1e-3).jaxpr) == \
        "exp: parameter accuracy=0.001"
    dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
    gather = jax.make_jaxpr(lambda a, i: lax.gather(a, i, dn, (1, 3), mode="clip"))(
        x, np.array([[1], [0]], np.int32))
    assert host_jaxpr.unsupported(gather.jaxpr) is None
    one_hot = _with_params(gather, "gather", mode="GatherScatterMode.ONE_HOT")
    assert host_jaxpr.unsupported(one_hot.jaxpr).startswith("gather: parameter mode=")
    # lax.scatter_apply: a scatter whose update is a function, not a set
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    apply = jax.make_jaxpr(lambda a: lax.scatter_apply(a, np.array([[1]]), jnp.sin, dn,
                                                       update_shape=(1,)))(x[0])
    assert host_jaxpr.unsupported(apply.jaxpr).startswith("scatter: parameter update_jaxpr")
    # and a sort of carried operands that need not be stable
    unstable = jax.make_jaxpr(lambda a: lax.sort((a, a), num_keys=1, is_stable=False))(x)
    with pytest.raises(host_jaxpr.Unsupported, match="unstable"):
        host_jaxpr.evaluate(unstable, [x])


def test_a_failing_rule_is_counted_logged_and_compiles(monkeypatch, caplog):
    """A rule's error is no silent fallback: it is counted in host_jaxpr.FAILURES, logged
    (a warning the first time), and the caller gets ``Unsupported`` (the program compiles:
    host_eval.run returns None)."""
    from xnd.lowering import host_eval

    def broken(eqn, x, *, accuracy=None):
        raise IndexError("a gap")
    monkeypatch.setitem(host_jaxpr.RULES, "exp", broken)
    x = np.ones(3, np.float32)
    closed = jax.make_jaxpr(lambda a: jnp.exp(a) + 1)(x)
    key = "exp: IndexError: a gap"
    before = host_jaxpr.FAILURES.get(key, 0)
    with caplog.at_level("DEBUG", logger="xnd.host"):
        with pytest.raises(host_jaxpr.RuleError, match="a gap"):
            host_jaxpr.evaluate(closed, [x])
        assert host_eval.run(closed, [jnp.asarray(x)], jax.devices("cpu")[0]) is None
    assert host_jaxpr.FAILURES[key] == before + 2
    assert [r.levelname for r in caplog.records if "exp" in r.getMessage()][:1] == \
        (["WARNING"] if before == 0 else ["DEBUG"])
