"""The NDArray snippets of the seed articles print what MXNet 1.9.1 printed.

Each ``tests/goldens/seeds/<name>.py`` is an unmodified-style MXNet script; it
runs with ``python -m xnd run`` and its stdout must equal ``<name>.out``
exactly.  The ``.out`` files come from real MXNet 1.9.1
(``make_seed_goldens.py``), except for scripts marked ``golden: by hand``
(xnd extensions, GPU), whose expected output was written by hand.  The bundled
tour (``python -m xnd``) is checked against ``seed_tour.out`` the same way.

Header markers: ``golden: needs gpu`` (skipped without a GPU) and
``golden: needs xnd.<module>`` (skipped until that module exists).
"""

import functools
import glob
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDENS = os.path.join(ROOT, "tests", "goldens", "seeds")
SCRIPTS = sorted(p for p in glob.glob(os.path.join(GOLDENS, "*.py"))
                 if os.path.basename(p) != "make_seed_goldens.py")


def _env():
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    return env


def _xnd(args, cwd):
    return subprocess.run([sys.executable, "-m", "xnd", *args], cwd=cwd, env=_env(),
                          capture_output=True, text=True, encoding="utf-8", timeout=900)


def _header(path):
    with open(path, encoding="utf-8") as f:
        return f.read(2000)


def _module_exists(name):
    base = os.path.join(ROOT, *name.split("."))
    return os.path.exists(base + ".py") or os.path.exists(os.path.join(base, "__init__.py"))


@functools.lru_cache(maxsize=None)
def _num_gpus():
    # In a child process: initialising JAX's GPU backend here would take the
    # GPU memory the scripts need.
    res = _xnd(["info"], ROOT)
    m = re.search(r"^num_gpus (\d+)$", res.stdout, re.M)
    return int(m.group(1)) if res.returncode == 0 and m else 0


def _check(args, expected_path, tmp_path):
    res = _xnd(args, str(tmp_path))
    assert res.returncode == 0, f"exit {res.returncode}\n{res.stderr[-6000:]}"
    with open(expected_path, encoding="utf-8") as f:
        expected = f.read()
    assert res.stdout == expected


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: os.path.basename(p)[:-3])
def test_seed_snippet(script, tmp_path):
    header = _header(script)
    for needed in re.findall(r"golden: needs (xnd[\w.]*)", header):
        if not _module_exists(needed):
            pytest.skip(f"{needed} is not written yet")
    if "golden: needs gpu" in header and _num_gpus() == 0:
        pytest.skip("needs a GPU")
    _check(["run", script], script[:-3] + ".out", tmp_path)


def test_tour(tmp_path):
    """`python -m xnd tour` runs xnd/examples/seed_tour.py and prints what MXNet 1.9.1 printed."""
    _check(["tour"], os.path.join(GOLDENS, "seed_tour.out"), tmp_path)


def test_every_snippet_has_a_golden():
    assert SCRIPTS
    for script in SCRIPTS:
        assert os.path.exists(script[:-3] + ".out"), f"run make_seed_goldens.py for {script}"
        assert _header(script).startswith("# Seed "), script
