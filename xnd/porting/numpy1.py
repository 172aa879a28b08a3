"""numpy 1.x code on a newer numpy: what `xnd run` restores, and what `xnd check` reports.

`restore_aliases()` (what ``python -m xnd run`` does unless ``--no-numpy-compat`` or
``XND_NUMPY_COMPAT=0``) puts back, where the installed numpy lacks them, the aliases that
numpy 1.x scripts use and numpy removed: ``np.float``, ``np.int``, ``np.bool``,
``np.object``, ``np.str``, ``np.long`` (the builtins, as numpy 1.23 had them),
``np.unicode`` (``str``) and ``np.asscalar(a)`` (``a.item()``), and ``np.fromstring``'s
binary mode (no ``sep``), which numpy 2 made a ValueError: there it returns
``np.frombuffer(...).copy()``, the writable copy numpy 1 gave (MXNet's own
``train_mnist.py`` reads MNIST so); its text mode is numpy's.  Every other numpy name stays
as numpy has it; numpy 2's own ``np.bool`` and ``np.long`` are left alone.

`scan(trees)` finds, statically, the numpy-1-only uses that fail on numpy 2: the removed
names of `REMOVED` (reached through the names numpy is imported as, or imported from it),
``np.fromstring`` in binary mode (no ``sep``), and the conversion of ``x.asnumpy()`` (never
0-d) to a Python scalar by ``float()``, ``int()`` or ``'%f' %``.
"""
import ast
import os


def asscalar(a):
    """numpy 1.x's ``np.asscalar``: the single element of ``a`` as a Python scalar."""
    return a.item()


ALIASES = {"float": float, "int": int, "bool": bool, "object": object, "str": str,
           "long": int, "unicode": str, "asscalar": asscalar}

_RESTORED = []          # the names restore_aliases() set in this process
ENV = "XND_NUMPY_COMPAT"


def enabled(environ=os.environ):
    """Whether ``XND_NUMPY_COMPAT`` allows the aliases (anything but 0/off/false/no)."""
    return environ.get(ENV, "1").strip().lower() not in ("0", "off", "false", "no")


def _binary_fromstring_removed(numpy):
    try:
        numpy.fromstring(b"\0", dtype=numpy.uint8)
        return False
    except ValueError:
        return True


def _fromstring(numpy_fromstring, numpy_frombuffer):
    def fromstring(string, dtype=float, count=-1, sep="", **kwargs):
        """numpy.fromstring, with numpy 1's binary mode (``sep=''``) restored by xnd."""
        if sep == "":
            if isinstance(string, str):
                string = string.encode("latin-1")
            return numpy_frombuffer(string, dtype=dtype, count=count, **kwargs).copy()
        return numpy_fromstring(string, dtype=dtype, count=count, sep=sep, **kwargs)
    fromstring.xnd_restored = True
    return fromstring


def restore_aliases():
    """Set each of `ALIASES` that the installed numpy lacks, and fromstring's binary mode
    where numpy removed it; returns the names it set."""
    import warnings

    import numpy
    if not getattr(numpy.fromstring, "xnd_restored", False) and \
            _binary_fromstring_removed(numpy):
        numpy.fromstring = _fromstring(numpy.fromstring, numpy.frombuffer)
        if "fromstring" not in _RESTORED:
            _RESTORED.append("fromstring")
    for name, value in ALIASES.items():
        with warnings.catch_warnings():  # numpy 2 warns on np.object / np.str lookups
            warnings.simplefilter("ignore")
            missing = not hasattr(numpy, name)
        if missing:
            setattr(numpy, name, value)
            if name not in _RESTORED:
                _RESTORED.append(name)
    return list(_RESTORED)


def mode():
    """One line for `python -m xnd info`: what `xnd run` does for numpy 1 code here."""
    import warnings

    import numpy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        missing = [n for n in ALIASES if not hasattr(numpy, n) or n in _RESTORED]
    if "fromstring" in _RESTORED or _binary_fromstring_removed(numpy):
        missing.append("fromstring")
    if _RESTORED:
        return "aliases restored in this process: " + ", ".join(f"np.{n}" for n in _RESTORED)
    if not missing:
        return f"off (numpy {numpy.__version__} has every numpy 1 alias)"
    names = ", ".join(f"np.{n}" for n in missing)
    if not enabled():
        return f"off ({ENV}=0): `xnd run` leaves out {names}"
    return f"aliases: `xnd run` restores {names} (off: --no-numpy-compat or {ENV}=0)"


_ALIAS_FIX = ("removed in numpy 1.24: use `{b}` (what it always was){extra}; "
              "`python -m xnd run` restores it")
_NP2 = "removed in numpy 2.0: "
# name -> how to fix its use
REMOVED = {
    "float": _ALIAS_FIX.format(b="float", extra=", or np.float64"),
    "int": _ALIAS_FIX.format(b="int", extra=", or np.int64"),
    "bool": _ALIAS_FIX.format(b="bool", extra="; numpy 2 has np.bool again, as np.bool_"),
    "object": _ALIAS_FIX.format(b="object", extra=""),
    "str": _ALIAS_FIX.format(b="str", extra=""),
    "long": _ALIAS_FIX.format(b="int", extra="; numpy 2 has np.long again, the C long"),
    "unicode": _ALIAS_FIX.format(b="str", extra=""),
    "complex": "removed in numpy 1.24: use `complex` (what it always was), or np.complex128",
    "asscalar": "removed in numpy 1.23: use `a.item()`; `python -m xnd run` restores it",
}
# removed in numpy 2.0 (NEP 52): name -> what to use instead
_NUMPY2_FIXES = {
    "float_": "use np.float64", "complex_": "use np.complex128",
    "cfloat": "use np.complex128", "singlecomplex": "use np.complex64",
    "longfloat": "use np.longdouble", "longcomplex": "use np.clongdouble",
    "clongfloat": "use np.clongdouble", "string_": "use np.bytes_",
    "unicode_": "use np.str_", "int0": "use np.intp",
    "uint0": "use np.uintp", "bool8": "use np.bool_",
    "object0": "use np.object_", "str0": "use np.str_",
    "bytes0": "use np.bytes_", "void0": "use np.void",
    "NaN": "use np.nan", "NAN": "use np.nan", "Inf": "use np.inf",
    "Infinity": "use np.inf", "infty": "use np.inf",
    "PINF": "use np.inf", "NINF": "use -np.inf",
    "PZERO": "use 0.0", "NZERO": "use -0.0",
    "product": "use np.prod", "cumproduct": "use np.cumprod",
    "sometrue": "use np.any", "alltrue": "use np.all",
    "round_": "use np.round", "msort": "use np.sort(a, axis=0)",
    "in1d": "use np.isin", "trapz": "use np.trapezoid",
    "asfarray": "use np.asarray with a float dtype", "mat": "use np.asmatrix",
    "cast": "use np.asarray(a, dtype=...)",
    "find_common_type": "use np.result_type or np.promote_types",
    "issubclass_": "use issubclass", "issctype": "use issubclass(t, np.generic)",
    "obj2sctype": "use np.dtype(obj).type", "sctype2char": "use np.dtype(obj).char",
    "maximum_sctype": "name the dtype", "sctypes": "name the dtypes",
    "issubsctype": "use np.issubdtype", "safe_eval": "use ast.literal_eval",
    "set_string_function": "use np.set_printoptions(formatter=...)",
    "recfromcsv": "use np.genfromtxt(..., delimiter=',')",
    "recfromtxt": "use np.genfromtxt", "deprecate": "use warnings.warn",
    "source": "use inspect.getsource", "lookfor": "search numpy's documentation",
    "who": "use locals()", "fastCopyAndTranspose": "use a.T.copy()",
    "DataSource": "use np.lib.npyio.DataSource",
    "byte_bounds": "use np.lib.array_utils.byte_bounds",
    "nbytes": "use np.dtype(t).itemsize",
    "geterrobj": "use np.errstate", "seterrobj": "use np.errstate",
}
REMOVED.update((name, _NP2 + fix) for name, fix in _NUMPY2_FIXES.items())
FROMSTRING = ("np.fromstring without sep (binary mode): numpy 2 raises ValueError; use "
              "np.frombuffer(data, dtype).copy() (a writable copy, as fromstring gave), or "
              "install 'numpy<2'; `python -m xnd run` restores it")
SCALAR = ("a Python scalar from x.asnumpy() (an array of ndim >= 1): numpy 1.25 deprecated "
          "it, numpy 2 raises TypeError; use x.asscalar() or x.asnumpy().item(), or install "
          "'numpy<2'")


def _numpy_names(tree):
    """The names numpy is bound to (``import numpy as np``, ``import numpy``) anywhere in
    the file, and the removed names imported from it (``from numpy import float``)."""
    modules, imported = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "numpy":
                    modules.add(a.asname or "numpy")
        elif isinstance(node, ast.ImportFrom) and node.module == "numpy" and not node.level:
            imported += [(node, a.name) for a in node.names if a.name in REMOVED]
    return modules, imported


def _is_asnumpy(node):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "asnumpy" and not node.args)


def _scan_tree(tree):
    modules, imported = _numpy_names(tree)
    found = [(node, f"from numpy import {name}", REMOVED[name]) for node, name in imported]
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in modules):
            if node.attr in REMOVED:
                found.append((node, f"{node.value.id}.{node.attr}", REMOVED[node.attr]))
        elif isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Attribute) and f.attr == "fromstring"
                    and isinstance(f.value, ast.Name) and f.value.id in modules):
                sep = [k.value for k in node.keywords if k.arg == "sep"]
                if len(node.args) >= 4:
                    sep.append(node.args[3])
                if not sep or (isinstance(sep[0], ast.Constant) and sep[0].value == ""):
                    found.append((node, f"{f.value.id}.fromstring(...)", FROMSTRING))
            elif (isinstance(f, ast.Name) and f.id in ("float", "int", "complex")
                  and len(node.args) == 1 and _is_asnumpy(node.args[0])):
                found.append((node, f"{f.id}(....asnumpy())", SCALAR))
        elif (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
              and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
            parts = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            if any(_is_asnumpy(p) for p in parts):
                found.append((node, "'...' % ....asnumpy()", SCALAR))
    return found


def scan(trees):
    """The numpy-1-only uses in ``trees`` ([(cell number or None, ast tree)]), as dicts
    {'line', 'col', 'cell', 'text', 'fix'} in source order."""
    out = []
    for cell, tree in trees:
        for node, text, fix in _scan_tree(tree):
            out.append({"line": node.lineno, "col": node.col_offset, "cell": cell,
                        "text": text, "fix": fix})
    out.sort(key=lambda u: (u["cell"] or 0, u["line"], u["col"]))
    return out
