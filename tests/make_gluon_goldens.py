"""Record what real MXNet 1.9.1's Gluon does, for tests/test_gluon*.py.

Run with the reference interpreter (it must import the real ``mxnet``):

    /work/mxref/bin/python tests/make_gluon_goldens.py

Writes ``tests/goldens/gluon/gluon.json`` (names, shapes, reprs, batches, errors) and
``tests/goldens/gluon/gluon.npz`` (inputs, parameter values, outputs, gradients).
Deterministic: fixed seeds, sorted keys, fixed zip timestamps.

This module is also imported by the tests for the case tables below: they are plain
functions of ``G`` (the ``gluon`` module: MXNet's here, xnd's in the tests), so one
definition builds the same network in both. Nothing here imports mxnet at import time.
"""
import io
import json
import os

import numpy as np

import golden_files

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "goldens", "gluon")
JSON_PATH = os.path.join(OUT_DIR, "gluon.json")
NPZ_PATH = os.path.join(OUT_DIR, "gluon.npz")


# ---- parameter values: one rule, used by both sides ---------------------------------------------
def param_value(sname, shape, rs):
    """A deterministic, well-scaled value for the parameter with structural name ``sname``."""
    leaf = sname.rsplit(".", 1)[-1]
    if leaf.endswith("running_var") or leaf.endswith("gamma"):
        return rs.uniform(0.5, 1.5, size=shape).astype(np.float32)
    if leaf.endswith("running_mean") or leaf.endswith("beta") or leaf.endswith("bias"):
        return rs.uniform(-0.5, 0.5, size=shape).astype(np.float32)
    if leaf.endswith("alpha"):
        return rs.uniform(0.1, 0.4, size=shape).astype(np.float32)
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
    return (rs.randn(*shape) / np.sqrt(max(fan_in, 1))).astype(np.float32)


def seeded_params(net, seed):
    """{structural name: value} for every parameter of an initialized ``net``."""
    rs = np.random.RandomState(seed)
    params = net._collect_params_with_prefix()
    return {k: param_value(k, params[k].shape, rs) for k in sorted(params)}


# ---- layer cases ----------------------------------------------------------------------------
def _rnn_call(net, xs):
    return net(xs[0], net.begin_state(xs[0].shape[1], ctx=xs[0].context))


def _unroll(length, layout="NTC", merge=True):
    def call(net, xs):
        return net.unroll(length, xs[0], layout=layout, merge_outputs=merge)
    return call


def _concurrent(G):
    net = G.nn.HybridSequential()
    with net.name_scope():
        cc = G.contrib.nn.HybridConcurrent(axis=-1)
        with cc.name_scope():
            cc.add(G.nn.Dense(3, in_units=4), G.nn.Dense(2, activation="tanh", in_units=4),
                   G.contrib.nn.Identity())
        net.add(cc)
    return net


def _seq_cell(G):
    cell = G.rnn.SequentialRNNCell()
    with cell.name_scope():
        cell.add(G.rnn.LSTMCell(4, input_size=3))
        cell.add(G.rnn.GRUCell(3, input_size=4))
    return cell


def _bi_cell(G):
    return G.rnn.BidirectionalCell(G.rnn.LSTMCell(3, input_size=2, prefix="l_"),
                                   G.rnn.LSTMCell(3, input_size=2, prefix="r_"))


# name: (build(G), [(input shape, kind)], train, call)   kind: 'f' float, 'i<n>' int indices < n
LAYER_CASES = {
    "dense": (lambda G: G.nn.Dense(5, in_units=4), [((3, 4), "f")], True, None),
    "dense_relu_noflatten": (lambda G: G.nn.Dense(5, activation="relu", flatten=False),
                             [((2, 3, 4), "f")], True, None),
    "dense_nobias_4d": (lambda G: G.nn.Dense(3, use_bias=False), [((2, 2, 3, 2), "f")], True,
                        None),
    "conv1d": (lambda G: G.nn.Conv1D(4, 3, strides=2, padding=1), [((2, 3, 9), "f")], True, None),
    "conv2d": (lambda G: G.nn.Conv2D(4, (3, 3), strides=(1, 2), padding=(1, 0),
                                     activation="tanh"), [((2, 3, 7, 8), "f")], True, None),
    "conv2d_groups_dilate": (lambda G: G.nn.Conv2D(4, 3, dilation=2, groups=2, use_bias=False),
                             [((2, 4, 7, 7), "f")], True, None),
    "conv3d": (lambda G: G.nn.Conv3D(2, 2, strides=(1, 2, 1)), [((1, 2, 4, 4, 4), "f")], True,
               None),
    "conv1d_t": (lambda G: G.nn.Conv1DTranspose(3, 3, strides=2), [((2, 2, 5), "f")], True,
                 None),
    "conv2d_t": (lambda G: G.nn.Conv2DTranspose(3, 3, strides=2, padding=1, output_padding=1),
                 [((2, 2, 4, 5), "f")], True, None),
    "conv3d_t": (lambda G: G.nn.Conv3DTranspose(2, 2, use_bias=False), [((1, 2, 3, 3, 3), "f")],
                 True, None),
    "maxpool1d": (lambda G: G.nn.MaxPool1D(2), [((2, 3, 7), "f")], True, None),
    "maxpool2d": (lambda G: G.nn.MaxPool2D(3, 2, 1), [((2, 3, 7, 6), "f")], True, None),
    "maxpool2d_ceil": (lambda G: G.nn.MaxPool2D(ceil_mode=True), [((1, 2, 5, 7), "f")], True,
                       None),
    "maxpool3d": (lambda G: G.nn.MaxPool3D(2), [((1, 2, 4, 4, 4), "f")], False, None),
    "avgpool1d": (lambda G: G.nn.AvgPool1D(3, 1, 1), [((2, 3, 7), "f")], False, None),
    "avgpool2d_nopad": (lambda G: G.nn.AvgPool2D(3, 2, 1, count_include_pad=False),
                        [((2, 3, 7, 6), "f")], True, None),
    "avgpool2d_ceil": (lambda G: G.nn.AvgPool2D(2, ceil_mode=True), [((1, 2, 5, 5), "f")],
                       False, None),
    "avgpool3d": (lambda G: G.nn.AvgPool3D(2), [((1, 2, 4, 4, 4), "f")], False, None),
    "gavgpool1d": (lambda G: G.nn.GlobalAvgPool1D(), [((2, 3, 5), "f")], False, None),
    "gavgpool2d": (lambda G: G.nn.GlobalAvgPool2D(), [((2, 3, 5, 4), "f")], True, None),
    "gavgpool3d": (lambda G: G.nn.GlobalAvgPool3D(), [((1, 2, 3, 3, 3), "f")], False, None),
    "gmaxpool1d": (lambda G: G.nn.GlobalMaxPool1D(), [((2, 3, 5), "f")], False, None),
    "gmaxpool2d": (lambda G: G.nn.GlobalMaxPool2D(), [((2, 3, 5, 4), "f")], False, None),
    "gmaxpool3d": (lambda G: G.nn.GlobalMaxPool3D(), [((1, 2, 3, 3, 3), "f")], False, None),
    "batchnorm": (lambda G: G.nn.BatchNorm(), [((4, 3, 5, 5), "f")], True, None),
    "batchnorm_axis_last": (lambda G: G.nn.BatchNorm(axis=-1, momentum=0.8, epsilon=1e-3),
                            [((6, 4), "f")], True, None),
    "batchnorm_noscale": (lambda G: G.nn.BatchNorm(scale=False, center=False),
                          [((3, 2, 4), "f")], True, None),
    "batchnorm_global": (lambda G: G.nn.BatchNorm(use_global_stats=True), [((4, 3, 2, 2), "f")],
                         True, None),
    "instancenorm": (lambda G: G.nn.InstanceNorm(), [((2, 3, 5), "f")], True, None),
    "instancenorm_scale": (lambda G: G.nn.InstanceNorm(scale=True, epsilon=1e-3),
                           [((2, 3, 4, 4), "f")], True, None),
    "layernorm": (lambda G: G.nn.LayerNorm(), [((3, 5), "f")], True, None),
    "layernorm_axis1": (lambda G: G.nn.LayerNorm(axis=1), [((2, 4, 3), "f")], True, None),
    "groupnorm": (lambda G: G.nn.GroupNorm(num_groups=2), [((2, 4, 3, 3), "f")], True, None),
    "embedding": (lambda G: G.nn.Embedding(10, 4), [((3, 5), "i10")], True, None),
    "flatten": (lambda G: G.nn.Flatten(), [((2, 3, 4, 5), "f")], True, None),
    "dropout_predict": (lambda G: G.nn.Dropout(0.5), [((3, 4), "f")], False, None),
    "dropout_zero": (lambda G: G.nn.Dropout(0.0), [((3, 4), "f")], True, None),
    "act_relu": (lambda G: G.nn.Activation("relu"), [((3, 4), "f")], True, None),
    "act_sigmoid": (lambda G: G.nn.Activation("sigmoid"), [((3, 4), "f")], True, None),
    "act_tanh": (lambda G: G.nn.Activation("tanh"), [((3, 4), "f")], True, None),
    "act_softrelu": (lambda G: G.nn.Activation("softrelu"), [((3, 4), "f")], True, None),
    "act_softsign": (lambda G: G.nn.Activation("softsign"), [((3, 4), "f")], True, None),
    "leakyrelu": (lambda G: G.nn.LeakyReLU(0.1), [((3, 4), "f")], True, None),
    "prelu": (lambda G: G.nn.PReLU(in_channels=3), [((2, 3, 4), "f")], True, None),
    "elu": (lambda G: G.nn.ELU(0.5), [((3, 4), "f")], True, None),
    "selu": (lambda G: G.nn.SELU(), [((3, 4), "f")], False, None),
    "gelu": (lambda G: G.nn.GELU(), [((3, 4), "f")], True, None),
    "swish": (lambda G: G.nn.Swish(2.0), [((3, 4), "f")], True, None),
    "reflectionpad2d": (lambda G: G.nn.ReflectionPad2D(2), [((1, 2, 4, 5), "f")], True, None),
    "concurrent": (_concurrent, [((2, 4), "f")], True, None),
    "rnn_tanh_2layer": (lambda G: G.rnn.RNN(4, num_layers=2, activation="tanh"),
                        [((5, 2, 3), "f")], True, None),
    "rnn_relu_states": (lambda G: G.rnn.RNN(3, input_size=2), [((4, 2, 2), "f")], True,
                        _rnn_call),
    "lstm_bi": (lambda G: G.rnn.LSTM(5, bidirectional=True), [((4, 2, 3), "f")], True, None),
    "lstm_states": (lambda G: G.rnn.LSTM(3, num_layers=2, input_size=2), [((3, 2, 2), "f")],
                    True, _rnn_call),
    "gru_ntc": (lambda G: G.rnn.GRU(3, num_layers=2, layout="NTC"), [((2, 4, 3), "f")], True,
                None),
    "rnncell_unroll": (lambda G: G.rnn.RNNCell(4, input_size=3), [((2, 3, 3), "f")], True,
                       _unroll(3)),
    "lstmcell_unroll": (lambda G: G.rnn.LSTMCell(4, input_size=3), [((2, 3, 3), "f")], True,
                        _unroll(3)),
    "grucell_unroll_tnc": (lambda G: G.rnn.GRUCell(4, input_size=3), [((3, 2, 3), "f")], True,
                           _unroll(3, "TNC")),
    "seqcell_unroll": (_seq_cell, [((2, 3, 3), "f")], True, _unroll(3)),
    "bicell_unroll": (_bi_cell, [((2, 3, 2), "f")], True, _unroll(3)),
    "residualcell_unroll": (lambda G: G.rnn.ResidualCell(G.rnn.GRUCell(3, input_size=3)),
                            [((2, 3, 3), "f")], True, _unroll(3, merge=False)),
}


def make_inputs(case, seed):
    rs = np.random.RandomState(seed)
    out = []
    for shape, kind in LAYER_CASES[case][1]:
        if kind == "f":
            out.append(rs.randn(*shape).astype(np.float32))
        else:
            out.append(rs.randint(0, int(kind[1:]), size=shape).astype(np.float32))
    return out


def flat_outputs(out):
    """Outputs of a call as a flat list (nested lists/tuples of arrays)."""
    if isinstance(out, (list, tuple)):
        res = []
        for o in out:
            res.extend(flat_outputs(o))
        return res
    return [out]


# ---- loss cases ------------------------------------------------------------------------------
def _lab_int(rs, n, k):
    return rs.randint(0, k, size=(n,)).astype(np.float32)


def _sign(rs, *shape):
    return np.where(rs.rand(*shape) > 0.5, 1.0, -1.0).astype(np.float32)


def _prob(rs, *shape):
    return rs.uniform(0.05, 0.95, size=shape).astype(np.float32)


# name: (build(G), inputs(rs) -> list of arrays, index of inputs that get gradients)
LOSS_CASES = {
    "l2": (lambda G: G.loss.L2Loss(), lambda rs: [rs.randn(4, 3), rs.randn(4, 3)], (0,)),
    "l2_weighted": (lambda G: G.loss.L2Loss(weight=2.0),
                    lambda rs: [rs.randn(4, 3), rs.randn(4, 3), rs.rand(4, 1)], (0,)),
    "l2_label_1d": (lambda G: G.loss.L2Loss(), lambda rs: [rs.randn(4, 1), rs.randn(4)], (0,)),
    "l1": (lambda G: G.loss.L1Loss(), lambda rs: [rs.randn(4, 2, 3), rs.randn(4, 2, 3)], (0,)),
    "l1_batch_axis1": (lambda G: G.loss.L1Loss(batch_axis=1),
                       lambda rs: [rs.randn(3, 4), rs.randn(3, 4)], (0,)),
    "sigmoid_bce": (lambda G: G.loss.SigmoidBinaryCrossEntropyLoss(),
                    lambda rs: [rs.randn(4, 3) * 3, (rs.rand(4, 3) > 0.5)], (0,)),
    "sigmoid_bce_from_sigmoid": (lambda G: G.loss.SigmoidBCELoss(from_sigmoid=True),
                                 lambda rs: [_prob(rs, 4, 3), (rs.rand(4, 3) > 0.5)], (0,)),
    "sigmoid_bce_pos_weight": (lambda G: G.loss.SigmoidBCELoss(),
                               lambda rs: [rs.randn(4, 3), (rs.rand(4, 3) > 0.5), None,
                                           rs.uniform(0.5, 2, size=(1, 3))], (0,)),
    "softmax_ce": (lambda G: G.loss.SoftmaxCrossEntropyLoss(),
                   lambda rs: [rs.randn(5, 4), _lab_int(rs, 5, 4)], (0,)),
    "softmax_ce_weighted": (lambda G: G.loss.SoftmaxCELoss(weight=0.5),
                            lambda rs: [rs.randn(5, 4), _lab_int(rs, 5, 4), rs.rand(5, 1)], (0,)),
    "softmax_ce_dense": (lambda G: G.loss.SoftmaxCrossEntropyLoss(sparse_label=False),
                         lambda rs: [rs.randn(3, 4), _prob(rs, 3, 4)], (0,)),
    "softmax_ce_logits_axis1": (lambda G: G.loss.SoftmaxCELoss(axis=1, from_logits=True),
                                lambda rs: [-_prob(rs, 2, 3, 4), rs.randint(0, 3, (2, 4))],
                                (0,)),
    "kldiv": (lambda G: G.loss.KLDivLoss(),
              lambda rs: [np.log(_prob(rs, 3, 4)), _prob(rs, 3, 4)], (0,)),
    "kldiv_softmax": (lambda G: G.loss.KLDivLoss(from_logits=False),
                      lambda rs: [rs.randn(3, 4), _prob(rs, 3, 4)], (0,)),
    "huber": (lambda G: G.loss.HuberLoss(rho=0.5),
              lambda rs: [rs.randn(4, 3), rs.randn(4, 3)], (0,)),
    "hinge": (lambda G: G.loss.HingeLoss(), lambda rs: [rs.randn(4, 3), _sign(rs, 4, 3)], (0,)),
    "squared_hinge": (lambda G: G.loss.SquaredHingeLoss(margin=0.5),
                      lambda rs: [rs.randn(4, 3), _sign(rs, 4, 3)], (0,)),
    "logistic_signed": (lambda G: G.loss.LogisticLoss(),
                        lambda rs: [rs.randn(4, 3), _sign(rs, 4, 3)], (0,)),
    "logistic_binary": (lambda G: G.loss.LogisticLoss(label_format="binary"),
                        lambda rs: [rs.randn(4, 3), (rs.rand(4, 3) > 0.5)], (0,)),
    "triplet": (lambda G: G.loss.TripletLoss(margin=0.5),
                lambda rs: [rs.randn(4, 3), rs.randn(4, 3), rs.randn(4, 3)], (0, 1, 2)),
    "poisson_nll": (lambda G: G.loss.PoissonNLLLoss(),
                    lambda rs: [rs.randn(4, 3) * 0.5, rs.randint(0, 4, (4, 3))], (0,)),
    "poisson_nll_full": (lambda G: G.loss.PoissonNLLLoss(from_logits=False, compute_full=True),
                         lambda rs: [_prob(rs, 4, 3) * 3, rs.randint(0, 5, (4, 3))], ()),
    "cosine_embedding": (lambda G: G.loss.CosineEmbeddingLoss(margin=0.2),
                         lambda rs: [rs.randn(4, 5), rs.randn(4, 5), _sign(rs, 4)], (0, 1)),
}


def loss_inputs(case, seed):
    rs = np.random.RandomState(seed)
    return [None if a is None else np.asarray(a, dtype=np.float32)
            for a in LOSS_CASES[case][1](rs)]


# ---- training cases ------------------------------------------------------------------------------
def mlp(G):
    net = G.nn.HybridSequential()
    with net.name_scope():
        net.add(G.nn.Dense(8, activation="relu", in_units=5), G.nn.Dense(3, in_units=8))
    return net


def cnn(G):
    net = G.nn.HybridSequential()
    with net.name_scope():
        net.add(G.nn.Conv2D(4, 3, padding=1), G.nn.BatchNorm(), G.nn.Activation("relu"),
                G.nn.MaxPool2D(2), G.nn.Flatten(), G.nn.Dense(3))
    return net


# name: (net builder, optimizer, optimizer params, steps, input shape, extra)
TRAIN_CASES = {
    "sgd_momentum_wd": (mlp, "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3}, 3,
                        (4, 5), {}),
    "sgd_plain": (mlp, "sgd", {"learning_rate": 0.5}, 3, (4, 5), {}),
    "adam": (mlp, "adam", {"learning_rate": 0.01}, 3, (4, 5), {}),
    "rmsprop": (mlp, "rmsprop", {"learning_rate": 0.01}, 3, (4, 5), {}),
    "nag_lr_mult": (mlp, "nag", {"learning_rate": 0.05, "momentum": 0.8}, 3, (4, 5),
                    {"lr_mult": ("0.weight", 0.5)}),
    "sgd_set_lr": (mlp, "sgd", {"learning_rate": 0.1}, 3, (4, 5), {"set_lr": 0.02}),
    "grad_add": (mlp, "sgd", {"learning_rate": 0.1}, 2, (4, 5), {"grad_req": "add"}),
    "cnn_bn_sgd": (cnn, "sgd", {"learning_rate": 0.05, "momentum": 0.9}, 3, (4, 2, 6, 6), {}),
}


def train_data(case, seed):
    rs = np.random.RandomState(seed)
    shape = TRAIN_CASES[case][4]
    steps = TRAIN_CASES[case][3]
    xs = [rs.randn(*shape).astype(np.float32) for _ in range(steps)]
    ys = [rs.randint(0, 3, size=(shape[0],)).astype(np.float32) for _ in range(steps)]
    return xs, ys


def run_training(mx, G, case, seed, hybridize=False):
    """Train ``case`` for its steps; returns {structural name: value} after training."""
    build, opt, opt_params, steps, _, extra = TRAIN_CASES[case]
    net = build(G)
    net.initialize(mx.init.Zero())  # every value is set below
    xs, ys = train_data(case, seed)
    net(mx.nd.array(xs[0]))
    params = net._collect_params_with_prefix()
    for k, v in seeded_params(net, seed + 1).items():
        params[k].set_data(mx.nd.array(v))
    if "lr_mult" in extra:
        params[extra["lr_mult"][0]].lr_mult = extra["lr_mult"][1]
    if "grad_req" in extra:
        for p in net.collect_params().values():
            if p.grad_req != "null":
                p.grad_req = extra["grad_req"]
    if hybridize:
        net.hybridize()
    loss_fn = G.loss.SoftmaxCrossEntropyLoss()
    trainer = G.Trainer(net.collect_params(), opt, dict(opt_params))
    for i in range(steps):
        if i == 1 and "set_lr" in extra:
            trainer.set_learning_rate(extra["set_lr"])
        with mx.autograd.record():
            loss = loss_fn(net(mx.nd.array(xs[i])), mx.nd.array(ys[i]))
        loss.backward()
        trainer.step(xs[i].shape[0])
    mx.nd.waitall()
    return {k: p.data().asnumpy() for k, p in net._collect_params_with_prefix().items()}


# ---- model zoo ----------------------------------------------------------------------------------
ZOO_NAMES = ["resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
             "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2",
             "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg16_bn", "alexnet",
             "densenet121", "densenet161", "squeezenet1.0", "squeezenet1.1", "inceptionv3",
             "mobilenet1.0", "mobilenet0.75", "mobilenet0.5", "mobilenet0.25",
             "mobilenetv2_1.0", "mobilenetv2_0.5", "mobilenetv2_0.25"]
# models whose inferred (post-first-forward) shapes are recorded, with their input shape
ZOO_INFER = {"resnet18_v1": (1, 3, 224, 224), "resnet50_v2": (1, 3, 224, 224),
             "vgg11_bn": (1, 3, 224, 224), "alexnet": (1, 3, 224, 224),
             "densenet121": (1, 3, 224, 224), "squeezenet1.0": (1, 3, 224, 224),
             "squeezenet1.1": (1, 3, 224, 224), "inceptionv3": (1, 3, 299, 299),
             "mobilenet0.25": (1, 3, 224, 224), "mobilenetv2_0.25": (1, 3, 224, 224)}
# models whose outputs are recorded (seeded weights, classes=10)
ZOO_FORWARD = {"mobilenet0.25": (2, 3, 64, 64), "resnet18_v2": (1, 3, 48, 48),
               "squeezenet1.1": (1, 3, 224, 224)}


# ---- nested naming -------------------------------------------------------------------------------
def naming_nets(mx, G):
    """Blocks built inside a fresh NameManager, as a script would build them."""
    nn = G.nn

    class Two(G.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.dense = nn.Dense(3, in_units=4)
                self.bias = self.params.get("extra_bias", shape=(3,), init="zeros")

        def hybrid_forward(self, F, x, y, bias):
            return F.broadcast_add(F.broadcast_add(self.dense(x), F.relu(y)) * 2, bias)

    class Model(G.Block):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.features = nn.HybridSequential()
                with self.features.name_scope():
                    self.features.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Dense(5))
                self.head = nn.Dense(2)
            self.outside = nn.Dense(3)

        def forward(self, x):
            return self.outside(self.head(self.features(x)))

    with mx.name.NameManager():
        d0 = nn.Dense(2)
        d1 = nn.Dense(2)
        model = Model()
        seq = nn.Sequential()
        with seq.name_scope():
            seq.add(nn.Dense(3), nn.Dropout(0.1), nn.Dense(4, prefix="mine_"))
        hseq = nn.HybridSequential(prefix="net_")
        with hseq.name_scope():
            hseq.add(nn.Conv2D(3, 3, padding=1, activation="relu"), nn.BatchNorm(),
                     nn.GlobalAvgPool2D(), nn.Flatten(), nn.Dense(4, activation="sigmoid"))
        two = Two()
        lstm = G.rnn.LSTM(4, num_layers=2, bidirectional=True, input_size=3)
        shared = nn.Dense(2, in_units=4, params=d1.collect_params())
    return dict(d0=d0, d1=d1, model=model, seq=seq, hseq=hseq, two=two, lstm=lstm, shared=shared)


def summary_net(G):
    nn = G.nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Activation("relu"), nn.Flatten(),
                nn.Dense(5, activation="relu"), nn.Dense(2))
    return net


# ---- the recording ------------------------------------------------------------------------------
def main():
    import mxnet as mx
    from mxnet import gluon as G
    import mxnet.gluon.contrib.nn  # noqa: F401  (G.contrib.nn)
    from mxnet.gluon.model_zoo import vision

    meta, arrays = {}, {}

    # layers
    layers = meta["layers"] = {}
    for ci, (case, (build, _, train, call)) in enumerate(sorted(LAYER_CASES.items())):
        seed = 1000 + ci
        net = build(G)
        net.initialize()
        xs = make_inputs(case, seed)
        nd_in = [mx.nd.array(x) for x in xs]
        fwd = (lambda n, a: n(*a)) if call is None else call
        fwd(net, nd_in)
        params = net._collect_params_with_prefix()
        values = seeded_params(net, seed + 1)
        for k, v in values.items():
            params[k].set_data(mx.nd.array(v))
            arrays[f"layers/{case}/param/{k}"] = v
        for i, x in enumerate(xs):
            arrays[f"layers/{case}/in/{i}"] = x
        outs = flat_outputs(fwd(net, nd_in))
        for i, o in enumerate(outs):
            arrays[f"layers/{case}/out/{i}"] = o.asnumpy()
        entry = {"params": sorted(values), "n_out": len(outs), "train": train,
                 "names": sorted(net.collect_params().keys()), "prefix": net.prefix}
        if train:
            rs = np.random.RandomState(seed + 2)
            for i, a in enumerate(nd_in):
                if LAYER_CASES[case][1][i][1] == "f":
                    a.attach_grad()
            with mx.autograd.record():
                touts = flat_outputs(fwd(net, nd_in))
            heads = [mx.nd.array(rs.randn(*o.shape).astype(np.float32)) for o in touts]
            mx.autograd.backward(touts, heads)
            mx.nd.waitall()
            for i, (o, h) in enumerate(zip(touts, heads)):
                arrays[f"layers/{case}/train_out/{i}"] = o.asnumpy()
                arrays[f"layers/{case}/head/{i}"] = h.asnumpy()
            for i, a in enumerate(nd_in):
                if a.grad is not None:
                    arrays[f"layers/{case}/in_grad/{i}"] = a.grad.asnumpy()
            for k, p in params.items():
                if p.grad_req != "null":
                    arrays[f"layers/{case}/grad/{k}"] = p.grad().asnumpy()
                arrays[f"layers/{case}/after/{k}"] = p.data().asnumpy()
        layers[case] = entry

    # layer reprs (uninitialized and initialized)
    reprs = meta["reprs"] = {}
    for case, (build, _, _, call) in sorted(LAYER_CASES.items()):
        if call is None:
            reprs[case] = repr(build(G))

    # losses
    losses = meta["losses"] = {}
    for ci, (case, (build, _, grads)) in enumerate(sorted(LOSS_CASES.items())):
        seed = 2000 + ci
        xs = loss_inputs(case, seed)
        lf = build(G)
        nd_in = [None if x is None else mx.nd.array(x) for x in xs]
        for i in grads:
            nd_in[i].attach_grad()
        if grads:  # (MXNet's compute_full PoissonNLL writes in place: not recordable)
            with mx.autograd.record():
                out = lf(*nd_in)
            out.backward()
        else:
            out = lf(*nd_in)
        for i, x in enumerate(xs):
            if x is not None:
                arrays[f"losses/{case}/in/{i}"] = x
        arrays[f"losses/{case}/out"] = out.asnumpy()
        for i in grads:
            arrays[f"losses/{case}/grad/{i}"] = nd_in[i].grad.asnumpy()
        losses[case] = {"n_in": len(xs), "none": [i for i, x in enumerate(xs) if x is None],
                        "grads": list(grads), "repr": repr(lf)}

    # training
    train = meta["train"] = {}
    for ci, case in enumerate(sorted(TRAIN_CASES)):
        res = run_training(mx, G, case, 3000 + 10 * ci)
        for k, v in res.items():
            arrays[f"train/{case}/{k}"] = v
        train[case] = sorted(res)

    # data loading
    meta["data"] = record_data(mx, G)

    # model zoo
    zoo = meta["zoo"] = {}
    for name in ZOO_NAMES:
        net = vision.get_model(name)
        pre = net.prefix
        entry = {"prefix": pre,
                 "params": [[k[len(pre):], list(v.shape)] for k, v in net.collect_params().items()],
                 "structural": sorted(net._collect_params_with_prefix().keys())}
        if name in ZOO_INFER:
            net.infer_shape(mx.nd.zeros(ZOO_INFER[name]))
            entry["inferred"] = [[k[len(pre):], list(v.shape)]
                                 for k, v in net.collect_params().items()]
        zoo[name] = entry
    for ci, (name, shape) in enumerate(sorted(ZOO_FORWARD.items())):
        net = vision.get_model(name, classes=10)
        net.initialize()
        x = np.random.RandomState(4000 + ci).rand(*shape).astype(np.float32)
        net(mx.nd.array(x))
        params = net._collect_params_with_prefix()
        for k, v in seeded_params(net, 4100 + ci).items():
            params[k].set_data(mx.nd.array(v))
        arrays[f"zoo/{name}/in"] = x
        arrays[f"zoo/{name}/out"] = net(mx.nd.array(x)).asnumpy()

    # naming
    meta["naming"] = record_naming(mx, G)

    # errors
    meta["errors"] = record_errors(mx, G)

    write(meta, arrays)


def record_data(mx, G):
    D = G.data
    out = {}

    def batches(loader, epochs=1):
        res = []
        for _ in range(epochs):
            ep = []
            for b in loader:
                items = b if isinstance(b, (list, tuple)) else [b]
                ep.append([[i.asnumpy().tolist(), str(i.dtype.__name__ if hasattr(i.dtype, "__name__")
                                                      else i.dtype)] for i in items])
            res.append(ep)
        return res

    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    y = np.arange(10, dtype=np.int64)
    ds = D.ArrayDataset(x, y)
    for lb in ("keep", "discard", "rollover"):
        loader = D.DataLoader(ds, batch_size=4, last_batch=lb)
        out[f"array_{lb}"] = {"len": len(loader), "batches": batches(loader, 2)}
    nd_ds = D.ArrayDataset(mx.nd.array(x), mx.nd.array(np.arange(10), dtype="int32"))
    out["nd_int32"] = {"batches": batches(D.DataLoader(nd_ds, batch_size=3))}
    np.random.seed(7)
    out["shuffle"] = {"batches": batches(D.DataLoader(ds, batch_size=4, shuffle=True), 2)}
    simple = D.SimpleDataset([(i, float(i) / 2) for i in range(5)])
    out["simple_tuples"] = {"batches": batches(D.DataLoader(simple, batch_size=2))}
    single = D.ArrayDataset(np.arange(6).reshape(3, 2))
    out["single_array"] = {"batches": batches(D.DataLoader(single, batch_size=2))}
    tf = ds.transform_first(lambda d: d * 2)
    out["transform_first"] = {"batches": batches(D.DataLoader(tf, batch_size=5))}
    tr = D.SimpleDataset(list(range(7))).transform(lambda v: v * 10)
    out["transform"] = {"batches": batches(D.DataLoader(tr, batch_size=3, last_batch="discard"))}
    bs = D.BatchSampler(D.SequentialSampler(7), 3, "rollover")
    out["batch_sampler"] = [list(map(int, b)) for _ in range(3) for b in bs]
    out["shard"] = [[int(v) for v in D.SimpleDataset(list(range(10))).shard(3, i)]
                    for i in range(3)]
    out["take_filter"] = [list(D.SimpleDataset(list(range(10))).take(4)),
                          list(D.SimpleDataset(list(range(10))).filter(lambda v: v % 3 == 0))]
    # transforms on a fixed image
    T = D.vision.transforms
    rs = np.random.RandomState(11)
    img = rs.randint(0, 256, size=(6, 8, 3)).astype(np.uint8)
    t = {}
    t["to_tensor"] = T.ToTensor()(mx.nd.array(img, dtype=np.uint8)).asnumpy().tolist()
    t["normalize"] = T.Normalize((0.5, 0.4, 0.3), (0.2, 0.25, 0.3))(
        T.ToTensor()(mx.nd.array(img, dtype=np.uint8))).asnumpy().tolist()
    t["compose"] = T.Compose([T.ToTensor(), T.Normalize(0.5, 0.5)])(
        mx.nd.array(img, dtype=np.uint8)).asnumpy().tolist()
    t["cast"] = str(T.Cast("float64")(mx.nd.array(img, dtype=np.uint8)).dtype.__name__)
    t["resize"] = T.Resize((5, 4))(mx.nd.array(img, dtype=np.uint8)).asnumpy().tolist()
    t["resize_keep"] = list(T.Resize(4, keep_ratio=True)(mx.nd.array(img, dtype=np.uint8)).shape)
    t["center_crop"] = T.CenterCrop((4, 3))(mx.nd.array(img, dtype=np.uint8)).asnumpy().tolist()
    t["img"] = img.tolist()
    out["transforms"] = t
    return out


def record_naming(mx, G):
    nets = naming_nets(mx, G)
    res = {}
    for k, net in nets.items():
        res[k] = {"prefix": net.prefix, "name": net.name,
                  "params": [[n, list(p.shape) if p.shape is not None else None]
                             for n, p in net.collect_params().items()],
                  "structural": sorted(net._collect_params_with_prefix().keys()),
                  "repr": repr(net)}
    res["select"] = sorted(nets["model"].collect_params(".*weight|.*running").keys())
    res["params_repr"] = repr(nets["hseq"].collect_params())
    # export of the hybrid nets after one forward
    hseq, two = nets["hseq"], nets["two"]
    hseq.initialize()
    hseq.hybridize()
    hseq(mx.nd.ones((2, 2, 5, 5)))
    path = os.path.join("/tmp", "xnd_gluon_golden_hseq")
    hseq.export(path, epoch=3)
    with open(path + "-symbol.json") as f:
        doc = json.load(f)
    res["export_hseq"] = {"nodes": [[n["name"], n["op"]] for n in doc["nodes"]],
                          "params": sorted(mx.nd.load(path + "-0003.params").keys())}
    two.initialize()
    two.hybridize()
    two(mx.nd.ones((2, 4)), mx.nd.ones((2, 3)))
    two.export(path + "two")
    with open(path + "two-symbol.json") as f:
        doc = json.load(f)
    res["export_two"] = {"nodes": [[n["name"], n["op"]] for n in doc["nodes"]],
                         "params": sorted(mx.nd.load(path + "two-0000.params").keys())}
    # save_parameters / save_params key sets
    model = nets["model"]
    model.initialize()
    model(mx.nd.ones((1, 2, 5, 5)))
    model.save_parameters(path + "model.params")
    res["save_parameters_keys"] = sorted(mx.nd.load(path + "model.params").keys())
    try:
        model.save_params(path + "model_legacy.params")
        res["save_params_keys"] = sorted(mx.nd.load(path + "model_legacy.params").keys())
    except Exception as e:  # noqa: BLE001
        res["save_params_keys"] = "error: " + str(e).splitlines()[0]
    # summary of an initialized, un-hybridized net
    import contextlib
    buf = io.StringIO()
    with mx.name.NameManager():
        snet = summary_net(G)
    snet.initialize()
    with contextlib.redirect_stdout(buf):
        snet.summary(mx.nd.ones((2, 3, 6, 6)))
    res["summary"] = buf.getvalue()
    lstm = nets["lstm"]
    lstm.initialize()
    lstm.save_parameters(path + "lstm.params")
    res["lstm_save_keys"] = sorted(mx.nd.load(path + "lstm.params").keys())
    return res


def record_errors(mx, G):
    nn = G.nn
    res = {}

    def err(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            return [type(e).__name__, str(e)]
        return None

    with mx.name.NameManager():
        d = nn.Dense(3, in_units=4)
        res["not_initialized"] = err(lambda: d(mx.nd.ones((2, 4))))
        d2 = nn.Dense(3)
        d2.initialize()
        res["deferred_data"] = err(lambda: d2.weight.data())
        d3 = nn.Dense(3, in_units=4)
        d3.initialize()
        d3.save_parameters("/tmp/xnd_gluon_golden_d3.params")
        d4 = nn.Dense(3, in_units=5)
        res["shape_mismatch"] = err(lambda: d4.load_parameters("/tmp/xnd_gluon_golden_d3.params"))
        s = nn.HybridSequential()
        with s.name_scope():
            s.add(nn.Dense(3, in_units=4), nn.Dense(2, in_units=3))
        s2 = nn.HybridSequential()
        with s2.name_scope():
            s2.add(nn.Dense(3, in_units=4))
        s.initialize()
        s.save_parameters("/tmp/xnd_gluon_golden_s.params")
        s2.save_parameters if False else None
        s2.initialize()
        s2.save_parameters("/tmp/xnd_gluon_golden_s2.params")
        res["missing"] = err(lambda: s.load_parameters("/tmp/xnd_gluon_golden_s2.params"))
        res["extra"] = err(lambda: s2.load_parameters("/tmp/xnd_gluon_golden_s.params"))
        res["dense_rank"] = err(lambda: d3(mx.nd.ones((2, 5))))
        c = nn.Conv2D(2, 3, in_channels=3)
        c.initialize()
        res["conv_rank"] = err(lambda: c(mx.nd.ones((2, 3, 5))))
        res["hybrid_child"] = err(lambda: nn.HybridSequential().add(nn.Sequential()))
        res["export_before_forward"] = err(lambda: nn.Dense(2).export("/tmp/xnd_never"))
        tr_net = nn.Dense(2, in_units=2)
        tr_net.initialize()
        trainer = G.Trainer(tr_net.collect_params(), "sgd")
        res["stale_grad"] = err(lambda: trainer.step(1))
    return res


def write(meta, arrays):
    golden_files.write(JSON_PATH, NPZ_PATH, meta, arrays)


if __name__ == "__main__":
    main()
