"""Sparse storage: CSRNDArray and RowSparseNDArray (xnd/sparse/README.md)."""
from . import arrays, dispatch
from .arrays import _core
from .arrays import BaseSparseNDArray, CSRNDArray, RowSparseNDArray, cast_storage
from .create import array, csr_matrix, empty, row_sparse_array, zeros
from . import ops, tape  # noqa: F401  (register their kernels and tape rules)

_core._SPARSE[1] = cast_storage


def _arm():
    """Route operators through the storage table from the first sparse array on (before,
    ``invoke`` pays nothing for it)."""
    _core._SPARSE[0] = dispatch.dispatch


arrays.ARM = _arm
