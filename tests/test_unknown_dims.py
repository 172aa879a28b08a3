"""0 dims of legacy shapes as MXNet 1.9.1 reads them (goldens/unknown_dims, made by
make_unknown_dims_goldens.py): unknown in symbols and hybridized blocks (inferred from the
consumers, per batch size, forward and backward), refused imperatively, real under
mx.np_shape()."""
import numpy as np
import pytest

import xnd as mx
from golden_files import read
from unknown_dims_cases import run_all

META, _ = read("unknown_dims")
RESULT = run_all(mx)


@pytest.mark.parametrize("case", sorted(META))
def test_unknown_dims_match_mxnet(case):
    got, want = RESULT[case], META[case]
    if want and want[0] == "error" or "infer_shape" in case:
        assert got == want
    else:
        assert got[0] == want[0]
        np.testing.assert_allclose(np.array(got[1], dtype=float), np.array(want[1], dtype=float),
                                   rtol=1e-6)
