"""Sparse storage scenarios, run by MXNet 1.9.1 (tests/make_sparse_goldens.py) and by xnd
(tests/test_sparse.py). Each case takes ``mx`` and returns {name: value}: numpy arrays (dense
values and components) and strings (storage types, printed forms) as 0-d arrays."""
import numpy as np


def _s(v):
    return np.array(str(v))


# MXNet's csr + csr writes each row's columns in the order of its merge (and leaves
# uninitialised entries past nnz): only the value and the storage type are compared there
UNORDERED = ("csr_add_csr",)


def _parts(tag, x):
    out = {tag + "/stype": _s(x.stype), tag + "/dense": x.asnumpy(),
           tag + "/dtype": _s(np.dtype(x.dtype).name), tag + "/shape": np.array(x.shape)}
    if x.stype != "default" and tag not in UNORDERED:
        out[tag + "/data"] = x.data.asnumpy()
        out[tag + "/indices"] = x.indices.asnumpy()
    if x.stype == "csr" and tag not in UNORDERED:
        out[tag + "/indptr"] = x.indptr.asnumpy()
    return out


def _csr(mx):
    return mx.nd.sparse.csr_matrix(([1.0, 2, 3, 4], [0, 2, 1, 2], [0, 2, 2, 3, 4]), shape=(4, 3))


def _rsp(mx):
    return mx.nd.sparse.row_sparse_array(([[1.0, 2], [3, 4]], [1, 4]), shape=(6, 2))


def constructors(mx):
    out = {}
    out.update(_parts("csr_def", _csr(mx)))
    out.update(_parts("csr_coo", mx.nd.sparse.csr_matrix(([5.0, 6, 7], ([0, 2, 2], [1, 0, 2])),
                                                         shape=(3, 3))))
    out.update(_parts("csr_dense", mx.nd.sparse.csr_matrix(np.array([[0, 1.5], [2, 0]]))))
    out.update(_parts("csr_shape", mx.nd.sparse.csr_matrix((2, 3))))
    out.update(_parts("csr_int", mx.nd.sparse.csr_matrix(([1, 2], [0, 1], [0, 1, 2]),
                                                         shape=(2, 2), dtype="int32")))
    out.update(_parts("rsp_def", _rsp(mx)))
    out.update(_parts("rsp_dense", mx.nd.sparse.row_sparse_array(np.array([[0, 0], [1, 2.5]]))))
    out.update(_parts("rsp_shape", mx.nd.sparse.row_sparse_array((3, 2))))
    out.update(_parts("zeros_csr", mx.nd.sparse.zeros("csr", (2, 3))))
    out.update(_parts("zeros_rsp", mx.nd.zeros((3, 2), stype="row_sparse", dtype="float64")))
    dense = mx.nd.array([[0, 1, 0], [0, 0, 0], [2, 0, 3]])
    out.update(_parts("tostype_csr", dense.tostype("csr")))
    out.update(_parts("tostype_rsp", dense.tostype("row_sparse")))
    out.update(_parts("cast_back", mx.nd.cast_storage(dense.tostype("csr"), stype="default")))
    out["repr_csr"] = _s(repr(_csr(mx)))
    out["repr_rsp"] = _s(repr(_rsp(mx)))
    return out


def operators(mx):
    csr, rsp = _csr(mx), _rsp(mx)
    d = mx.nd.array(np.arange(12, dtype="float32").reshape(4, 3) - 5)
    w = mx.nd.array(np.arange(6, dtype="float32").reshape(3, 2) / 4)
    out = {}
    for tag, x in [("csr_mul_scalar", csr * 3), ("csr_div_scalar", csr / 2),
                   ("csr_plus_scalar", csr + 1), ("csr_sqrt", mx.nd.sqrt(csr)),
                   ("csr_exp", mx.nd.exp(csr)), ("csr_neg", -csr),
                   ("csr_add_csr", csr + csr), ("csr_sub_dns", csr - d),
                   ("csr_mul_dns", mx.nd.elemwise_mul(csr, d)),
                   ("csr_dot_dns", mx.nd.dot(csr, w)),
                   ("csrT_dot_dns", mx.nd.dot(csr, mx.nd.ones((4, 2)), transpose_a=True)),
                   ("dns_dot_csr", mx.nd.dot(mx.nd.ones((2, 4)), csr)),
                   ("csr_slice", csr[1:3]), ("csr_row", csr[2]),
                   ("csr_sum", mx.nd.sum(csr, axis=0)),
                   ("rsp_add_rsp", rsp + rsp), ("rsp_mul_scalar", rsp * 2),
                   ("rsp_abs", mx.nd.abs(-rsp)), ("rsp_add_n", mx.nd.add_n(rsp, rsp, rsp)),
                   ("rsp_retain", mx.nd.sparse.retain(rsp, mx.nd.array([0, 4]))),
                   ("rsp_square_sum", mx.nd._internal._square_sum(rsp, axis=1, keepdims=True)),
                   ("rsp_mul_dns", mx.nd.elemwise_mul(rsp, mx.nd.ones((6, 2)) * 2)),
                   ("rsp_dns_add", rsp + mx.nd.ones((6, 2))),
                   ("zeros_like_rsp", mx.nd.zeros_like(rsp)),
                   ("rsp_astype", rsp.astype("float64"))]:
        out.update(_parts(tag, x))
    return out


CASES = {"constructors": constructors, "operators": operators}
