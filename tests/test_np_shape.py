"""MXNet's two shape semantics on NDArrays, against MXNet 1.9.1 (tests/make_np_shape_goldens.py):
in the legacy semantics () and 0 dims mean "unknown", so creating such arrays raises; under
``mx.np_shape()`` 0-d and zero-size arrays are ordinary arrays that operators take and give,
and ``nd.save``/``nd.load`` write and require the matching record version."""
import numpy as np
import pytest

import golden_files
import xnd as mx
from make_np_shape_goldens import SAVE_LOAD, cases, run_case, save_load

META, ARR = golden_files.read("np_shape")
CASES = cases(mx)


def test_case_names_match_goldens():
    assert sorted(CASES) == sorted(META["cases"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    active, fn = CASES[name]
    got, val = run_case(mx, active, fn)
    assert got == META["cases"][name]
    if name in ARR:
        np.testing.assert_array_equal(val, ARR[name])


@pytest.mark.parametrize("k", range(len(SAVE_LOAD)))
def test_save_load_modes(k):
    assert save_load(mx, *SAVE_LOAD[k]) == META["save_load"][k]


def test_legacy_creation_error_names_the_op_and_shape():
    with pytest.raises(mx.base.MXNetError, match=r"_zeros.*\(0, 2\).*np_shape"):
        mx.nd.zeros((0, 2))


def test_load_mode_errors_say_what_to_do(tmp_path):
    f = str(tmp_path / "a.nd")
    with mx.np_shape(True):
        mx.nd.save(f, [mx.nd.ones(())])
    with pytest.raises(mx.base.MXNetError, match="saved in np shape semantics"):
        mx.nd.load(f)
    with mx.np_shape(True):
        assert mx.nd.load(f)[0].shape == ()


def test_executor_backward_zero_size_head_of_other_shape():
    # MXNet copies nothing from a zero-size head gradient, so its shape is not checked
    with mx.np_shape(True):
        data = mx.sym.var("data")
        out = mx.sym.contrib.index_array(data, axes=(2, 1))
        exe = out.bind(mx.cpu(), args={"data": mx.nd.ones((0, 0, 0, 0))},
                       args_grad={"data": mx.nd.ones((0, 0, 0, 0))})
        exe.forward(is_train=True)
        assert exe.outputs[0].shape == (0, 0, 0, 0, 2)
        exe.backward([mx.nd.zeros((0, 0, 2))])
        assert exe.grad_arrays[0].shape == (0, 0, 0, 0)
