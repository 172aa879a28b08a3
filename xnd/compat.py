"""`import mxnet` -> xnd.

`alias_mxnet()` makes every import form a legacy script uses (``import mxnet as
mx``, ``from mxnet import nd, autograd, gluon``, ``import mxnet.ndarray as nd``,
``from mxnet.gluon import nn``, ``import mxnet.gluon.nn`` ...) resolve to xnd's
modules.  The module objects are the very same ones (``sys.modules['mxnet.nd']
is sys.modules['xnd.frontend.ndarray']``), so isinstance checks and module state are
shared between the two names.

xnd's frontend is laid out as MXNet's namespace, so one rule finds most modules:
``mxnet.X.rest`` is ``xnd.frontend.X.rest`` if xnd/frontend/X exists, else ``xnd.X.rest``
(``mxnet.gluon.nn.basic_layers`` is ``xnd.frontend.gluon.nn.basic_layers``,
``mxnet.autograd`` is ``xnd.autograd``).  One small table, `MXNET_MODULES`, holds the
names that differ (``mxnet.nd``, ``mxnet.sym``, ``mxnet.ndarray.ndarray`` ...).  A
meta-path finder serves every
name under ``mxnet``; a name whose xnd module does not exist raises
ModuleNotFoundError saying that xnd does not provide it.

After ``pip install``, a one-line ``.pth`` file (`PTH_LINE`) puts a tiny
bootstrap finder at the end of ``sys.meta_path``.  It imports nothing at start
up; the first ``import mxnet`` that no other finder answers imports xnd and
calls `alias_mxnet()`.  See docs/porting.md.
"""

import importlib
import importlib.abc
import importlib.util
import os
import sys
from importlib.machinery import PathFinder

__all__ = ["MXNET_MODULES", "alias_mxnet", "resolve", "find_spec", "PTH_LINE"]

# The rule: ``mxnet.X.rest`` is ``xnd.frontend.X.rest`` when xnd/frontend/ has a module or
# package X (mxnet.gluon.nn, mxnet.module.executor_group, mxnet.ndarray.contrib ...), else
# ``xnd.X.rest`` (mxnet.base, mxnet.context, mxnet.autograd, mxnet.symbol ...).  The table
# holds only the names whose xnd module differs from the rule: MXNet's short aliases and
# the few modules that live elsewhere.  Entries are prefixes; the longest one that matches
# wins and the rest of the name is appended (mxnet.nd.contrib -> xnd.frontend.ndarray.contrib).
MXNET_MODULES = {
    "mxnet.nd": "xnd.frontend.ndarray",
    "mxnet.ndarray.ndarray": "xnd.ndarray",     # the NDArray class module is the core's
    "mxnet.nd.ndarray": "xnd.ndarray",
    "mxnet.ndarray.random": "xnd.frontend.random",   # mx.nd.random is mx.random
    "mxnet.nd.random": "xnd.frontend.random",
    "mxnet.sym": "xnd.symbol",
    "mxnet.mod": "xnd.frontend.module",
    "mxnet.init": "xnd.frontend.initializer",
    "mxnet.kv": "xnd.frontend.kvstore",
    "mxnet.mon": "xnd.frontend.monitor",
    "mxnet.viz": "xnd.frontend.visualization",
    "mxnet.img": "xnd.frontend.image",
    "mxnet.image.image": "xnd.frontend.image",  # MXNet's mxnet/image/ package is one module here
    "mxnet.image.detection": "xnd.frontend.image_detection",  # ... and its detection.py
    "mxnet.np": "xnd.frontend.numpy",
    "mxnet.npx": "xnd.frontend.numpy_extension",
    "mxnet.contrib.quant": "xnd.frontend.contrib.quantization",
    "mxnet.contrib.ndarray": "xnd.frontend.ndarray.contrib",
    "mxnet.contrib.nd": "xnd.frontend.ndarray.contrib",
    "mxnet.contrib.symbol": "xnd.symbol.contrib",
    "mxnet.contrib.sym": "xnd.symbol.contrib",
}

# xnd's own machinery, never visible under an mxnet name (`mxnet.lowering` ...).
_INTERNAL = frozenset({"frontend", "lowering", "compat", "examples", "__main__", "porting", "data",
                       "rng", "serialization", "semantics", "distributed", "image_aug",
                       "image_detection", "tiers", "sparse", "horovod", "launch"})
_FRONTEND = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frontend")

# The line of the installed ``xnd-mxnet.pth``.  site.py runs it at every start:
# it must stay cheap (no xnd, no jax) and must not fail when xnd is gone.
PTH_LINE = (
    "import sys; any(type(f).__name__ == 'XndMxnetBootstrap' for f in sys.meta_path) "
    "or sys.meta_path.append(type('XndMxnetBootstrap', (), {'find_spec': "
    "staticmethod(lambda name, path=None, target=None: "
    "__import__('xnd.compat').compat.find_spec(name, path, target) "
    "if name.partition('.')[0] in ('mxnet', 'horovod') else None)})())"
)


def _in_frontend(name):
    """Whether xnd/frontend/ has a module or package `name` (found, not imported)."""
    return PathFinder.find_spec(name, [_FRONTEND]) is not None


def resolve(mxnet_name):
    """The xnd module name that stands for `mxnet_name`, or None if there is none."""
    parts = mxnet_name.split(".")
    if parts[0] != "mxnet":
        return None
    for i in range(len(parts), 1, -1):
        target = MXNET_MODULES.get(".".join(parts[:i]))
        if target is not None:
            return ".".join([target] + parts[i:])
    if len(parts) == 1:
        return "xnd"
    if parts[1] in _INTERNAL or parts[1].startswith("_") and not _in_frontend(parts[1]):
        return None  # (xnd's private modules; MXNet's own, like _numpy_op_doc, are frontend's)
    return ".".join(["xnd.frontend" if _in_frontend(parts[1]) else "xnd"] + parts[1:])


def provided_modules():
    """{mxnet name: xnd name} of the MXNet modules xnd provides (what docs/coverage.md
    lists): ``mxnet``, every top-level module, the direct submodules of the frontend's
    packages (``mxnet.gluon.nn``, ``mxnet.ndarray.sparse``) and the table's names."""
    import pkgutil
    import xnd
    names = {"mxnet"}
    for path in (xnd.__path__, [_FRONTEND]):
        names.update(f"mxnet.{m.name}" for m in pkgutil.iter_modules(path))
    for m in pkgutil.iter_modules([_FRONTEND]):
        if m.ispkg:
            names.update(f"mxnet.{m.name}.{sub.name}" for sub in
                         pkgutil.iter_modules([os.path.join(_FRONTEND, m.name)])
                         if not sub.name.startswith("_"))
    names.update(MXNET_MODULES)
    out = {}
    for name in sorted(names):
        target = resolve(name)
        if target is not None and importlib.util.find_spec(target) is not None:
            out[name] = target
    return out


def _not_provided(mxnet_name, xnd_name=None):
    where = f" (it would be {xnd_name!r})" if xnd_name else ""
    return ModuleNotFoundError(
        f"No module named {mxnet_name!r}: xnd does not provide the MXNet module "
        f"{mxnet_name!r}{where}", name=mxnet_name)


def _import_xnd(mxnet_name):
    """Import the xnd module behind `mxnet_name`; ModuleNotFoundError naming
    the mxnet module when xnd has no such module.  Errors raised while an
    existing xnd module runs are not masked."""
    xnd_name = resolve(mxnet_name)
    if xnd_name is None:
        raise _not_provided(mxnet_name)
    try:
        return importlib.import_module(xnd_name)
    except ModuleNotFoundError as e:
        missing = e.name or ""
        if missing == xnd_name or xnd_name.startswith(missing + "."):
            raise _not_provided(mxnet_name, xnd_name) from None
        raise


class _AliasLoader(importlib.abc.Loader):
    """Hands the import system an already imported xnd module."""

    def __init__(self, module):
        self.module = module
        self.spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # module_from_spec() overwrote __spec__ with the mxnet spec; the module
        # stays xnd's (relative imports, reload and pickling rely on it).
        if self.spec is not None:
            module.__spec__ = self.spec


class MxnetFinder(importlib.abc.MetaPathFinder):
    """Serves every module name under ``mxnet`` from xnd."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] != "mxnet":
            return None
        module = _import_xnd(name)
        return importlib.util.spec_from_loader(
            name, _AliasLoader(module), is_package=hasattr(module, "__path__"))


_FINDER = MxnetFinder()


class HorovodFinder(importlib.abc.MetaPathFinder):
    """Serves ``horovod`` and ``horovod.*`` from xnd/horovod (Horovod's MXNet API on JAX).
    Only asked after Python's own finders, so an installed Horovod is left alone."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] != "horovod":
            return None
        # every module of xnd/horovod under its horovod name at once: Python's path finder
        # would otherwise load `horovod.mxnet` from the package's __path__ a second time
        importlib.import_module("xnd.horovod.mxnet")
        for xnd_name, mod in list(sys.modules.items()):
            if xnd_name.startswith("xnd.horovod.") and mod is not None:
                sys.modules.setdefault(xnd_name[len("xnd."):], mod)
        module = importlib.import_module("xnd." + name)
        return importlib.util.spec_from_loader(
            name, _AliasLoader(module), is_package=hasattr(module, "__path__"))


def installed_horovod():
    """Where a real ``horovod`` package on ``sys.path`` lives, or None (then ``import
    horovod`` gives xnd's, through the bootstrap finder or ``python -m xnd run``)."""
    spec = PathFinder.find_spec("horovod")
    if spec is None:
        return None
    return os.path.dirname(spec.origin) if spec.origin else \
        next(iter(spec.submodule_search_locations or ()), None)


def _register(mxnet_name, module, bind):
    sys.modules[mxnet_name] = module
    if not hasattr(module, "__path__") and any(k.startswith(mxnet_name + ".") for k in MXNET_MODULES):
        # A package in MXNet (mxnet.ndarray) that is a plain module in xnd: an
        # empty __path__ lets `import mxnet.ndarray.sparse` reach the finder
        # (and its clear error) instead of "'mxnet.ndarray' is not a package".
        module.__path__ = []
    parent, _, child = mxnet_name.rpartition(".")
    if parent in sys.modules and (bind or not hasattr(sys.modules[parent], child)):
        # What `import mxnet.parent.child` does: the parent's attribute is the
        # child (so `mx.ndarray` is the nd frontend, not the core module xnd.ndarray).
        setattr(sys.modules[parent], child, module)


def _mxnet_names(xnd_name):
    """The mxnet names that resolve to `xnd_name` (inverse of `resolve`)."""
    names = []
    for mxnet_prefix, xnd_prefix in MXNET_MODULES.items():
        if xnd_name == xnd_prefix or xnd_name.startswith(xnd_prefix + "."):
            names.append(mxnet_prefix + xnd_name[len(xnd_prefix):])
    for xnd_prefix in ("xnd.frontend", "xnd"):       # the rule
        if xnd_name == xnd_prefix or xnd_name.startswith(xnd_prefix + "."):
            names.append("mxnet" + xnd_name[len(xnd_prefix):])
            break
    for name in dict.fromkeys(names):
        if resolve(name) == xnd_name:
            yield name


def alias_mxnet():
    """Make ``import mxnet`` and every ``mxnet.*`` submodule resolve to xnd.

    Puts the finder first on ``sys.meta_path`` and registers, eagerly, every
    `MXNET_MODULES` entry whose xnd module exists, and under their mxnet names
    the submodules those imports loaded (``mxnet.gluon.nn``).  Idempotent.
    Returns the ``mxnet`` module (that is, xnd)."""
    xnd = importlib.import_module("xnd")
    current = sys.modules.get("mxnet")
    if current is not None and current is not xnd:
        raise ImportError(
            f"another 'mxnet' is already imported ({getattr(current, '__file__', current)!r}); "
            "call xnd.compat.alias_mxnet() before anything imports mxnet, "
            "or run the script with `python -m xnd run script.py`")
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    sys.meta_path.insert(0, _FINDER)
    for mxnet_name in ["mxnet"] + sorted(provided_modules(), key=lambda n: n.count(".")):
        try:
            module = _import_xnd(mxnet_name)
        except ModuleNotFoundError as e:
            if e.name == mxnet_name:      # xnd does not have it (yet)
                continue
            raise
        _register(mxnet_name, module, bind=True)
    loaded = sorted((n, m) for n, m in list(sys.modules.items())
                    if m is not None and n.partition(".")[0] == "xnd")
    for xnd_name, module in loaded:
        for mxnet_name in _mxnet_names(xnd_name):
            if mxnet_name not in sys.modules and mxnet_name.rpartition(".")[0] in sys.modules:
                _register(mxnet_name, module, bind=False)
    return xnd


def installed_mxnet():
    """Where a real ``mxnet`` package on ``sys.path`` lives (a directory), or None: the
    module a plain ``import mxnet`` loads instead of xnd, since the bootstrap finder of the
    ``.pth`` file comes after Python's own path finder."""
    import os
    from importlib.machinery import PathFinder
    spec = PathFinder.find_spec("mxnet")
    if spec is None:
        return None
    if spec.origin and spec.origin not in ("namespace", "built-in"):
        return os.path.dirname(spec.origin)
    return next(iter(spec.submodule_search_locations or ()), None)


def bootstrap_installed():
    """Whether this interpreter runs the ``.pth`` bootstrap finder (`PTH_LINE`)."""
    return any(type(f).__name__ == "XndMxnetBootstrap" for f in sys.meta_path)


def find_spec(name, path=None, target=None):
    """Entry point of the bootstrap finder of the ``.pth`` file: install the
    alias on first use, then answer like `MxnetFinder` (``horovod`` like `HorovodFinder`)."""
    top = name.partition(".")[0]
    if top == "horovod":
        return HorovodFinder().find_spec(name, path, target)
    if top != "mxnet":
        return None
    alias_mxnet()
    # alias_mxnet() registered the name; drop it so Python does not re-run xnd's own
    # spec into a fresh module (which would lose the attributes the alias bound)
    sys.modules.pop(name, None)
    return _FINDER.find_spec(name, path, target)
