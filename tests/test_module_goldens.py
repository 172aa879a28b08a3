"""Module training matches real MXNet 1.9.1 (goldens from tests/make_module_goldens.py).

Each scenario of ``tests/goldens/module/scenarios.py`` runs here on xnd, from the same
fixed initial weights and data as the recorded MXNet run, and every parameter, aux
state, output and metric value must agree (rtol 1e-4, atol 1e-5); fit's log lines must
have MXNet's text. The data-parallel scenarios also run in a subprocess with three XLA
host devices (``--xla_force_host_platform_device_count=3``), where two contexts shard
the batch over a device mesh (shard_map) and an uneven three-way split runs the
per-device slices in one program.
"""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
GOLD = os.path.join(HERE, "goldens", "module")
ROOT = os.path.dirname(HERE)
RTOL, ATOL = 1e-4, 1e-5


def _scenarios():
    spec = importlib.util.spec_from_file_location("module_scenarios",
                                                  os.path.join(GOLD, "scenarios.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SC = _scenarios()
with open(os.path.join(GOLD, "module.json")) as _f:
    EXPECTED = json.load(_f)
with np.load(os.path.join(GOLD, "module.npz"), allow_pickle=False) as _npz:
    ARRAYS = {k: _npz[k] for k in _npz.files}

PARALLEL = ["fit_cnn_bn_2dev", "fit_mlp_2dev", "fit_mlp_3dev_uneven"]


def check_scenario(name):
    """Run scenario ``name`` on xnd and compare with MXNet's record; returns mismatches."""
    import xnd as mx
    mx.random.seed(0)
    got = SC.run(mx, name)
    want = EXPECTED[name]
    problems = []
    if sorted(got) != sorted(want):
        problems.append("keys differ: %s" % sorted(set(got) ^ set(want)))
    for key, w in want.items():
        if key not in got:
            continue
        g = got[key]
        if isinstance(w, dict) and "nd" in w:
            w = ARRAYS[w["nd"]]
            g = np.asarray(g)
            if g.shape != w.shape:
                problems.append("%s: shape %s, MXNet %s" % (key, g.shape, w.shape))
            elif not np.allclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True):
                err = np.max(np.abs(g.astype(np.float64) - w))
                problems.append("%s: max abs diff %.3g\n got %s\nwant %s" % (
                    key, err, np.array2string(g.ravel()[:6]), np.array2string(w.ravel()[:6])))
        elif g != w:
            problems.append("%s:\n got %r\nwant %r" % (key, g, w))
    return problems


@pytest.mark.parametrize("name", list(SC.SCENARIOS))
def test_scenario_matches_mxnet(name):
    problems = check_scenario(name)
    assert not problems, "\n".join(problems)


def test_data_parallel_on_three_devices():
    """The data-parallel scenarios on real XLA host devices (mesh + shard_map)."""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=3",
               PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    code = ("import json, sys; sys.path.insert(0, %r); import test_module_goldens as t; "
            "import jax; assert len(jax.devices('cpu')) == 3, jax.devices(); "
            "print('RESULT' + json.dumps({n: t.check_scenario(n) for n in t.PARALLEL}))" % HERE)
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr[-4000:]
    line = [ln for ln in res.stdout.splitlines() if ln.startswith("RESULT")][-1]
    problems = json.loads(line[len("RESULT"):])
    assert not any(problems.values()), json.dumps(problems, indent=1)
