"""``mx.numpy_dispatch_protocol``: official numpy functions and ufuncs called on
``mx.np.ndarray``s run as the ``mx.np`` function of the same name (NEP 18's
``__array_function__`` and NEP 13's ``__array_ufunc__``, which the ndarray implements);
a numpy function that ``mx.np`` lacks runs on the host copies and returns mx arrays.

`_NUMPY_ARRAY_FUNCTION_LIST` / `_NUMPY_ARRAY_UFUNC_LIST` name what dispatches to ``mx.np``.
"""
import functools

import numpy as _onp


def _names(ufuncs):
    from .numpy import __all__ as names, multiarray
    out = []
    for n in names:
        f = getattr(_onp, n, None)
        if f is None or not callable(f) or n in ("ndarray", "array", "dtype", "finfo", "iinfo"):
            continue
        if isinstance(f, _onp.ufunc) == ufuncs and n in multiarray._F:
            out.append(n)
    return out


def with_array_function_protocol(func):
    """Run ``func`` with numpy's __array_function__ dispatch on (always, on numpy >= 1.17)."""
    @functools.wraps(func)
    def run(*args, **kwargs):
        return func(*args, **kwargs)
    return run


with_array_ufunc_protocol = with_array_function_protocol

_NUMPY_ARRAY_FUNCTION_LIST = _names(ufuncs=False)
_NUMPY_ARRAY_UFUNC_LIST = _names(ufuncs=True)
