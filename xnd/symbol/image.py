"""``mx.sym.image`` / ``mx.symbol.image``: every ``_image_*`` registry operator under its short
name as a symbol function (``mx.sym.image.to_tensor(x)`` makes an ``_image_to_tensor`` node)."""
from ..lowering import registry as _registry
from .register import _symbol_function

_PREFIX = "_image_"


for _name, _op in _registry.all_ops().items():  # each under its short name
    if _name.startswith(_PREFIX):
        globals().setdefault(_name[len(_PREFIX):], _symbol_function(_op, _name[len(_PREFIX):]))
