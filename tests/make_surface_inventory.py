"""The inventory of MXNet 1.9.1's public surface (issue 41): every module under ``mxnet``
and each public name MXNet itself defines there, with its kind and, for a function (a
class: its ``__init__``), its signature.

Run with the reference interpreter (it must import the real ``mxnet``):

    /work/mxref/bin/python tests/make_surface_inventory.py

Writes ``tests/goldens/surface/mxnet-1.9.1.json`` (one module or name a line);
``tests/test_surface_inventory.py`` holds xnd against it.

What counts: the modules ``pkgutil.walk_packages`` finds whose dotted name has no private
part (199, plus ``mxnet.libmxnet``, the C library, and ``mxnet.onnx.setup``, a setup.py,
which do not import on MXNet either: recorded with their error).  In each module, every
name of ``dir()`` without a leading ``_`` whose object MXNet defines: a function or class
whose ``__module__`` is under ``mxnet`` (or ``ndarray``/``symbol``: the operator
functions MXNet generates at import), a module under ``mxnet`` (kind ``submodule``), an
instance of an MXNet class, or a plain value (kind ``constant``) that some MXNet source file
assigns at top level.  Objects of ctypes (``NDArrayHandle``, ``_LIB``'s types) are listed
apart under ``ctypes``; stdlib and NumPy objects (``np.float32``, ``os``) are left out.
"""
import ast
import importlib
import inspect
import json
import os
import pkgutil
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
OUT = os.path.join(HERE, "goldens", "surface", "mxnet-1.9.1.json")


def _modules(mx):
    names = ["mxnet"]
    for m in pkgutil.walk_packages(mx.__path__, "mxnet."):
        if not any(p.startswith("_") for p in m.name.split(".")):
            names.append(m.name)
    return sorted(names)


def _assigned_names(root):
    """Names some MXNet source file assigns at top level (its constants)."""
    out = set()
    for d, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".py"):
                continue
            with open(os.path.join(d, f), encoding="utf-8") as fh:
                try:
                    tree = ast.parse(fh.read())
                except SyntaxError:
                    continue
            for node in tree.body:
                targets = node.targets if isinstance(node, ast.Assign) else \
                    [node.target] if isinstance(node, ast.AnnAssign) else []
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            out.add(n.id)
    return out


_ADDR = re.compile(r" at 0x[0-9a-f]+")


def _default(v):
    if v is inspect.Parameter.empty:
        return None
    return _ADDR.sub("", repr(v))


def _signature(obj, is_class):
    """[[name, kind, default repr or None], ...], or None where Python cannot tell."""
    target = obj.__init__ if is_class else obj
    if is_class and target is object.__init__:
        return []
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if is_class and params and params[0].name == "self":
        params = params[1:]
    return [[p.name, p.kind.name, _default(p.default)] for p in params]


def _in_mxnet(modname):
    # MXNet's operator functions, generated at import, say "ndarray" or "symbol"
    return isinstance(modname, str) and (modname in ("mxnet", "ndarray", "symbol")
                                         or modname.startswith("mxnet."))


def classify(name, obj, assigned):
    """('submodule' | 'class' | 'function' | 'constant' | 'ctypes' | None, signature)."""
    if inspect.ismodule(obj):
        return ("submodule", None) if _in_mxnet(obj.__name__) else (None, None)
    mod = getattr(obj, "__module__", None) if (inspect.isclass(obj) or callable(obj)) else None
    if isinstance(mod, str) and mod.split(".")[0] in ("ctypes", "_ctypes"):
        return "ctypes", None
    if inspect.isclass(obj):
        if type(obj).__module__.split(".")[0] == "_ctypes":
            return "ctypes", None
        return ("class", _signature(obj, True)) if _in_mxnet(mod) else (None, None)
    if inspect.isfunction(obj) or inspect.isbuiltin(obj):
        return ("function", _signature(obj, False)) if _in_mxnet(mod) else (None, None)
    tmod = type(obj).__module__
    if tmod.split(".")[0] in ("ctypes", "_ctypes"):
        return "ctypes", None
    if _in_mxnet(tmod):
        return "constant", None          # an instance of an MXNet class
    if callable(obj) and _in_mxnet(mod):
        return "function", _signature(obj, False)   # functools.partial and the like
    if tmod == "builtins" and name in assigned:
        return "constant", None
    return None, None


def inventory(mx):
    assigned = _assigned_names(os.path.dirname(mx.__file__))
    modules, names, ctypes_names = {}, {}, {}
    for m in _modules(mx):
        try:
            mod = importlib.import_module(m)
        except BaseException as e:  # noqa: BLE001  (mxnet.onnx.setup calls setup(): SystemExit)
            modules[m] = f"{type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"
            continue
        modules[m] = "ok"
        for a in sorted(dir(mod)):
            if a.startswith("_"):
                continue
            kind, sig = classify(a, getattr(mod, a), assigned)
            if kind == "ctypes":
                ctypes_names[f"{m}:{a}"] = type(getattr(mod, a)).__name__
            elif kind is not None:
                names[f"{m}:{a}"] = [kind, sig] if sig is not None else [kind]
    ok = sum(v == "ok" for v in modules.values())
    counts = {"modules": len(modules), "modules_importing": ok, "names": len(names),
              "ctypes": len(ctypes_names)}
    return {"counts": counts, "modules": modules, "names": names, "ctypes": ctypes_names}


def write_lines(path, doc):
    """Sorted JSON, one module or name a line (a regenerated file differs where MXNet does)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("{\n")
        for i, key in enumerate(sorted(doc)):
            f.write(f" {json.dumps(key)}: {{\n")
            items = sorted(doc[key].items())
            for j, (k, v) in enumerate(items):
                sep = "," if j < len(items) - 1 else ""
                f.write(f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}{sep}\n")
            f.write(" }" + ("," if i < len(doc) - 1 else "") + "\n")
        f.write("}\n")


if __name__ == "__main__":
    from golden_files import real_mxnet
    doc = inventory(real_mxnet())
    write_lines(OUT, doc)
    print(f"wrote {OUT}: {doc['counts']}", file=sys.stderr)
