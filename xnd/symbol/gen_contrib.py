"""``mxnet.symbol.gen_contrib``: the ``_contrib_`` operators under their short names, those of
mx.sym.contrib (aliases: see xnd/lowering/op_groups.py)."""
import sys as _sys

from ..lowering import op_groups as _groups
from .register import _symbol_function as _make
from .symbol import Symbol as SymbolBase  # noqa: F401  (MXNet's base class of Symbol)

_sym = _sys.modules[__package__]  # mx.sym (these modules are imported at its end)
_groups.bind(globals(), "contrib", [_sym.contrib, _sym._internal], _make)
_groups.bind_names(globals(), _sym.contrib, _groups.unavailable.CONTRIB_OPS)  # (raising entries)
