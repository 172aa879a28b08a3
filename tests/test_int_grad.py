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


class _TopkDecoder(mx.gluon.HybridBlock):
    """GluonCV CenterNetDecoder's index math: topk indices cast to int64, divided by the
    int64 product of shape_array entries (integer division), concatenated with an int64 cast
    of an arange."""

    def hybrid_forward(self, F, x):
        _, _, h, w = x.shape_array().split(num_outputs=4, axis=0)
        scores, indices = x.reshape((0, -1)).topk(k=3, ret_typ="both")
        indices = F.cast(indices, "int64")
        classes = F.cast(F.broadcast_div(indices, h * w), "float32")
        rows = F.cast(F.arange(8).slice_like(indices.reshape(-1), axes=(0,)), "int64")
        both = F.concat(rows, indices.reshape(-1), dim=0)  # an int64 Concat of the two kinds
        return F.broadcast_add(scores + classes, F.cast(both.sum(), "float32"))


@pytest.mark.parametrize("hybridize", [False, True])
def test_cast_to_int_meets_a_true_int_under_record(hybridize):
    """Recorded and differentiated (checked on MXNet 1.9.1): the index math stays integer,
    the gradient reaches the top-k scores only."""
    net = _TopkDecoder()
    if hybridize:
        net.hybridize()
    x = mx.nd.array(np.arange(18).reshape(1, 2, 3, 3)[:, :, ::-1] % 7)
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
    y.backward()
    np.testing.assert_array_equal(y.asnumpy(), [[28, 27, 26]])
    want = np.zeros((1, 2, 3, 3), np.float32)
    want[0, 0, 0, 0] = want[0, 0, 1, 2] = want[0, 1, 1, 1] = 1
    np.testing.assert_array_equal(x.grad.asnumpy(), want)
