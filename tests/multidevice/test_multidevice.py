"""Module and Trainer over four contexts, uneven splits, get_params averaging and
SyncBatchNorm across four devices (tests/multidevice_cases.py) against MXNet 1.9.1's
four-context goldens and against xnd's own one-device numbers."""
import numpy as np
import pytest

import golden_files
import xnd as mx
from multidevice_cases import CASES, ctxs

META, GOLD = golden_files.read("multidevice")
ONE_DEVICE = [c for c in CASES if c not in ("sync_batchnorm", "get_params_average")]


def test_four_distinct_devices():
    devices = {c.jax_device() for c in ctxs(mx, 4)}
    assert len(devices) == 4


@pytest.mark.parametrize("case", sorted(CASES))
def test_four_contexts_match_mxnet(case):
    got = CASES[case](mx, ctxs(mx, 4))
    want = {k[len("four/"):]: v for k, v in GOLD.items() if k.startswith("four/")}
    mine = sorted(k for k in want if k.split("/")[0] == sorted(got)[0].split("/")[0])
    assert sorted(got) == mine
    for k in mine:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("case", ONE_DEVICE)
def test_four_contexts_equal_one_device(case):
    four, one = CASES[case](mx, ctxs(mx, 4)), CASES[case](mx, ctxs(mx, 1))
    for k, v in one.items():
        if k.endswith("/0") or "/" not in k[k.index("/") + 1:]:
            np.testing.assert_allclose(four[k], v, rtol=1e-5, atol=1e-6, err_msg=k)
    for k in four:   # every context holds the same weights after the update
        if k.startswith("trainer/"):
            np.testing.assert_array_equal(four[k], four[k.rsplit("/", 1)[0] + "/0"], err_msg=k)
