"""``mxnet.numpy.fallback`` (MXNet's module): the functions mx.np takes from official NumPy
as they are (they compute on host numpy arrays; on mx.np arrays numpy hands the call to
mx.np.ndarray.__array_function__, which runs it on host copies and returns mx.np arrays of
numpy's dtype, as MXNet's fallback does).  Names NumPy 2 removed keep MXNet 1.9.1's
(numpy 1.23) behaviour: ``msort`` sorts along axis 0, ``trapz`` is ``trapezoid``, and the
financial functions (NEP 32) raise numpy 1.23's RuntimeError; ``alltrue`` is ``all`` and
``in1d`` the flattened ``isin``, as numpy 1.23's."""
import numpy as _onp

_NAMES = (
    "allclose alltrue apply_along_axis apply_over_axes argpartition argwhere array_equal "
    "array_equiv choose compress corrcoef correlate count_nonzero cov digitize divmod extract "
    "flatnonzero float_power frexp heaviside histogram2d histogram_bin_edges histogramdd i0 "
    "in1d interp intersect1d isclose isin ix_ lexsort min_scalar_type mirr modf msort "
    "nanargmax nanargmin nancumprod nancumsum nanmax nanmedian nanmin nanpercentile nanprod "
    "nanquantile ndim npv partition piecewise packbits poly polyadd polydiv polyfit polyint "
    "polymul polysub positive ppmt promote_types ptp pv rate real result_type rollaxis roots "
    "searchsorted select setdiff1d setxor1d signbit size spacing take_along_axis trapz "
    "tril_indices_from trim_zeros triu_indices_from union1d unpackbits unwrap vander").split()

globals().update({n: getattr(_onp, n) for n in _NAMES if hasattr(_onp, n)})

if not hasattr(_onp, "msort"):
    def msort(a):
        """A copy of `a` sorted along its first axis (numpy.msort, removed in NumPy 2)."""
        return _onp.sort(a, axis=0)

if not hasattr(_onp, "trapz"):
    trapz = _onp.trapezoid  # (renamed in NumPy 2, same integral)


def _expired(name):
    def fn(*args, **kwargs):
        raise RuntimeError(
            f"In accordance with NEP 32, the function {name} was removed from NumPy version "
            f"1.20.  A replacement for this function is available in the numpy_financial "
            f"library: https://pypi.org/project/numpy-financial")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"numpy.{name}: removed by NEP 32 (numpy_financial has it); raises as " \
                 f"MXNet 1.9.1's mx.np.{name} does."
    return fn


for _n in ("mirr", "npv", "ppmt", "pv", "rate"):
    if not callable(globals().get(_n)):
        globals()[_n] = _expired(_n)

if not hasattr(_onp, "alltrue"):
    def alltrue(a, axis=None, out=None, keepdims=False):
        """numpy.alltrue (removed in NumPy 2): numpy.all."""
        return _onp.all(a, axis=axis, out=out, keepdims=keepdims)

if not hasattr(_onp, "in1d"):
    def in1d(ar1, ar2, assume_unique=False, invert=False):
        """numpy.in1d (removed in NumPy 2.4): numpy.isin of the flattened ``ar1``."""
        return _onp.isin(_onp.ravel(ar1), ar2, assume_unique=assume_unique, invert=invert)

# (every name on every numpy: the module's names do not depend on the installed numpy)
__all__ = [n for n in _NAMES if n in globals()]
