"""Gradients of integer NDArrays, as MXNet 1.9.1 computes them (in the array's dtype; a float
gradient cast back is truncated), against tests/make_int_grad_goldens.py. JAX gives integer
inputs no tangent; xnd's autograd differentiates them as float64 and casts back."""
import json
import os

import numpy as np
import pytest

import xnd as mx
from make_int_grad_goldens import cases, grad_of

G = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "int_grad")
with open(os.path.join(G, "cases.json")) as _f:
    META = json.load(_f)
ARR = dict(np.load(os.path.join(G, "cases.npz")))
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
