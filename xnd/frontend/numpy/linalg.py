"""``mx.np.linalg``: numpy.linalg over jnp.linalg (registry operators ``_npi_linalg_*``)."""
from ...lowering import numpy as _lnp
from .multiarray import func as _func
from . import fallback_linalg  # noqa: F401  (MXNet's mx.np.linalg names its fallback module)

_NAMES = [n[len("linalg_"):] for n in _lnp.NP_FUNCS if n.startswith("linalg_")]
for _n in _NAMES:
    globals()[_n] = _func("linalg_" + _n)
    globals()[_n].__name__ = _n


def __getattr__(name):
    raise AttributeError(f"module 'mxnet.numpy.linalg' has no attribute {name!r}: xnd's "
                         f"mx.np.linalg does not provide numpy.linalg.{name}")


__all__ = sorted(_NAMES)
