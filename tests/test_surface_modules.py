"""The modules issue 41 added, against MXNet 1.9.1 goldens (tests/surface_modules_cases.py,
written by make_surface_modules_goldens.py) and exact hand-computed results: the generated
gen_*/op modules are aliases of the namespace functions, mx.kvstore is a package, the
NumPy-backed custom operators of mx.numpy_op_fallback, mx.libinfo without a library,
mx.notebook.callback's PandasLogger."""
import importlib
import inspect
import json
import os
from collections import namedtuple

import numpy as np
import pytest

import xnd as mx
import xnd.compat
from surface_modules_cases import CASES, run_case

xnd.compat.alias_mxnet()
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "surface", "modules.json")) as f:
    GOLDEN = json.load(f)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_mxnet(name):
    assert json.loads(json.dumps(run_case(mx, CASES[name]))) == GOLDEN[name]


def test_gen_modules_are_aliases():
    imp = importlib.import_module
    assert imp("mxnet.ndarray.gen_op").Activation is mx.nd.Activation
    assert imp("mxnet.ndarray.op").FullyConnected is mx.nd.FullyConnected
    assert imp("mxnet.symbol.gen_op").Activation is mx.sym.Activation
    assert imp("mxnet.ndarray.gen_contrib").box_nms is mx.nd.contrib.box_nms
    assert imp("mxnet.symbol.gen_linalg").gemm2 is mx.sym.linalg.gemm2
    assert imp("mxnet.ndarray.gen_sparse").dot is mx.nd.sparse.dot
    assert imp("mxnet.ndarray.gen_random").uniform is mx.nd._internal._random_uniform
    assert imp("mxnet.ndarray.numpy") is mx.np and imp("mxnet.ndarray.numpy.linalg") is mx.np.linalg
    assert imp("mxnet.symbol.numpy") is mx.sym.np
    assert importlib.import_module("mxnet.numpy.multiarray").zeros is mx.np.zeros
    # an operator function carries MXNet's generated signature
    assert str(inspect.signature(mx.nd.Activation)) == \
        "(data=None, act_type=_Null, out=None, name=None, **kwargs)"
    assert str(inspect.signature(mx.sym.Concat)) == "(*data, **kwargs)"


def test_kvstore_is_a_package():
    base = importlib.import_module("mxnet.kvstore.base")
    assert base.create is mx.kvstore.create and base.KVStoreBase is mx.kvstore.KVStoreBase
    assert importlib.import_module("mxnet.kvstore.kvstore").KVStore is mx.kv.KVStore
    kv = base.create("local")
    kv.init(3, mx.nd.ones((2,)))
    out = mx.nd.zeros((2,))
    kv.pull(3, out=out)
    assert out.asnumpy().tolist() == [1.0, 1.0]


def test_numpy_op_fallback_operators():
    importlib.import_module("mxnet.numpy_op_fallback")
    npi = mx.np._internal
    x = mx.np.array([[1, 2, 3], [4, 5, 6]])
    assert npi.resize_fallback(x, new_shape=(3, 3)).asnumpy().tolist() == \
        [[1, 2, 3], [4, 5, 6], [1, 2, 3]]
    idx = npi.unravel_index_fallback(mx.np.array([5, 7], dtype="int64"), shape=(3, 4))
    assert idx.asnumpy().tolist() == [[1, 1], [1, 3]]
    assert npi.empty_like_fallback(x, dtype="int32", order="C", subok="False",
                                   shape="None").shape == (2, 3)
    with pytest.raises(ValueError, match="Duplicate name resize_fallback"):
        importlib.import_module("mxnet.numpy_op_fallback").register("resize_fallback")(
            type("P", (mx.operator.CustomOpProp,), {}))


def test_libinfo_without_a_library(monkeypatch):
    libinfo = importlib.import_module("mxnet.libinfo")
    monkeypatch.delenv("MXNET_LIBRARY_PATH", raising=False)
    monkeypatch.setenv("LD_LIBRARY_PATH", "")
    with pytest.raises(RuntimeError, match="Cannot find the MXNet library"):
        libinfo.find_lib_path()
    with pytest.raises(RuntimeError, match="Cannot find the TVM op config"):
        libinfo.find_conf_path()


def test_pandas_logger_rows():
    pd = pytest.importorskip("pandas")
    cb = importlib.import_module("mxnet.notebook.callback")
    assert cb.pd is pd
    log = cb.PandasLogger(batch_size=4, frequent=2)
    metric = mx.metric.Accuracy()
    metric.update([mx.nd.array([0, 1])], [mx.nd.array([[0.9, 0.1], [0.2, 0.8]])])
    Param = namedtuple("Param", "epoch nbatch eval_metric")
    log.train_cb(Param(0, 2, metric))
    log.train_cb(Param(0, 3, metric))   # not a multiple of `frequent`: no row
    log.epoch_cb()
    assert len(log.train_df) == 1 and log.train_df["accuracy"][0] == 1.0
    assert log.train_df["minibatch_count"][0] == 2 and len(log.epoch_df) == 1
    args = cb.args_wrapper(log, log)
    assert args["batch_end_callback"] == [log.train_cb, log.train_cb]


def test_symbolic_npx_runs_underscore_operators():
    """mx.sym.npx functions over '_'-named operators (npx.image's _image_*, multibox's
    _contrib_*) build the graph node and evaluate to the eager values."""
    x = mx.sym.var("x").as_np_ndarray()
    img = mx.nd.array(np.arange(48).reshape(4, 4, 3))
    got = mx.sym.npx.image.to_tensor(x).eval(x=img)[0]
    assert got.shape == (3, 4, 4)
    assert np.allclose(got.asnumpy(), mx.nd.image.to_tensor(img).asnumpy())
    prior = mx.sym.npx.multibox_prior(x, sizes=(0.5,), ratios=(1,))
    assert prior.eval(x=mx.nd.ones((1, 3, 4, 4)))[0][0, :2].asnumpy().tolist() == \
        [[-0.125, -0.125, 0.375, 0.375], [0.125, -0.125, 0.625, 0.375]]
