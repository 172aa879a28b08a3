"""The AdamW update operators (nd.contrib.adamw_update, mp_, multi_, multi_mp_; GluonNLP's
BERTAdam) against MXNet 1.9.1 (goldens/adamw, made by make_adamw_goldens.py): three in-place
steps, rescale_grad as a number or an array, the skip on NaN/inf/0, the multi-tensor forms."""
import numpy as np
import pytest

import xnd as mx
from xnd.base import MXNetError
from adamw_cases import inputs, run_all
from golden_files import read

META, GOLDEN = read("adamw")
RESULT = run_all(mx)


@pytest.mark.parametrize("case", sorted(META))
def test_adamw_matches_mxnet(case):
    got = RESULT[case]
    assert len(got) == META[case]
    for i, v in enumerate(got):
        np.testing.assert_allclose(v, GOLDEN[f"{case}.{i}"], rtol=1e-6, atol=1e-7)


def test_skipped_update_leaves_weight_and_states_alone():
    w0, g, m0, v0 = inputs()
    for case in ("skip_inf", "skip_nan", "skip_zero"):
        for got, start in zip(RESULT["adamw." + case], (w0, m0, v0)):
            np.testing.assert_array_equal(got, start)


def test_symbol_face_gives_the_nd_step():
    # MXNet 1.9.1's own sym.contrib.adamw_update cannot compose its node ("Not enough
    # argument", as for every update operator with state inputs): xnd's does (docs/porting.md)
    w, g, m, v = inputs()
    s = mx.sym.contrib.adamw_update(mx.sym.var("w"), mx.sym.var("g"), mx.sym.var("m"),
                                    mx.sym.var("v"), 0.5, lr=1.0, eta=0.1, wd=0.05)
    args = {k: mx.nd.array(a) for k, a in zip("wgmv", (w, g, m, v))}
    out = s.bind(mx.cpu(), args).forward()[0]
    np.testing.assert_allclose(out.asnumpy(), GOLDEN["one_step.0"], rtol=1e-6, atol=1e-7)


def test_ops_are_registered_under_mxnets_names():
    for name in ("_adamw_update", "_mp_adamw_update", "_multi_adamw_update",
                 "_multi_mp_adamw_update"):
        assert hasattr(mx.nd._internal, name) and hasattr(mx.sym._internal, name)


def test_multi_rejects_wrong_number_of_learning_rates():
    w = mx.nd.ones((2,))
    with pytest.raises(MXNetError, match="Number of learning rates is inconsistent"):
        mx.nd.contrib.multi_adamw_update([w], [w], [mx.nd.zeros(2)], [mx.nd.zeros(2)], 1.0,
                                         lrs=(0.1, 0.2), wds=(0.0,), etas=(1.0,), out=[w])
