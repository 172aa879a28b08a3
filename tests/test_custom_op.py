"""mx.operator custom operators against MXNet 1.9.1 (goldens from make_custom_op_goldens.py):
imperative, under autograd, in a bound symbol (and through symbol JSON), as a loss in
Module.fit, in a hybridized block and its export/SymbolBlock.imports; then the error checks
and the legacy NumpyOp/NDArrayOp."""
import json
import os
import sys

import numpy as np
import pytest

import xnd as mx
from xnd.base import MXNetError

import custom_op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "custom_op", "custom_op.json")) as _f:
    GOLD = json.load(_f)
NPZ = np.load(os.path.join(HERE, "goldens", "custom_op", "custom_op.npz"), allow_pickle=False)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return custom_op_cases.run(mx, str(tmp_path_factory.mktemp("custom")))


@pytest.mark.parametrize("key", sorted(NPZ.files))
def test_values_match_mxnet(results, key):
    np.testing.assert_allclose(results[key], NPZ[key], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("key", sorted(GOLD["names"]))
def test_names_match_mxnet(results, key):
    assert results[key].tolist() == GOLD["names"][key]


def test_error_types_match_mxnet():
    assert custom_op_cases.errors(mx) == GOLD["errors"]


def test_bad_infer_shape_names_the_op():
    custom_op_cases.define(mx)
    with pytest.raises(MXNetError, match=r"t_bad_shape.*expecting 1 entries in returned output"):
        mx.nd.Custom(mx.nd.ones((2, 3)), op_type="t_bad_shape")
    with pytest.raises(MXNetError, match="t_bad_shape"):
        mx.sym.Custom(mx.sym.var("x"), op_type="t_bad_shape").infer_shape(x=(2, 3))


def test_errors_in_python_forward_are_mxnet_errors():
    custom_op_cases.register_raising(mx, "t_fails", "deliberate")
    with pytest.raises(MXNetError, match=r"CustomOp.forward of 't_fails'.*deliberate"):
        mx.nd.Custom(mx.nd.ones((2,)), op_type="t_fails").wait_to_read()
    with pytest.raises(MXNetError, match="takes 1 inputs"):
        mx.nd.Custom(mx.nd.ones((2,)), mx.nd.ones((2,)), op_type="t_fails")
    with pytest.raises(MXNetError, match="unknown input 'label'"):
        mx.nd.Custom(data=mx.nd.ones((2,)), label=mx.nd.ones((2,)), op_type="t_fails")


def test_assign_req_modes():
    op = mx.operator.CustomOp()
    dst = mx.nd.array([1.0, 2.0])
    op.assign(dst, "null", mx.nd.array([5.0, 5.0]))
    assert dst.asnumpy().tolist() == [1.0, 2.0]
    op.assign(dst, "add", mx.nd.array([5.0, 5.0]))
    assert dst.asnumpy().tolist() == [6.0, 7.0]
    op.assign(dst, "write", mx.nd.array([0.5, 0.25]))
    assert dst.asnumpy().tolist() == [0.5, 0.25]
    with pytest.raises(MXNetError, match="unknown req"):
        op.assign(dst, "overwrite", dst)


def test_stateful_operator_and_aux_states():
    """One operator instance per signature: state set in forward is seen in backward, and the
    aux arrays forward wrote are those backward reads."""
    seen = []

    class Scale(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.factor = 3.0
            aux[0][:] = 1
            self.assign(out_data[0], req[0], in_data[0] * self.factor)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            seen.append(aux[0].asnumpy().copy())
            self.assign(in_grad[0], req[0], out_grad[0] * self.factor)

    @mx.operator.register("t_state")
    class ScaleProp(mx.operator.CustomOpProp):
        def list_auxiliary_states(self):
            return ["aux"]

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0]], [in_shape[0]]

        def create_operator(self, ctx, shapes, dtypes):
            return Scale()
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, mx.nd.zeros((2,)), op_type="t_state")
    y.backward(mx.nd.array([1.0, 10.0]))
    assert y.asnumpy().tolist() == [3.0, 6.0]
    assert x.grad.asnumpy().tolist() == [3.0, 30.0]
    assert seen and seen[-1].tolist() == [1.0, 1.0]


def test_numpy_op_and_ndarray_op():
    class NpSqr(mx.operator.NumpyOp):
        def __init__(self):
            super().__init__(need_top_grad=True)

        def forward(self, in_data, out_data):
            out_data[0][:] = in_data[0] ** 2

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = 2 * in_data[0] * out_grad[0]

    class NdTwice(mx.operator.NDArrayOp):
        def forward(self, in_data, out_data):
            out_data[0][:] = in_data[0] * 2

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = out_grad[0] * 2
    s = NdTwice()(NpSqr()(mx.sym.var("x")))
    ex = s.simple_bind(mx.cpu(), x=(3,))
    ex.forward(is_train=True, x=mx.nd.array([1.0, 2.0, 3.0]))
    ex.backward(mx.nd.ones((3,)))
    assert ex.outputs[0].asnumpy().tolist() == [2.0, 8.0, 18.0]
    assert ex.grad_dict["x"].asnumpy().tolist() == [4.0, 8.0, 12.0]


def test_compiled_graph_calls_python_once_per_forward():
    """Inside a bound executor the op is a host callback: the Python forward runs once per
    forward call, and the surrounding ops stay in the one compiled program."""
    calls = []

    class Count(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            calls.append(1)
            self.assign(out_data[0], req[0], in_data[0] + 1)

    @mx.operator.register("t_count")
    class CountProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Count()
    s = mx.sym.exp(mx.sym.Custom(mx.sym.var("x") * 2, op_type="t_count"))
    ex = s.simple_bind(mx.cpu(), x=(2,), grad_req="null")
    for _ in range(3):
        out = ex.forward(x=mx.nd.array([0.0, 1.0]))[0].asnumpy()
    np.testing.assert_allclose(out, np.exp([1.0, 3.0]), rtol=1e-6)
    assert len(calls) == 3


def test_output_and_implicit_input_names_follow_the_prop():
    """MXNet 1.9.1: outputs are '<node>_<list_outputs name>', absent inputs '<node>_<arg>'."""
    @mx.operator.register("t_two")
    class TwoProp(mx.operator.CustomOpProp):
        def list_outputs(self):
            return ["first", "second"]

        def list_arguments(self):
            return ["data", "label"]
    s = mx.sym.Custom(mx.sym.var("x"), op_type="t_two", name="t")
    assert s.list_outputs() == ["t_first", "t_second"]
    assert s.list_arguments() == ["x", "t_label"]


def test_symbol_aux_states_are_auxiliary():
    """list_auxiliary_states inputs of a symbol are aux states (MXNet 1.9.1), passed to
    forward/backward in ``aux``."""
    class AddAux(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] + aux[0])

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0] * 2)

    @mx.operator.register("t_add_aux")
    class AddAuxProp(mx.operator.CustomOpProp):
        def list_auxiliary_states(self):
            return ["bias"]

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0]], [in_shape[0]]

        def create_operator(self, ctx, shapes, dtypes):
            return AddAux()
    s = mx.sym.Custom(data=mx.sym.var("x"), bias=mx.sym.var("b"), op_type="t_add_aux")
    assert s.list_arguments() == ["x"] and s.list_auxiliary_states() == ["b"]
    assert s.infer_shape(x=(2,)) == ([(2,)], [(2,)], [(2,)])
    ex = s.bind(mx.cpu(), {"x": mx.nd.array([1.0, 2.0])}, args_grad={"x": mx.nd.zeros((2,))},
                aux_states={"b": mx.nd.array([10.0, 20.0])})
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones((2,)))
    assert ex.outputs[0].asnumpy().tolist() == [11.0, 22.0]
    assert ex.grad_dict["x"].asnumpy().tolist() == [2.0, 2.0]
