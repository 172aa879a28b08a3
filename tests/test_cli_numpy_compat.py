"""numpy 1 code and the supported environments on the command line: `xnd run`'s numpy 1
aliases (and --no-numpy-compat), `xnd check`'s numpy-1-only report, what `xnd info` says
(numpy compatibility, compilation cache, which mxnet), a real MXNet beside xnd, and the
import-time refusal of an unsupported jax/jaxlib/numpy (xnd/_compat_jax.py)."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from xnd import _compat_jax

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMPY = _compat_jax.version_tuple(np.__version__)


def _python(args, cwd, pythonpath=(), **extra):
    env = dict(os.environ, PYTHONIOENCODING="utf-8", **extra)
    env["PYTHONPATH"] = os.pathsep.join([*pythonpath, ROOT, *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=600)


ALIAS_SCRIPT = """\
import warnings
warnings.simplefilter("ignore")
import numpy as np
import mxnet as mx
print(np.float is float, np.int is int, np.object is object, np.str is str,
      np.unicode is str)
print(np.asscalar(np.array([2.5])), type(np.asscalar(mx.nd.array([3]).asnumpy())).__name__)
print(np.bool is (np.bool_ if np.__version__ >= "2" else bool), np.long)
print(hasattr(np, "complex"), hasattr(np, "float_"))
b = np.fromstring(b"\\x01\\x02\\x03\\x04", dtype=np.uint16)   # numpy 1's binary mode
b[0] = 7                                            # a writable copy, as numpy 1 gave
print(b.tolist(), np.fromstring("1 2", dtype=int, sep=" ").tolist())
"""


def test_run_restores_numpy1_aliases(tmp_path):
    script = tmp_path / "old_numpy.py"
    script.write_text(ALIAS_SCRIPT)
    res = _python(["-m", "xnd", "run", str(script)], str(tmp_path))
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == "True True True True True"
    assert lines[1] == "2.5 float"
    # numpy 2's own np.bool / np.long are kept; 1.24-1.26 lack them and get the builtins
    long_ = "<class 'int'>" if NUMPY < (2,) else repr(np.long)
    assert lines[2] == f"True {long_}"
    # every other numpy name stays as numpy has it: np.complex is not restored
    assert lines[3] == f"{NUMPY < (1, 24)} {NUMPY < (2,)}"
    assert lines[4] == f"[7, {0x0403 if sys.byteorder == 'little' else 0x0304}] [1, 2]"


@pytest.mark.parametrize("how", ["flag", "env"])
def test_no_numpy_compat(tmp_path, how):
    script = tmp_path / "probe.py"
    script.write_text("import warnings\nwarnings.simplefilter('ignore')\nimport numpy as np\n"
                      "print(hasattr(np, 'float'), hasattr(np, 'asscalar'))\n")
    args = ["-m", "xnd", "run"] + (["--no-numpy-compat"] if how == "flag" else []) + [str(script)]
    res = _python(args, str(tmp_path), **({"XND_NUMPY_COMPAT": "0"} if how == "env" else {}))
    assert res.returncode == 0, res.stderr
    assert res.stdout == f"{NUMPY < (1, 24)} False\n"


NUMPY1_CODE = textwrap.dedent("""\
    import numpy as np
    import numpy
    from numpy import asscalar
    import mxnet as mx
    a = np.zeros(3, dtype=np.float)
    b = np.fromstring(data, dtype=np.uint8)
    c = np.fromstring('1 2', dtype=int, sep=' ')
    d = numpy.fromstring(data, np.int8, -1, '')
    x = mx.nd.ones(1)
    print('%f' % x.asnumpy(), float(x.asnumpy()), x.asscalar())
    e = np.NaN + np.product([1, 2])
    """)


def test_check_reports_numpy1_only_calls(tmp_path):
    src = tmp_path / "legacy.py"
    src.write_text(NUMPY1_CODE)
    res = _python(["-m", "xnd", "check", str(src)], str(tmp_path))
    assert res.returncode == 0, res.stdout + res.stderr   # numpy findings keep exit status 0
    found = [line.split(": numpy-1 ", 1)[1].split("  (", 1)[0]
             for line in res.stdout.splitlines() if ": numpy-1 " in line]
    assert found == ["from numpy import asscalar", "np.float", "np.fromstring(...)",
                     "numpy.fromstring(...)", "'...' % ....asnumpy()", "float(....asnumpy())",
                     "np.NaN", "np.product"]
    assert f"{src}:5: numpy-1 np.float  (removed in numpy 1.24: use `float`" in res.stdout
    assert "np.frombuffer(data, dtype).copy()" in res.stdout
    assert "8 numpy-1-only uses (they fail on numpy 2)" in res.stdout
    assert "pip install xnd 'numpy<2'" in res.stdout
    report = json.loads(_python(["-m", "xnd", "check", "--json", str(src)], str(tmp_path)).stdout)
    assert report["summary"]["numpy1_uses"] == 8
    first = report["files"][0]["numpy1"][0]
    assert (first["line"], first["col"], first["text"]) == (3, 0, "from numpy import asscalar")
    assert "`python -m xnd run` restores it" in first["fix"]


def _missing_aliases():
    """The numpy 1 aliases this numpy lacks: numpy 1.23 only np.asscalar, 1.24-1.26 all
    eight, numpy 2 all but np.bool and np.long (which it defines again), and
    np.fromstring's binary mode."""
    if NUMPY < (1, 24):
        names = ["asscalar"]
    elif NUMPY < (2,):
        names = ["float", "int", "bool", "object", "str", "long", "unicode", "asscalar"]
    else:   # and numpy 2 raises for fromstring's binary mode
        names = ["float", "int", "object", "str", "unicode", "asscalar", "fromstring"]
    return ", ".join(f"np.{n}" for n in names)


def test_info_reports_compat_cache_and_mxnet(tmp_path):
    jc = str(tmp_path / "jax-cache")
    res = _python(["-m", "xnd", "info"], str(tmp_path), JAX_COMPILATION_CACHE_DIR=jc)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert f"numpy {np.__version__}" in lines
    assert ("numpy compat aliases: `xnd run` restores " + _missing_aliases()
            + " (off: --no-numpy-compat or XND_NUMPY_COMPAT=0)") in lines
    # a directory given to JAX is kept (then its entries and size)
    assert any(ln == f"compilation cache on, {jc}" or ln.startswith(f"compilation cache on, {jc}, ")
               for ln in lines), lines
    # which of the two depends on how xnd was installed (a wheel or `pip install -e .` writes
    # xnd-mxnet.pth; a source checkout on PYTHONPATH has none)
    assert {f"mxnet xnd ({os.path.join(ROOT, 'xnd')}), through `python -m xnd run` or "
            "xnd.compat.alias_mxnet() (no xnd-mxnet.pth here)",
            f"mxnet xnd ({os.path.join(ROOT, 'xnd')}), through the xnd-mxnet.pth bootstrap"} \
        & set(lines), lines
    env = {k: v for k, v in os.environ.items() if k != "JAX_COMPILATION_CACHE_DIR"}
    off = subprocess.run([sys.executable, "-m", "xnd", "info"], cwd=str(tmp_path),
                         env=dict(env, PYTHONPATH=ROOT, XND_COMPILATION_CACHE="0",
                                  XND_NUMPY_COMPAT="0"),
                         capture_output=True, text=True, timeout=600)
    lines = off.stdout.splitlines()
    expected = "compilation cache off" + ("" if _compat_jax.PERSISTENT_CACHE else
                                          " (jax 0.4.30 crashes running programs loaded from "
                                          "it; xnd turns it on from jax 0.5 on)")
    assert expected in lines, off.stdout + off.stderr
    assert ("numpy compat off (XND_NUMPY_COMPAT=0): `xnd run` leaves out "
            + _missing_aliases()) in lines


def test_real_mxnet_beside_xnd_is_named(tmp_path):
    fake = tmp_path / "site" / "mxnet"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("print('real mxnet imported')\n")
    script = tmp_path / "job.py"
    script.write_text("import mxnet, xnd\nprint(mxnet is xnd)\n")
    site = str(tmp_path / "site")
    res = _python(["-m", "xnd", "info"], str(tmp_path), pythonpath=[site])
    assert f"mxnet a real MXNet is installed at {fake}: a plain `import mxnet` loads it" \
        in res.stdout, res.stdout + res.stderr
    res = _python(["-m", "xnd", "run", str(script)], str(tmp_path), pythonpath=[site])
    assert res.returncode == 0, res.stderr
    assert res.stdout == "True\n"
    assert f"xnd run: `import mxnet` gives xnd; the MXNet installed at {fake} is not used" \
        in res.stderr


@pytest.mark.parametrize("versions, problem", [
    (("0.4.30", "0.4.30", "1.23.5"), None),                 # the floor
    (("0.7.1", "0.7.1", "1.26.4"), None),                   # the newest jax with numpy 1
    (("0.10.2", "0.10.2", "2.4.6"), None),
    (("0.4.29", "0.4.30", "1.26.4"), "jax 0.4.29 is older than 0.4.30"),
    (("0.4.30", "0.4.26", "1.26.4"), "jaxlib 0.4.26 is older than 0.4.30"),
    (("0.10.2", "0.10.2", "1.26.4"), "jaxlib 0.10.2 needs numpy>=2.0, but numpy 1.26.4"),
    (("0.6.2", "0.6.2", "1.25.2"), "jaxlib 0.6.2 needs numpy>=1.26, but numpy 1.25.2"),
    (("0.4.30", "0.4.30", "1.22.4"), "numpy 1.22.4 is older than 1.23"),
    ((None, "0.4.30", "1.26.4"), "jax is not installed"),
])
def test_environment_problems(versions, problem):
    found = _compat_jax.problems(*versions)
    if problem is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].startswith(problem), found


def test_unsupported_environment_message(monkeypatch):
    fake = {"jax": "0.10.2", "jaxlib": "0.10.2", "numpy": "1.26.4"}
    monkeypatch.setattr(_compat_jax, "_installed", fake.get)
    with pytest.raises(ImportError) as e:
        _compat_jax.check_environment()
    msg = str(e.value)
    assert msg.startswith("xnd cannot run in this environment: jaxlib 0.10.2 needs numpy>=2.0, "
                          "but numpy 1.26.4 is installed (jax 0.10.2, jaxlib 0.10.2, numpy "
                          "1.26.4). xnd supports jax/jaxlib 0.4.30 to 0.10 with numpy 1.23 to "
                          "2.x.")
    assert "pip install --upgrade xnd 'numpy<2'" in msg


def test_import_refuses_an_unsupported_environment(tmp_path):
    """A jaxlib metadata that says 0.4.20 makes `import xnd` fail with the message, before
    jax is imported."""
    dist = tmp_path / "jaxlib-0.4.20.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: jaxlib\nVersion: 0.4.20\n")
    res = _python(["-c", "import sys\ntry:\n    import xnd\nexcept ImportError as e:\n"
                   "    print(e)\nprint('jax' in sys.modules)"], str(tmp_path),
                  pythonpath=[str(tmp_path)])
    assert res.stdout.startswith("xnd cannot run in this environment: jaxlib 0.4.20 is older "
                                 "than 0.4.30, the oldest xnd supports"), res.stdout + res.stderr
    assert res.stdout.endswith("False\n")
