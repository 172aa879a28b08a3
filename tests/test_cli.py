"""The `python -m xnd` command line (xnd/__main__.py): dispatch, usage, the tour, and the
ways a legacy script or notebook gets `import mxnet` (run, alias_mxnet in a first cell).

`run` with arguments, exit codes and tracebacks is covered in tests/test_compat.py; `check`
and `coverage` in tests/test_check.py; the demo in tests/test_demo.py.
"""
import json
import os
import subprocess
import sys

import pytest

import xnd.__main__ as cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOUR_GOLDEN = os.path.join(ROOT, "tests", "goldens", "seeds", "seed_tour.out")


def _env(**extra):
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8", **extra)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    return env


def _python(args, cwd=ROOT, **extra):
    return subprocess.run([sys.executable, *args], cwd=cwd, env=_env(**extra), capture_output=True,
                          text=True, encoding="utf-8", timeout=900)


def test_no_arguments_runs_the_demo(monkeypatch):
    calls = []
    monkeypatch.setattr(cli, "demo", lambda args=(): calls.append(list(args)) or 0)
    assert cli.main([]) == 0
    assert calls == [[]]


def test_dispatch(monkeypatch):
    seen = []
    monkeypatch.setattr(cli, "run_script", lambda path, args=(): seen.append((path, list(args))) or 0)
    assert cli.main(["tour"]) == 0
    assert seen[-1] == (cli.TOUR, [])
    assert cli.main(["run", "s.py", "a", "--b"]) == 0
    assert seen[-1] == ("s.py", ["a", "--b"])


def test_demo_scripts_exist():
    for script, _ in cli.DEMOS:
        assert os.path.isfile(script), script
    assert [os.path.basename(s) for s, _ in cli.DEMOS] == ["lenet_module.py", "gluon_trainer.py"]


@pytest.mark.parametrize("args", [["demo", "--epochs"], ["demo", "--epochs", "x"], ["demo", "3"]])
def test_demo_usage(args):
    assert cli.main(args) == 2


def test_help_lists_commands():
    res = _python(["-m", "xnd", "help"])
    assert res.returncode == 0
    for word in ("run SCRIPT", "check", "coverage", "info", "tour", "demo"):
        assert word in res.stdout


def test_unknown_command():
    res = _python(["-m", "xnd", "tour", "extra"])
    assert res.returncode == 2 and "usage: python -m xnd" in res.stderr


def test_tour_prints_the_golden(tmp_path):
    """`xnd tour` runs xnd/examples/seed_tour.py: what MXNet 1.9.1 printed for it."""
    res = _python(["-m", "xnd", "tour"], cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr[-4000:]
    with open(TOUR_GOLDEN, encoding="utf-8") as f:
        assert res.stdout == f.read()


def test_notebook_alias(tmp_path):
    """A notebook whose first cell is `import xnd.compat; xnd.compat.alias_mxnet()`: its cells,
    run one after the other in one namespace as a kernel does, get xnd for `import mxnet`."""
    cells = [
        "import xnd.compat; xnd.compat.alias_mxnet()",
        "import mxnet as mx\nfrom mxnet import nd",
        "x = nd.array([[1, 2], [3, 4]])\nprint((x * 2).asnumpy().tolist(), mx.__name__)",
    ]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": c} for c in cells]}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb))
    runner = (
        "import json, sys\n"
        "ns = {'__name__': '__main__'}\n"
        "for cell in json.load(open(sys.argv[1]))['cells']:\n"
        "    exec(compile(''.join(cell['source']), '<cell>', 'exec'), ns)\n"
    )
    res = _python(["-c", runner, str(path)], cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[[2.0, 4.0], [6.0, 8.0]] xnd"


def test_engine_variables_reach_the_script(tmp_path):
    """A script that sets MXNET_ENGINE_TYPE before `import mxnet` gets the synchronous engine;
    other MXNET_* variables are accepted."""
    script = tmp_path / "naive.py"
    script.write_text(
        "import os\n"
        "os.environ['MXNET_ENGINE_TYPE'] = 'NaiveEngine'\n"
        "os.environ['MXNET_CUDNN_AUTOTUNE_DEFAULT'] = '0'\n"
        "import mxnet as mx\n"
        "import xnd.engine\n"
        "print(xnd.engine.ENGINE_TYPE, xnd.engine.NAIVE, 'MXNET_CUDNN_AUTOTUNE_DEFAULT' in xnd.engine.IGNORED)\n"
        "print(mx.nd.ones((2, 2)).sum().asscalar())\n")
    res = _python(["-m", "xnd", "run", str(script)], cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["NaiveEngine", "True", "True", "4.0"]


README = os.path.join(ROOT, "README.md")
# What MXNet 1.9.1 prints for the README's example.
README_EXAMPLE_OUT = """
[[2. 4.]
 [6. 8.]]
<NDArray 2x2 @cpu(0)>

[[3. 3. 3.]
 [7. 7. 7.]]
<NDArray 2x3 @cpu(0)>
"""


def test_readme_example(tmp_path):
    """The README's ten-line example runs on xnd and prints what MXNet 1.9.1 printed."""
    with open(README, encoding="utf-8") as f:
        text = f.read()
    section = text.split("## Ten lines of MXNet", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert len([line for line in code.splitlines() if line.strip()]) <= 10
    script = tmp_path / "readme_example.py"
    script.write_text(code)
    res = _python(["-m", "xnd", "run", str(script)], cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert res.stdout == README_EXAMPLE_OUT


def test_readme_names_real_commands():
    with open(README, encoding="utf-8") as f:
        text = f.read()
    for cmd in ("python -m xnd run", "python -m xnd check", "python -m xnd info",
                "python -m xnd tour", "python -m xnd demo", "python -m xnd coverage --markdown",
                "import xnd.compat; xnd.compat.alias_mxnet()"):
        assert cmd in text, cmd
    usage = cli.USAGE
    for word in ("run SCRIPT", "check", "info", "tour", "demo", "coverage"):
        assert word in usage
