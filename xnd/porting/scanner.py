"""The scanner of `xnd check`: walks one parsed source (a module, or the code cells of a
notebook) with `ast`, never running it, follows the names MXNet is imported under and the
values built from them, and records each MXNet API reached as a `Use` with its status
(supported, unsupported, unknown) as the `Resolver` (xnd/porting/resolver.py) finds it.

Part of `xnd check` (xnd/porting/check.py), a tool of xnd's own: it stands for no MXNet module.
"""
import ast
import collections
import inspect
import textwrap
import types
import warnings

from .resolver import (OP_NAMESPACES, OTHER, SUPPORTED, UNKNOWN, UNSUPPORTED,
                       Inst, Mod, OpNS, Opaque, Resolution, _accepted, _dunder, _namespace_kind,
                       _qualname)


# ---- one use of an MXNet API -------------------------------------------------------------------
class Use:
    __slots__ = ("line", "col", "cell", "text", "api", "status", "reason", "xnd")

    def __init__(self, line, col, cell, text, api, status, reason=None, xnd=None):
        self.line, self.col, self.cell = line, col, cell
        self.text, self.api, self.status, self.reason, self.xnd = text, api, status, reason, xnd

    def as_dict(self):
        d = {"line": self.line, "col": self.col}
        if self.cell is not None:
            d["cell"] = self.cell
        d.update(text=self.text, api=self.api, status=self.status)
        if self.reason:
            d["reason"] = self.reason
        if self.xnd:
            d["xnd"] = self.xnd
        return d


# ---- scopes ------------------------------------------------------------------------------------
class Scope:
    """Names bound in one module/function/class/comprehension body, each with the expressions
    bound to it; a name's value is worked out lazily (flow-insensitively) on first lookup."""

    def __init__(self, parent, kind, node=None):
        self.parent, self.kind, self.node = parent, kind, node
        # name -> [(kind, payload)]: ("import", Mod), ("expr", ast node), ("value", v), ("other", None)
        self.bindings = collections.defaultdict(list)
        self.globals = set()
        self.nonlocals = set()
        self._values = {}

    def bind(self, name, kind, payload=None):
        if name in self.globals and self.kind != "module":
            self.module().bind(name, kind, payload)
        else:
            self.bindings[name].append((kind, payload))

    def module(self):
        s = self
        while s.parent is not None:
            s = s.parent
        return s


class FileScanner:
    """Scans one parsed source (a module, or the code cells of a notebook) for MXNet uses."""

    def __init__(self, resolver):
        self.r = resolver
        self.uses = []
        self._cell = None
        self._evaluating = set()

    # -- entry point --------------------------------------------------------------------------
    def scan(self, trees):
        """`trees`: [(cell or None, ast.Module)] sharing one module scope (notebook cells)."""
        module = Scope(None, "module")
        for _, tree in trees:
            self._collect(module, tree.body)
        for cell, tree in trees:
            self._cell = cell
            self._visit_body(module, tree.body)
        return self.uses

    # -- phase 1: bindings ----------------------------------------------------------------------
    def _collect(self, scope, body):
        for stmt in body:
            self._collect_stmt(scope, stmt)

    def _collect_stmt(self, scope, node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope.bind(node.name, "other")
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] != "mxnet":
                    scope.bind(alias.asname or parts[0], "other")
                elif alias.asname:
                    scope.bind(alias.asname, "import", Mod(parts))
                else:
                    scope.bind("mxnet", "import", Mod(["mxnet"]))
            return
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            from_mx = node.level == 0 and parts[0] == "mxnet"
            for alias in node.names:
                if alias.name == "*":
                    continue
                name = alias.asname or alias.name
                scope.bind(name, "import" if from_mx else "other",
                           Mod(parts + [alias.name]) if from_mx else None)
            return
        if isinstance(node, ast.Global):
            scope.globals.update(node.names)
            return
        if isinstance(node, ast.Nonlocal):
            scope.nonlocals.update(node.names)
            return
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind_target(scope, target, node.value)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self._bind_target(scope, node.target, node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._bind_target(scope, node.target, None)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self._bind_target(scope, item.optional_vars, None)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            for handler in node.handlers:
                if handler.name:
                    scope.bind(handler.name, "other")
        elif type(node).__name__ == "Match":
            for case in node.cases:
                for sub in ast.walk(case.pattern):
                    for attr in ("name", "rest"):
                        n = getattr(sub, attr, None)
                        if isinstance(n, str):
                            scope.bind(n, "other")
        # walrus targets anywhere in this statement's own expressions
        for sub in _own_nodes(node):
            if isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                scope.bind(sub.target.id, "expr", sub.value)
        for field in ("body", "orelse", "finalbody"):
            self._collect(scope, getattr(node, field, None) or [])
        for handler in getattr(node, "handlers", None) or []:
            self._collect(scope, handler.body)
        for case in getattr(node, "cases", None) or []:
            self._collect(scope, case.body)

    def _bind_target(self, scope, target, value):
        if isinstance(target, ast.Name):
            scope.bind(target.id, "expr" if value is not None else "other", value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
            if values is not None and len(values) == len(target.elts) and not any(
                    isinstance(e, ast.Starred) for e in target.elts):
                for t, v in zip(target.elts, values):
                    self._bind_target(scope, t, v)
            else:
                for t in target.elts:
                    self._bind_target(scope, t.value if isinstance(t, ast.Starred) else t, None)
        elif isinstance(target, ast.Starred):
            self._bind_target(scope, target.value, None)
        # attribute and subscript targets bind no name

    # -- name lookup ------------------------------------------------------------------------------
    def lookup(self, scope, name):
        s = scope
        if name in s.globals:
            s = s.module()
        while s is not None:
            if name in s.bindings:
                return self._value(s, name)
            s = s.parent
            while s is not None and s.kind == "class":  # function bodies do not see class scopes
                s = s.parent
        return OTHER

    def _value(self, scope, name):
        if name in scope._values:
            return scope._values[name]
        key = (id(scope), name)
        if key in self._evaluating:
            return OTHER
        self._evaluating.add(key)
        try:
            values, imported = [], []
            for kind, payload in scope.bindings[name]:
                if kind == "import":
                    imported.append(payload)
                elif kind == "expr":
                    values.append(self.evaluate(scope, payload, record=False))
                elif kind == "value":
                    values.append(payload)
                else:
                    values.append(OTHER)
            value = _combine(imported, values)
        finally:
            self._evaluating.discard(key)
        scope._values[name] = value
        return value

    # -- evaluating expressions -------------------------------------------------------------------
    def evaluate(self, scope, node, record=True):
        """What `node` stands for; when `record`, the MXNet uses in it are recorded as well
        (only the longest attribute chain of each)."""
        if isinstance(node, ast.Name):
            value = self.lookup(scope, node.id)
            if record and isinstance(node.ctx, ast.Load):
                self._record_value(node, node.id, value)
            return value
        if isinstance(node, ast.Attribute):
            return self._chain(scope, node, record)
        if isinstance(node, ast.Call):
            return self._call(scope, node, record)
        if isinstance(node, ast.Subscript):
            base = self.evaluate(scope, node.value, record)
            if record:
                self.visit_expr(scope, node.slice)
            if base is OTHER:
                return OTHER
            return Opaque(isinstance(base, Opaque) and base.dead)
        if isinstance(node, ast.IfExp):
            if record:
                self.visit_expr(scope, node.test)
            a = self.evaluate(scope, node.body, record)
            b = self.evaluate(scope, node.orelse, record)
            return a if a == b else (Opaque() if OTHER not in (a, b) else OTHER)
        if isinstance(node, ast.NamedExpr):
            return self.evaluate(scope, node.value, record)
        if isinstance(node, (ast.BinOp, ast.UnaryOp)):
            # arithmetic on an NDArray (Symbol) gives an NDArray (Symbol)
            operands = [node.left, node.right] if isinstance(node, ast.BinOp) else [node.operand]
            values = [self.evaluate(scope, o, record) for o in operands]
            arrays = [v for v in values if isinstance(v, Inst) and v.is_array()]
            return arrays[0] if arrays and all(a == arrays[0] for a in arrays) else OTHER
        if record:
            self.visit_expr(scope, node)
        return OTHER

    def _chain(self, scope, node, record):
        """An attribute chain a.b.c: evaluate its root, then follow the attributes. Recorded:
        the longest prefix the scanner could resolve (supported or unsupported), and the whole
        chain as unknown when it goes on through a value the scanner cannot follow."""
        nodes = []
        root = node
        while isinstance(root, ast.Attribute):
            nodes.append(root)
            root = root.value
        nodes.reverse()
        attrs = [n.attr for n in nodes]
        if isinstance(root, ast.Name):
            base = self.lookup(scope, root.id)
        else:
            base = self.evaluate(scope, root, record)
        value, res, res_at, opaque_tail = base, None, -1, False
        for i, attr in enumerate(attrs):
            new, r = self._attr(value, attr)
            if r is not None:
                res, res_at, opaque_tail = r, i, False
                if r.status == UNSUPPORTED:
                    value = new
                    break
                if r.status == UNKNOWN:  # reported once, here; nothing more to say further on
                    new = Opaque(dead=True)
            elif isinstance(value, Opaque) and not value.dead:
                opaque_tail = True
            value = new
        if not record or not isinstance(node.ctx, ast.Load) or base is OTHER:
            return value
        if res is not None:
            upto = nodes[-1] if res.status == UNSUPPORTED else nodes[res_at]
            if res.status == SUPPORTED and isinstance(res.obj, types.ModuleType) and not opaque_tail:
                pass  # a module named in passing (an argument, `F = mx.sym`): imports are the uses
            elif res.status != SUPPORTED or res_at == len(nodes) - 1 or opaque_tail:
                self._add_resolved(upto, _text(node if res.status == UNSUPPORTED else upto),
                                   _api(base, attrs[:res_at + 1]), res)
        if opaque_tail:
            self._add(node, _text(node), _api(base, attrs), UNKNOWN,
                      "the chain goes through a value the scanner cannot follow")
        return value

    def _attr(self, value, attr):
        """(value of value.attr, Resolution or None when there is nothing to report)."""
        if value is OTHER:
            return OTHER, None
        if isinstance(value, (Mod, OpNS)):  # an mxnet name, or F.<name> (nd and sym alike)
            path = value.path + (attr,)
            res = (self.r.resolve if isinstance(value, Mod) else self.r.resolve_f)(path)
            if res.status != SUPPORTED:
                return Opaque(dead=True), res
            return type(value)(path), res
        if isinstance(value, Inst):
            missing, dynamic = [], []
            for name, cls in value.classes:
                if _has_attr(cls, attr):
                    continue
                assigned, open_ended = _instance_attrs(cls)
                if attr in assigned:
                    continue  # set on self by xnd's own methods
                (dynamic if open_ended or not value.exact else missing).append((name, cls))
            if not missing and not dynamic:
                where = " / ".join(_qualname(cls, name) + "." + attr for name, cls in value.classes)
                return Opaque(), Resolution(SUPPORTED, where=where)
            if missing:
                name, cls = missing[0]
                return Opaque(dead=True), Resolution(
                    UNSUPPORTED, reason=f"{_qualname(cls, name)} has no attribute {attr!r}")
            return Opaque(), Resolution(
                UNKNOWN, reason=f"class {' and '.join(n for n, _ in dynamic)} has no attribute "
                                f"{attr!r} (an instance may still set it)")
        if isinstance(value, Opaque):
            return value, None
        return OTHER, None

    def _call(self, scope, node, record):
        func = self.evaluate(scope, node.func, record)
        if record:
            for arg in node.args:
                self.visit_expr(scope, arg)
            for kw in node.keywords:
                self.visit_expr(scope, kw.value)
            self._check_keywords(scope, node, func)
        if isinstance(node.func, ast.Name) and node.func.id == "getattr" and func is OTHER \
                and len(node.args) >= 2:
            # getattr(mx.nd, 'relu') is mx.nd.relu; getattr(mx.nd, name) cannot be followed
            base = self.evaluate(scope, node.args[0], record=False)
            if base is not OTHER and not (isinstance(base, Opaque) and base.dead):
                name = node.args[1]
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    value, res = self._attr(base, name.value)
                    if record and res is not None:
                        self._add_resolved(node, _text(node), _api(base, [name.value]), res)
                    return value
                if record and _is_module_like(self, base):
                    self._add(node, _text(node), _api(base, ["<dynamic>"]), UNKNOWN,
                              "getattr with a name computed at run time")
                return Opaque()
        return self._call_result(func)

    def _check_keywords(self, scope, node, func):
        """Report each keyword of the call that the xnd callable does not take (it would
        raise TypeError or MXNetError at run time), when the scanner knows the callable."""
        kws = [kw for kw in node.keywords if kw.arg is not None]
        if not kws:
            return
        api, sets = self._keyword_sets(scope, node, func)
        for kw in kws:
            if _dunder(kw.arg):
                continue
            rejecting = [(label, allowed) for label, allowed in sets if kw.arg not in allowed]
            if not rejecting:
                continue
            label, allowed = rejecting[0]
            labels = " and ".join(lb for lb, _ in rejecting)
            known = ", ".join(sorted(k for k in allowed if not k.startswith("_")))
            reason = (f"{labels} {'does' if len(rejecting) == 1 else 'do'} not take the "
                      f"keyword {kw.arg!r}")
            if known:
                reason += f" (keywords: {textwrap.shorten(known, 200)})"
            self._add(kw, f"{_text(node.func)}({kw.arg}=...)", f"{api}({kw.arg}=)",
                      UNSUPPORTED, reason)

    def _keyword_sets(self, scope, node, func):
        """(api, [(label, keywords the callable takes)]) for a call the scanner can resolve
        to xnd callables with a closed keyword set: an operator's inputs and declared
        attributes, or a signature without ``**kwargs``. No sets when it cannot tell."""
        out, api = [], None
        if isinstance(func, Mod) and len(func.path) >= 2:
            res = self.r.resolve(func.path)
            api = ".".join(func.path)
            if res.status == SUPPORTED:
                kind = _namespace_kind(func.path[:-1])
                out.append(_accepted(res.obj, api, kind,
                                     self.r.ops.get(func.path[-1]) if kind else None))
        elif isinstance(func, OpNS) and func.path:
            res = self.r.resolve_f(func.path)
            api = "F." + ".".join(func.path)
            if res.status == SUPPORTED:
                op = self.r.ops.get(func.path[-1])
                for obj, kind in zip(res.obj, ("nd", "sym")):
                    out.append(_accepted(obj, f"mxnet.{kind}.{'.'.join(func.path)}", kind, op))
        elif isinstance(func, Opaque) and isinstance(node.func, ast.Attribute):
            base = self.evaluate(scope, node.func.value, record=False)
            if isinstance(base, Inst) and base.exact:
                for name, cls in base.classes:
                    meth = inspect.getattr_static(cls, node.func.attr, None)
                    if isinstance(meth, (staticmethod, classmethod)):
                        meth = meth.__func__
                    if inspect.isfunction(meth):
                        api = f"{name}.{node.func.attr}"
                        out.append(_accepted(meth, api, None, None))
        return api, [x for x in out if x is not None]

    def _call_result(self, func):
        if func is OTHER:
            return OTHER
        if isinstance(func, Opaque):
            return Opaque(func.dead)
        if isinstance(func, OpNS):
            return Inst(self._op_classes("F"))
        if isinstance(func, Mod):
            res = self.r.resolve(func.path)
            obj = res.obj
            if res.status != SUPPORTED:
                return Opaque(dead=True)
            if inspect.isclass(obj):
                return Inst([(".".join(func.path), obj)], exact=True)
            kind = _namespace_kind(func.path[:-1]) or OP_NAMESPACES.get(getattr(obj, "__module__", ""))
            if kind is not None and callable(obj) and not isinstance(obj, types.ModuleType):
                return Inst(self._op_classes(kind))
        return Opaque()

    def _op_classes(self, kind):
        out = []
        if kind in ("nd", "F"):
            res = self.r.resolve(("mxnet", "ndarray", "NDArray"))
            if res.status == SUPPORTED:
                out.append(("mxnet.ndarray.NDArray", res.obj))
        if kind in ("sym", "F"):
            res = self.r.resolve(("mxnet", "symbol", "Symbol"))
            if res.status == SUPPORTED:
                out.append(("mxnet.symbol.Symbol", res.obj))
        return out

    # -- recording ---------------------------------------------------------------------------------
    def _record_value(self, node, name, value):
        """A bare name: report it when it stands for an object imported from MXNet (not a module)."""
        if not isinstance(value, Mod) or len(value.path) < 2:
            return
        res = self.r.resolve(value.path)
        if res.status == SUPPORTED and isinstance(res.obj, types.ModuleType):
            return
        self._add_resolved(node, name, ".".join(value.path), res)

    def _add_resolved(self, node, text, api, res):
        """A use whose status is that of a Resolution (an xnd place when supported)."""
        self._add(node, text, api, res.status, res.reason,
                  res.where if res.status == SUPPORTED else None)

    def _add(self, node, text, api, status, reason=None, where=None):
        self.uses.append(Use(getattr(node, "lineno", 0), getattr(node, "col_offset", 0), self._cell,
                             text, api or text, status, reason if status != SUPPORTED else None,
                             where))

    # -- phase 2: visiting statements ------------------------------------------------------------
    def _visit_body(self, scope, body):
        for stmt in body:
            self._visit_stmt(scope, stmt)

    def _visit_stmt(self, scope, node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                self.visit_expr(scope, d)
            self._visit_args_defaults(scope, node.args)
            if node.returns is not None:
                self.visit_expr(scope, node.returns)
            inner = Scope(scope, "function", node)
            self._bind_params(inner, node)
            self._collect(inner, node.body)
            self._visit_body(inner, node.body)
            return
        if isinstance(node, ast.ClassDef):
            for d in node.decorator_list:
                self.visit_expr(scope, d)
            for b in node.bases:
                self.visit_expr(scope, b)
            for kw in node.keywords:
                self.visit_expr(scope, kw.value)
            inner = Scope(scope, "class", node)
            self._collect(inner, node.body)
            self._visit_body(inner, node.body)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "mxnet":
                    self._record_import(node, alias.name.split("."), alias.name)
            return
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            if node.level == 0 and parts[0] == "mxnet":
                if any(a.name == "*" for a in node.names):
                    res = self.r.resolve(parts)
                    if res.status != SUPPORTED:
                        self._add(node, f"from {node.module} import *", node.module, res.status, res.reason)
                    else:
                        self._add(node, f"from {node.module} import *", node.module + ".*", UNKNOWN,
                                  "the names a star import brings in are not checked")
                for alias in node.names:
                    if alias.name != "*":
                        self._record_import(node, parts + [alias.name], f"{node.module}.{alias.name}")
            return
        # every other statement: its expressions, then its nested statement lists
        for field, value in ast.iter_fields(node):
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, ast.AST):
                    self._visit_node(scope, item)

    def _visit_node(self, scope, node):
        """Any node, by kind: an expression, a statement, an except clause, or another node
        (arguments, withitem, match_case, pattern, comprehension, keyword ...)."""
        if isinstance(node, ast.expr):
            self.visit_expr(scope, node)
        elif isinstance(node, ast.stmt):
            self._visit_stmt(scope, node)
        elif isinstance(node, ast.excepthandler):
            self._visit_handler(scope, node)
        else:
            self._visit_misc(scope, node)

    def _visit_handler(self, scope, handler):
        if handler.type is not None:
            self.visit_expr(scope, handler.type)
        self._visit_body(scope, handler.body)

    def _visit_misc(self, scope, node):
        if type(node).__name__ == "match_case":
            if node.guard is not None:
                self.visit_expr(scope, node.guard)
            self._visit_body(scope, node.body)
            return
        for child in ast.iter_child_nodes(node):
            self._visit_node(scope, child)

    def _record_import(self, node, parts, text):
        res = self.r.resolve(parts)
        self._add_resolved(node, text, ".".join(parts), res)

    def _visit_args_defaults(self, scope, args):
        for d in list(args.defaults) + [d for d in args.kw_defaults if d is not None]:
            self.visit_expr(scope, d)
        for a in list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs) + \
                [x for x in (args.vararg, args.kwarg) if x is not None]:
            if a.annotation is not None:
                self.visit_expr(scope, a.annotation)

    def _bind_params(self, inner, node):
        args = node.args
        positional = list(args.posonlyargs) + list(args.args)
        names = [a.arg for a in positional + list(args.kwonlyargs)]
        names += [x.arg for x in (args.vararg, args.kwarg) if x is not None]
        for n in names:
            inner.bind(n, "other")
        if node.name == "hybrid_forward" and len(positional) >= 2:
            f = positional[1].arg  # def hybrid_forward(self, F, x, ...): F is mx.nd or mx.sym
            inner.bindings[f] = [("value", OpNS())]

    def visit_expr(self, scope, node):
        """Record the MXNet uses anywhere inside expression `node`."""
        if node is None:
            return
        if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.IfExp, ast.NamedExpr)):
            self.evaluate(scope, node, record=True)
            return
        if isinstance(node, ast.Lambda):
            self._visit_args_defaults(scope, node.args)
            inner = Scope(scope, "function", node)
            for a in list(node.args.posonlyargs) + list(node.args.args) + list(node.args.kwonlyargs):
                inner.bind(a.arg, "other")
            for x in (node.args.vararg, node.args.kwarg):
                if x is not None:
                    inner.bind(x.arg, "other")
            self.visit_expr(inner, node.body)
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inner = Scope(scope, "function", node)
            for gen in node.generators:
                self.visit_expr(scope if gen is node.generators[0] else inner, gen.iter)
                self._bind_target(inner, gen.target, None)
                for cond in gen.ifs:
                    self.visit_expr(inner, cond)
            if isinstance(node, ast.DictComp):
                self.visit_expr(inner, node.key)
                self.visit_expr(inner, node.value)
            else:
                self.visit_expr(inner, node.elt)
            return
        for child in ast.iter_child_nodes(node):
            self._visit_node(scope, child)


def _own_nodes(stmt):
    """The expression nodes of a statement, not those of nested statements or scopes."""
    stack = [c for c in ast.iter_child_nodes(stmt) if isinstance(c, ast.expr)]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            continue
        stack.extend(c for c in ast.iter_child_nodes(n) if isinstance(c, ast.expr))


def _combine(imported, values):
    """The value of a name from all its bindings in one scope: an MXNet import wins over other
    assignments (``try: import mxnet as mx / except ImportError: mx = None``); otherwise the
    bindings must agree, or it is an MXNet value the scanner cannot pin down."""
    if imported:
        return imported[0] if all(v == imported[0] for v in imported) else Opaque()
    if not values:
        return OTHER
    first = values[0]
    if all(v == first for v in values):
        return first
    if all(v is not OTHER for v in values):
        return Opaque()
    return OTHER


_INSTANCE_ATTRS = {}


def _instance_attrs(cls):
    """(names xnd's own methods assign on ``self`` in `cls` and its bases, open_ended): an
    instance attribute is either one of these, or the class is open-ended (a __getattr__, a
    setattr(self, ...) or __dict__ update, a base outside xnd whose source is not read)."""
    hit = _INSTANCE_ATTRS.get(cls)
    if hit is not None:
        return hit
    names, open_ended = set(), False
    for klass in getattr(cls, "__mro__", (cls,)):
        if klass is object:
            continue
        if "__getattr__" in vars(klass):
            open_ended = True
        module = getattr(klass, "__module__", "") or ""
        if module == "builtins":
            continue
        if module.split(".")[0] != "xnd":
            open_ended = True
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            open_ended = True
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == "self" and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id == "setattr":
                open_ended = True
            elif isinstance(node, ast.Attribute) and node.attr == "__dict__":
                open_ended = True
    hit = _INSTANCE_ATTRS[cls] = (frozenset(names), open_ended)
    return hit


def _has_attr(cls, attr):
    try:
        inspect.getattr_static(cls, attr)
        return True
    except AttributeError:
        return hasattr(cls, attr)


def _is_module_like(scanner, value):
    if isinstance(value, OpNS):
        return True
    if isinstance(value, Mod):
        res = scanner.r.resolve(value.path)
        return res.status == SUPPORTED and isinstance(res.obj, types.ModuleType)
    return False


def _api(base, attrs):
    """The name a use is counted under: the mxnet dotted name, ``F.X``, or ``Class.attr``."""
    if isinstance(base, Mod):
        return ".".join(base.path + tuple(attrs))
    if isinstance(base, OpNS):
        return ".".join(("F",) + base.path + tuple(attrs))
    if isinstance(base, Inst):
        names = "|".join(name for name, _ in base.classes) or "?"
        return ".".join([names] + list(attrs))
    return None  # the caller uses the source text


def _text(node, limit=80):
    """The source spelling of a chain: mx.nd.zeros(...).asnumpy."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_text(node.value, limit)}.{node.attr}"
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2:
            a = node.args[1]
            name = repr(a.value) if isinstance(a, ast.Constant) else "..."
            return f"getattr({_text(node.args[0], limit)}, {name})"
        return f"{_text(node.func, limit)}(...)"
    if isinstance(node, ast.Subscript):
        return f"{_text(node.value, limit)}[...]"
    try:
        s = ast.unparse(node)
    except Exception:
        s = type(node).__name__
    return s if len(s) <= limit else s[:limit - 3] + "..."
