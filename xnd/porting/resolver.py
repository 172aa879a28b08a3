"""What a name in MXNet code stands for, and where xnd has it: the value kinds of `xnd check`'s
scanner (an mxnet dotted name, Gluon's ``F``, an instance, something opaque) and the `Resolver`
that looks mxnet dotted names up in xnd's module table (`xnd.compat.MXNET_MODULES`), its
modules and its operator registry, with the keywords a callable takes.

Part of `xnd check` (xnd/porting/check.py), a tool of xnd's own: it stands for no MXNet module.
"""
import importlib
import inspect
import types

from . import surface_exceptions


SUPPORTED, UNSUPPORTED, UNKNOWN = "supported", "unsupported", "unknown"
STATUSES = (SUPPORTED, UNSUPPORTED, UNKNOWN)

# The operator namespaces: calling something found there gives an NDArray (nd) or a
# Symbol (sym), which is what the scanner assumes for attributes of call results.
ARRAY_CLASSES = ("mxnet.ndarray.NDArray", "mxnet.symbol.Symbol")
OP_NAMESPACES = {"xnd.frontend.ndarray": "nd", "xnd.frontend.random": "nd",
                 "xnd.frontend.ndarray.linalg": "nd", "xnd.symbol": "sym",
                 "xnd.symbol.register": "sym"}



# ---- what a name or expression stands for ---------------------------------------------------
class Mod:
    """An mxnet dotted name: a module (``mxnet.gluon``) or an object in one (``mxnet.nd.zeros``)."""
    __slots__ = ("path",)

    def __init__(self, path):
        self.path = tuple(path)

    def __eq__(self, other):
        return type(other) is Mod and other.path == self.path

    def __hash__(self):
        return hash(self.path)


class OpNS:
    """Gluon's ``F`` (``mx.nd`` or ``mx.sym``, whichever the block runs with), and names in it."""
    __slots__ = ("path",)

    def __init__(self, path=()):
        self.path = tuple(path)

    def __eq__(self, other):
        return type(other) is OpNS and other.path == self.path

    def __hash__(self):
        return hash(("F",) + self.path)


class Inst:
    """An instance of a resolved class (`exact`: built by calling the class), or the result
    of an operator-namespace call, taken to be an NDArray / Symbol (`exact` False: most are,
    ``nd.load`` is not, so an attribute those classes lack is only unknown)."""
    __slots__ = ("classes", "exact")

    def __init__(self, classes, exact=False):
        self.classes = tuple(classes)  # ((mxnet name, class object), ...)
        self.exact = exact

    def is_array(self):
        return bool(self.classes) and all(name in ARRAY_CLASSES for name, _ in self.classes)

    def __eq__(self, other):
        return type(other) is Inst and [c for _, c in other.classes] == [c for _, c in self.classes]

    def __hash__(self):
        return hash(tuple(id(c) for _, c in self.classes))


class Opaque:
    """Something reached from MXNet that the scanner cannot follow further."""
    __slots__ = ("dead",)

    def __init__(self, dead=False):
        self.dead = dead  # True past an unsupported use: nothing more is reported on it

    def __eq__(self, other):
        return type(other) is Opaque and other.dead == self.dead

    def __hash__(self):
        return hash(("opaque", self.dead))


OTHER = None  # not an MXNet value


# ---- looking names up in xnd ---------------------------------------------------------------------
class Resolution:
    __slots__ = ("status", "obj", "reason", "where")

    def __init__(self, status, obj=None, reason=None, where=None):
        self.status, self.obj, self.reason, self.where = status, obj, reason, where


class Resolver:
    """Looks mxnet dotted names up in xnd's module table, modules and operator registry."""

    def __init__(self):
        import xnd  # noqa: F401
        from xnd import compat
        from xnd.lowering import registry

        self.compat = compat
        self.ops = registry.all_ops()
        self._cache = {}
        self._modules = {}

    def _import(self, xnd_name):
        """(module, None), (None, None) when there is no such module, (None, reason) when it fails."""
        hit = self._modules.get(xnd_name)
        if hit is None:
            try:
                hit = (importlib.import_module(xnd_name), None)
            except ModuleNotFoundError as e:
                missing = e.name or ""
                if missing == xnd_name or xnd_name.startswith(missing + "."):
                    hit = (None, None)
                else:
                    hit = (None, f"{xnd_name} fails to import: {type(e).__name__}: {e}")
            except Exception as e:  # an xnd module that does not import supports nothing
                hit = (None, f"{xnd_name} fails to import: {type(e).__name__}: {e}")
            self._modules[xnd_name] = hit
        return hit

    def resolve(self, path):
        """Resolution of an mxnet dotted name given as a tuple ('mxnet', 'gluon', 'nn', 'Conv2D')."""
        path = tuple(path)
        hit = self._cache.get(path)
        if hit is None:
            hit = self._cache[path] = self._resolve(path)
        return hit

    def _resolve(self, path):
        mxname = ".".join(path)
        # Import the mapped xnd modules from the shortest prefix on, as `import mxnet.a.b`
        # would, until a prefix is no module; the rest of the name is attributes.
        module, where, i = None, None, 0
        for k in range(1, len(path) + 1):
            xnd_name = self.compat.resolve(".".join(path[:k]))
            if xnd_name is None:
                if k == 2 and path[0] == "mxnet" and not _dunder(path[1]):
                    # mxnet.<xnd internal or _private>: not an MXNet name
                    return Resolution(UNSUPPORTED, reason=f"xnd does not provide {mxname!r}")
                break
            found, failure = self._import(xnd_name)
            if failure is not None:
                return Resolution(UNSUPPORTED, reason=failure)
            if found is None:
                break
            module, where, i = found, xnd_name, k
        if module is None:
            return Resolution(UNSUPPORTED, reason=f"xnd does not provide {mxname!r}")
        obj = module
        for k, attr in enumerate(path[i:], start=i):
            try:
                obj = getattr(obj, attr)
            except Exception:
                return self._missing(path[:k], attr, where)
            where = f"{where}.{attr}"
        reason = getattr(obj, "_xnd_unsupported", None)
        if isinstance(reason, str):  # a feature with no XLA counterpart (mx.contrib.quantization)
            return Resolution(UNSUPPORTED, reason=f"{mxname}: {reason}")
        return Resolution(SUPPORTED, obj, where=where)

    def _missing(self, parent, attr, where):
        """Why ``parent.attr`` is unsupported, as precisely as the tables say."""
        name = ".".join(parent + (attr,))
        why = surface_exceptions.reason_for_path(name)  # a name of MXNet's that xnd lacks
        if why is not None:
            return Resolution(UNSUPPORTED, reason=f"{name}: {why}")
        if attr in self.ops and _namespace_kind(parent):
            return Resolution(UNSUPPORTED, reason=f"operator {attr!r} is in xnd's registry but "
                                                  f"not exported as {name}")
        if name in self.compat.MXNET_MODULES:
            return Resolution(UNSUPPORTED, reason=f"xnd does not provide the module {name!r} (it "
                                                  f"would be {self.compat.MXNET_MODULES[name]})")
        if where == "xnd":
            return Resolution(UNSUPPORTED, reason=f"xnd does not provide {name!r}")
        return Resolution(UNSUPPORTED, reason=f"{where} has no attribute {attr!r}")

    def resolve_f(self, rest):
        """``F.<rest>`` inside hybrid_forward: it must work with F = mx.nd and F = mx.sym."""
        nd = self.resolve(("mxnet", "ndarray") + tuple(rest))
        sym = self.resolve(("mxnet", "symbol") + tuple(rest))
        if nd.status == SUPPORTED and sym.status == SUPPORTED:
            return Resolution(SUPPORTED, (nd.obj, sym.obj), where=f"{nd.where} / {sym.where}")
        missing = [r.reason for r in (nd, sym) if r.status != SUPPORTED]
        return Resolution(UNSUPPORTED, reason="; ".join(missing))

    def op_name(self, path_tail):
        """The registry operator a namespace attribute stands for, if any."""
        op = self.ops.get(path_tail[-1]) if path_tail else None
        return op.name if op is not None else None


_OP_CALL_KEYWORDS = {"nd": frozenset(("out", "name")),
                     "sym": frozenset(("name", "attr", "ctx_group", "lr_mult", "wd_mult",
                                       "force_mirroring", "mirror_stage"))}


# modules whose **kwargs functions hand their keywords to the registry entry of their name
# (mx.np's functions are another face, with keywords of their own)
_OP_MODULES = frozenset(OP_NAMESPACES) | {"xnd.ndarray", "xnd.op_function"}


def _accepted(obj, label, kind, op):
    """(label, keyword names) that ``obj`` takes, or None when any keyword may do."""
    if not callable(obj) or isinstance(obj, types.ModuleType):
        return None
    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return None
    names, open_ended = set(), False
    for p in params:
        if p.kind is p.VAR_KEYWORD:
            open_ended = True
        elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            names.add(p.name)
    if not open_ended:
        return (f"xnd's {label}", frozenset(names))
    if (op is None or kind not in _OP_CALL_KEYWORDS or not op.params or op.extra is not None
            or getattr(obj, "__module__", None) not in _OP_MODULES):
        return None  # open, or an op without attributes (MXNet ignores unknown keywords)
    # an operator function: its own parameters, then the registry entry's inputs and attributes
    # (and ctx= for creation/sampling ops, which have no array inputs)
    creation = frozenset(() if op.inputs else ("ctx",))
    return (f"{label} (operator {op.name})", frozenset(names) | frozenset(op.inputs) |
            frozenset(op.params) | _OP_CALL_KEYWORDS[kind] | creation)


def _dunder(name):
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _namespace_kind(path):
    """'nd' or 'sym' when `path` is an operator namespace (mxnet.nd, mxnet.sym.random, ...)."""
    if len(path) >= 2 and path[0] == "mxnet":
        if path[1] in ("nd", "ndarray"):
            return "nd"
        if path[1] in ("sym", "symbol"):
            return "sym"
    return None


def _qualname(obj, fallback):
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    mod = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None)
    if isinstance(mod, str) and isinstance(qual, str) and "<" not in qual:
        return f"{mod}.{qual}"
    return fallback
