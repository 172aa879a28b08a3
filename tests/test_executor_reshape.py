"""Executor.reshape shares memory as MXNet 1.9.1's does (values exact by construction): a
smaller shape is a view of the leading elements of the bound array, outputs included; an
unchanged shape is the same array; a larger one (allow_up_sizing) is new."""
import numpy as np
import pytest

import xnd as mx


def _bound():
    y = mx.sym.FullyConnected(mx.sym.Variable("x"), num_hidden=4, name="fc")
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req="null")
    exe.arg_dict["x"][:] = 1
    exe.arg_dict["fc_weight"][:] = mx.nd.ones((4, 4))
    exe.arg_dict["fc_bias"][:] = 0
    return exe


def test_smaller_shape_shares_inputs_and_outputs():
    exe = _bound()
    small = exe.reshape(x=(3, 4))
    assert small.arg_dict["fc_weight"] is exe.arg_dict["fc_weight"]
    small.arg_dict["x"][:] = 2                 # a view: the base's first 3 rows change
    assert exe.arg_dict["x"].asnumpy()[:, 0].tolist() == [2, 2, 2, 1, 1]
    small.forward(is_train=False)
    assert np.all(small.outputs[0].asnumpy() == 8)
    assert exe.outputs[0].asnumpy()[:3].tolist() == [[8.0] * 4] * 3
    exe.forward(is_train=False)
    assert exe.outputs[0].asnumpy()[:, 0].tolist() == [8, 8, 8, 4, 4]


def test_larger_shape_needs_allow_up_sizing_and_is_new():
    exe = _bound()
    with pytest.raises(mx.MXNetError, match="allow_up_sizing"):
        exe.reshape(x=(6, 4))
    big = exe.reshape(allow_up_sizing=True, x=(6, 4))
    big.arg_dict["x"][:] = 0
    assert np.all(exe.arg_dict["x"].asnumpy() == 1)
    assert np.all(big.arg_dict["fc_weight"].asnumpy() == 1)
