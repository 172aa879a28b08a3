"""mx.onnx.export_model and mx.contrib.onnx.import_model/import_to_gluon: model-zoo
classification nets, an LSTM language model and a symbol MLP exported by xnd, run in
onnxruntime and imported back, with the outputs xnd computes."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest

import xnd as mx
from xnd.base import MXNetError
from xnd.frontend.gluon import nn, rnn
from xnd.frontend.gluon.model_zoo import vision


def _ort(path, *arrays):
    s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return s.run(None, {i.name: a for i, a in zip(s.get_inputs(), arrays)}), s


def _close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * np.abs(want).max() + 1e-30)


@pytest.mark.parametrize("name,size", [("resnet18_v1", 32), ("resnet18_v2", 32),
                                       ("mobilenet0.25", 32), ("mobilenetv2_0.25", 32),
                                       ("squeezenet1.1", 224), ("densenet121", 224)])
def test_model_zoo_export_runs_in_onnxruntime_and_imports_back(tmp_path, name, size):
    net = vision.get_model(name)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (1, 3, size, size)))
    want = net(x).asnumpy()
    prefix = str(tmp_path / name)
    net.export(prefix)
    path = mx.onnx.export_model(prefix + "-symbol.json", prefix + "-0000.params", [x.shape],
                                np.float32, str(tmp_path / "m.onnx"))
    onnx.checker.check_model(onnx.load(path))
    (got,), _ = _ort(path, x.asnumpy())
    _close(got, want)
    back = mx.contrib.onnx.import_to_gluon(path, mx.cpu())
    _close(back(x).asnumpy(), want)


class _LM(mx.gluon.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.emb = nn.Embedding(50, 8)
        self.lstm = rnn.LSTM(16, num_layers=2, input_size=8)
        self.out = nn.Dense(50, flatten=False, in_units=16)

    def hybrid_forward(self, F, x, h, c):
        y, (h2, c2) = self.lstm(self.emb(x), [h, c])
        return self.out(y), h2, c2


def test_lstm_language_model(tmp_path):
    net = _LM()
    net.initialize(mx.init.Xavier())
    net.hybridize()
    rs = np.random.RandomState(1)
    x = mx.nd.array(rs.randint(0, 50, (5, 3)))
    h, c = (mx.nd.array(rs.uniform(-1, 1, (2, 3, 16))) for _ in range(2))
    want = [o.asnumpy() for o in net(x, h, c)]
    prefix = str(tmp_path / "lm")
    net.export(prefix)
    path = mx.onnx.export_model(prefix + "-symbol.json", prefix + "-0000.params",
                                [x.shape, h.shape, c.shape], np.float32,
                                str(tmp_path / "lm.onnx"))
    got, sess = _ort(path, x.asnumpy(), h.asnumpy(), c.asnumpy())
    # (the blocks' numbers depend on how many Dense/LSTM blocks this process made before)
    assert [o.name for o in sess.get_outputs()] == [
        net.out.prefix + "fwd", net.lstm.prefix + "rnn01", net.lstm.prefix + "rnn02"]
    assert {n.op_type for n in onnx.load(path).graph.node} >= {"LSTM", "Gather", "MatMul"}
    for g, w in zip(got, want):
        _close(g, w)
    back = mx.contrib.onnx.import_to_gluon(path, mx.cpu())
    for g, w in zip(back(x, h, c), want):
        _close(g.asnumpy(), w)


def _mlp():
    data = mx.sym.Variable("data")
    h = mx.sym.FullyConnected(data, num_hidden=16, name="fc1")
    h = mx.sym.Activation(h, act_type="relu", name="relu1")
    h = mx.sym.BatchNorm(h, name="bn1", fix_gamma=True)
    h = mx.sym.FullyConnected(h, num_hidden=4, name="fc2")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def test_symbol_mlp_objects_dynamic_batch_and_import_model(tmp_path):
    sym = _mlp()
    mod = mx.mod.Module(sym, data_names=["data"], label_names=["softmax_label"])
    mod.bind([("data", (3, 10))], [("softmax_label", (3,))], for_training=False)
    mod.init_params(mx.init.Xavier())
    arg, aux = mod.get_params()
    aux["bn1_moving_mean"][:] = 0.25
    aux["bn1_moving_var"][:] = 2.0
    mod.set_params(arg, aux)
    x = np.random.RandomState(2).uniform(-1, 1, (3, 10)).astype(np.float32)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    want = mod.get_outputs()[0].asnumpy()
    path = mx.onnx.export_model(sym, [arg, aux], input_shape=[(3, 10)],
                                onnx_file_path=str(tmp_path / "mlp.onnx"), dynamic=True,
                                dynamic_input_shapes=[(None, 10)], run_shape_inference=True)
    model = onnx.load(path)
    assert [i.name for i in model.graph.input] == ["data"]        # the label is not an input
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param and dims[1].dim_value == 10
    (got,), _ = _ort(path, x)
    _close(got, want)
    (got7,), _ = _ort(path, np.concatenate([x, x, x[:1]]))   # another batch size
    _close(got7[:3], want)
    sym2, arg2, aux2 = mx.contrib.onnx.import_model(path)
    assert set(aux2) == {"bn1_moving_mean", "bn1_moving_var"}
    m2 = mx.mod.Module(sym2, data_names=["data"], label_names=None)
    m2.bind([("data", x.shape)], for_training=False)
    m2.set_params(arg2, aux2)
    m2.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    _close(m2.get_outputs()[0].asnumpy(), want)
    meta = mx.contrib.onnx.get_model_metadata(path)
    assert meta["input_tensor_data"][0][0] == "data"
    assert meta["output_tensor_data"] == [("softmax", (None, 4))]


def test_contrib_path_and_operator_support(tmp_path, capsys):
    sym = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc")
    params = {"fc_weight": mx.nd.ones((2, 3)), "fc_bias": mx.nd.array([1.0, -1.0])}
    path = mx.contrib.onnx.export_model(sym, params, [(1, 3)], np.float32,
                                        str(tmp_path / "fc.onnx"))
    assert "mxnet.onnx.export_model is the preferred path" in capsys.readouterr().out
    (got,), _ = _ort(path, np.array([[1.0, 2.0, 3.0]], np.float32))
    np.testing.assert_array_equal(got, [[7.0, 5.0]])
    ops = mx.onnx.get_operator_support()
    assert {"Convolution", "BatchNorm", "RNN", "FullyConnected", "Pooling"} <= set(ops)


def test_errors_name_what_is_missing(tmp_path):
    sym = mx.sym.topk(mx.sym.Variable("data"), k=2, name="tk")
    with pytest.raises(MXNetError, match=r"no ONNX translation for the MXNet operator\(s\) "
                                         r"'topk' \(nodes tk\)"):
        mx.onnx.export_model(sym, {}, [(2, 5)], onnx_file_path=str(tmp_path / "x.onnx"))
    fc = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc")
    with pytest.raises(MXNetError, match=r"has 1 input\(s\) \['data'\] but in_shapes gives 2"):
        mx.onnx.export_model(fc, {"fc_weight": mx.nd.ones((2, 3)), "fc_bias": mx.nd.ones(2)},
                             [(1, 3), (1, 3)], onnx_file_path=str(tmp_path / "x.onnx"))
    with pytest.raises(ValueError, match="either be files or objects"):
        mx.onnx.export_model(fc, 3, [(1, 3)])
    h = onnx.helper
    graph = h.make_graph([h.make_node("Hardmax", ["x"], ["y"], name="hm")], "g",
                         [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])],
                         [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3])])
    with pytest.raises(MXNetError, match="no MXNet translation for the ONNX operator 'Hardmax'"):
        mx.contrib.onnx.import_model(h.make_model(graph))
