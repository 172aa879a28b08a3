"""A custom optimizer's update(index, ...) gets MXNet 1.9.1's index (goldens/optimizer_index,
made by make_optimizer_index_goldens.py): the position on one device, the name through the
kvstore on several, Gluon's position; an SGD subclass's update() is not called."""
import numpy as np
import pytest

import xnd as mx
from golden_files import read
from optimizer_index_cases import run_all

META, _ = read("optimizer_index")
RESULT = run_all(mx)


@pytest.mark.parametrize("case", sorted(META))
def test_optimizer_index_matches_mxnet(case):
    if case.endswith("fc_weight"):
        np.testing.assert_allclose(RESULT[case], META[case], rtol=1e-4, atol=2e-5)
    else:
        assert RESULT[case] == META[case]
