"""xnd's XLA compile options (xnd/lowering/xla_options.py): which programs get which, and
that a program compiled with them can still be called inside another traced function."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from xnd import tiers
from xnd import _compat_jax
from xnd.lowering import xla_options


def test_only_convolution_programs_get_classic_fusion():
    conv, plain = xla_options.options(classic_fusion=True), xla_options.options()
    if jax.default_backend() != "cpu" or _compat_jax.JAX_VERSION <= (0, 7, 1):
        # jax 0.4.30's jit takes no compiler_options; 0.7.1's XLA has no YNNPACK option
        assert conv is None and plain is None
        return
    if _compat_jax.JAX_VERSION < (0, 10) and plain is None:
        assert conv is None   # an XLA between those tested ends without the option
        return
    assert conv == {**xla_options.CPU_OPTIONS, **xla_options.CLASSIC_FUSION_OPTIONS}
    assert plain == xla_options.CPU_OPTIONS
    assert "xla_cpu_use_fusion_emitters" not in plain


def test_which_graphs_are_convolutional():
    import xnd as mx
    from xnd.lowering.registry import get as get_op
    from xnd.symbol.executor import GraphFunction
    assert get_op("Convolution").convolutional and get_op("Pooling").convolutional
    assert not get_op("FullyConnected").convolutional
    data = mx.sym.Variable("data")
    mlp = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=4), name="softmax")
    cnn = mx.sym.FullyConnected(mx.sym.Convolution(data, kernel=(3, 3), num_filter=2),
                                num_hidden=4)
    assert not GraphFunction(mlp).convolutional
    assert GraphFunction(cnn).convolutional


def test_tuned_jit_runs_top_level_and_nested():
    f = xla_options.jit(lambda x: jnp.tanh(x) * 2)
    x = jnp.arange(4.0)
    for _ in range(tiers.TABLE.quick_calls + 1):           # past the host tier: compiled
        np.testing.assert_allclose(np.asarray(f(x)), np.tanh(np.arange(4.0)) * 2, rtol=1e-6)
    g = jax.jit(lambda x: f(x) + 1)                     # options only apply at top level
    np.testing.assert_allclose(np.asarray(g(x)), np.tanh(np.arange(4.0)) * 2 + 1, rtol=1e-6)
    assert f._cache_size() >= 1


def test_switch_off(monkeypatch):
    monkeypatch.setattr(xla_options, "ENABLED", False)
    assert xla_options.options() is None and xla_options.options(classic_fusion=True) is None


@pytest.mark.skipif(xla_options.options() is None,
                    reason="jax 0.4.30's jit takes no compiler_options: nothing to refuse")
def test_an_option_this_xla_refuses_falls_back_to_plain_jit(monkeypatch):
    """An XLA that does not know an option refuses the compilation: the program runs the
    plain jax.jit, and later programs get no options (no probe compilation at start-up)."""
    monkeypatch.setattr(xla_options, "_REFUSED", [])
    monkeypatch.setattr(xla_options, "CPU_OPTIONS", {"xla_no_such_option_anywhere": True})
    f = xla_options.jit(lambda x: x * 3 + 1)
    for _ in range(tiers.TABLE.quick_calls + 1):           # past the host tier: compiled
        np.testing.assert_allclose(np.asarray(f(jnp.arange(3.0))), [1.0, 4.0, 7.0])
    assert xla_options._REFUSED and xla_options.options() is None
    g = xla_options.jit(lambda x: x - 1)
    assert type(g).__name__ != "Tiered" or g.quick is g.full   # no quick options now
    np.testing.assert_allclose(np.asarray(g(jnp.ones(2))), [0.0, 0.0])
