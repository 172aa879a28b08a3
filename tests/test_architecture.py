"""The package's shape, read from its source with ``ast``: no import circles, no import
that runs up the layers of DESIGN.md, no file over 1,000 lines.

Every ``import``/``from ... import`` in every ``xnd/**/*.py`` counts, at module level and
inside functions alike, relative or absolute, and so does ``importlib.import_module`` of a
literal name.  An import names the module file it loads: ``from .pkg import sub`` is an
edge to ``pkg/sub.py`` when that file exists, else to ``pkg/__init__.py``; ``import a.b.c``
is an edge to ``a/b/c.py``.  A package's ``__init__`` importing its own submodules is the
ordinary way to re-export them; a submodule importing its package's ``__init__`` back makes
a circle like any other.

The allowlists below name what is known and not yet fixed, in files that other work is
moving now; they only shrink, and issue 18 ends with them empty.  An entry that has become
stale does not fail (the helper who fixes it need not edit this file), so
``python tests/test_architecture.py`` prints the stale ones.
"""
import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "xnd")

# DESIGN.md's layers, bottom to top: a module imports only from its own layer or below.
# A module belongs to the layer of the longest prefix that names it.
LAYERS = (
    ("xnd.base", "xnd.context", "xnd.name", "xnd.attribute", "xnd.semantics",
     "xnd._compat_jax", "xnd._transfer", "xnd.engine", "xnd.rng", "xnd._nest"),
    ("xnd.lowering", "xnd.tiers"),
    ("xnd.ndarray", "xnd.op_function", "xnd.serialization", "xnd.sparse"),
    ("xnd.symbol", "xnd.autograd"),
    ("xnd.frontend", "xnd._dataloader_worker"),
    ("xnd", "xnd.compat", "xnd.__main__", "xnd.porting", "xnd.examples"),
)

# Circles known and not yet fixed, each owned by an issue-18 helper.  A group is a tuple of
# module-name prefixes: a circle all of whose modules fall under one group's prefixes is
# tolerated (the files of these groups are moving, so they are named by prefix).
KNOWN_CIRCLE_GROUPS = ()

# Import edges (importer, imported) known to close a circle; ignored when looking for circles.
KNOWN_CIRCLE_EDGES = set()

# Imports (importer, imported) that run up the layers, not yet replaced by a hook.
KNOWN_UPWARD = set()

MAX_LINES = 1000
# Files over MAX_LINES, each waiting for its split (issue 18); the list only shrinks.
KNOWN_LONG = {
}


def _sources():
    out = {}
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(d, f)
                rel = os.path.relpath(path, os.path.dirname(ROOT))[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                out[".".join(rel)] = path
    return out


SOURCES = _sources()


def _file_of(name):
    """The module file an import of `name` loads (the longest existing prefix)."""
    while name and name not in SOURCES:
        name = name.rpartition(".")[0]
    return name or None


def _absolute(module, is_package, level, name):
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        parts = parts[:len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


def _imports(module, path):
    """{imported module: line of its first import} for one source file."""
    is_package = path.endswith("__init__.py")
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    found = {}

    def add(name, line):
        if name.partition(".")[0] != "xnd":
            return
        target = name if name in SOURCES else _file_of(name)
        if target is not None and target != module:
            found.setdefault(target, line)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = (_absolute(module, is_package, node.level, node.module) if node.level
                    else node.module)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                add(full if full in SOURCES else base, node.lineno)
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"):
            name = node.args[0].value
            if name.startswith("."):
                level = len(name) - len(name.lstrip("."))
                name = _absolute(module, is_package, level, name.lstrip(".") or None)
            add(name, node.lineno)
    return found


GRAPH = {m: _imports(m, p) for m, p in SOURCES.items()}


def _layer(module):
    best = None
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and (best is None or len(p) > best[1]):
                best = (i, len(p))
    return None if best is None else best[0]


def _circles(graph):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def _describe(comp):
    members = set(comp)
    return "\n".join(f"  {a} -> {b} (line {GRAPH[a][b]})"
                     for a in comp for b in sorted(GRAPH[a]) if b in members)


def test_sources_found():
    assert "xnd.ndarray" in SOURCES and "xnd.lowering.registry" in SOURCES
    assert "xnd.lowering" in GRAPH["xnd.ndarray"]          # module-level, relative
    assert len(SOURCES) > 100


def test_graph_reads_function_level_and_relative_imports():
    # A probe of the reader itself: a function-level relative import and a parent-relative
    # import of a package's submodule are both edges.
    probe = os.path.join(ROOT, "frontend", "gluon", "nn", "_arch_probe.py")
    src = ("def f():\n    from ...gluon import block\n    from .. import loss\n"
           "    import xnd.lowering.registry\n")
    try:
        with open(probe, "w", encoding="utf-8") as f:
            f.write(src)
        SOURCES["xnd.frontend.gluon.nn._arch_probe"] = probe
        found = _imports("xnd.frontend.gluon.nn._arch_probe", probe)
    finally:
        SOURCES.pop("xnd.frontend.gluon.nn._arch_probe", None)
        os.remove(probe)
    assert set(found) == {"xnd.frontend.gluon.block", "xnd.frontend.gluon.loss",
                          "xnd.lowering.registry"}
    assert found["xnd.frontend.gluon.block"] == 2


def test_circle_finder_finds_a_circle():
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert _circles(graph) == [["a", "b", "c"]]
    assert _circles({"p": {"p.s": 1}, "p.s": {}}) == []


def test_every_module_has_a_layer():
    assert [m for m in SOURCES if _layer(m) is None] == []


def _group_of(comp):
    for group in KNOWN_CIRCLE_GROUPS:
        if all(any(m == p or m.startswith(p + ".") for p in group) for m in comp):
            return group
    return None


CIRCLES = _circles({a: {b: ln for b, ln in deps.items() if (a, b) not in KNOWN_CIRCLE_EDGES}
                    for a, deps in GRAPH.items()})


def test_no_import_circles():
    circles = [c for c in CIRCLES if _group_of(c) is None]
    assert not circles, "import circles:\n" + "\n\n".join(_describe(c) for c in circles)




def test_no_upward_imports():
    up = sorted((a, b, ln) for a, deps in GRAPH.items() for b, ln in deps.items()
                if _layer(b) > _layer(a) and (a, b) not in KNOWN_UPWARD)
    assert not up, "imports up the layers:\n" + "\n".join(
        f"  {a} (layer {_layer(a)}) -> {b} (layer {_layer(b)}), line {ln}" for a, b, ln in up)


def _lines(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)


@pytest.mark.parametrize("module", sorted(SOURCES))
def test_file_size(module):
    path = SOURCES[module]
    rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
    n = _lines(path)
    assert n <= MAX_LINES or rel in KNOWN_LONG, \
        f"{rel} has {n} lines (at most {MAX_LINES}): split it"


def stale_allowlist_entries():
    """The allowlist entries that no longer hold (to delete)."""
    long = sorted(r for r in KNOWN_LONG if not os.path.exists(os.path.join(ROOT, r))
                  or _lines(os.path.join(ROOT, r)) <= MAX_LINES)
    edges = sorted(e for e in set(KNOWN_CIRCLE_EDGES) | set(KNOWN_UPWARD) if e[1] not in GRAPH.get(e[0], {}))
    groups = [g for g in KNOWN_CIRCLE_GROUPS if not any(_group_of(c) == g for c in CIRCLES)]
    return {"KNOWN_LONG": long, "edges": edges, "KNOWN_CIRCLE_GROUPS": groups}


if __name__ == "__main__":
    for what, entries in stale_allowlist_entries().items():
        for e in entries:
            print(f"stale in {what}: {e}")


def test_compat_table_holds_only_names_the_rule_misses():
    """xnd/frontend is laid out as MXNet's namespace, so compat's rule (mxnet.X.rest ->
    xnd.frontend.X.rest if that exists, else xnd.X.rest) finds a module at its MXNet path;
    MXNET_MODULES may only name what the rule would get wrong."""
    from xnd import compat

    def by_rule(name):
        parts = name.split(".")
        if len(parts) == 1:
            return "xnd"
        base = "xnd.frontend" if compat._in_frontend(parts[1]) else "xnd"
        return ".".join([base] + parts[1:])

    assert compat.MXNET_MODULES, "the aliases (mxnet.nd, mxnet.sym ...) need entries"
    same = sorted(k for k, v in compat.MXNET_MODULES.items() if by_rule(k) == v)
    assert not same, f"MXNET_MODULES entries the rule already gives: {same}"
    assert compat.resolve("mxnet.gluon.nn.basic_layers") == "xnd.frontend.gluon.nn.basic_layers"
    assert compat.resolve("mxnet.autograd") == "xnd.autograd"
    assert compat.resolve("mxnet.nd.contrib") == "xnd.frontend.ndarray.contrib"
