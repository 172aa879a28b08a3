"""Gradients of integer NDArrays, as MXNet 1.9.1 computes them (in the array's dtype; a float
gradient cast back is truncated), against tests/make_int_grad_goldens.py. JAX gives integer
inputs no tangent; xnd's autograd differentiates them as float64 and casts back."""
import numpy as np
import pytest

import golden_files
import xnd as mx
from make_int_grad_goldens import cases, grad_of

META, ARR = golden_files.read("int_grad")
CASES = cases(mx)


def test_names_match_goldens():
    assert META["cases"] == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_int_grad(name):
    g = grad_of(mx, CASES[name])
    assert g.dtype == np.int32
    np.testing.assert_array_equal(g, ARR[name])


def test_int_grad_accumulates_with_req_add():
    g = grad_of(mx, CASES["two_masks_add"], "add", 3)
    np.testing.assert_array_equal(g, ARR["two_masks_add_req_add_3"])


@pytest.mark.parametrize("mode", ["saved", "replay"])
def test_both_autograd_modes(monkeypatch, mode):
    from xnd.autograd import engine
    monkeypatch.setattr(engine, "MODE", mode)
    np.testing.assert_array_equal(grad_of(mx, CASES["square_sum"]), ARR["square_sum"])


def test_executor_int_argument_gradient():
    # MXNet 1.9.1: Cast(int32 x -> float32) bound with simple_bind, backward of the head
    # [[1.7, -2.5], [3.2, 9.9]] gives x the int32 gradient [[1, -2], [3, 9]] (truncated)
    x = mx.sym.Variable("x", dtype=np.int32)
    exe = mx.sym.Cast(x, dtype=np.float32).simple_bind(mx.cpu(), x=(2, 2))
    head = np.array([[1.7, -2.5], [3.2, 9.9]], np.float32)
    exe.arg_arrays[0][:] = head
    exe.forward(is_train=True)
    exe.backward(mx.nd.array(head))
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [[1, -2], [3, 9]])
    assert exe.grad_arrays[0].dtype == np.int32
    np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy(), [[1, -2], [3, 9]])
