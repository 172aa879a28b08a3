"""Graph nodes staged as cached jitted calls (xnd/lowering/staged.py): a node repeated with
the same operator, attributes and input types is traced once, its numbers unchanged; the
trace-time state a lowering reads is part of the key; concrete calls and custom operators
are not staged."""
import jax
import jax.numpy as jnp
import numpy as np

import xnd as mx
from xnd import semantics
from xnd.lowering import dtypes, staged as st
from xnd.symbol.infer import node_call


def _chain(n):
    x = mx.sym.var("x")
    for i in range(n):
        x = mx.sym.Activation(x, act_type="tanh", name=f"act{i}")
    return x


def test_repeated_nodes_are_traced_once_with_unchanged_values():
    data = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    before = dict(st.STATS)
    ex = _chain(6).simple_bind(mx.cpu(), x=(3, 4))
    ex.forward(is_train=True, x=mx.nd.array(data))
    ex.backward(mx.nd.ones((3, 4)))
    assert st.STATS["staged"] - before["staged"] >= 6
    assert st.STATS["traced"] - before["traced"] <= 2     # tanh on (3, 4) f32, once per trace
    x, g = data.astype(np.float64), np.ones(data.shape)   # d tanh^6 = prod (1 - tanh_k^2)
    for _ in range(6):
        x = np.tanh(x)
        g *= 1 - x ** 2
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), x, rtol=1e-6)
    np.testing.assert_allclose(ex.grad_dict["x"].asnumpy(), g, rtol=1e-5)


def test_trace_time_state_is_part_of_the_key():
    def reads_state(x):
        return x + (1.0 if semantics.is_np_shape() else 0.0) + (10.0 if dtypes.REAL_RUN.active
                                                                 else 0.0)
    call = st.staged(reads_state)
    f = jax.jit(lambda x: call(x))
    x = jnp.zeros(2)
    np.testing.assert_array_equal(jax.jit(lambda x: call(x))(x), [0, 0])
    was = semantics.is_np_shape()
    semantics.set_flag("np_shape", True)
    try:
        np.testing.assert_array_equal(jax.jit(lambda x: call(x))(x), [1, 1])
    finally:
        semantics.set_flag("np_shape", was)
    with dtypes.real_run():
        np.testing.assert_array_equal(jax.jit(lambda x: call(x))(x), [10, 10])
    np.testing.assert_array_equal(f(x), [0, 0])


def test_concrete_calls_custom_operators_and_unhashable_attributes_are_not_staged():
    before = st.STATS["staged"]
    call = st.staged(lambda x, k: x * k, k=3.0)
    np.testing.assert_array_equal(call(np.ones(2, np.float32)), [3, 3])    # no jit, no trace
    assert st.STATS["staged"] == before
    odd = st.staged(lambda x, table: x + table[0], table=np.ones(1))      # unhashable: plain
    np.testing.assert_array_equal(jax.jit(lambda x: odd(x))(jnp.zeros(2)), [1, 1])
    assert st.STATS["staged"] == before
    # distinct Python types of equal attribute values are distinct keys (1 vs 1.0 vs True)
    assert st._frozen(1) != st._frozen(1.0) != st._frozen(True)

    class Op(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * 2)

    @mx.operator.register("staged_test_double")
    class Prop(mx.operator.CustomOpProp):
        def list_arguments(self):
            return ["data"]

        def infer_shape(self, in_shape):
            return in_shape, in_shape, []

        def create_operator(self, ctx, shapes, dtypes_):
            return Op()

    node = mx.sym.Custom(mx.sym.var("x"), op_type="staged_test_double")._outputs[0][0]
    call = node_call(node, False)
    np.testing.assert_array_equal(jax.jit(lambda x: call(x))(jnp.ones(2, jnp.float32)), [2, 2])
    assert st.STATS["staged"] == before


def test_built_in_optimizer_rules_are_traced_once_per_parameter_shape():
    """Optimizer.step stages its rule: six parameters of two shapes, two traces, and the
    update is SGD with momentum's (mom = 0.9 * 0 - 0.1 * g; w += mom)."""
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
    ws = [jnp.ones((3,) if i % 2 else (2, 2)) for i in range(6)]
    gs = [jnp.full(w.shape, float(i)) for i, w in enumerate(ws)]
    states = [jnp.zeros(w.shape) for w in ws]
    before = st.STATS["traced"]
    new_w, new_s = jax.jit(lambda w, g, s: opt.step(w, g, s, [0.1] * 6, [0.0] * 6))(ws, gs, states)
    assert st.STATS["traced"] - before == 2
    for i, (w, s) in enumerate(zip(new_w, new_s)):
        np.testing.assert_allclose(np.asarray(s), np.full(ws[i].shape, -0.1 * i), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(w), 1 - 0.1 * i, rtol=1e-6)
