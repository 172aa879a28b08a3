"""mx.gluon.contrib.estimator against MXNet 1.9.1: the scenarios of
tests/make_estimator_goldens.py (fit by epochs and batches, evaluate, handler order,
checkpoints with max_checkpoints/save_best/resume, early stopping, validation periods,
two contexts, argument errors) run on xnd give the goldens' metrics, logs, files and
weights."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402
import make_estimator_goldens  # noqa: E402
import xnd.compat  # noqa: E402

xnd.compat.alias_mxnet()  # the scenarios import mxnet.gluon.contrib.estimator


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    import mxnet
    return make_estimator_goldens.run_cases(mxnet, str(tmp_path_factory.mktemp("est")))


@pytest.fixture(scope="module")
def golden():
    return golden_files.read("estimator")


def _close_metrics(got, want):
    assert [n for n, _ in got] == [n for n, _ in want]
    np.testing.assert_allclose([v for _, v in got], [v for _, v in want], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["fit_epochs", "fit_batches", "evaluate", "checkpoint",
                                  "checkpoint_batches", "resume", "early_stopping",
                                  "validation"])
def test_case_matches_mxnet(results, golden, case):
    got, want = results[0][case], golden[0][case]
    assert sorted(got) == sorted(want)
    for key in want:
        if key in ("train", "val"):
            _close_metrics(got[key], want[key])
        elif isinstance(want[key], float):
            assert got[key] == pytest.approx(want[key], rel=1e-5)
        else:
            assert got[key] == want[key], key


def test_weights_match_mxnet(results, golden):
    arrays, want = results[1], golden[1]
    assert sorted(arrays) == sorted(want)
    for key in want:  # float32 SGD over up to 24 steps: gradient sums round differently
        np.testing.assert_allclose(arrays[key], want[key], rtol=1e-5, atol=1e-5, err_msg=key)


def test_two_contexts_and_order(results, golden):
    _close_metrics(results[0]["two_ctx"], golden[0]["two_ctx"])
    assert results[0]["order"] == golden[0]["order"]
    assert results[0]["stopping_defaults"] == golden[0]["stopping_defaults"]
    assert results[0]["early_auto_greater"] is True
    assert results[0]["resume_done"] == golden[0]["resume_done"]


def test_errors_match_mxnet(results, golden):
    assert results[0]["errors"] == golden[0]["errors"]
