"""Samplers fill ``out=``'s shape and dtype (and raise where it disagrees with the call) as
MXNet 1.9.1's do (goldens/sampler_out, made by make_sampler_out_goldens.py)."""
import pytest

import xnd as mx
from xnd.base import MXNetError
from golden_files import read
from sampler_out_cases import run_all

META, _ = read("sampler_out")
RESULT = run_all(mx)


@pytest.mark.parametrize("case", sorted(META))
def test_sampler_out_matches_mxnet(case):
    assert RESULT[case] == META[case]


def test_errors_name_the_disagreement():
    out = mx.nd.zeros((2, 3))
    with pytest.raises(MXNetError, match=r"Shape inconsistent, Provided = \[2,3\], "
                                         r"inferred shape=\[4\]"):
        mx.random.uniform(0, 1, shape=(4,), out=out)
    with pytest.raises(MXNetError, match="Output type does not match requested type: "
                                         "float32 vs float16"):
        mx.random.normal(0, 1, dtype="float16", out=out)
    with pytest.raises(MXNetError, match="Output type must be int32, int64: dtype is float32"):
        mx.random.randint(0, 3, out=out)
