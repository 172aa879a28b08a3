"""xnd's XLA compile options (xnd/lowering/xla_options.py): which programs get which, and
that a program compiled with them can still be called inside another traced function."""
import jax
import jax.numpy as jnp
import numpy as np

from xnd.lowering import xla_options


def test_inference_programs_keep_xla_fusion_emitters():
    train, infer = xla_options.options(), xla_options.options(inference=True)
    if jax.default_backend() != "cpu":
        assert train is None and infer is None
        return
    assert train == {**xla_options.CPU_OPTIONS, **xla_options.TRAINING_OPTIONS}
    assert infer == xla_options.CPU_OPTIONS
    assert "xla_cpu_use_fusion_emitters" not in infer


def test_tuned_jit_runs_top_level_and_nested():
    f = xla_options.jit(lambda x: jnp.tanh(x) * 2)
    x = jnp.arange(4.0)
    np.testing.assert_allclose(np.asarray(f(x)), np.tanh(np.arange(4.0)) * 2, rtol=1e-6)
    g = jax.jit(lambda x: f(x) + 1)                     # options only apply at top level
    np.testing.assert_allclose(np.asarray(g(x)), np.tanh(np.arange(4.0)) * 2 + 1, rtol=1e-6)
    assert f._cache_size() >= 1


def test_switch_off(monkeypatch):
    monkeypatch.setattr(xla_options, "ENABLED", False)
    assert xla_options.options() is None and xla_options.options(inference=True) is None
