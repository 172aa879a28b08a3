"""Python operators inside compiled programs (custom_op_fit_cases.py, run in a child process
with a timeout: these scenarios hung before xnd/lowering/host_callbacks.py): MXNet's
custom_softmax example trained by Module.fit and scored, against MXNet 1.9.1's numbers
(goldens/custom_op_fit, make_custom_op_fit_goldens.py); an error raised inside a bound
graph's Python forward surfaces as MXNetError; callbacks whose own work runs programs while
hundreds of programs queue behind them finish."""
import os
import subprocess
import sys

import numpy as np
import pytest

from golden_files import read

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "custom_op_fit_cases.py")
META, GOLDEN = read("custom_op_fit")


def _child(*args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(HERE), os.environ.get("PYTHONPATH", "")]))
    try:
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                              timeout=150, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"custom_op_fit_cases.py {' '.join(args)} hung (killed after 150 s)")


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("custom_fit") / "out.npz")
    proc = _child(path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return dict(np.load(path))


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_python_softmax_fit_and_score_match_mxnet(fitted, key):
    np.testing.assert_allclose(fitted[key], GOLDEN[key], rtol=1e-5, atol=1e-6)


def test_error_in_python_forward_of_a_bound_graph_is_mxnet_error(fitted):
    assert str(fitted["raises"]) == META["raises"] == "MXNetError"
    assert str(fitted["raises_message"]) == ("Error in CustomOp.forward of 't_fit_raises': "
                                             "ValueError: deliberate failure in forward")


def test_callbacks_running_programs_behind_a_queue_finish():
    proc = _child("queued")
    assert proc.returncode == 0, proc.stderr[-3000:]
    got, want = proc.stdout.split("queued ")[-1].split()
    assert float(got) == float(want)
