"""`pip install .` and `pip install -e .` both give `import mxnet`: each installs
xnd-mxnet.pth (xnd.compat.PTH_LINE, written by setup.py's build hook), checked in a throwaway
virtualenv from a fresh interpreter.

The virtualenvs get no packages of their own besides xnd (``--no-deps``): a ``.pth`` there
names a view of this interpreter's site-packages (links to all but xnd) as a plain path, so
jax and numpy import, while an xnd installed there, and that directory's own ``.pth`` files
(a developer's editable xnd, say), do not."""
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

from xnd import compat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHECK = """\
import sys
assert 'xnd' not in sys.modules and 'jax' not in sys.modules
assert [type(f).__name__ for f in sys.meta_path].count('XndMxnetBootstrap') == 1
import mxnet as mx
from mxnet import nd
import xnd
assert mx is xnd and nd is sys.modules['xnd.frontend.ndarray']
print(mx.__file__)
print(nd.ones((2,)).asnumpy().tolist())
"""


def _source(tmp_path):
    """The files an sdist holds, copied (the build writes egg-info and build/ beside them)."""
    src = tmp_path / "src"
    src.mkdir()
    shutil.copytree(os.path.join(ROOT, "xnd"), src / "xnd",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(os.path.join(ROOT, name), src / name)
    return src


def _venv(path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True,
                   timeout=300)
    python = str(path / "bin" / "python")
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                              "['purelib'])"], capture_output=True, text=True, check=True).stdout
    # this interpreter's packages without its own xnd (CI installs one there, which would
    # shadow the editable install under test): a directory of links to everything else
    base, view = sysconfig.get_paths()["purelib"], path.parent / "base_site"
    view.mkdir(exist_ok=True)
    for name in os.listdir(base):
        if not (name == "xnd" or name.startswith(("xnd-", "xnd_", "__editable__"))):
            (view / name).symlink_to(os.path.join(base, name))
    with open(os.path.join(purelib.strip(), "zz_base_site.pth"), "w") as f:
        f.write(str(view) + "\n")
    return python, purelib.strip()


def _install(python, *args):
    res = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "-q",
                          "--no-deps", *args], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.parametrize("editable", [False, True], ids=["wheel", "editable"])
def test_install_gives_import_mxnet(tmp_path, editable):
    src = _source(tmp_path)
    python, purelib = _venv(tmp_path / "venv")
    _install(python, *(["-e", str(src)] if editable else [str(src)]))
    with open(os.path.join(purelib, "xnd-mxnet.pth"), encoding="utf-8") as f:
        assert f.read() == compat.PTH_LINE + "\n"
    res = subprocess.run([python, "-c", CHECK], cwd=str(tmp_path), capture_output=True,
                         text=True, timeout=600,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert res.returncode == 0, res.stderr
    where = src if editable else purelib
    assert res.stdout == f"{os.path.join(where, 'xnd', '__init__.py')}\n[1.0, 1.0]\n"
