"""A LeNet-like convolution + BatchNorm symbol trained by Module for 30 SGD steps (by hand
and by Module.fit) ends where MXNet 1.9.1 ends, within MXNet's own run-to-run spread
(issue 44). The goldens (tests/make_bn_module_goldens.py) hold MXNet's run with oneDNN (the
pip wheel's default) and without it (MXNET_MKLDNN_ENABLED=0); their difference, per array,
is MXNet's spread, and xnd must be within 4 times it (1e-6 at least).

MXNet quirk not reproduced: with oneDNN, ``Module.get_params()`` after hand-written steps
reports the moving statistics as they were initialised (0 and 1) although the module
predicts with the updated ones; xnd reports the updated ones, as MXNet without oneDNN and
MXNet's own ``fit`` do, so the moving statistics of the hand-written run are compared with
the run without oneDNN."""
import numpy as np
import pytest

import xnd as mx

import bn_module_cases as C
from golden_files import read

META, GOLD = read("bn_module")


def _tolerance(key):
    return 4 * max(META["spread_onednn_vs_plain"]["fit"][key], 1e-6)


@pytest.mark.parametrize("how", ["steps", "fit"])
def test_conv_batchnorm_module_training_matches_mxnet(how):
    got = C.run(mx, how)
    keys = sorted(META["spread_onednn_vs_plain"]["fit"])
    assert sorted(got) == keys
    for k in keys:
        refs = ["plain"] if how == "steps" and "moving" in k else ["onednn", "plain"]
        for ref in refs:
            want = GOLD[f"{how}/{ref}/{k}"]
            assert got[k].shape == want.shape and got[k].dtype == want.dtype, k
            err = float(np.abs(got[k] - want).max())
            assert err <= _tolerance(k), (k, ref, err, _tolerance(k))
