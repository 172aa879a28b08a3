"""mxnet.test_utils' random sparse arrays (MXNet 1.9.1's generators and argument forms):
``rand_sparse_ndarray``, ``create_sparse_array(_zd)``, ``shuffle_csr_column_indices`` and the
uniform / power-law csr datasets. Values come from numpy's global generator, as MXNet's."""
import numpy as np
import numpy.random as rnd

from ... import sparse as _sp
from ...frontend import ndarray as _nd
from . import _checks
from ._checks import assign_each, default_context


def _default_dtype():
    return np.float32


def shuffle_csr_column_indices(csr):
    """Shuffle each row's column indices of a scipy csr matrix in place (unordered indices
    are a valid csr)."""
    for r in range(len(csr.indptr) - 1):
        lo, hi = csr.indptr[r], csr.indptr[r + 1]
        part = np.array(csr.indices[lo:hi])
        rnd.shuffle(part)
        csr.indices[lo:hi] = part


def _check_csr_inputs(rows, cols, density, distribution):
    if density < 0 or density > 1:
        raise ValueError("density has to be between 0 and 1")
    if rows <= 0 or cols <= 0:
        raise ValueError("num_rows or num_cols should be greater than 0")
    if distribution == "powerlaw" and int(rows * cols * density) < 2 * rows:
        raise ValueError("not supported for this density: %s for this shape (%s, %s) Please "
                         "keep : num_rows * num_cols * density >= 2 * num_rows"
                         % (density, rows, cols))


def _uniform_csr(rows, cols, density=0.1, dtype=None, data_init=None,
                 shuffle_csr_indices=False):
    _check_csr_inputs(rows, cols, density, "uniform")
    import scipy.sparse as spsp
    csr = spsp.rand(rows, cols, density, dtype=dtype, format="csr")
    if data_init is not None:
        csr.data.fill(data_init)
    if shuffle_csr_indices:
        shuffle_csr_column_indices(csr)
    return _sp.csr_matrix((csr.data, csr.indices, csr.indptr), shape=(rows, cols), dtype=dtype)


def _powerlaw_csr(rows, cols, density=0.1, dtype=None):
    """Row r holds about twice the entries of row r-1 (column 0 of every row first)."""
    _check_csr_inputs(rows, cols, density, "powerlaw")
    left = int(rows * cols * density)
    out = np.zeros((rows, cols), dtype=dtype)
    for r in range(rows):
        out[r, 0] = 1 + rnd.uniform(0.001, 2)
        left -= 1
        if left <= 0:
            return _nd.array(out).tostype("csr")
    width = 2
    for r in range(rows):
        limit = min(cols, width)
        if limit == cols and left > limit:
            out[r] = 1 + rnd.uniform(0.001, 2)
            left -= limit - 1
            if left <= 0:
                return _nd.array(out).tostype("csr")
            continue
        for c in range(1, limit):
            out[r, c] = 1 + rnd.uniform(0.001, 2)
            left -= 1
            if left <= 0:
                return _nd.array(out).tostype("csr")
        width *= 2
    if left > 0:
        raise ValueError("not supported for this density: %s for this shape (%s,%s)"
                         % (density, rows, cols))
    return _nd.array(out).tostype("csr")


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None,
                        data_init=None, rsp_indices=None, modifier_func=None,
                        shuffle_csr_indices=False, ctx=None):
    """A random sparse array and its components: (array, (data, indices)) for row_sparse,
    (array, (indptr, indices, data)) for csr."""
    ctx = ctx if ctx else default_context()
    density = rnd.rand() if density is None else density
    dtype = _default_dtype() if dtype is None else dtype
    distribution = "uniform" if distribution is None else distribution
    if stype == "row_sparse":
        assert distribution == "uniform", \
            "Distribution %s not supported for row_sparse" % (distribution,)
        if rsp_indices is not None:
            indices = rsp_indices
            assert len(indices) <= shape[0]
        else:
            indices = np.argwhere(rnd.rand(shape[0]) < density).flatten()
        if indices.shape[0] == 0:
            return (_sp.zeros("row_sparse", shape, dtype=dtype, ctx=ctx),
                    (np.array([], dtype=dtype), np.array([])))
        val = rnd.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            val.fill(data_init)
        if modifier_func is not None:
            val = assign_each(val, modifier_func)
        arr = _sp.row_sparse_array((val, indices), shape=shape, dtype=dtype, ctx=ctx)
        return arr, (val, indices)
    if stype == "csr":
        assert len(shape) == 2
        if distribution == "uniform":
            csr = _uniform_csr(shape[0], shape[1], density, data_init=data_init,
                               shuffle_csr_indices=shuffle_csr_indices, dtype=dtype)
        elif distribution == "powerlaw":
            csr = _powerlaw_csr(shape[0], shape[1], density=density, dtype=dtype)
        else:
            raise AssertionError("Distribution not supported: %s" % (distribution,))
        csr = csr.as_in_context(ctx)
        return csr, (csr.indptr, csr.indices, csr.data)
    raise AssertionError("unknown storage type")


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None,
                        modifier_func=None, density=.5, shuffle_csr_indices=False):
    """A random sparse array; row_sparse indices are sorted (canonical)."""
    if stype == "row_sparse":
        idx = None if rsp_indices is None else np.sort(np.asarray(rsp_indices))
        arr, _ = rand_sparse_ndarray(shape, stype, density=density, data_init=data_init,
                                     rsp_indices=idx, dtype=dtype, modifier_func=modifier_func)
    elif stype == "csr":
        arr, _ = rand_sparse_ndarray(shape, stype, density=density, data_init=data_init,
                                     dtype=dtype, modifier_func=modifier_func,
                                     shuffle_csr_indices=shuffle_csr_indices)
    else:
        raise AssertionError("Unknown storage type: " + stype)
    return arr


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None,
                           dtype=None, modifier_func=None, shuffle_csr_indices=False):
    """create_sparse_array whose row_sparse density comes from ``rsp_indices`` alone."""
    if stype == "row_sparse":
        density = 0.0
        if rsp_indices is not None:
            assert len(rsp_indices) <= shape[0]
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices,
                               dtype=dtype, modifier_func=modifier_func, density=density,
                               shuffle_csr_indices=shuffle_csr_indices)


_checks._SPARSE_GENERATOR[0] = rand_sparse_ndarray   # rand_ndarray's sparse storage types
