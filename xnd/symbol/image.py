"""``mx.sym.image`` / ``mx.symbol.image``: every ``_image_*`` registry operator under its short
name as a symbol function (``mx.sym.image.to_tensor(x)`` makes an ``_image_to_tensor`` node)."""
from ..lowering import registry as _registry
from .register import _symbol_function

_PREFIX = "_image_"


def _install(namespace):
    for name, op in _registry.all_ops().items():
        if name.startswith(_PREFIX):
            namespace.setdefault(name[len(_PREFIX):], _symbol_function(op, name[len(_PREFIX):]))


_install(globals())
