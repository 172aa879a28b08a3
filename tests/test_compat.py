"""`import mxnet` -> xnd (xnd/compat.py) and the `python -m xnd` entry point.

Everything runs in a fresh interpreter: the alias changes sys.modules and
sys.meta_path for good.
"""

import ast
import glob
import os
import subprocess
import sys
import sysconfig
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMPAT = os.path.join(ROOT, "xnd", "compat.py")


def _env():
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    return env


def _python(args, cwd=ROOT):
    return subprocess.run([sys.executable, *args], cwd=cwd, env=_env(), capture_output=True,
                          text=True, encoding="utf-8", timeout=600)


def _run_code(code, cwd=ROOT):
    res = _python(["-c", textwrap.dedent(code)], cwd)
    assert res.returncode == 0, res.stderr[-6000:]
    return res


def _exists(name):
    base = os.path.join(ROOT, *name.split("."))
    return os.path.exists(base + ".py") or os.path.exists(os.path.join(base, "__init__.py"))


def _pth_line():
    """xnd.compat.PTH_LINE, read without importing xnd (which imports jax)."""
    with open(COMPAT, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "PTH_LINE":
            return ast.literal_eval(node.value)
    raise AssertionError("xnd/compat.py defines no PTH_LINE")


def test_core_import_forms():
    _run_code("""
        import sys
        from xnd.compat import alias_mxnet
        alias_mxnet()
        import xnd
        import mxnet
        import mxnet as mx
        from mxnet import nd
        import mxnet.ndarray as nd2
        import mxnet.nd
        import mxnet.ndarray.ndarray
        from mxnet.ndarray import NDArray
        from mxnet import context, base
        import mxnet.random

        core = sys.modules['xnd.ndarray']
        front = sys.modules['xnd.frontend.ndarray']
        assert mx is xnd is mxnet and sys.modules['mxnet'] is xnd
        assert sys.modules['mxnet.nd'] is front
        assert sys.modules['mxnet.ndarray'] is front
        assert nd is front and nd2 is front and mx.nd is front and mx.ndarray is front
        assert sys.modules['mxnet.ndarray.ndarray'] is core and mxnet.ndarray.ndarray is core
        assert NDArray is core.NDArray
        assert isinstance(nd.zeros((2, 2)), core.NDArray)
        assert context is sys.modules['xnd.context'] and mx.context is context
        assert base is sys.modules['xnd.base']
        assert mx.base.MXNetError is xnd.base.MXNetError
        assert sys.modules['mxnet.random'] is sys.modules['xnd.frontend.random']
        assert mx.random is sys.modules['xnd.frontend.random']
        # the modules keep their own identity
        assert front.__name__ == 'xnd.frontend.ndarray' and front.__spec__.name == 'xnd.frontend.ndarray'
    """)


# (import statement, the xnd modules it needs, a check run after it)
FORMS = [
    ("import mxnet as mx", ["xnd"], "assert mx is sys.modules['xnd']"),
    ("from mxnet import nd, autograd", ["xnd.frontend.ndarray", "xnd.autograd"],
     "assert nd is sys.modules['xnd.frontend.ndarray'] and autograd is sys.modules['xnd.autograd']"),
    ("import mxnet.autograd as ag", ["xnd.autograd"], "assert ag is sys.modules['xnd.autograd']"),
    ("from mxnet import gluon", ["xnd.frontend.gluon"],
     "assert gluon is sys.modules['xnd.frontend.gluon']"),
    ("from mxnet import nd, autograd, gluon", ["xnd.frontend.gluon", "xnd.autograd"],
     "assert gluon is sys.modules['mxnet.gluon']"),
    ("from mxnet.gluon import nn", ["xnd.frontend.gluon.nn"],
     "assert nn is sys.modules['xnd.frontend.gluon.nn'] is sys.modules['mxnet.gluon.nn']"),
    ("import mxnet.gluon.nn", ["xnd.frontend.gluon.nn"],
     "assert mxnet.gluon.nn is sys.modules['xnd.frontend.gluon.nn']"),
    ("import mxnet.gluon.nn as nn", ["xnd.frontend.gluon.nn"],
     "assert nn is sys.modules['xnd.frontend.gluon.nn']"),
    ("import mxnet.ndarray.random as r", ["xnd.frontend.random"],
     "assert r is sys.modules['xnd.frontend.random']"),
    ("from mxnet.ndarray import linalg", ["xnd.frontend.ndarray.linalg"],
     "assert linalg is sys.modules['xnd.frontend.ndarray.linalg']"),
    ("import mxnet.symbol as sym", ["xnd.symbol"],
     "assert sym is sys.modules['xnd.symbol'] is sys.modules['mxnet.sym']"),
    ("from mxnet import sym", ["xnd.symbol"], "assert sym is sys.modules['xnd.symbol']"),
    ("from mxnet import mod, module", ["xnd.frontend.module"],
     "assert mod is module is sys.modules['xnd.frontend.module']"),
    ("from mxnet import io, metric, init, initializer, optimizer, lr_scheduler, kv, model, "
     "callback, test_utils",
     ["xnd.frontend.io", "xnd.frontend.metric", "xnd.frontend.initializer",
      "xnd.frontend.optimizer", "xnd.frontend.lr_scheduler", "xnd.frontend.kvstore",
      "xnd.frontend.model", "xnd.frontend.callback", "xnd.frontend.test_utils"],
     "assert init is initializer and kv is sys.modules['mxnet.kvstore']"),
    ("import mxnet.name, mxnet.attribute", ["xnd.name", "xnd.attribute"],
     "assert mxnet.name is sys.modules['xnd.name']"),
]


@pytest.mark.parametrize("stmt,needs,check", FORMS, ids=[f[0] for f in FORMS])
def test_import_form(stmt, needs, check):
    missing = [n for n in needs if not _exists(n)]
    if missing:
        pytest.skip(f"not written yet: {', '.join(missing)}")
    _run_code(f"""
        import sys
        import xnd.compat
        xnd.compat.alias_mxnet()
        {stmt}
        {check}
    """)


def test_prefix_mapping_and_lazy_finder(tmp_path):
    """A name below a table entry maps to the same path below the xnd module,
    found lazily by the finder, as the very same module object."""
    pkg = tmp_path / "xnd_fakepkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import leaf\n")
    (pkg / "sub" / "leaf.py").write_text("VALUE = 42\nclass Thing: pass\n")
    _run_code(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from xnd import compat
        assert compat.resolve('mxnet.gluon.nn.basic_layers') == 'xnd.frontend.gluon.nn.basic_layers'
        assert compat.resolve('mxnet.ndarray.ndarray') == 'xnd.ndarray'
        assert compat.resolve('mxnet.ndarray.utils') == 'xnd.frontend.ndarray.utils'
        assert compat.resolve('mxnet.ndarray.sparse') == 'xnd.frontend.ndarray.sparse'
        assert compat.resolve('mxnet.nd') == 'xnd.frontend.ndarray'
        assert compat.resolve('mxnet.lowering') is None
        assert compat.resolve('mxnet._ctypes') is None
        assert compat.resolve('numpy') is None
        compat.MXNET_MODULES['mxnet.fakepkg'] = 'xnd_fakepkg'
        compat.alias_mxnet()
        import mxnet.fakepkg.sub.leaf
        from mxnet.fakepkg.sub import leaf
        import mxnet.fakepkg.sub.leaf as leaf2
        from mxnet.fakepkg.sub.leaf import Thing
        real = sys.modules['xnd_fakepkg.sub.leaf']
        assert sys.modules['mxnet.fakepkg.sub.leaf'] is real
        assert leaf is real and leaf2 is real and mxnet.fakepkg.sub.leaf is real
        assert Thing is real.Thing and real.VALUE == 42
        assert real.__name__ == 'xnd_fakepkg.sub.leaf' and real.__spec__.name == 'xnd_fakepkg.sub.leaf'
        # exactly one copy of each module was executed
        assert sorted(n for n in sys.modules if n.endswith('leaf')) == ['mxnet.fakepkg.sub.leaf', 'xnd_fakepkg.sub.leaf']
    """)


def test_unknown_module():
    res = _run_code("""
        import xnd.compat
        xnd.compat.alias_mxnet()
        for name, missing in [('mxnet.bogus', 'mxnet.bogus'), ('mxnet.nd.bogus', 'mxnet.nd.bogus'),
                              ('mxnet.ndarray.dlpack', 'mxnet.ndarray.dlpack'),
                              ('mxnet.lowering', 'mxnet.lowering'),
                              ('mxnet.bogus.deeper', 'mxnet.bogus')]:
            try:
                __import__(name)
            except ModuleNotFoundError as e:
                name = missing
                assert e.name == name, (e.name, name)
                assert repr(name) in str(e) and 'xnd does not provide' in str(e), str(e)
                print(e)
            else:
                raise AssertionError(name + ' imported')
        import mxnet
        try:
            import mxnet.bogus
        except ImportError as e:
            print(type(e).__name__)
    """)
    assert "No module named 'mxnet.bogus': xnd does not provide" in res.stdout
    assert res.stdout.rstrip().endswith("ModuleNotFoundError")


def test_alias_is_idempotent():
    _run_code("""
        import sys
        from xnd.compat import alias_mxnet, MxnetFinder
        first = alias_mxnet()
        before = dict((k, v) for k, v in sys.modules.items() if k.split('.')[0] == 'mxnet')
        second = alias_mxnet()
        import mxnet as mx
        after = dict((k, v) for k, v in sys.modules.items() if k.split('.')[0] == 'mxnet')
        assert first is second is mx is sys.modules['xnd']
        assert before == after and 'mxnet.nd' in after
        assert sum(isinstance(f, MxnetFinder) for f in sys.meta_path) == 1
        assert isinstance(sys.meta_path[0], MxnetFinder)
    """)


def test_refuses_a_different_mxnet():
    _run_code("""
        import sys, types
        sys.modules['mxnet'] = types.ModuleType('mxnet')
        from xnd.compat import alias_mxnet
        try:
            alias_mxnet()
        except ImportError as e:
            assert 'already imported' in str(e)
        else:
            raise AssertionError('no error')
    """)


def test_pth_bootstrap_is_lazy():
    """The .pth line imports neither xnd nor jax; the first `import mxnet` does."""
    line = _pth_line()
    assert line.startswith("import ") and "\n" not in line
    _run_code(line + "\n" + line + "\n" + textwrap.dedent("""
        import sys
        assert 'xnd' not in sys.modules and 'jax' not in sys.modules, sorted(sys.modules)
        assert [type(f).__name__ for f in sys.meta_path].count('XndMxnetBootstrap') == 1
        import mxnet as mx
        from mxnet import nd
        import mxnet.ndarray as nd2
        import xnd
        assert mx is xnd and nd is nd2 is sys.modules['xnd.frontend.ndarray']
        assert sys.modules['mxnet.nd'] is sys.modules['xnd.frontend.ndarray']
        import json, os   # other imports are not affected
        try:
            import mxnet.bogus
        except ModuleNotFoundError as e:
            assert 'xnd does not provide' in str(e)
    """))


def test_installed_pth_matches():
    """If xnd is pip-installed here, its .pth file holds exactly PTH_LINE."""
    found = glob.glob(os.path.join(sysconfig.get_paths()["purelib"], "xnd-mxnet.pth"))
    if not found:
        pytest.skip("xnd is not pip-installed in this environment")
    with open(found[0], encoding="utf-8") as f:
        assert f.read().strip() == _pth_line()


# --- python -m xnd -------------------------------------------------------------

SCRIPT = """\
import sys
import mxnet as mx
import xnd
print(repr(sys.argv))
print(__name__)
print(mx is xnd)
print(sys.path[0] == {dir!r})
print(__file__ == sys.argv[0])
"""


def test_run_script(tmp_path):
    script_dir = tmp_path / "scripts"
    script_dir.mkdir()
    script = script_dir / "job.py"
    script.write_text(SCRIPT.format(dir=os.path.realpath(str(script_dir))))
    res = _python(["-m", "xnd", "run", str(script), "a", "--flag", "x y"], cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        repr([str(script), "a", "--flag", "x y"]), "__main__", "True", "True", "True"]


def test_run_exit_code(tmp_path):
    script = tmp_path / "exits.py"
    script.write_text("import sys\nimport mxnet\nprint('before')\nsys.exit(3)\nprint('after')\n")
    res = _python(["-m", "xnd", "run", str(script)], cwd=str(tmp_path))
    assert res.returncode == 3
    assert res.stdout == "before\n"


def test_run_exception(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text("import mxnet as mx\n\ndef f():\n    raise ValueError('boom')\n\nf()\n")
    res = _python(["-m", "xnd", "run", str(script)], cwd=str(tmp_path))
    assert res.returncode == 1
    err = res.stderr
    assert err.startswith("Traceback (most recent call last):\n"), err
    assert f'File "{script}", line 6, in <module>' in err
    assert f'File "{script}", line 4, in f' in err
    assert err.rstrip().endswith("ValueError: boom")
    # the traceback starts at the script, as `python fails.py` prints it
    assert "runpy" not in err and "__main__.py" not in err


def test_run_missing_script(tmp_path):
    res = _python(["-m", "xnd", "run", str(tmp_path / "nope.py")], cwd=str(tmp_path))
    assert res.returncode == 2 and "nope.py" in res.stderr


def test_info():
    res = _python(["-m", "xnd", "info"])
    assert res.returncode == 0, res.stderr
    keys = [line.split()[0] for line in res.stdout.splitlines() if line.strip()]
    assert keys[:11] == ["xnd", "jax", "jaxlib", "numpy", "python", "devices", "num_gpus",
                         "numpy", "compilation", "mxnet", "horovod"]  # numpy compat ..., ...
    horovod = res.stdout.splitlines()[10]
    assert "xnd's Horovod MXNet API" in horovod or "a real Horovod" in horovod
    assert res.stdout.splitlines()[6].split()[1].isdigit()


@pytest.mark.parametrize("args", [["bogus"], ["run"], ["info", "extra"]])
def test_usage(args):
    res = _python(["-m", "xnd", *args])
    assert res.returncode == 2
    assert "usage: python -m xnd" in res.stderr
    assert "run SCRIPT" in res.stderr and "info" in res.stderr


def test_help():
    res = _python(["-m", "xnd", "--help"])
    assert res.returncode == 0 and "usage: python -m xnd" in res.stdout
