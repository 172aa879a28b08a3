"""mx.io: data iterators (MXNet's ``mxnet.io`` package: ``io.py`` for the Python iterators,
``utils.py`` for the argument normalisation, and the file-backed C++ iterators, which MXNet
generates into ``mxnet.io`` at import and xnd keeps in ``_file_iters.py`` and, for the CSR
batches of LibSVM files, ``_libsvm.py``)."""
from . import io, utils
from ._file_iters import (CSVIter, ImageDetRecordIter, ImageRecordInt8Iter, ImageRecordIter,
                          ImageRecordUInt8Iter, MNISTIter)
from ._libsvm import LibSVMIter
from .io import (DataBatch, DataDesc, DataIter, MXDataIter, NDArrayIter, PrefetchingIter,
                 ResizeIter, _slice_kernel, _slices)
from .utils import _init_data

__all__ = io.__all__ + ["CSVIter", "MNISTIter", "LibSVMIter", "ImageRecordIter",
                        "ImageRecordUInt8Iter", "ImageRecordInt8Iter", "ImageDetRecordIter"]
