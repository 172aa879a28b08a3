"""Contexts: default scoping, device mapping, and MXNet's rule for mixing contexts."""
import sys

import jax.numpy as jnp
import numpy as np
import pytest

import xnd as mx
from xnd import nd

core = sys.modules["xnd.ndarray"]


def test_default_context_scoping_and_positional_ctx():
    assert mx.current_context() == mx.cpu(0)
    with mx.Context("cpu", 1):
        assert nd.ones(2).context == mx.cpu(1)
        with mx.cpu(2):
            assert mx.current_context() == mx.cpu(2)
        assert mx.current_context() == mx.cpu(1)
    assert nd.zeros((2,), mx.cpu(3)).context == mx.cpu(3)
    assert mx.default_context() == mx.cpu(0)  # extension: not in MXNet 1.9.1


def test_cpu_ids_share_memory_space_and_result_takes_first_context():
    a = nd.ones(2, ctx=mx.cpu(1))
    b = nd.ones(2, ctx=mx.cpu(0))
    c = a + b
    assert c.context == mx.cpu(1)
    np.testing.assert_array_equal(c.asnumpy(), [2, 2])


def test_gpu_without_device_is_a_clear_error():
    if mx.num_gpus():
        pytest.skip("a GPU is present")
    with pytest.raises(mx.MXNetError, match="gpu"):
        nd.ones(2, ctx=mx.gpu(0))


def test_mixing_cpu_and_gpu_raises_naming_both():
    gpu_array = core._wrap(jnp.ones(2), mx.gpu(0))  # a stand-in: only its context matters
    with pytest.raises(mx.MXNetError, match=r"cpu\(0\).*gpu\(0\)"):
        nd.ones(2) + gpu_array
    with pytest.raises(mx.MXNetError, match="gpu"):
        nd.elemwise_add(nd.ones(2), gpu_array)


def test_as_in_context_returns_self_when_already_there():
    x = nd.ones(2)
    assert x.as_in_context(mx.cpu(0)) is x
    y = x.copyto(mx.cpu(1))
    assert y is not x and y.context == mx.cpu(1)
