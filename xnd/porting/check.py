"""`xnd check PATH...`: a static porting report for MXNet code.

Every ``.py`` file and every code cell of every ``.ipynb`` notebook under the
given paths is parsed with `ast` (never executed). The scanner follows the
names that MXNet is imported under (``import mxnet as mx``, ``from mxnet
import nd, gluon``, ``import mxnet.ndarray as F``, ``from mxnet.gluon import
nn``, ``from mxnet.gluon.nn import Conv2D``, assignments such as ``F =
mx.sym``), the ``F`` argument of ``hybrid_forward``, and the objects built
from them (``mod = mx.mod.Module(...)`` then ``mod.fit``; ``x = nd.ones(3)``
then ``x.asnumpy``). Each API reached is looked up in xnd itself, never in a
hand-kept list:

* the module table of `xnd.compat` (``MXNET_MODULES``) says which xnd module
  stands for an mxnet module; an attribute is supported when ``getattr`` on
  that module succeeds;
* for the operator namespaces (``mx.nd``, ``mx.sym``, Gluon's ``F``) the
  operator registry (`xnd.lowering.registry`) names the operator; ``F.X``
  must exist in both ``mx.nd`` and ``mx.sym``, since a block runs with either.

A call's keyword arguments are checked too, when the callable resolves to an xnd
callable whose keywords are closed: a signature without ``**kwargs``, or an operator
function, which takes its registry entry's inputs and declared attributes (plus ``out``/
``name``, and on symbols ``attr``, ``lr_mult`` & co.). A keyword it does not take is
``unsupported``, naming the callable and the keyword (it raises at run time).

Each use is ``supported``, ``unsupported`` (xnd lacks it: the report says
which part is missing), or ``unknown`` (the chain goes through a value the
scanner cannot follow: a call whose result it cannot type, an element of a
list, an attribute that the class does not define and instances may set).

Uses of numpy that only numpy 1.x has (`xnd.porting.numpy1`) are listed too, with the fix.

This file reads the files and writes the report; the scanner is xnd/porting/scanner.py, the
name lookup in xnd xnd/porting/resolver.py. A tool of xnd's own: it stands for no MXNet module.
"""
import ast
import collections
import json
import os
import re
import sys
import warnings

from . import numpy1
from .resolver import STATUSES, SUPPORTED, UNKNOWN, UNSUPPORTED, Resolver
from .scanner import FileScanner

SOURCE_SUFFIXES = (".py", ".ipynb")
SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints", "node_modules", ".git", ".hg", ".svn", ".tox"}


# ---- reading files -----------------------------------------------------------------------------------
_CELL_MAGICS_WITH_PYTHON = {"time", "timeit", "capture", "prun", "writefile", "file", "debug", "px",
                            "autoreload"}
_SHELL_ASSIGN = re.compile(r"^\s*[\w.,\s\[\]()*]+=\s*[%!]")
_HELP = re.compile(r"^(\?{1,2}[\w.]+|[\w.]+\?{1,2})$")


def _clean_cell(source):
    """IPython cell text -> Python text with the same line numbers: magics, shell escapes and
    ``obj?`` help lines (at the start of a logical line) become ``pass``; a cell magic that
    does not hold Python empties the cell."""
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        magic = lines[0].lstrip()[2:].split(None, 1)[0] if lines[0].strip() != "%%" else ""
        if magic not in _CELL_MAGICS_WITH_PYTHON:
            return ""
        lines[0] = ""
    out = []
    state = _LineState()
    for line in lines:
        stripped = line.strip()
        if state.at_start() and (stripped.startswith(("%", "!")) or _SHELL_ASSIGN.match(line)
                                 or _HELP.match(stripped)):
            out.append(line[:len(line) - len(line.lstrip())] + "pass")
            continue
        out.append(line)
        state.feed(line)
    return "\n".join(out) + "\n"


class _LineState:
    """Just enough of Python's tokenizer to tell whether the next line starts a logical line
    (not inside brackets, a triple-quoted string, or after a backslash)."""

    def __init__(self):
        self.depth = 0
        self.quote = None  # the open triple quote
        self.backslash = False

    def at_start(self):
        return self.depth == 0 and self.quote is None and not self.backslash

    def feed(self, line):
        i, n = 0, len(line)
        self.backslash = False
        while i < n:
            c = line[i]
            if self.quote:
                if c == "\\":
                    i += 2
                    continue
                if line.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = None
                    continue
                i += 1
                continue
            if c == "#":
                break
            if c in "\"'":
                q = line[i:i + 3] if line[i:i + 3] in ('"""', "'''") else c
                if len(q) == 3:
                    self.quote = q
                    i += 3
                    continue
                j = i + 1
                while j < n and line[j] != c:
                    j += 2 if line[j] == "\\" else 1
                i = j + 1
                continue
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth = max(0, self.depth - 1)
            i += 1
        if not self.quote and line.rstrip().endswith("\\") and not line.lstrip().startswith("#"):
            self.backslash = True


def read_notebook(path):
    """[(cell number counted from 1, source)] of the notebook's code cells."""
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    cells = nb.get("cells")
    if cells is None:  # nbformat 3
        cells = [c for ws in nb.get("worksheets", []) for c in ws.get("cells", [])]
    out = []
    for i, cell in enumerate(cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", cell.get("input", ""))
        if isinstance(src, list):
            src = "".join(src)
        out.append((i, src))
    return out


def iter_files(paths):
    """(path, None) for each file to scan, or (path, error) for a path that does not exist."""
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                for f in sorted(files):
                    if f.endswith(SOURCE_SUFFIXES):
                        yield os.path.join(root, f), None
        elif os.path.isfile(p):
            yield p, None
        else:
            yield p, "no such file or directory"


def _parse(source, filename):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, filename=filename)


def _syntax_message(e):
    where = f"line {e.lineno}" if getattr(e, "lineno", None) else "unknown line"
    return f"{type(e).__name__}: {e.msg} ({where})"


def scan_file(path, resolver):
    """{'path', 'uses': [Use], 'numpy1': [dict], 'errors': [str]} for one file; never
    raises for bad input."""
    result = {"path": path, "uses": [], "numpy1": [], "errors": []}
    try:
        trees = []
        if path.endswith(".ipynb"):
            try:
                cells = read_notebook(path)
            except (ValueError, UnicodeDecodeError, AttributeError, TypeError) as e:
                result["errors"].append(f"not a readable notebook: {type(e).__name__}: {e}")
                return result
            for number, src in cells:
                try:
                    try:
                        tree = _parse(src, path)
                    except SyntaxError:  # IPython syntax: magics, !shell, obj?
                        tree = _parse(_clean_cell(src), path)
                    trees.append((number, tree))
                except (SyntaxError, ValueError) as e:
                    msg = _syntax_message(e) if isinstance(e, SyntaxError) else str(e)
                    result["errors"].append(f"cell {number}: {msg}")
        else:
            with open(path, "rb") as f:
                data = f.read()
            try:
                trees.append((None, _parse(data, path)))
            except (SyntaxError, ValueError) as e:
                result["errors"].append(_syntax_message(e) if isinstance(e, SyntaxError) else
                                        f"{type(e).__name__}: {e}")
        if trees:
            result["uses"] = FileScanner(resolver).scan(trees)
            result["numpy1"] = numpy1.scan(trees)
    except RecursionError:
        result["errors"].append("too deeply nested to scan")
    except OSError as e:
        result["errors"].append(f"cannot read: {e.strerror or e}")
    return result


# ---- the report ----------------------------------------------------------------------------------------
def run_check(paths, resolver=None):
    """Scan `paths`; returns the report as a dict (the ``--json`` output)."""
    resolver = resolver or Resolver()
    files = []
    for path, error in iter_files(paths):
        if error is not None:
            files.append({"path": path, "uses": [], "numpy1": [], "errors": [error],
                          "missing": True})
            continue
        files.append(scan_file(path, resolver))
    return _report(files)


def _report(files):
    import xnd

    counts = {s: 0 for s in STATUSES}
    apis = {s: collections.Counter() for s in STATUSES}
    reasons = {}
    for f in files:
        for u in f["uses"]:
            counts[u.status] += 1
            apis[u.status][u.api] += 1
            if u.status != SUPPORTED:
                reasons.setdefault((u.status, u.api), u.reason)
    summary = {
        "files": len(files),
        "files_with_errors": sum(1 for f in files if f["errors"]),
        "files_using_mxnet": sum(1 for f in files if f["uses"]),
        "uses": dict(counts, total=sum(counts.values())),
        "apis": {s: len(apis[s]) for s in STATUSES},
        "numpy1_uses": sum(len(f["numpy1"]) for f in files),
    }

    def top(status):
        return [{"api": api, "uses": n, "reason": reasons.get((status, api))}
                for api, n in sorted(apis[status].items(), key=lambda kv: (-kv[1], kv[0]))]

    return {
        "tool": "xnd check",
        "xnd_version": getattr(xnd, "xnd_version", None),
        "mxnet_api": getattr(xnd, "__version__", None),
        "summary": summary,
        "unsupported_apis": top(UNSUPPORTED),
        "unknown_apis": top(UNKNOWN),
        "files": [{"path": f["path"], "errors": f["errors"],
                   "uses": [u.as_dict() for u in f["uses"]], "numpy1": f["numpy1"]}
                  for f in files],
    }


def _where(path, use):
    if use.get("cell") is not None:
        return f"{path}:cell{use['cell']}:{use['line']}"
    return f"{path}:{use['line']}"


def format_text(report, show_unknown=False, top=15):
    lines = []
    for f in report["files"]:
        for e in f["errors"]:
            lines.append(f"{f['path']}: error: {e}")
        for u in f["uses"]:
            if u["status"] == UNSUPPORTED or (show_unknown and u["status"] == UNKNOWN):
                reason = f"  ({u['reason']})" if u.get("reason") else ""
                lines.append(f"{_where(f['path'], u)}: {u['status']} {u['text']}{reason}")
        for u in f.get("numpy1", ()):
            lines.append(f"{_where(f['path'], u)}: numpy-1 {u['text']}  ({u['fix']})")
    s = report["summary"]
    u, a = s["uses"], s["apis"]
    if lines:
        lines.append("")
    lines.append(f"xnd check: {s['files']} file{'s' if s['files'] != 1 else ''} scanned, "
                 f"{s['files_using_mxnet']} using MXNet, {s['files_with_errors']} with errors")
    lines.append(f"  {u['total']} uses of MXNet APIs: {u['supported']} supported, "
                 f"{u['unsupported']} unsupported, {u['unknown']} unknown")
    lines.append(f"  distinct APIs: {a['supported']} supported, {a['unsupported']} unsupported, "
                 f"{a['unknown']} unknown")
    if s.get("numpy1_uses"):
        lines.append(f"  {s['numpy1_uses']} numpy-1-only uses (they fail on numpy 2): fix them "
                     "as listed, or run on numpy 1 (pip install xnd 'numpy<2')")
    if report["unsupported_apis"] and top:
        lines.append("  most used unsupported APIs:")
        for item in report["unsupported_apis"][:top]:
            lines.append(f"    {item['uses']:6d}  {item['api']}")
    return "\n".join(lines) + "\n"


def exit_status(report):
    """0: everything supported; 1: something unsupported or a file that could not be read."""
    s = report["summary"]
    return 1 if s["uses"]["unsupported"] or s["files_with_errors"] else 0


USAGE = """\
usage: python -m xnd check [--json] [--unknown] [--top N] PATH...

Static porting report: every .py file and .ipynb notebook under PATH is parsed (never run)
and each MXNet API it reaches is looked up in xnd (its module table and operator registry):
supported, unsupported (listed as path:line) or unknown (the scanner cannot follow the value).
numpy-1-only calls (removed aliases such as np.float, np.fromstring in binary mode, ...) are
listed as path:line: numpy-1, with their fix; they do not change the exit status.
Exit status 0 when everything found is supported, 1 when something is unsupported or a file
could not be parsed, 2 for a usage error.

  --json       print the whole report as JSON (every use, with its status and reason)
  --unknown    also list the unknown uses, path:line each
  --top N      how many of the most used unsupported APIs to list in the summary (default 15)
"""


def main(argv):
    as_json = show_unknown = False
    top = 15
    paths = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--json":
            as_json = True
        elif a in ("--unknown", "-u"):
            show_unknown = True
        elif a == "--top" and args:
            try:
                top = int(args.pop(0))
            except ValueError:
                sys.stderr.write(USAGE)
                return 2
        elif a in ("-h", "--help"):
            sys.stdout.write(USAGE)
            return 0
        elif a == "--":
            paths.extend(args)
            break
        elif a.startswith("-") and a != "-":
            sys.stderr.write(f"xnd check: unknown option {a}\n" + USAGE)
            return 2
        else:
            paths.append(a)
    if not paths:
        sys.stderr.write(USAGE)
        return 2
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        for p in missing:
            sys.stderr.write(f"xnd check: {p}: no such file or directory\n")
        return 2
    report = run_check(paths)
    if as_json:
        json.dump(report, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_text(report, show_unknown=show_unknown, top=top))
    return exit_status(report)

