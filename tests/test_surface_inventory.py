"""xnd against the inventory of MXNet 1.9.1's public surface (issue 41).

``tests/goldens/surface/mxnet-1.9.1.json`` (written on MXNet by
tests/make_surface_inventory.py) lists every public module under ``mxnet`` and each public
name MXNet defines there, with its kind and, for a function (a class: its ``__init__``), its
signature.  Here, with ``import mxnet`` served by xnd:

* every module that imports on MXNet imports;
* every name exists, except those xnd/porting/surface_exceptions.py lists with a reason
  (and an entry there must name something MXNet has and xnd lacks, so the list only
  shrinks); a name that cannot work on XLA (a C-library handle, a CUDA-only entry point, an
  int8 quantized kernel) exists as an entry raising MXNetError with its reason
  (xnd/lowering/unavailable.py), counted apart;
* a function accepts MXNet's parameters: each named parameter by name, and a parameter
  MXNet's callers pass by position (one without a default) at the same position; MXNet's
  ``*args``/``**kwargs`` need xnd's;
* ``python -m xnd check`` reports a listed name with its reason.

The coverage figures are printed (``pytest -s``) and held at the issue's goals.
"""
import importlib
import inspect
import json
import os
import warnings

import pytest

import xnd.compat
from xnd.lowering import unavailable
from xnd.porting import check, surface_exceptions, surface_gaps

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "surface", "mxnet-1.9.1.json")) as f:
    INVENTORY = json.load(f)

xnd.compat.alias_mxnet()

MODULE_GOAL = 190          # of MXNet's 199 importable public modules
NAME_GOAL = 0.97           # of the names MXNet defines in them


def _import_all():
    mods, failed = {}, {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, status in INVENTORY["modules"].items():
            if status != "ok":
                continue
            try:
                mods[name] = importlib.import_module(name)
            except Exception as e:  # noqa: BLE001  (the failure is the answer)
                failed[name] = f"{type(e).__name__}: {e}"
    return mods, failed


MODULES, FAILED = _import_all()


def _lookup(key):
    module, _, attr = key.partition(":")
    mod = MODULES.get(module)
    if mod is None:
        return False, None
    try:
        return True, getattr(mod, attr)
    except AttributeError:
        return False, None


RESOLVED = {key: _lookup(key) for key in INVENTORY["names"]}


def _figures():
    ok_modules = sum(s == "ok" for s in INVENTORY["modules"].values())
    names = len(RESOLVED)
    have = sum(found for found, _ in RESOLVED.values())
    return ok_modules, len(MODULES), names, have


def _raising(obj):
    return isinstance(getattr(obj, "_xnd_unsupported", None), str)


def test_coverage_figures():
    ok_modules, imported, names, have = _figures()
    excused = sum(1 for k, (found, _) in RESOLVED.items()
                  if not found and surface_exceptions.reason(k) is not None)
    raising = sum(1 for found, obj in RESOLVED.values() if found and _raising(obj))
    print(f"\nmodules importing: {imported} / {ok_modules}; names existing: {have} / {names} "
          f"({100.0 * have / names:.1f}%), of which {raising} raise MXNetError with the reason "
          f"they cannot work on XLA; missing and listed with a reason: {excused}")
    assert imported >= MODULE_GOAL, sorted(FAILED.items())
    assert have >= NAME_GOAL * names


def test_every_module_imports_or_is_listed():
    unlisted = {m: e for m, e in FAILED.items() if surface_exceptions.reason(m + ":") is None}
    assert not unlisted


def test_every_name_exists_or_is_listed():
    missing = sorted(k for k, (found, _) in RESOLVED.items()
                     if not found and surface_exceptions.reason(k) is None)
    assert not missing, f"{len(missing)} names missing: {missing}"


def stale_entries():
    """Entries of the lists that no longer name a gap: (missing names, signatures).  They do
    not fail (the helper who fills a gap need not edit the list at once, as with
    tests/test_architecture.py's allowlists); ``python tests/test_surface_inventory.py``
    prints them, to be deleted."""
    lacking = [k for k, (found, _) in RESOLVED.items() if not found]
    lacking += [m + ":" for m in FAILED]
    names = [p for p, _ in surface_exceptions.EXCEPTIONS
             if not any(surface_exceptions.matches(p, k) for k in lacking)]
    problems = _signature_problems()
    sigs = [p for p, _ in surface_gaps.SIGNATURE_GAPS if p not in problems]
    return names, sigs


def test_exception_patterns_are_well_formed():
    for pattern, why in surface_exceptions.EXCEPTIONS + surface_exceptions.SIGNATURES:
        module, sep, _ = pattern.partition(":")
        assert sep and module and why, pattern


def _params(sig):
    return list(sig.parameters.values())


def accepts(mx_params, ours):
    """Why `ours` (an inspect.Signature) does not take MXNet's parameters `mx_params`
    ([name, kind, default repr or None]), or None."""
    P = inspect.Parameter
    kinds = {p.kind for p in ours.parameters.values()}
    positional = [p.name for p in ours.parameters.values()
                  if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    for i, (name, kind, default) in enumerate(mx_params):
        if kind in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            if getattr(P, kind) not in kinds:
                return f"no {'*' if kind == 'VAR_POSITIONAL' else '**'}{name}"
            continue
        mine = ours.parameters.get(name)
        if kind != "POSITIONAL_ONLY" and (
                mine is None or mine.kind not in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY)):
            return f"no parameter {name!r}"
        if kind != "KEYWORD_ONLY" and default is None:   # callers pass it by position
            if i >= len(positional) or (kind != "POSITIONAL_ONLY" and positional[i] != name):
                return f"{name!r} is not parameter {i}"
    return None


def _signature_problems():
    out = {}
    for key, entry in INVENTORY["names"].items():
        found, obj = RESOLVED[key]
        if not found or len(entry) < 2 or entry[0] not in ("function", "class"):
            continue
        if surface_exceptions.reason(key) is not None or _raising(obj):
            continue   # (an entry that raises for every call has no parameters to hold)
        target = obj.__init__ if inspect.isclass(obj) else obj
        try:
            sig = inspect.signature(target)
        except (TypeError, ValueError):
            continue   # a builtin without a signature: nothing to compare
        mx_params = entry[1]
        if inspect.isclass(obj) and sig.parameters and next(iter(sig.parameters)) == "self":
            sig = sig.replace(parameters=_params(sig)[1:])
        why = accepts(mx_params, sig)
        if why is not None:
            out[key] = why
    return out


def test_functions_take_mxnets_parameters():
    problems = _signature_problems()
    listed = {k for k in problems if surface_exceptions.signature_reason(k) is not None}
    unlisted = {k: v for k, v in problems.items() if k not in listed}
    checked = sum(1 for k, e in INVENTORY["names"].items() if RESOLVED[k][0] and len(e) > 1)
    print(f"\nsignatures: {checked - len(problems)} / {checked} take MXNet's parameters")
    assert not unlisted, f"{len(unlisted)}: {sorted(unlisted.items())[:80]}"


def test_accepts_rule():
    def f(data=None, act_type=None, out=None, name=None, **kwargs):
        pass

    def g(*args, **kwargs):
        pass

    mx = [["data", "POSITIONAL_OR_KEYWORD", "None"], ["act_type", "POSITIONAL_OR_KEYWORD", "_Null"],
          ["kwargs", "VAR_KEYWORD", None]]
    assert accepts(mx, inspect.signature(f)) is None
    assert accepts(mx, inspect.signature(g)) == "no parameter 'data'"
    assert accepts([["x", "POSITIONAL_OR_KEYWORD", None]], inspect.signature(f)) == \
        "no parameter 'x'"
    assert accepts([["act_type", "POSITIONAL_OR_KEYWORD", None]], inspect.signature(f)) == \
        "'act_type' is not parameter 0"


def _check_uses(tmp_path, source):
    src = tmp_path / "uses_it.py"
    src.write_text(source)
    report = check.run_check([str(tmp_path)])
    return {u["text"]: u for f in report["files"] for u in f["uses"]}


def test_check_reports_a_missing_name_with_its_reason(tmp_path):
    uses = _check_uses(tmp_path, "import mxnet as mx\nmx.model.DataParallelExecutorManager\n"
                                 "from mxnet.notebook import callback\ncallback.LiveTimeSeries\n")
    for text, why in (("mx.model.DataParallelExecutorManager", surface_exceptions.LEGACY_EXEC),
                      ("callback.LiveTimeSeries", surface_exceptions.BOKEH)):
        assert uses[text]["status"] == "unsupported" and why in uses[text]["reason"], uses


def test_check_reports_a_raising_entry_with_its_reason(tmp_path):
    uses = _check_uses(tmp_path, "import mxnet as mx\nmx.nd.contrib.quantize_v2\n"
                                 "mx.rtc.CudaModule\nmx.sym.contrib.dgl_subgraph\n")
    for text, why in (("mx.nd.contrib.quantize_v2", unavailable.QUANTIZED),
                      ("mx.rtc.CudaModule", unavailable.CUDA_RTC),
                      ("mx.sym.contrib.dgl_subgraph", unavailable.SPARSE_GRAPH)):
        assert uses[text]["status"] == "unsupported" and why in uses[text]["reason"], uses


def test_raising_entries_raise_mxnet_error_with_the_reason():
    import mxnet as mx
    from xnd.base import MXNetError
    for call, why in ((lambda: mx.nd.contrib.quantize_v2(mx.nd.ones(2)), unavailable.QUANTIZED),
                      (lambda: mx.rtc.CudaModule("__global__ void f() {}"), unavailable.CUDA_RTC),
                      (lambda: mx.kvstore.KVStoreServer(None), unavailable.PS_SERVER),
                      (lambda: mx.space.ConfigSpace(), unavailable.TVM)):
        with pytest.raises(MXNetError) as e:
            call()
        assert why in str(e.value)


if __name__ == "__main__":
    for what, entries in zip(("missing names", "signatures"), stale_entries()):
        print(f"stale {what} entries (delete them from xnd/porting/surface_gaps.py):")
        for e in entries:
            print("   ", e)
