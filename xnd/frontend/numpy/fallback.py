"""``mxnet.numpy.fallback`` (MXNet's module): the functions mx.np takes from official NumPy
as they are (they compute on host numpy arrays).  Those numpy itself still has are here
under MXNet's list; names numpy removed (``alltrue``, ``msort``, the financial functions on
numpy 2) are absent, as they are from numpy."""
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

__all__ = [n for n in _NAMES if hasattr(_onp, n)]
globals().update({n: getattr(_onp, n) for n in __all__})
