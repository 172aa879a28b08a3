"""`xnd check` (xnd/porting/check.py) and `xnd coverage` (docs/coverage.md).

The fixture tree tests/fixtures/check_tree/ holds supported, unsupported and
aliased uses, a notebook with IPython syntax, a file that does not parse, a
nested folder and a file that is not Python. The scanner must report each
unsupported use at its line, keep scanning past the broken file, and never
execute anything (aliases.py raises SystemExit(99) at import).
"""
import json
import os
import subprocess
import sys

import pytest

from xnd.porting import check, coverage

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREE = os.path.join(ROOT, "tests", "fixtures", "check_tree")
COVERAGE_MD = os.path.join(ROOT, "docs", "coverage.md")
MXNET_WHEEL = "/work/mxref/lib/python3.11/site-packages/mxnet"


def _env():
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    return env


def _xnd(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "xnd", *args], cwd=cwd, env=_env(),
                          capture_output=True, text=True, encoding="utf-8", timeout=600)


@pytest.fixture(scope="module")
def report():
    return check.run_check([TREE])


def _uses(report, name):
    for f in report["files"]:
        if f["path"].replace(os.sep, "/").endswith("/" + name):
            return f
    raise AssertionError(f"{name} was not scanned: {[f['path'] for f in report['files']]}")


def _find(f, text, status=None):
    hits = [u for u in f["uses"] if u["text"] == text and (status is None or u["status"] == status)]
    assert hits, f"no use {text!r} ({status}) in {f['path']}: {[(u['text'], u['status']) for u in f['uses']]}"
    return hits[0]


def test_files_scanned(report):
    names = sorted(os.path.relpath(f["path"], TREE).replace(os.sep, "/") for f in report["files"])
    assert names == ["aliases.py", "broken.py", "notebook.ipynb", "sub/nested.py", "supported.py",
                     "unsupported.py"]  # sub/notes.txt is not Python


def test_supported_uses(report):
    f = _uses(report, "supported.py")
    assert not f["errors"]
    for text in ["mxnet", "mxnet.nd", "mxnet.autograd", "nd.array", "x.attach_grad",
                 "autograd.record", "nd.relu", "y.backward", "mx.nd.zeros", "mx.sym.Variable",
                 "mx.sym.FullyConnected", "net.list_arguments", "mx.cpu"]:
        _find(f, text, "supported")
    assert all(u["status"] != "unsupported" for u in f["uses"])
    fc = _find(f, "mx.sym.FullyConnected")
    assert fc["api"] == "mxnet.sym.FullyConnected" and fc["xnd"] == "xnd.symbol.FullyConnected"
    assert fc["line"] == 12


def test_unsupported_uses_with_lines(report):
    f = _uses(report, "unsupported.py")
    u = _find(f, "mx.nd.NotAnMXNetOperator", "unsupported")
    assert u["line"] == 6 and "NotAnMXNetOperator" in u["reason"]
    u = _find(f, "mx.library.load", "unsupported")
    assert u["line"] == 7 and u["api"] == "mxnet.library"
    # a method the NDArray class does not define: instances might set it, so unknown
    u = _find(f, "nd.ones(...).not_an_ndarray_method", "unknown")
    assert u["line"] == 8
    # an instance of a class the script builds: attributes neither the class nor xnd's
    # methods (self.x = ...) define are unsupported
    _find(f, "ctx.device_type", "supported")
    u = _find(f, "ctx.not_a_context_method", "unsupported")
    assert u["line"] == 10 and "Context has no attribute 'not_a_context_method'" in u["reason"]


def test_aliases_and_scopes(report):
    f = _uses(report, "aliases.py")
    assert not f["errors"]
    u = _find(f, "mxnet.ndarray.NoSuchFunction", "unsupported")  # from mxnet.ndarray import ...
    assert u["line"] == 4
    _find(f, "mxnet.ndarray.relu", "supported")
    _find(f, "F.relu", "supported")                         # import mxnet.ndarray as F
    _find(f, "ndarray_alias.ones", "supported")             # from mxnet import nd as ...
    _find(f, "nd_relu", "supported")                        # from mxnet.ndarray import relu as ...
    _find(f, "sym.Variable", "supported")
    # hybrid_forward's F is mx.nd *or* mx.sym: both must have it
    inner = [u for u in f["uses"] if u["line"] == 16]
    assert {(u["text"], u["status"]) for u in inner} == {
        ("F.relu", "supported"), ("F.FullyConnected", "supported"), ("F.NoSuchOpInF", "unsupported")}
    assert all(u["api"].startswith("F.") for u in inner)
    # a parameter named nd shadows nothing outside its function and is not mxnet's nd
    assert not [u for u in f["uses"] if "NotChecked" in u["text"]]
    # through a call result: the attribute the NDArray class has is supported, the rest unknown
    _find(f, "F.zeros(...).context", "supported")
    _find(f, "F.zeros(...).context.device_type", "unknown")
    u = _find(f, "getattr(F, 'NoSuchViaGetattr')", "unsupported")
    assert u["line"] == 23
    _find(f, "getattr(F, ...)", "unknown")


def test_syntax_error_reported_and_rest_scanned(report):
    f = _uses(report, "broken.py")
    assert len(f["errors"]) == 1 and "SyntaxError" in f["errors"][0] and "line 4" in f["errors"][0]
    assert f["uses"] == []
    assert report["summary"]["files_with_errors"] == 2  # broken.py and one notebook cell
    assert report["summary"]["files_using_mxnet"] == 5


def test_notebook_cells(report):
    f = _uses(report, "notebook.ipynb")
    # cell 5 does not parse; the others are scanned, sharing one namespace
    assert f["errors"] == ["cell 5: SyntaxError: invalid syntax (line 1)"]
    u = _find(f, "mx.nd.NotInNotebook", "unsupported")
    assert (u["cell"], u["line"]) == (3, 4)
    _find(f, "nd.ones", "supported")            # `from mxnet import nd` was in cell 2
    z = _find(f, "z.asnumpy")                    # cell 6: `%` continuing a line is Python
    assert z["cell"] == 6
    texts = " ".join(u["text"] for u in f["uses"])
    assert "NotInMarkdown" not in texts and "NotPython" not in texts


def test_nested_folder_and_from_import_uses(report):
    f = _uses(report, "nested.py")
    lines = sorted(u["line"] for u in f["uses"] if u["status"] == "unsupported")
    assert lines == [1, 3]  # the import and the use of the imported name


def test_summary_counts(report):
    s = report["summary"]
    counts = {st: sum(1 for f in report["files"] for u in f["uses"] if u["status"] == st)
              for st in check.STATUSES}
    assert s["uses"] == dict(counts, total=sum(counts.values()))
    assert s["uses"]["unsupported"] == 9
    apis = {a["api"] for a in report["unsupported_apis"]}
    assert {"mxnet.nd.NotAnMXNetOperator", "mxnet.library", "F.NoSuchOpInF",
            "mxnet.gluon.nn.NotAGluonLayer"} <= apis


def test_cli_text_output_and_exit_status():
    res = _xnd("check", os.path.relpath(TREE, ROOT))
    assert res.returncode == 1, res.stderr
    out = res.stdout.splitlines()
    assert "tests/fixtures/check_tree/unsupported.py:6: unsupported mx.nd.NotAnMXNetOperator" in \
        [line.split("  (")[0] for line in out]
    assert "tests/fixtures/check_tree/notebook.ipynb:cell3:4: unsupported mx.nd.NotInNotebook" in \
        [line.split("  (")[0] for line in out]
    assert any(line.startswith("tests/fixtures/check_tree/broken.py: error: SyntaxError")
               for line in out)
    assert "xnd check: 6 files scanned, 5 using MXNet, 2 with errors" in out
    assert not any(": unknown " in line for line in out)  # listed only with --unknown
    res = _xnd("check", "--unknown", os.path.relpath(TREE, ROOT))
    assert any(": unknown F.zeros(...).context.device_type" in line for line in res.stdout.splitlines())


def test_cli_json():
    res = _xnd("check", "--json", TREE)
    assert res.returncode == 1
    data = json.loads(res.stdout)
    assert data["tool"] == "xnd check"
    assert data["summary"]["files"] == 6
    assert {u["status"] for f in data["files"] for u in f["uses"]} == {"supported", "unsupported",
                                                                       "unknown"}
    one = next(u for f in data["files"] for u in f["uses"] if u["text"] == "mx.nd.NotAnMXNetOperator")
    assert set(one) >= {"line", "col", "text", "api", "status", "reason"}


def test_cli_exit_zero_when_all_supported():
    res = _xnd("check", os.path.join(TREE, "supported.py"))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "0 unsupported" in res.stdout


def test_cli_usage_errors(tmp_path):
    assert _xnd("check").returncode == 2
    res = _xnd("check", str(tmp_path / "missing"))
    assert res.returncode == 2 and "no such file or directory" in res.stderr
    assert _xnd("check", "--bogus", TREE).returncode == 2


def test_never_executes(tmp_path):
    marker = tmp_path / "ran"
    script = tmp_path / "side_effect.py"
    script.write_text(f"import mxnet as mx\nopen({str(marker)!r}, 'w').write('x')\nmx.nd.zeros(1)\n")
    report = check.run_check([str(script)])
    assert not marker.exists()
    assert report["summary"]["uses"]["supported"] == 2


def test_unreadable_inputs(tmp_path):
    (tmp_path / "bad.ipynb").write_text("{not json")
    (tmp_path / "latin1.py").write_bytes(b"# -*- coding: latin-1 -*-\nimport mxnet as mx\ns = '\xe9'\n"
                                          b"mx.nd.ones(1)\n")
    (tmp_path / "deep.py").write_text("import mxnet as mx\nx = " + "(" * 300 + "1" + ")" * 300 + "\n")
    report = check.run_check([str(tmp_path)])
    by_name = {os.path.basename(f["path"]): f for f in report["files"]}
    assert "not a readable notebook" in by_name["bad.ipynb"]["errors"][0]
    assert not by_name["latin1.py"]["errors"] and len(by_name["latin1.py"]["uses"]) == 2
    assert by_name["deep.py"]["errors"] or by_name["deep.py"]["uses"]  # reported, not raised


def test_scans_xnd_itself_without_errors():
    report = check.run_check([os.path.join(ROOT, "xnd")])
    assert report["summary"]["files_with_errors"] == 0


@pytest.mark.skipif(not os.path.isdir(MXNET_WHEEL), reason="no reference MXNet 1.9.1 package here")
def test_scans_mxnet_reference_package():
    """The Python files of the MXNet 1.9.1 wheel (relative imports, Python 2 leftovers, tools):
    every file is read and none crashes the scanner."""
    report = check.run_check([MXNET_WHEEL])
    assert report["summary"]["files"] > 200
    assert report["summary"]["files_with_errors"] == 0


# ---- docs/coverage.md ------------------------------------------------------------------------------
def test_coverage_md_is_current():
    """docs/coverage.md is generated from the registry and the module table; regenerate it with
    `python -m xnd coverage --markdown -o docs/coverage.md` when this fails."""
    with open(COVERAGE_MD, encoding="utf-8") as f:
        committed = f.read()
    generated = coverage.markdown()
    assert committed == generated, (
        "docs/coverage.md is stale: run `python -m xnd coverage --markdown -o docs/coverage.md`")


def test_coverage_lists_every_registry_operator():
    from xnd.lowering import registry

    data = coverage.collect()
    listed = {o["name"] for o in data["operators"]}
    assert listed == {op.name for op in registry.all_ops().values()}
    names = {n for o in data["operators"] for n in [o["name"], *o["aliases"]]}
    assert names == set(registry.all_ops())
    from xnd import compat
    assert [m["mxnet"] for m in data["modules"]] == sorted(compat.provided_modules())


def test_coverage_cli(tmp_path):
    out = tmp_path / "coverage.md"
    res = _xnd("coverage", "--markdown", "-o", str(out))
    assert res.returncode == 0, res.stderr
    assert out.read_text(encoding="utf-8") == coverage.markdown()
    res = _xnd("coverage")
    assert res.returncode == 0 and "operators:" in res.stdout
