"""mx.io.utils: MXNet's normalisation of the ``data``/``label`` arguments that NDArrayIter
(and the iterators built on it) accept."""
from collections import OrderedDict

import numpy as np

from ...ndarray import NDArray
from .. import ndarray as nd
# names MXNet's module holds by importing them (its users import them from here)
from ..ndarray import array  # noqa: E402,F401
from ..ndarray.sparse import array as sparse_array  # noqa: E402,F401


def _init_data(data, allow_empty, default_name):
    """MXNet's normalisation: array / list / dict -> sorted [(name, NDArray)]."""
    assert (data is not None) or allow_empty
    if data is None:
        data = []
    if isinstance(data, (np.ndarray, NDArray)):
        data = [data]
    if isinstance(data, list):
        if not allow_empty:
            assert len(data) > 0
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict([("_%d_%s" % (i, default_name), d) for i, d in enumerate(data)])
    if not isinstance(data, dict):
        raise TypeError("Input must be NDArray, numpy.ndarray, h5py.Dataset " +
                        "a list of them or dict with them as values")
    data = dict(data)
    for k, v in data.items():
        if not isinstance(v, NDArray):
            try:
                data[k] = nd.array(v)
            except Exception:  # noqa: BLE001  (MXNet turns every failure into this TypeError)
                raise TypeError(("Invalid type '%s' for %s, " % (type(v), k)) +
                                "should be NDArray, numpy.ndarray or h5py.Dataset") from None
    return list(sorted(data.items()))
