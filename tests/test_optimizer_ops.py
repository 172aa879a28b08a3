"""Optimizer update operators (nd.sgd_mom_update & co.) against MXNet 1.9.1: weights and the
states they update in place, after three steps."""
import os

import numpy as np
import pytest

from xnd import nd
from optimizer_op_cases import run_all

GOLDEN = np.load(os.path.join(os.path.dirname(__file__), "goldens", "optimizer_ops", "ops.npz"))
RESULT = run_all(nd)


@pytest.mark.parametrize("name", sorted(RESULT))
def test_update_op_matches_mxnet(name):
    got = RESULT[name]
    assert len(got) == len([k for k in GOLDEN.files if k.startswith(name + ".")])
    for i, v in enumerate(got):
        np.testing.assert_allclose(v, GOLDEN[f"{name}.{i}"], rtol=1e-5, atol=1e-6, equal_nan=True)


def test_state_inputs_are_updated_in_place_and_out_keeps_identity():
    w, g, m = nd.ones((2,)), nd.ones((2,)), nd.zeros((2,))
    wid, mid = id(w), id(m)
    r = nd.sgd_mom_update(w, g, m, out=w, lr=0.5, momentum=0.9)
    assert r is w and id(w) == wid and id(m) == mid
    np.testing.assert_allclose(m.asnumpy(), [-0.5, -0.5])
    np.testing.assert_allclose(w.asnumpy(), [0.5, 0.5])
