"""mx.test_utils, mx.viz, mx.profiler, mx.runtime and mx.engine (the MXNET_* variables).

Expected texts are what MXNet 1.9.1 printed for the same calls (its assert_almost_equal
report; print_summary tables and plot_network sources for a LeNet-like symbol, recorded
with the reference build). Table rows are compared without trailing blanks, and every
row is checked to be padded to the table width as MXNet pads it.
"""
import contextlib
import gzip
import io
import logging
import os
import struct
import sys

import jax
import numpy as np
import pytest

import xnd as mx
from xnd import engine
from xnd.frontend import profiler, runtime, test_utils as tu, visualization as viz

SUMMARY_SHAPES = """\
________________________________________________________________________________________________________________________
Layer (type)                                        Output Shape            Param #     Previous Layer
========================================================================================================================
data(null)                                          1x28x28                 0
________________________________________________________________________________________________________________________
convolution0(Convolution)                           20x24x24                520         data
________________________________________________________________________________________________________________________
activation0(Activation)                             20x24x24                0           convolution0
________________________________________________________________________________________________________________________
pooling0(Pooling)                                   20x12x12                0           activation0
________________________________________________________________________________________________________________________
convolution1(Convolution)                           50x8x8                  25000       pooling0
________________________________________________________________________________________________________________________
bn(BatchNorm)                                       50x8x8                  100         convolution1
________________________________________________________________________________________________________________________
activation1(Activation)                             50x8x8                  0           bn
________________________________________________________________________________________________________________________
pooling1(Pooling)                                   50x4x4                  0           activation1
________________________________________________________________________________________________________________________
flatten0(Flatten)                                   800                     0           pooling1
________________________________________________________________________________________________________________________
fullyconnected0(FullyConnected)                     500                     400500      flatten0
________________________________________________________________________________________________________________________
activation2(Activation)                             500                     0           fullyconnected0
________________________________________________________________________________________________________________________
fullyconnected1(FullyConnected)                     10                      5010        activation2
________________________________________________________________________________________________________________________
concat0(Concat)                                     510                     0           fullyconnected1
                                                                                        fullyconnected0
________________________________________________________________________________________________________________________
softmax(SoftmaxOutput)                              510                     0           concat0
========================================================================================================================
Total params: 431130
________________________________________________________________________________________________________________________
"""

SUMMARY_NO_SHAPES = """\
________________________________________________________________________________________________________________________
Layer (type)                                        Output Shape            Param #     Previous Layer
========================================================================================================================
data(null)                                                                  0
________________________________________________________________________________________________________________________
convolution0(Convolution)                                                   20          data
________________________________________________________________________________________________________________________
activation0(Activation)                                                     0           convolution0
________________________________________________________________________________________________________________________
pooling0(Pooling)                                                           0           activation0
________________________________________________________________________________________________________________________
convolution1(Convolution)                                                   0           pooling0
________________________________________________________________________________________________________________________
bn(BatchNorm)                                                               0           convolution1
________________________________________________________________________________________________________________________
activation1(Activation)                                                     0           bn
________________________________________________________________________________________________________________________
pooling1(Pooling)                                                           0           activation1
________________________________________________________________________________________________________________________
flatten0(Flatten)                                                           0           pooling1
________________________________________________________________________________________________________________________
fullyconnected0(FullyConnected)                                             500         flatten0
________________________________________________________________________________________________________________________
activation2(Activation)                                                     0           fullyconnected0
________________________________________________________________________________________________________________________
fullyconnected1(FullyConnected)                                             10          activation2
________________________________________________________________________________________________________________________
concat0(Concat)                                                             0           fullyconnected1
                                                                                        fullyconnected0
________________________________________________________________________________________________________________________
softmax(SoftmaxOutput)                                                      0           concat0
========================================================================================================================
Total params: 530
________________________________________________________________________________________________________________________
"""

SUMMARY_GROUP_80 = """\
________________________________________________________________________________
Layer (type)                       Output Shape    Param # Previous Layer
================================================================================
data(null)                         1x28x28         0
________________________________________________________________________________
convolution0(Convolution)          20x24x24        520     data
________________________________________________________________________________
activation0(Activation)            20x24x24        0       convolution0
________________________________________________________________________________
pooling0(Pooling)                  20x12x12        0       activation0
________________________________________________________________________________
convolution1(Convolution)          50x8x8          25000   pooling0
________________________________________________________________________________
bn(BatchNorm)                      50x8x8          100     convolution1
________________________________________________________________________________
activation1(Activation)            50x8x8          0       bn
________________________________________________________________________________
pooling1(Pooling)                  50x4x4          0       activation1
________________________________________________________________________________
flatten0(Flatten)                  800             0       pooling1
________________________________________________________________________________
fullyconnected0(FullyConnected)    500             400500  flatten0
________________________________________________________________________________
activation2(Activation)            500             0       fullyconnected0
________________________________________________________________________________
fullyconnected1(FullyConnected)    10              5010    activation2
________________________________________________________________________________
concat0(Concat)                    510             0       fullyconnected1
                                                           fullyconnected0
________________________________________________________________________________
softmax(SoftmaxOutput)             510             0       concat0
________________________________________________________________________________
emb(Embedding)                     5x8             800
================================================================================
Total params: 431930
________________________________________________________________________________
"""

SUMMARY_POSITIONS = """\
__________________________________________________________________________________________
Layer (type)                  Output Shape        Param #   Previous Layer
==========================================================================================
data(null)                    1x28x28             0
__________________________________________________________________________________________
convolution0(Convolution)     20x24x24            520       data
__________________________________________________________________________________________
activation0(Activation)       20x24x24            0         convolution0
__________________________________________________________________________________________
pooling0(Pooling)             20x12x12            0         activation0
__________________________________________________________________________________________
convolution1(Convolution)     50x8x8              25000     pooling0
__________________________________________________________________________________________
bn(BatchNorm)                 50x8x8              100       convolution1
__________________________________________________________________________________________
activation1(Activation)       50x8x8              0         bn
__________________________________________________________________________________________
pooling1(Pooling)             50x4x4              0         activation1
__________________________________________________________________________________________
flatten0(Flatten)             800                 0         pooling1
__________________________________________________________________________________________
fullyconnected0(FullyConnected500                 400500    flatten0
__________________________________________________________________________________________
activation2(Activation)       500                 0         fullyconnected0
__________________________________________________________________________________________
fullyconnected1(FullyConnected10                  5010      activation2
__________________________________________________________________________________________
concat0(Concat)               510                 0         fullyconnected1
                                                            fullyconnected0
__________________________________________________________________________________________
softmax(SoftmaxOutput)        510                 0         concat0
==========================================================================================
Total params: 431130
__________________________________________________________________________________________
"""

PLOT_SHAPES = """\
digraph plot {
	data [label=data fillcolor="#8dd3c7" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	convolution0 [label="Convolution
5x5/1, 20" fillcolor="#fb8072" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	activation0 [label="Activation
tanh" fillcolor="#ffffb3" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	pooling0 [label="Pooling
max, 2x2/2x2" fillcolor="#80b1d3" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	convolution1 [label="Convolution
5x5/1, 50" fillcolor="#fb8072" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	bn [label=bn fillcolor="#bebada" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	activation1 [label="Activation
tanh" fillcolor="#ffffb3" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	pooling1 [label="Pooling
max, 2x2/2x2" fillcolor="#80b1d3" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	flatten0 [label=flatten0 fillcolor="#fdb462" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	fullyconnected0 [label="FullyConnected
500" fillcolor="#fb8072" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	activation2 [label="Activation
tanh" fillcolor="#ffffb3" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	fullyconnected1 [label="FullyConnected
10" fillcolor="#fb8072" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	concat0 [label=concat0 fillcolor="#fdb462" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	softmax_label [label=softmax_label fillcolor="#8dd3c7" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	softmax [label=softmax fillcolor="#fccde5" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
	convolution0 -> data [label="1x28x28" arrowtail=open dir=back]
	activation0 -> convolution0 [label="20x24x24" arrowtail=open dir=back]
	pooling0 -> activation0 [label="20x24x24" arrowtail=open dir=back]
	convolution1 -> pooling0 [label="20x12x12" arrowtail=open dir=back]
	bn -> convolution1 [label="50x8x8" arrowtail=open dir=back]
	activation1 -> bn [label="50x8x8" arrowtail=open dir=back]
	pooling1 -> activation1 [label="50x8x8" arrowtail=open dir=back]
	flatten0 -> pooling1 [label="50x4x4" arrowtail=open dir=back]
	fullyconnected0 -> flatten0 [label=800 arrowtail=open dir=back]
	activation2 -> fullyconnected0 [label=500 arrowtail=open dir=back]
	fullyconnected1 -> activation2 [label=500 arrowtail=open dir=back]
	concat0 -> fullyconnected1 [label=10 arrowtail=open dir=back]
	concat0 -> fullyconnected0 [label=500 arrowtail=open dir=back]
	softmax -> concat0 [label=510 arrowtail=open dir=back]
	softmax -> softmax_label [label="" arrowtail=open dir=back]
}
"""

PLOT_WEIGHTS = """\
digraph plot {
	data [label=data fillcolor="#8dd3c7" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	convolution0 [label="Convolution
5x5/1, 20" fillcolor="#fb8072" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	activation0 [label="Activation
tanh" fillcolor="#ffffb3" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	pooling0 [label="Pooling
max, 2x2/2x2" fillcolor="#80b1d3" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	convolution1 [label="Convolution
5x5/1, 50" fillcolor="#fb8072" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	bn [label=bn fillcolor="#bebada" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	activation1 [label="Activation
tanh" fillcolor="#ffffb3" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	pooling1 [label="Pooling
max, 2x2/2x2" fillcolor="#80b1d3" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	flatten0 [label=flatten0 fillcolor="#fdb462" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	fullyconnected0 [label="FullyConnected
500" fillcolor="#fb8072" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	activation2 [label="Activation
tanh" fillcolor="#ffffb3" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	fullyconnected1 [label="FullyConnected
10" fillcolor="#fb8072" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	concat0 [label=concat0 fillcolor="#fdb462" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	softmax_label [label=softmax_label fillcolor="#8dd3c7" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	softmax [label=softmax fillcolor="#fccde5" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
	convolution0 -> data [label="" arrowtail=open dir=back]
	convolution0 -> convolution0_weight [label="" arrowtail=open dir=back]
	convolution0 -> convolution0_bias [label="" arrowtail=open dir=back]
	activation0 -> convolution0 [label="" arrowtail=open dir=back]
	pooling0 -> activation0 [label="" arrowtail=open dir=back]
	convolution1 -> pooling0 [label="" arrowtail=open dir=back]
	convolution1 -> convolution1_weight [label="" arrowtail=open dir=back]
	bn -> convolution1 [label="" arrowtail=open dir=back]
	bn -> bn_gamma [label="" arrowtail=open dir=back]
	bn -> bn_beta [label="" arrowtail=open dir=back]
	bn -> bn_moving_mean [label="" arrowtail=open dir=back]
	bn -> bn_moving_var [label="" arrowtail=open dir=back]
	activation1 -> bn [label="" arrowtail=open dir=back]
	pooling1 -> activation1 [label="" arrowtail=open dir=back]
	flatten0 -> pooling1 [label="" arrowtail=open dir=back]
	fullyconnected0 -> flatten0 [label="" arrowtail=open dir=back]
	fullyconnected0 -> fullyconnected0_weight [label="" arrowtail=open dir=back]
	fullyconnected0 -> fullyconnected0_bias [label="" arrowtail=open dir=back]
	activation2 -> fullyconnected0 [label="" arrowtail=open dir=back]
	fullyconnected1 -> activation2 [label="" arrowtail=open dir=back]
	fullyconnected1 -> fullyconnected1_weight [label="" arrowtail=open dir=back]
	fullyconnected1 -> fullyconnected1_bias [label="" arrowtail=open dir=back]
	concat0 -> fullyconnected1 [label="" arrowtail=open dir=back]
	concat0 -> fullyconnected0 [label="" arrowtail=open dir=back]
	softmax -> concat0 [label="" arrowtail=open dir=back]
	softmax -> softmax_label [label="" arrowtail=open dir=back]
}
"""


# ---- test_utils: comparisons ----------------------------------------------------------------------
A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
B = A.copy()
B[1, 2] = 6.5
B[0, 0] = 1.01

# MXNet 1.9.1: assert_almost_equal(A, B, names=('x', 'y'))
REPORT_PRINTED = """
*** Maximum errors for vector of size 6:  rtol=0.0001, atol=0.001

  1: Error 303.030304  Location of error: (1, 2), x=6.00000000, y=6.50000000
  2: Error 9.082644  Location of error: (0, 0), x=1.00000000, y=1.00999999
"""
REPORT_MESSAGE = """
Items are not equal:
Error 303.030304 exceeds tolerance rtol=1.000000e-04, atol=1.000000e-03 (mismatch 33.333333%).
Location of maximum error: (1, 2), x=6.00000000, y=6.50000000
 ACTUAL: array([[1., 2., 3.],
       [4., 5., 6.]], dtype=float32)
 DESIRED: array([[1.01, 2.  , 3.  ],
       [4.  , 5.  , 6.5 ]], dtype=float32)"""


def test_assert_almost_equal_report():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(AssertionError) as e:
        tu.assert_almost_equal(A, B, names=("x", "y"))
    assert out.getvalue() == REPORT_PRINTED
    assert str(e.value) == REPORT_MESSAGE
    # the global numpy print options are left alone
    assert np.get_printoptions()["threshold"] == 1000


def test_assert_almost_equal_ndarrays_and_tolerances():
    tu.assert_almost_equal(mx.nd.array(A), A + 1e-5)
    tu.assert_almost_equal(mx.nd.array(A), mx.nd.array(A))
    with pytest.raises(AssertionError, match=r"rtol=1.000000e-03, atol=1.000000e-05"):
        tu.assert_almost_equal(mx.nd.array(A), mx.nd.array(B), rtol=1e-3, atol=1e-5)
    tu.assert_almost_equal(A, B, rtol=0.1, atol=0.1)
    tu.assert_almost_equal(A.astype(np.float64), A + 1e-7, rtol={np.dtype(np.float64): 1e-6})
    tu.assert_almost_equal(np.array([True, False]), np.array([True, False]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([1, 2]), np.array([1, 3]))  # integers: exact
    nan = np.array([1.0, np.nan])
    tu.assert_almost_equal(nan, nan, equal_nan=True)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(nan, nan)
    with pytest.raises(AssertionError, match="are not equal"):
        tu.assert_almost_equal(A, A[:1], use_broadcast=False)


def test_almost_equal_and_same():
    assert tu.almost_equal(A, A + 1e-9)
    assert not tu.almost_equal(A, B)
    assert tu.same(A, A.copy()) and not tu.same(A, B)
    assert tu.get_rtol() == 1e-5 and tu.get_atol() == 1e-20 and tu.get_rtol(0.5) == 0.5
    assert tu.default_rtols()[np.dtype(np.float16)] == 1e-2
    assert tu.get_tols(np.float16(1), np.float32(1), None, None) == (1e-2, 1e-1)


def test_float16_comparisons_are_numpys():
    """Two float16 arrays compare as numpy's float16 arithmetic does (xnd decides most
    elements vectorised in float32, numpy the ones near a rounding boundary): 2.904296875
    and 2.908203125 are within rtol=atol=1e-3 only because float16 rounds the tolerance
    up; infinities and NaN as numpy's."""
    x = np.array([2.908203125, 2.900390625, 1.0, np.inf, np.inf, np.nan, 0.0, 65504],
                 np.float16)
    y = np.array([2.904296875, 2.904296875, 1.01, np.inf, -np.inf, np.nan, 1e-4, 65500],
                 np.float16)
    for i in range(len(x)):
        for en in (False, True):
            # (slices, not x[i]: numpy 1 computes two float16 scalars in float64)
            want = np.allclose(x[i:i + 1], y[i:i + 1], rtol=1e-3, atol=1e-3, equal_nan=en)
            assert tu.almost_equal(x[i:i + 1], y[i:i + 1], 1e-3, 1e-3, equal_nan=en) == want
    assert tu.almost_equal(np.array(x[3]), np.array(y[3]), 1e-3, 1e-3)          # 0-d
    assert not tu.almost_equal(np.array(x[2]), np.array(y[3]), 1e-3, 1e-3)
    assert tu.almost_equal(x[:2], y[:2], 1e-3, 1e-3)                 # exact math: False
    x64, y64 = x[:2].astype(np.float64), y[:2].astype(np.float64)
    assert not np.any(np.abs(x64 - y64) <= 1e-3 + 1e-3 * np.abs(y64))
    rng = np.random.RandomState(0)
    a = rng.uniform(-4, 4, (300, 7)).astype(np.float16)
    b = (a + rng.uniform(-0.02, 0.02, a.shape)).astype(np.float16)
    close = np.isclose(a, b, rtol=1e-3, atol=1e-3)
    assert 0 < close.sum() < close.size
    for r in range(a.shape[0]):
        assert tu.almost_equal(a[r], b[r], 1e-3, 1e-3) == bool(close[r].all())
    with pytest.raises(AssertionError, match="exceeds tolerance"):
        tu.assert_almost_equal(a, b, rtol=1e-3, atol=1e-3)


# ---- test_utils: random data and contexts -------------------------------------------------------------
def test_rand_shapes():
    np.random.seed(0)
    for _ in range(20):
        s2 = tu.rand_shape_2d(3, 4)
        assert len(s2) == 2 and 1 <= s2[0] <= 3 and 1 <= s2[1] <= 4
        s3 = tu.rand_shape_3d(2, 2, 2)
        assert len(s3) == 3 and all(1 <= d <= 2 for d in s3)
        sn = tu.rand_shape_nd(4, dim=5)
        assert isinstance(sn, tuple) and len(sn) == 4 and all(1 <= d <= 5 for d in sn)
    assert 0 in {d for _ in range(50) for d in tu.rand_shape_2d(1, 1, allow_zero_size=True)}


def test_rand_ndarray():
    x = tu.rand_ndarray((3, 4))
    assert isinstance(x, mx.nd.NDArray) and x.shape == (3, 4) and x.dtype == np.float32
    assert x.context == mx.cpu()
    assert tu.rand_ndarray((2,), dtype="float64").dtype == np.float64
    np.random.seed(3)
    c = tu.rand_ndarray((4, 5), stype="csr", density=0.5)
    assert c.stype == "csr" and c.shape == (4, 5)
    dense = c.asnumpy()
    assert (dense[dense != 0] > 0).all() and c.data.size == np.count_nonzero(dense)
    r = tu.rand_ndarray((6, 2), stype="row_sparse", density=1)
    assert r.stype == "row_sparse" and r.indices.asnumpy().tolist() == list(range(6))
    with pytest.raises(AssertionError, match="unknown storage type"):
        tu.rand_ndarray((2, 2), stype="coo")


def test_default_context():
    assert tu.default_context() == mx.cpu()
    try:
        tu.set_default_context(mx.cpu(1))
        assert tu.default_context() == mx.cpu(1)
        assert mx.nd.zeros((1,)).context == mx.cpu(1)
    finally:
        tu.set_default_context(mx.cpu(0))
    assert tu.default_context() == mx.cpu(0)


def test_list_gpus():
    assert list(tu.list_gpus()) == list(range(mx.context.num_gpus()))


# ---- test_utils: symbolic checks -------------------------------------------------------------------------
LHS, RHS = mx.sym.Variable("lhs"), mx.sym.Variable("rhs")
M1 = np.array([[1, 2], [3, 4]], dtype=np.float32)
M2 = np.array([[5, 6], [7, 8]], dtype=np.float32)


def test_check_symbolic_forward():
    out = tu.check_symbolic_forward(mx.sym.dot(LHS, RHS), [M1, M2], [np.array([[19, 22], [43, 50]])])
    assert isinstance(out, list) and out[0].asnumpy().tolist() == [[19, 22], [43, 50]]
    dot = mx.sym.dot(LHS, RHS, name="dot")
    tu.check_symbolic_forward(dot, {"lhs": M1, "rhs": M2}, {"dot_output": np.array([[19, 22], [43, 50]])})
    with pytest.raises(AssertionError, match="EXPECTED_dot.*_output"):
        tu.check_symbolic_forward(mx.sym.dot(LHS, RHS), [M1, M2], [np.array([[19, 22], [43, 51]])])
    with pytest.raises(ValueError, match="do not match"):
        tu.check_symbolic_forward(mx.sym.dot(LHS, RHS), {"lhs": M1}, [M1])


def test_check_symbolic_backward():
    s = mx.sym.elemwise_add(LHS, RHS)
    ones = np.ones((2, 2))
    grads = tu.check_symbolic_backward(s, [M1, M2], [ones], [ones, ones])
    assert sorted(grads) == ["lhs", "rhs"]
    tu.check_symbolic_backward(s, [M1, M2], [ones], [ones, ones], grad_req="add")
    tu.check_symbolic_backward(s, [M1, M2], [ones], {"lhs": ones, "rhs": ones},
                               grad_req={"lhs": "write", "rhs": "null"})
    m = mx.sym.elemwise_mul(LHS, RHS)
    tu.check_symbolic_backward(m, [M1, M2], [ones], [M2, M1])
    with pytest.raises(AssertionError, match="BACKWARD_lhs"):
        tu.check_symbolic_backward(m, [M1, M2], [ones], [M1, M1])


def test_check_numeric_gradient():
    np.random.seed(0)
    x = mx.sym.Variable("x")
    tu.check_numeric_gradient(mx.sym.tanh(x) * x, [np.random.rand(3, 4)])
    tu.check_numeric_gradient(
        mx.sym.FullyConnected(x, num_hidden=3, name="fc"),
        {"x": np.random.rand(2, 4), "fc_weight": np.random.rand(3, 4), "fc_bias": np.random.rand(3)},
        grad_nodes=["x", "fc_weight"])
    # BlockGrad hides one path of the gradient: the numerical one sees it
    with pytest.raises(AssertionError, match="NUMERICAL_x"):
        tu.check_numeric_gradient(mx.sym.BlockGrad(x) * x, [np.random.rand(2, 3) + 0.5])


def test_numeric_grad_differences_each_element_and_restores_it():
    """Central differences of sum(x * y) one element at a time: exactly y (float64, a step
    of 0.5), and the executor's argument and the location hold the values they started with."""
    x, y = mx.sym.Variable("x"), mx.sym.Variable("y")
    loc = {"x": np.array([[1.0, 2.0], [3.0, 4.0]]), "y": np.array([[5.0, -6.0], [7.0, 0.5]])}
    exe = (x * y).simple_bind(mx.cpu(), x=(2, 2), y=(2, 2), type_dict={"x": np.float64,
                                                                        "y": np.float64})
    grads = tu.numeric_grad(exe, {k: v.copy() for k, v in loc.items()}, eps=0.5,
                            dtype=np.float64)
    np.testing.assert_array_equal(grads["x"], loc["y"])
    np.testing.assert_array_equal(grads["y"], loc["x"])
    np.testing.assert_array_equal(exe.arg_dict["x"].asnumpy(), loc["x"])
    np.testing.assert_array_equal(exe.arg_dict["y"].asnumpy(), loc["y"])


# ---- test_utils: files ---------------------------------------------------------------------------------
def _idx(path, array):
    dims = array.shape
    header = struct.pack(">I", 0x0800 | len(dims)) + struct.pack(">" + "I" * len(dims), *dims)
    with gzip.open(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def test_get_mnist_reads_local_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MXNET_HOME", str(tmp_path / "home"))
    with pytest.raises(ConnectionError, match="does not download") as e:
        tu.get_mnist()
    assert "train-images-idx3-ubyte.gz" in str(e.value)
    rng = np.random.RandomState(0)
    for prefix, n in (("train", 5), ("t10k", 3)):
        _idx(tmp_path / f"{prefix}-images-idx3-ubyte.gz", rng.randint(0, 256, (n, 28, 28)))
        _idx(tmp_path / f"{prefix}-labels-idx1-ubyte.gz", rng.randint(0, 10, (n,)))
    mnist = tu.get_mnist()
    assert mnist["train_data"].shape == (5, 1, 28, 28) and mnist["train_data"].dtype == np.float32
    assert 0 <= mnist["train_data"].min() and mnist["train_data"].max() <= 1
    assert mnist["train_label"].dtype == np.int8 and mnist["test_label"].shape == (3,)
    assert mnist["test_data"].shape == (3, 1, 28, 28)


def test_download_is_offline(tmp_path):
    existing = tmp_path / "here.bin"
    existing.write_bytes(b"x")
    assert tu.download("http://example.com/here.bin", fname=str(existing)) == str(existing)
    assert tu.download("http://example.com/here.bin", dirname=str(tmp_path)) == \
        os.path.join(str(tmp_path), "here.bin")
    with pytest.raises(ConnectionError, match="xnd does not download"):
        tu.download("http://example.com/missing.bin", dirname=str(tmp_path))
    assert issubclass(tu.DownloadError, mx.MXNetError)


# ---- mx.viz --------------------------------------------------------------------------------------------
def _lenet():
    with mx.name.NameManager():  # fresh automatic names: convolution0, ... as in a new process
        return _lenet_symbols()


def _lenet_symbols():
    data = mx.sym.Variable("data")
    conv1 = mx.sym.Convolution(data=data, kernel=(5, 5), num_filter=20)
    tanh1 = mx.sym.Activation(data=conv1, act_type="tanh")
    pool1 = mx.sym.Pooling(data=tanh1, pool_type="max", kernel=(2, 2), stride=(2, 2))
    conv2 = mx.sym.Convolution(data=pool1, kernel=(5, 5), num_filter=50, no_bias=True)
    bn = mx.sym.BatchNorm(conv2, name="bn")
    tanh2 = mx.sym.Activation(data=bn, act_type="tanh")
    pool2 = mx.sym.Pooling(data=tanh2, pool_type="max", kernel=(2, 2), stride=(2, 2))
    flatten = mx.sym.flatten(data=pool2)
    fc1 = mx.sym.FullyConnected(data=flatten, num_hidden=500)
    tanh3 = mx.sym.Activation(data=fc1, act_type="tanh")
    fc2 = mx.sym.FullyConnected(data=tanh3, num_hidden=10)
    cat = mx.sym.concat(fc2, fc1, dim=1)
    emb = mx.sym.Embedding(mx.sym.Variable("tok"), input_dim=100, output_dim=8, name="emb")
    return mx.sym.SoftmaxOutput(data=cat, name="softmax"), emb


WEIGHTS = {"convolution0_weight": (20, 1, 5, 5), "convolution0_bias": (20,),
           "convolution1_weight": (50, 20, 5, 5), "bn_gamma": (50,), "bn_beta": (50,),
           "fullyconnected0_weight": (500, 800), "fullyconnected0_bias": (500,),
           "fullyconnected1_weight": (10, 500), "fullyconnected1_bias": (10,),
           "bn_moving_mean": (50,), "bn_moving_var": (50,)}


def _summary(*args, **kwargs):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        viz.print_summary(*args, **kwargs)
    text = out.getvalue()
    width = kwargs.get("line_length", 120)
    for line in text.splitlines():
        if not line.startswith("Total params: "):
            assert len(line) == width, repr(line)  # every row padded to the table width
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def test_print_summary_matches_mxnet():
    lenet, emb = _lenet()
    shapes = dict(WEIGHTS, softmax_label=(1,), data=(1, 1, 28, 28))
    assert _summary(lenet, shape=shapes) == SUMMARY_SHAPES
    assert _summary(lenet) == SUMMARY_NO_SHAPES
    group = mx.sym.Group([lenet, emb])
    shapes2 = dict(WEIGHTS, softmax_label=(2,), emb_weight=(100, 8), data=(2, 1, 28, 28), tok=(2, 5))
    assert _summary(group, shape=shapes2, line_length=80) == SUMMARY_GROUP_80
    assert _summary(lenet, shape=shapes, positions=[30, 50, 60, 90], line_length=90) == \
        SUMMARY_POSITIONS


def test_print_summary_infers_weight_shapes():
    """MXNet's usual call gives only the input shapes; the weights come from shape inference."""
    lenet, _ = _lenet()
    assert _summary(lenet, shape={"data": (1, 1, 28, 28)}) == SUMMARY_SHAPES


def test_print_summary_errors():
    with pytest.raises(TypeError, match="symbol must be Symbol"):
        viz.print_summary(3)


def test_plot_network_needs_graphviz(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # as if it were not installed
    with pytest.raises(ImportError, match="pip install graphviz"):
        viz.plot_network(_lenet()[0])


def test_plot_network_matches_mxnet():
    pytest.importorskip("graphviz")
    lenet, _ = _lenet()
    g = viz.plot_network(lenet, shape=dict(WEIGHTS, softmax_label=(1,), data=(1, 1, 28, 28)))
    assert g.source.rstrip("\n") + "\n" == PLOT_SHAPES  # graphviz versions differ in the last newline
    g = viz.plot_network(lenet, hide_weights=False, node_attrs={"shape": "oval"})
    assert g.source.rstrip("\n") + "\n" == PLOT_WEIGHTS


# ---- mx.profiler ---------------------------------------------------------------------------------------
def test_profiler_calls(tmp_path, caplog):
    filename = str(tmp_path / "profile.json")
    profiler._said.discard("config")   # its one INFO line may have gone to an earlier test
    with caplog.at_level(logging.INFO, logger="xnd"):
        profiler.set_config(profile_all=True, aggregate_stats=True, filename=filename)
        profiler.set_state("run")
        try:
            domain = profiler.Domain("demo")
            task = domain.new_task("work")
            task.start()
            (mx.nd.ones((8, 8)) * 2).wait_to_read()
            task.stop()
            counter = domain.new_counter("steps", 1)
            counter += 2
            counter.decrement()
            assert counter.value == 2
            domain.new_marker("here").mark()
            profiler.pause()
            profiler.resume()
        finally:
            profiler.set_state("stop")
        table = profiler.dumps()
        profiler.dump()
    assert "Profile Statistics" in table and "\n_mul_scalar " in table
    profiler.set_config(aggregate_stats=False)
    profiler.dumps(reset=True)
    assert os.path.isfile(filename)
    trace_dir = str(tmp_path / "profile_jax_trace")
    assert os.path.isdir(trace_dir)
    with open(filename) as f:
        assert '"jax_trace"' in f.read()
    assert any("accepted and ignored" in r.getMessage() for r in caplog.records)
    with pytest.raises(mx.MXNetError, match="unknown parameter"):
        profiler.set_config(not_a_key=1)
    with pytest.raises(KeyError):
        profiler.set_state("running")


# ---- mx.runtime ----------------------------------------------------------------------------------------
def test_features():
    f = runtime.Features()
    assert f is runtime.Features()
    assert list(f) == list(runtime.FEATURE_NAMES)
    assert list(f)[:5] == ["CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT"]
    has_gpu = mx.context.num_gpus() > 0
    assert f.is_enabled("CUDA") is has_gpu and f.is_enabled("cudnn") is has_gpu
    for name in ("MKLDNN", "CUDA_RTC", "TENSORRT", "OPENCV", "TVM_OP", "BLAS_MKL"):
        assert f.is_enabled(name) is False
    assert f.is_enabled("INT64_TENSOR_SIZE") and f.is_enabled("LAPACK")
    assert f.is_enabled("DIST_KVSTORE")
    assert repr(f["MKLDNN"]) == "✖ MKLDNN" and repr(f["LAPACK"]) == "✔ LAPACK"
    assert repr(f).startswith("[") and "MKLDNN" in repr(f)
    with pytest.raises(RuntimeError, match="Feature 'NOPE' is unknown"):
        f.is_enabled("nope")


# ---- mx.engine and the MXNET_* variables --------------------------------------------------------------
def test_engine_configuration(caplog):
    saved = jax.config.values["jax_cpu_enable_async_dispatch"]
    try:
        with caplog.at_level(logging.DEBUG, logger="xnd"):
            assert engine.configure({"MXNET_ENGINE_TYPE": "NaiveEngine", "MXNET_GPU_MEM_POOL_TYPE": "Round",
                                     "MXNET_HOME": "/tmp"}) == "NaiveEngine"
        assert engine.NAIVE and engine.IGNORED == ("MXNET_GPU_MEM_POOL_TYPE",)
        assert any("MXNET_GPU_MEM_POOL_TYPE=Round" in r.getMessage() for r in caplog.records)
        x = jax.numpy.ones(3)
        assert engine.sync([x, x])[0] is x
        with caplog.at_level(logging.WARNING, logger="xnd"):
            assert engine.configure({"MXNET_ENGINE_TYPE": "Bogus"}) == "ThreadedEnginePerDevice"
        assert not engine.NAIVE
        assert any("Bogus" in r.getMessage() for r in caplog.records)
        assert engine.configure({}) == "ThreadedEnginePerDevice" and engine.IGNORED == ()
    finally:
        jax.config.update("jax_cpu_enable_async_dispatch", saved)
        engine.configure()


def test_bulk_size():
    prev = engine.set_bulk_size(5)
    assert engine.set_bulk_size(7) == 5
    with engine.bulk(30):
        assert engine.set_bulk_size(30) == 30
    assert engine.set_bulk_size(prev) == 7
