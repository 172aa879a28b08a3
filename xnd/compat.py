"""`import mxnet` -> xnd.

`alias_mxnet()` makes every import form a legacy script uses (``import mxnet as
mx``, ``from mxnet import nd, autograd, gluon``, ``import mxnet.ndarray as nd``,
``from mxnet.gluon import nn``, ``import mxnet.gluon.nn`` ...) resolve to xnd's
modules.  The module objects are the very same ones (``sys.modules['mxnet.nd']
is sys.modules['xnd.frontend.nd']``), so isinstance checks and module state are
shared between the two names.

One table, `MXNET_MODULES`, says which xnd module stands for which mxnet
module.  Entries are prefixes: the longest entry that matches a dotted name
wins and the rest of the name is appended, so ``mxnet.gluon.nn.basic_layers``
is ``xnd.frontend.gluon.nn.basic_layers``.  A meta-path finder serves every
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
import sys

__all__ = ["MXNET_MODULES", "alias_mxnet", "resolve", "find_spec", "PTH_LINE"]

# mxnet module name -> xnd module name (prefix mapping, longest match wins).
MXNET_MODULES = {
    "mxnet": "xnd",
    "mxnet.ndarray": "xnd.frontend.nd",
    "mxnet.nd": "xnd.frontend.nd",
    "mxnet.ndarray.ndarray": "xnd.ndarray",
    "mxnet.random": "xnd.frontend.random",
    "mxnet.ndarray.random": "xnd.frontend.random",
    "mxnet.ndarray.linalg": "xnd.frontend.linalg",
    "mxnet.nd.ndarray": "xnd.ndarray",
    "mxnet.nd.random": "xnd.frontend.random",
    "mxnet.nd.linalg": "xnd.frontend.linalg",
    "mxnet.ndarray.sparse": "xnd.frontend.sparse",
    "mxnet.nd.sparse": "xnd.frontend.sparse",
    "mxnet.ndarray.contrib": "xnd.frontend.nd_contrib",
    "mxnet.nd.contrib": "xnd.frontend.nd_contrib",
    "mxnet.ndarray.image": "xnd.frontend.nd_image",
    "mxnet.nd.image": "xnd.frontend.nd_image",
    "mxnet.context": "xnd.context",
    "mxnet.base": "xnd.base",
    "mxnet.autograd": "xnd.autograd",
    "mxnet.symbol": "xnd.symbol",
    "mxnet.sym": "xnd.symbol",
    "mxnet.gluon": "xnd.frontend.gluon",
    "mxnet.module": "xnd.frontend.module",
    "mxnet.mod": "xnd.frontend.module",
    "mxnet.io": "xnd.frontend.io",
    "mxnet.metric": "xnd.frontend.metric",
    "mxnet.initializer": "xnd.frontend.initializer",
    "mxnet.init": "xnd.frontend.initializer",
    "mxnet.optimizer": "xnd.frontend.optimizer",
    "mxnet.lr_scheduler": "xnd.frontend.lr_scheduler",
    "mxnet.kvstore": "xnd.frontend.kvstore",
    "mxnet.kv": "xnd.frontend.kvstore",
    "mxnet.model": "xnd.frontend.model",
    "mxnet.callback": "xnd.frontend.callback",
    "mxnet.test_utils": "xnd.frontend.test_utils",
    "mxnet.util": "xnd.frontend.util",
    "mxnet.name": "xnd.name",
    "mxnet.attribute": "xnd.attribute",
    "mxnet.monitor": "xnd.frontend.monitor",
    "mxnet.mon": "xnd.frontend.monitor",
    "mxnet.rnn": "xnd.frontend.rnn",
    "mxnet.engine": "xnd.engine",
    "mxnet.visualization": "xnd.frontend.viz",
    "mxnet.viz": "xnd.frontend.viz",
    "mxnet.profiler": "xnd.frontend.profiler",
    "mxnet.runtime": "xnd.frontend.runtime",
    "mxnet.recordio": "xnd.frontend.recordio",
    "mxnet.numpy": "xnd.frontend.numpy",
    "mxnet.np": "xnd.frontend.numpy",
    "mxnet.numpy_extension": "xnd.frontend.numpy_extension",
    "mxnet.npx": "xnd.frontend.numpy_extension",
    "mxnet.numpy_op_signature": "xnd.frontend.numpy_op_signature",
    "mxnet.numpy_dispatch_protocol": "xnd.frontend.numpy_dispatch_protocol",
    "mxnet.image": "xnd.frontend.image",
    "mxnet.img": "xnd.frontend.image",
    "mxnet.image.image": "xnd.frontend.image",
    "mxnet.operator": "xnd.frontend.operator",
    "mxnet.contrib": "xnd.frontend.contrib",
    "mxnet.contrib.quant": "xnd.frontend.contrib.quantization",
    "mxnet.onnx": "xnd.frontend.onnx",
    "mxnet.contrib.ndarray": "xnd.frontend.nd_contrib",
    "mxnet.contrib.nd": "xnd.frontend.nd_contrib",
    "mxnet.contrib.symbol": "xnd.symbol.contrib",
    "mxnet.contrib.sym": "xnd.symbol.contrib",
    "mxnet.library": "xnd.frontend.library",
}

# xnd's own machinery, never visible under an mxnet name (`mxnet.lowering` ...).
_INTERNAL = frozenset({"frontend", "lowering", "compat", "examples", "__main__", "porting", "data"})

# The line of the installed ``xnd-mxnet.pth``.  site.py runs it at every start:
# it must stay cheap (no xnd, no jax) and must not fail when xnd is gone.
PTH_LINE = (
    "import sys; any(type(f).__name__ == 'XndMxnetBootstrap' for f in sys.meta_path) "
    "or sys.meta_path.append(type('XndMxnetBootstrap', (), {'find_spec': "
    "staticmethod(lambda name, path=None, target=None: "
    "__import__('xnd.compat').compat.find_spec(name, path, target) "
    "if name.partition('.')[0] == 'mxnet' else None)})())"
)


def resolve(mxnet_name):
    """The xnd module name that stands for `mxnet_name`, or None if there is none."""
    parts = mxnet_name.split(".")
    for i in range(len(parts), 0, -1):
        key = ".".join(parts[:i])
        target = MXNET_MODULES.get(key)
        if target is None:
            continue
        rest = parts[i:]
        if key == "mxnet" and rest and (rest[0] in _INTERNAL or rest[0].startswith("_")):
            return None
        return ".".join([target] + rest)
    return None


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
    for mxnet_prefix, xnd_prefix in MXNET_MODULES.items():
        if xnd_name == xnd_prefix or xnd_name.startswith(xnd_prefix + "."):
            name = mxnet_prefix + xnd_name[len(xnd_prefix):]
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
    for mxnet_name in sorted(MXNET_MODULES, key=lambda n: n.count(".")):
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
    alias on first use, then answer like `MxnetFinder`."""
    if name.partition(".")[0] != "mxnet":
        return None
    alias_mxnet()
    # alias_mxnet() registered the name; drop it so Python does not re-run xnd's own
    # spec into a fresh module (which would lose the attributes the alias bound)
    sys.modules.pop(name, None)
    return _FINDER.find_spec(name, path, target)
