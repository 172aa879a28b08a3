"""Optimizers whose rule is a Python ``update()``: MXNet's LBSGD (gradient accumulation over
``batch_scale`` calls, warmup multipliers, LARS) and a user-defined optimizer, stepped through
the Updater, gluon's Trainer (which runs such an optimizer per parameter through its
Updater, as MXNet does) and Module.fit, against MXNet 1.9.1
(tests/make_python_optimizer_goldens.py)."""
import numpy as np
import pytest

import golden_files
import xnd as mx
from make_python_optimizer_goldens import (LBSGD_CASES, STEPS, TRAINER_LBSGD, lbsgd_updater,
                                           module_fit, register_half_step, trainer)

META, ARR = golden_files.read("python_optimizer")
HALF_STEP = register_half_step(mx)


def _check(arrays, prefix):
    keys = [k for k in ARR if k.startswith(prefix)]
    assert keys
    for k in keys:
        np.testing.assert_allclose(arrays[k], ARR[k], rtol=1e-6, atol=1e-7, err_msg=k)


def test_cases_match_goldens():
    assert META["lbsgd"] == LBSGD_CASES and META["steps"] == STEPS


def test_lbsgd_updater_steps():
    arrays = {}
    lbsgd_updater(mx, arrays)
    for k in range(len(LBSGD_CASES)):
        _check(arrays, f"lbsgd{k}_")


def test_lbsgd_skips_between_macro_batches():
    # batch_scale=2: the first call only accumulates, so the weight is unchanged
    upd = mx.optimizer.get_updater(mx.optimizer.create("lbsgd", learning_rate=1.0,
                                                       batch_scale=2))
    w = mx.nd.array([1.0, 2.0])
    upd(0, mx.nd.array([1.0, 1.0]), w)
    np.testing.assert_array_equal(w.asnumpy(), [1.0, 2.0])
    upd(0, mx.nd.array([3.0, 5.0]), w)      # mean grad [2, 3], warmup multiplier 1 + 1 * 2/160
    np.testing.assert_allclose(w.asnumpy(), [1 - 2 * (1 + 2 / 160), 2 - 3 * (1 + 2 / 160)],
                               rtol=1e-6)


def test_user_optimizer_through_trainer():
    arrays = {}
    trainer(mx, arrays, "halfstepsgd", {"learning_rate": 0.5}, "custom")
    _check(arrays, "custom_")


def test_lbsgd_through_trainer():
    arrays = {}
    trainer(mx, arrays, "lbsgd", TRAINER_LBSGD, "trainer_lbsgd")
    _check(arrays, "trainer_lbsgd_")


def test_lbsgd_through_module_fit():
    arrays = {}
    module_fit(mx, arrays)
    _check(arrays, "module_")


def test_fusable_flags():
    assert mx.optimizer.SGD._fusable() and mx.optimizer.Adam._fusable()
    assert not mx.optimizer.LBSGD._fusable()
    assert not HALF_STEP._fusable()


def test_optimizer_without_rule_or_update_errors():
    opt = mx.optimizer.Optimizer(learning_rate=0.1)
    with pytest.raises(NotImplementedError):
        opt.update(0, mx.nd.ones((2,)), mx.nd.ones((2,)), None)
