"""The bundled demo (`python -m xnd`): two legacy-style MXNet scripts on the bundled 8x8 digits.

xnd/examples/lenet_module.py trains a LeNet-like symbol with Module.fit (Speedometer,
do_checkpoint), scores it, reloads the checkpoint with mx.model.load_checkpoint and with
Module.load and checks the same accuracy; xnd/examples/gluon_trainer.py does the task with
a HybridSequential net, DataLoader and a Trainer loop, then save_parameters/load_parameters.
Both run unchanged on MXNet 1.9.1. Here they run at a reduced epoch count and must reach
0.9 validation accuracy and the same accuracy after reloading.

Each test is skipped until the xnd modules its script needs exist (as the seed tests do).
"""
import gzip
import os
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "xnd", "examples")
DIGITS = os.path.join(ROOT, "xnd", "data", "digits.csv.gz")
EPOCHS = 5

NEEDS = {
    "lenet_module.py": ["xnd.frontend.module", "xnd.frontend.io", "xnd.frontend.metric",
                        "xnd.frontend.callback", "xnd.frontend.model", "xnd.frontend.initializer",
                        "xnd.frontend.optimizer", "xnd.frontend.lr_scheduler"],
    "gluon_trainer.py": ["xnd.frontend.gluon", "xnd.frontend.metric", "xnd.frontend.initializer",
                         "xnd.frontend.optimizer"],
}


def _module_exists(name):
    base = os.path.join(ROOT, *name.split("."))
    return os.path.exists(base + ".py") or os.path.exists(os.path.join(base, "__init__.py"))


def _skip_unless_written(script):
    missing = [m for m in NEEDS[script] if not _module_exists(m)]
    if missing:
        pytest.skip(f"{script} needs {', '.join(missing)}, not written yet")


def _env():
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    return env


def _run(args, cwd):
    return subprocess.run([sys.executable, "-m", "xnd", *args], cwd=cwd, env=_env(),
                          capture_output=True, text=True, encoding="utf-8", timeout=1200)


def _accuracies(stdout):
    return [float(x) for x in re.findall(r"validation accuracy:? ([0-9.]+)", stdout)]


def test_bundled_digits():
    with gzip.open(DIGITS, "rt") as f:
        table = np.loadtxt(f, delimiter=",")
    assert table.shape == (1797, 65)
    assert table[:, :64].min() == 0 and table[:, :64].max() == 16
    assert np.bincount(table[:, 64].astype(int)).tolist() == [178, 182, 177, 183, 181, 182, 181,
                                                             179, 174, 180]
    assert os.path.isfile(os.path.join(ROOT, "xnd", "data", "DIGITS_LICENSE.txt"))


def test_lenet_module(tmp_path):
    _skip_unless_written("lenet_module.py")
    prefix = str(tmp_path / "ckpt" / "lenet")
    res = _run(["run", os.path.join(EXAMPLES, "lenet_module.py"), "--epochs", str(EPOCHS),
                "--model-prefix", prefix], str(tmp_path))
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-6000:]
    out, log = res.stdout, res.stderr
    # MXNet's Module.fit log lines (logging goes to stderr)
    assert re.search(r"Epoch\[0\] Batch \[\d+-\d+\]\tSpeed: [0-9.]+ samples/sec\taccuracy=", log), log[-3000:]
    assert f"Epoch[{EPOCHS - 1}] Train-accuracy=" in log
    assert f"Epoch[{EPOCHS - 1}] Validation-accuracy=" in log
    assert f'Saved checkpoint to "{prefix}-{EPOCHS:04d}.params"' in log
    for epoch in range(1, EPOCHS + 1):
        assert os.path.isfile(f"{prefix}-{epoch:04d}.params")
    assert os.path.isfile(f"{prefix}-symbol.json")
    acc = _accuracies(out)
    assert len(acc) == 3, out  # trained, reloaded checkpoint, Module.load
    assert acc[0] >= 0.9, out
    assert acc[0] == acc[1] == acc[2]
    assert "checkpoint round trip: same accuracy" in out


def test_gluon_trainer(tmp_path):
    _skip_unless_written("gluon_trainer.py")
    params = str(tmp_path / "digits.params")
    res = _run(["run", os.path.join(EXAMPLES, "gluon_trainer.py"), "--epochs", str(EPOCHS),
                "--params", params], str(tmp_path))
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-6000:]
    out = res.stdout
    assert re.search(rf"\[Epoch {EPOCHS - 1}\] loss=[0-9.]+ train-accuracy=[0-9.]+ "
                     rf"validation-accuracy=[0-9.]+ time=", out), out
    assert os.path.isfile(params)
    acc = _accuracies(out)
    assert len(acc) == 2, out  # trained, reloaded
    assert acc[0] >= 0.9, out
    assert acc[0] == acc[1]
    assert "checkpoint round trip: same accuracy" in out


def test_demo_command_runs_both(tmp_path):
    """`python -m xnd demo --epochs N` (what `python -m xnd` runs with the default epochs)."""
    _skip_unless_written("lenet_module.py")
    _skip_unless_written("gluon_trainer.py")
    res = _run(["demo", "--epochs", "1"], str(tmp_path))
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-6000:]
    out = res.stdout
    assert "== xnd demo 1/2: lenet_module.py" in out and "== xnd demo 2/2: gluon_trainer.py" in out
    assert out.count("checkpoint round trip: same accuracy") == 2
