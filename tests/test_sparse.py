"""Sparse storage (xnd/sparse): constructors, storage casts, the storage-type table of the
operators and the sparse kernels (tests/sparse_cases.py), and training with sparse gradients
and weights (tests/sparse_train_cases.py), against MXNet 1.9.1's goldens; then errors,
pickling and in-place forms with hand-computed values."""
import pickle

import numpy as np
import pytest

import golden_files
import sparse_cases
import sparse_train_cases
import xnd as mx

SETS = {"sparse": sparse_cases.CASES, "sparse_train": sparse_train_cases.CASES}
GOLD = {stem: golden_files.read(stem)[1] for stem in SETS}


@pytest.mark.parametrize("stem,case", [(s, c) for s in SETS for c in sorted(SETS[s])])
def test_matches_mxnet(stem, case):
    got = SETS[stem][case](mx)
    want = {k[len(case) + 1:]: v for k, v in GOLD[stem].items() if k.startswith(case + "/")}
    assert sorted(got) == sorted(want)
    for k, v in want.items():
        if v.dtype.kind == "U":
            assert str(got[k]) == str(v), k
        else:
            np.testing.assert_allclose(np.asarray(got[k], dtype=v.dtype), v, rtol=1e-6, atol=1e-7,
                                       err_msg=k)


def test_errors_name_the_problem():
    csr = mx.nd.sparse.csr_matrix(([1.0], [0], [0, 1]), shape=(1, 2))
    rsp = mx.nd.sparse.zeros("row_sparse", (3, 2))
    with pytest.raises(ValueError, match="csr to row_sparse"):
        csr.tostype("row_sparse")
    with pytest.raises(ValueError, match="row_sparse to csr"):
        rsp.tostype("csr")
    with pytest.raises(ValueError, match="continuous slicing"):
        csr[0:1:2]
    with pytest.raises(ValueError, match="Shape mismatch"):
        mx.nd.sparse.csr_matrix(np.ones((2, 2)), shape=(3, 3))
    with pytest.raises(mx.base.MXNetError, match="unknown storage type"):
        mx.nd.zeros((2, 2)).tostype("coo")
    with pytest.raises(mx.base.MXNetError, match="ambiguous"):
        rsp.size
    bad = mx.nd.sparse.csr_matrix(([1.0, 2], [1, 0], [0, 2]), shape=(1, 2))
    with pytest.raises(mx.base.MXNetError, match="ascending"):
        bad.check_format()
    bad.check_format(full_check=False)


def test_pickle_copy_and_inplace():
    rsp = mx.nd.sparse.row_sparse_array(([[1.0, 2]], [2]), shape=(4, 2))
    back = pickle.loads(pickle.dumps(rsp))
    assert back.stype == "row_sparse" and back.indices.asnumpy().tolist() == [2]
    rsp += rsp
    assert rsp.stype == "row_sparse" and rsp.asnumpy()[2].tolist() == [2, 4]
    dense = mx.nd.zeros((4, 2))
    rsp.copyto(dense)
    assert dense.asnumpy()[2].tolist() == [2, 4]
    rsp[:] = 1.5
    assert rsp.asnumpy().tolist() == [[1.5, 1.5]] * 4
    csr = mx.nd.sparse.zeros("csr", (2, 2))
    csr[:] = mx.nd.array([[0, 3], [0, 0]])
    assert csr.stype == "csr" and csr.data.asnumpy().tolist() == [3]
    with pytest.raises(ValueError, match="numeric"):
        csr[:] = 1


def test_scipy_round_trip():
    import scipy.sparse as sp
    m = sp.csr_matrix(np.array([[0, 2.0, 0], [1, 0, 0]], dtype=np.float32))
    x = mx.nd.array(m)
    assert x.stype == "csr" and x.dtype == np.float32
    np.testing.assert_array_equal(x.asscipy().toarray(), m.toarray())
