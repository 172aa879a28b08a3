"""Cases shared by make_gluon_contrib_goldens.py (MXNet 1.9.1) and test_gluon_contrib.py
(xnd): each builds a mx.gluon.contrib block, sets every parameter from a fixed numpy
generator (in name order), runs it, and returns JSON-able results."""
import numpy as np


def _set_params(mx, block, seed=0):
    rs = np.random.RandomState(seed)
    for name in sorted(block.collect_params().keys()):
        p = block.collect_params()[name]
        p.set_data(mx.nd.array(rs.uniform(-0.5, 0.5, p.shape).astype(np.float32)))


def _input(*shape, seed=1):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def _run(mx, block, x, hybridize=False, params=True):
    block.initialize()
    block(mx.nd.array(x))  # finishes deferred shapes
    if params:
        _set_params(mx, block)
    if hybridize:
        block.hybridize()
    xs = mx.nd.array(x)
    xs.attach_grad()
    with mx.autograd.record():
        y = block(xs)
    y.backward()
    return {"names": sorted(block.collect_params().keys()),
            "out": np.round(y.asnumpy().astype(np.float64), 5).tolist(),
            "grad": np.round(xs.grad.asnumpy().astype(np.float64), 5).tolist()}


def pixelshuffle(mx):
    from mxnet.gluon.contrib.nn import PixelShuffle1D, PixelShuffle2D, PixelShuffle3D
    out = {}
    for name, block, shape in (("1d", PixelShuffle1D(2), (1, 4, 3)),
                               ("2d", PixelShuffle2D((2, 3)), (1, 12, 2, 3)),
                               ("3d", PixelShuffle3D((1, 2, 3)), (1, 12, 2, 1, 2))):
        x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        out[name] = block(mx.nd.array(x)).asnumpy().tolist()
        out[name + "_repr"] = repr(block)
    return out


def deformable(mx):
    from mxnet.gluon.contrib.cnn import DeformableConvolution
    return _run(mx, DeformableConvolution(3, kernel_size=3, padding=1), _input(1, 2, 5, 5))


def deformable_hybrid(mx):
    from mxnet.gluon.contrib.cnn import DeformableConvolution
    return _run(mx, DeformableConvolution(2, kernel_size=(3, 3), strides=2, activation="relu"),
                _input(2, 3, 7, 7), hybridize=True)


def modulated(mx):
    """Parameter names and creation order (MXNet 1.9.1 runs the operator on GPUs only)."""
    from mxnet.gluon.contrib.cnn import ModulatedDeformableConvolution
    block = ModulatedDeformableConvolution(3, kernel_size=3, padding=1, in_channels=2)
    return {"names": list(block.collect_params().keys()),
            "shapes": [list(p.shape) for p in block.collect_params().values()]}


def lstmp(mx):
    from mxnet.gluon.contrib.rnn import LSTMPCell
    cell = LSTMPCell(6, 3, input_size=4, prefix="lstmp_")
    cell.initialize()
    _set_params(mx, cell)
    out, states = cell.unroll(3, mx.nd.array(_input(2, 3, 4)), merge_outputs=True)
    return {"names": sorted(cell.collect_params().keys()),
            "out": np.round(out.asnumpy().astype(np.float64), 5).tolist(),
            "states": [np.round(s.asnumpy().astype(np.float64), 5).tolist() for s in states],
            "repr": repr(cell)}


def vardrop_shapes(mx):
    from mxnet.gluon.contrib.rnn import VariationalDropoutCell
    cell = VariationalDropoutCell(mx.gluon.rnn.RNNCell(5, prefix="rnn_"), drop_inputs=0.5,
                                  drop_outputs=0.5)
    inputs = [mx.sym.Variable("rnn_t%d_data" % i) for i in range(3)]
    outputs, _ = cell.unroll(3, inputs, merge_outputs=False)
    _, outs, _ = mx.sym.Group(outputs).infer_shape(rnn_t0_data=(4, 2), rnn_t1_data=(4, 2),
                                                   rnn_t2_data=(4, 2))
    return {"outs": [list(s) for s in outs], "repr": repr(cell)}


def interval_sampler(mx):
    from mxnet.gluon.contrib.data import IntervalSampler
    return [list(IntervalSampler(13, 3)), list(IntervalSampler(13, 3, rollover=False)),
            len(IntervalSampler(13, 3))]


def sparse_embedding(mx):
    from mxnet.gluon.contrib.nn import SparseEmbedding
    layer = SparseEmbedding(6, 3)
    layer.initialize()
    mx.gluon.Trainer(layer.collect_params(), "sgd")  # MXNet reads row_sparse data via one
    _set_params(mx, layer)
    x = mx.nd.array([3, 4, 2, 3])
    with mx.autograd.record():
        y = layer(x)
    y.backward()
    return {"out": np.round(y.asnumpy().astype(np.float64), 5).tolist(),
            "grad": layer.weight.grad().asnumpy().tolist(), "repr": repr(layer),
            "names": sorted(layer.collect_params().keys())}


CASES = {"pixelshuffle": pixelshuffle, "deformable": deformable,
         "deformable_hybrid": deformable_hybrid, "modulated": modulated, "lstmp": lstmp,
         "vardrop_shapes": vardrop_shapes, "interval_sampler": interval_sampler,
         "sparse_embedding": sparse_embedding}
