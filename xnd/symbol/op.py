"""``mxnet.symbol.op``: MXNet's operator functions without a group prefix, those of mx.sym
(aliases: see xnd/lowering/op_groups.py)."""
import sys as _sys

from ..lowering import op_groups as _groups
from .register import _symbol_function as _make
from .symbol import Symbol as SymbolBase  # noqa: F401  (MXNet's base class of Symbol)

_sym = _sys.modules[__package__]  # mx.sym (these modules are imported at its end)
_groups.bind(globals(), "op", [_sym], _make)
