"""Record what real MXNet 1.9.1 does for the neural-network operators.

Run with the reference interpreter (it must import the real ``mxnet``):

    /work/mxref/bin/python tests/make_nn_goldens.py

Writes ``tests/goldens/nn/nn_cases.json`` (one entry per case: op, attributes,
input names, which inputs get gradients, mode) and ``tests/goldens/nn/nn_cases.npz``
(``<case>/in/<name>``, ``<case>/out/<i>``, ``<case>/head/<i>``, ``<case>/grad/<name>``,
``<case>/aux/<name>``: moving statistics after backward). Cases whose MXNet call
raises store the error message instead. Deterministic: fixed seeds, sorted keys,
fixed zip timestamps.

Each case runs ``y = nd.<op>(*inputs, **attrs)``; with ``grad`` it runs under
``autograd.record(train_mode=train)`` and ``autograd.backward(outputs, heads)``
with random head gradients (only on the first output when ``heads='first'``),
and stores the input gradients. Cases marked ``nomkldnn`` are recorded by a
second process with ``MXNET_MKLDNN_ENABLED=0`` (MKLDNN rejects them).
"""

import io
import json
import os
import subprocess
import sys
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "goldens", "nn")
JSON_PATH = os.path.join(OUT_DIR, "nn_cases.json")
NPZ_PATH = os.path.join(OUT_DIR, "nn_cases.npz")

CASES = []
_RS = np.random.RandomState(20240611)


def rnd(*shape, lo=None, hi=None, scale=1.0):
    if lo is not None:
        return _RS.uniform(lo, hi, size=shape).astype(np.float32)
    return (_RS.randn(*shape) * scale).astype(np.float32)


def pos(*shape):
    return _RS.uniform(0.5, 1.5, size=shape).astype(np.float32)


def arr(v, dtype=np.float32):
    return np.asarray(v, dtype=dtype)


def case(name, op, inputs, attrs=None, grad=(), train=None, heads="all", nomkldnn=False,
         compare=None, aux=()):
    """inputs: list of (name, array or None); grad: input names that get gradients;
    train: the training flag for ops that have one (None: the op has none; recorded with
    train_mode=True, because MXNet's MKLDNN max-pooling backward is wrong after a
    predict-mode forward); compare: output indices to compare (default all); aux: input
    names whose values after backward are recorded (BatchNorm moving stats)."""
    CASES.append(dict(name=name, op=op, inputs=inputs, attrs=attrs or {}, grad=list(grad),
                      train=train, heads=heads, nomkldnn=nomkldnn, compare=compare, aux=list(aux)))


# ---- FullyConnected ---------------------------------------------------------------------------
case("fc_flatten", "FullyConnected", [("data", rnd(3, 2, 4)), ("weight", rnd(5, 8)), ("bias", rnd(5))],
     dict(num_hidden=5), grad=("data", "weight", "bias"))
case("fc_noflatten", "FullyConnected",
     [("data", rnd(2, 3, 4)), ("weight", rnd(5, 4)), ("bias", rnd(5))],
     dict(num_hidden=5, flatten=False), grad=("data", "weight", "bias"))
case("fc_nobias", "FullyConnected", [("data", rnd(3, 7)), ("weight", rnd(2, 7))],
     dict(num_hidden=2, no_bias=True), grad=("data", "weight"))
case("fc_4d", "FullyConnected", [("data", rnd(2, 2, 3, 2)), ("weight", rnd(3, 12)), ("bias", rnd(3))],
     dict(num_hidden=3), grad=("data", "weight", "bias"))
case("err_fc_weight", "FullyConnected", [("data", rnd(1, 2, 3, 3)), ("weight", rnd(4, 7)), ("bias", rnd(4))],
     dict(num_hidden=4))
case("err_fc_missing_bias", "FullyConnected", [("data", rnd(2, 3)), ("weight", rnd(4, 3))],
     dict(num_hidden=4))

# ---- Convolution ------------------------------------------------------------------------------
CG = ("data", "weight", "bias")
case("conv2d_basic", "Convolution", [("data", rnd(2, 3, 7, 7)), ("weight", rnd(4, 3, 3, 3)), ("bias", rnd(4))],
     dict(kernel=(3, 3), num_filter=4), grad=CG)
case("conv2d_s2p1d2", "Convolution", [("data", rnd(2, 3, 7, 7)), ("weight", rnd(4, 3, 3, 3)), ("bias", rnd(4))],
     dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), dilate=(2, 2), num_filter=4), grad=CG)
case("conv2d_stride_gt_kernel", "Convolution",
     [("data", rnd(1, 2, 9, 8)), ("weight", rnd(3, 2, 2, 2)), ("bias", rnd(3))],
     dict(kernel=(2, 2), stride=(3, 3), num_filter=3), grad=CG)
case("conv2d_groups", "Convolution",
     [("data", rnd(2, 4, 6, 5)), ("weight", rnd(6, 2, 3, 2)), ("bias", rnd(6))],
     dict(kernel=(3, 2), stride=(1, 2), pad=(1, 0), num_filter=6, num_group=2), grad=CG)
case("conv2d_depthwise", "Convolution",
     [("data", rnd(1, 3, 5, 5)), ("weight", rnd(3, 1, 3, 3)), ("bias", rnd(3))],
     dict(kernel=(3, 3), pad=(1, 1), num_filter=3, num_group=3), grad=CG)
case("conv2d_nobias_asym", "Convolution", [("data", rnd(2, 2, 6, 9)), ("weight", rnd(3, 2, 2, 4))],
     dict(kernel=(2, 4), stride=(2, 1), dilate=(1, 2), pad=(0, 2), num_filter=3, no_bias=True),
     grad=("data", "weight"))
case("conv1d", "Convolution", [("data", rnd(2, 3, 10)), ("weight", rnd(4, 3, 3)), ("bias", rnd(4))],
     dict(kernel=(3,), stride=(2,), pad=(1,), num_filter=4), grad=CG)
case("conv1d_dilate", "Convolution", [("data", rnd(2, 2, 11)), ("weight", rnd(3, 2, 2)), ("bias", rnd(3))],
     dict(kernel=(2,), dilate=(3,), num_filter=3), grad=CG)
case("conv3d", "Convolution",
     [("data", rnd(1, 2, 5, 6, 4)), ("weight", rnd(3, 2, 2, 3, 2)), ("bias", rnd(3))],
     dict(kernel=(2, 3, 2), stride=(1, 2, 1), pad=(1, 0, 1), num_filter=3), grad=CG)
case("conv3d_groups", "Convolution",
     [("data", rnd(1, 4, 4, 4, 4)), ("weight", rnd(2, 2, 3, 3, 3)), ("bias", rnd(2))],
     dict(kernel=(3, 3, 3), pad=(1, 1, 1), num_filter=2, num_group=2), grad=CG)
case("err_conv_kernel_big", "Convolution",
     [("data", rnd(1, 2, 3, 3)), ("weight", rnd(4, 2, 5, 5)), ("bias", rnd(4))],
     dict(kernel=(5, 5), num_filter=4))
case("err_conv_group", "Convolution",
     [("data", rnd(1, 3, 3, 3)), ("weight", rnd(4, 1, 2, 2)), ("bias", rnd(4))],
     dict(kernel=(2, 2), num_filter=4, num_group=2))
case("err_conv_weight", "Convolution",
     [("data", rnd(1, 2, 3, 3)), ("weight", rnd(4, 3, 2, 2)), ("bias", rnd(4))],
     dict(kernel=(2, 2), num_filter=4))
case("err_conv_missing_bias", "Convolution", [("data", rnd(1, 2, 3, 3)), ("weight", rnd(4, 2, 2, 2))],
     dict(kernel=(2, 2), num_filter=4))
case("err_conv_extra_bias", "Convolution",
     [("data", rnd(1, 2, 3, 3)), ("weight", rnd(4, 2, 2, 2)), ("bias", rnd(4))],
     dict(kernel=(2, 2), num_filter=4, no_bias=True))

# ---- Deconvolution ----------------------------------------------------------------------------
case("deconv2d_basic", "Deconvolution", [("data", rnd(2, 3, 4, 4)), ("weight", rnd(3, 4, 3, 3))],
     dict(kernel=(3, 3), stride=(2, 2), num_filter=4), grad=("data", "weight"))
case("deconv2d_pad_adj", "Deconvolution", [("data", rnd(1, 2, 3, 4)), ("weight", rnd(2, 3, 4, 4))],
     dict(kernel=(4, 4), stride=(2, 2), pad=(1, 1), adj=(1, 1), num_filter=3), grad=("data", "weight"))
case("deconv2d_bias", "Deconvolution",
     [("data", rnd(2, 3, 4, 3)), ("weight", rnd(3, 2, 3, 3)), ("bias", rnd(2))],
     dict(kernel=(3, 3), stride=(1, 2), pad=(1, 0), num_filter=2, no_bias=False), grad=CG)
case("deconv2d_groups", "Deconvolution", [("data", rnd(1, 4, 3, 3)), ("weight", rnd(4, 3, 3, 3))],
     dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=6, num_group=2),
     grad=("data", "weight"))
case("deconv2d_dilate", "Deconvolution", [("data", rnd(1, 2, 4, 4)), ("weight", rnd(2, 2, 3, 3))],
     dict(kernel=(3, 3), dilate=(2, 2), num_filter=2), grad=("data", "weight"))
case("deconv1d", "Deconvolution", [("data", rnd(2, 3, 5)), ("weight", rnd(3, 2, 3))],
     dict(kernel=(3,), stride=(2,), num_filter=2), grad=("data", "weight"))
case("deconv3d", "Deconvolution", [("data", rnd(1, 2, 3, 3, 2)), ("weight", rnd(2, 2, 2, 2, 2))],
     dict(kernel=(2, 2, 2), stride=(2, 2, 2), num_filter=2), grad=("data", "weight"))
case("deconv2d_target", "Deconvolution", [("data", rnd(1, 2, 3, 3)), ("weight", rnd(2, 3, 3, 3))],
     dict(kernel=(3, 3), stride=(2, 2), num_filter=3, target_shape=(6, 7)), grad=("data", "weight"),
     nomkldnn=True)
case("err_deconv_target_big", "Deconvolution", [("data", rnd(1, 2, 3, 3)), ("weight", rnd(2, 3, 3, 3))],
     dict(kernel=(3, 3), stride=(2, 2), num_filter=3, target_shape=(8, 8)), nomkldnn=True)

# ---- Pooling ----------------------------------------------------------------------------------
X7 = rnd(2, 3, 7, 7)
case("pool_max_k2s2", "Pooling", [("data", X7)], dict(kernel=(2, 2), stride=(2, 2)), grad=("data",))
case("pool_max_k3s2p1", "Pooling", [("data", X7)], dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1)),
     grad=("data",))
case("pool_max_default_stride", "Pooling", [("data", rnd(1, 2, 4, 5))], dict(kernel=(2, 3)),
     grad=("data",))
case("pool_max_full", "Pooling", [("data", rnd(1, 2, 8, 8))],
     dict(kernel=(3, 3), stride=(2, 2), pooling_convention="full"), grad=("data",))
case("pool_max_full_k2s2", "Pooling", [("data", X7)],
     dict(kernel=(2, 2), stride=(2, 2), pooling_convention="full"), grad=("data",))
case("pool_max_full_padwindow", "Pooling", [("data", rnd(1, 1, 5, 5))],
     dict(kernel=(2, 2), stride=(2, 2), pad=(1, 1), pooling_convention="full"))
case("pool_avg_pad_include", "Pooling", [("data", rnd(1, 2, 6, 5))],
     dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg"), grad=("data",))
case("pool_avg_pad_exclude", "Pooling", [("data", rnd(1, 2, 6, 5))],
     dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg", count_include_pad=False),
     grad=("data",))
case("pool_avg_ones_corners", "Pooling", [("data", np.ones((1, 1, 2, 2), np.float32))],
     dict(kernel=(2, 2), pad=(1, 1), pool_type="avg"))
case("pool_avg_full", "Pooling", [("data", rnd(1, 2, 5, 5))],
     dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg", pooling_convention="full"),
     grad=("data",))
case("pool_avg_full_exclude", "Pooling", [("data", rnd(1, 2, 5, 5))],
     dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg", pooling_convention="full",
          count_include_pad=False), grad=("data",))
# MKLDNN's backward divides a window that runs past the padded edge by the full kernel size
# while its forward does not (and it rejects windows of padding only): use MXNet's own kernel
case("pool_avg_full_k3s3", "Pooling", [("data", X7)],
     dict(kernel=(3, 3), stride=(3, 3), pool_type="avg", pooling_convention="full"), grad=("data",),
     nomkldnn=True)
case("pool_avg_full_exclude_empty", "Pooling", [("data", rnd(1, 2, 8, 8))],
     dict(kernel=(3, 3), stride=(3, 3), pad=(1, 1), pool_type="avg", pooling_convention="full",
          count_include_pad=False), grad=("data",), nomkldnn=True)
case("pool_avg_full_padwindow", "Pooling", [("data", rnd(1, 1, 5, 5))],
     dict(kernel=(2, 2), stride=(2, 2), pad=(1, 1), pool_type="avg", pooling_convention="full"))
case("pool_sum", "Pooling", [("data", rnd(1, 2, 5, 4))],
     dict(kernel=(2, 2), pad=(1, 1), pool_type="sum"), grad=("data",))
case("pool_lp2", "Pooling", [("data", rnd(1, 2, 6, 6))],
     dict(kernel=(2, 2), stride=(2, 2), pool_type="lp", p_value=2), grad=("data",))
case("pool_lp1_1d", "Pooling", [("data", rnd(2, 2, 8))],
     dict(kernel=(2,), stride=(2,), pool_type="lp", p_value=1), grad=("data",))
case("pool_lp3_1d", "Pooling", [("data", rnd(2, 2, 8))],
     dict(kernel=(3,), stride=(2,), pool_type="lp", p_value=3))
case("pool_global_max", "Pooling", [("data", X7)], dict(global_pool=True), grad=("data",))
case("pool_global_avg", "Pooling", [("data", X7)],
     dict(global_pool=True, pool_type="avg", kernel=(2, 2), pad=(1, 1)), grad=("data",))
case("pool_global_sum_1d", "Pooling", [("data", rnd(2, 3, 5))], dict(global_pool=True, pool_type="sum"),
     grad=("data",))
case("pool_global_avg_3d", "Pooling", [("data", rnd(1, 2, 3, 4, 2))], dict(global_pool=True, pool_type="avg"),
     grad=("data",))
case("pool_max_1d", "Pooling", [("data", rnd(2, 3, 9))], dict(kernel=(3,), stride=(2,)), grad=("data",))
case("pool_avg_1d_exclude", "Pooling", [("data", rnd(2, 3, 9))],
     dict(kernel=(3,), stride=(2,), pad=(1,), pool_type="avg", count_include_pad=False), grad=("data",))
case("pool_max_3d", "Pooling", [("data", rnd(1, 2, 5, 6, 4))],
     dict(kernel=(2, 3, 2), stride=(2, 2, 1), pad=(1, 1, 0)), grad=("data",))
case("pool_avg_3d_full", "Pooling", [("data", rnd(1, 1, 5, 5, 5))],
     dict(kernel=(2, 2, 2), stride=(2, 2, 2), pool_type="avg", pooling_convention="full"), grad=("data",))
case("pool_max_nhwc", "Pooling", [("data", rnd(2, 5, 6, 3))],
     dict(kernel=(2, 2), stride=(2, 2), layout="NHWC"), grad=("data",))
case("pool_avg_nwc", "Pooling", [("data", rnd(2, 7, 3))],
     dict(kernel=(3,), stride=(2,), pad=(1,), pool_type="avg", layout="NWC"), grad=("data",))
case("err_pool_kernel_big", "Pooling", [("data", rnd(1, 2, 3, 3))], dict(kernel=(5, 5)))

# ---- UpSampling -------------------------------------------------------------------------------
case("up_nearest2", "UpSampling", [("data", rnd(1, 2, 3, 4))], dict(scale=2, sample_type="nearest"),
     grad=("data",))
case("up_nearest3", "UpSampling", [("data", rnd(2, 1, 2, 2))], dict(scale=3, sample_type="nearest"),
     grad=("data",))
case("up_nearest_concat", "UpSampling", [("a", rnd(1, 1, 2, 2)), ("b", rnd(1, 2, 4, 4))],
     dict(scale=2, sample_type="nearest", num_args=2), grad=("a", "b"))
case("up_nearest_sum", "UpSampling", [("a", rnd(1, 2, 2, 2)), ("b", rnd(1, 2, 4, 4))],
     dict(scale=2, sample_type="nearest", num_args=2, multi_input_mode="sum"), grad=("a", "b"))
case("up_bilinear", "UpSampling", [("data", rnd(1, 2, 3, 3)), ("weight", rnd(2, 1, 4, 4))],
     dict(scale=2, sample_type="bilinear", num_filter=2, num_args=2), grad=("data", "weight"))
case("up_bilinear3", "UpSampling", [("data", rnd(1, 1, 2, 3)), ("weight", rnd(1, 1, 5, 5))],
     dict(scale=3, sample_type="bilinear", num_filter=1, num_args=2), grad=("data", "weight"))

# ---- BatchNorm & co ---------------------------------------------------------------------------
def bn_inputs(shape, c):
    return [("data", rnd(*shape)), ("gamma", pos(c)), ("beta", rnd(c)), ("moving_mean", rnd(c, scale=0.3)),
            ("moving_var", pos(c))]


BNG = ("data", "gamma", "beta")
MV = ("moving_mean", "moving_var")
case("bn_predict", "BatchNorm", bn_inputs((4, 3, 5, 5), 3), dict(fix_gamma=False), grad=BNG, train=False,
     aux=MV)
case("bn_predict_fixgamma", "BatchNorm", bn_inputs((4, 3, 5, 5), 3), {}, grad=BNG, train=False, aux=MV)
case("bn_predict_outmeanvar", "BatchNorm", bn_inputs((2, 3, 4), 3),
     dict(fix_gamma=False, output_mean_var=True), train=False)
case("bn_train", "BatchNorm", bn_inputs((4, 3, 5, 5), 3), dict(fix_gamma=False), grad=BNG, train=True,
     aux=MV)
case("bn_train_fixgamma", "BatchNorm", bn_inputs((4, 3, 5, 5), 3), {}, grad=BNG, train=True, aux=MV)
case("bn_train_outmeanvar", "BatchNorm", bn_inputs((4, 3, 5, 5), 3),
     dict(fix_gamma=False, output_mean_var=True), grad=BNG, train=True, heads="first", aux=MV)
case("bn_train_global_stats", "BatchNorm", bn_inputs((4, 3, 5, 5), 3),
     dict(fix_gamma=False, use_global_stats=True), grad=BNG, train=True, aux=MV)
case("bn_train_axis_last", "BatchNorm", bn_inputs((3, 4, 5), 5), dict(fix_gamma=False, axis=-1),
     grad=BNG, train=True, aux=MV)
case("bn_train_2d", "BatchNorm", bn_inputs((6, 3), 3), dict(fix_gamma=False), grad=BNG, train=True,
     aux=MV)
case("bn_train_momentum", "BatchNorm", bn_inputs((2, 4, 3, 3), 4),
     dict(fix_gamma=False, momentum=0.7, eps=1e-5), grad=BNG, train=True, aux=MV)
case("bn_train_3d_axis2", "BatchNorm", bn_inputs((2, 3, 4, 2, 2), 4), dict(fix_gamma=False, axis=2),
     grad=BNG, train=True, aux=MV)
case("ln_last", "LayerNorm", [("data", rnd(2, 3, 5)), ("gamma", pos(5)), ("beta", rnd(5))], {},
     grad=BNG)
case("ln_axis1", "LayerNorm", [("data", rnd(2, 3, 5)), ("gamma", pos(3)), ("beta", rnd(3))],
     dict(axis=1, eps=1e-3), grad=BNG)
case("ln_outmeanvar", "LayerNorm", [("data", rnd(2, 3, 4)), ("gamma", pos(4)), ("beta", rnd(4))],
     dict(output_mean_var=True), grad=BNG, heads="first")
case("in_4d", "InstanceNorm", [("data", rnd(2, 3, 4, 5)), ("gamma", pos(3)), ("beta", rnd(3))], {},
     grad=BNG)
case("in_3d", "InstanceNorm", [("data", rnd(2, 3, 6)), ("gamma", pos(3)), ("beta", rnd(3))],
     dict(eps=1e-5), grad=BNG)
case("gn_2groups", "GroupNorm", [("data", rnd(2, 4, 3, 3)), ("gamma", pos(2)), ("beta", rnd(2))],
     dict(num_groups=2), grad=BNG)
case("gn_outmeanvar", "GroupNorm", [("data", rnd(2, 6, 5)), ("gamma", pos(3)), ("beta", rnd(3))],
     dict(num_groups=3, output_mean_var=True, eps=1e-3), grad=BNG, heads="first")
case("gn_1group", "GroupNorm", [("data", rnd(3, 2, 2, 2)), ("gamma", pos(1)), ("beta", rnd(1))], {},
     grad=BNG)
for _m in ("instance", "channel", "spatial"):
    case("l2norm_" + _m, "L2Normalization", [("data", rnd(2, 3, 4, 2))], dict(mode=_m), grad=("data",))
case("l2norm_2d", "L2Normalization", [("data", rnd(3, 4))], dict(eps=1e-3), grad=("data",))
case("lrn_3", "LRN", [("data", rnd(2, 5, 3, 3))], dict(nsize=3), grad=("data",))
case("lrn_5", "LRN", [("data", rnd(1, 7, 2, 2))], dict(nsize=5, alpha=1e-2, beta=0.5, knorm=1.0),
     grad=("data",))

# ---- activations ------------------------------------------------------------------------------
XA = rnd(3, 4, scale=2.0)
for _a in ("relu", "sigmoid", "tanh", "softrelu", "softsign"):
    case("act_" + _a, "Activation", [("data", XA)], dict(act_type=_a), grad=("data",))
case("err_act_type", "Activation", [("data", XA)], dict(act_type="foo"))
case("act_softrelu_big", "Activation", [("data", arr([-30.0, -5.0, 0.0, 5.0, 25.0, 80.0]))],
     dict(act_type="softrelu"), grad=("data",))
XL = rnd(2, 3, 4, scale=2.0)
case("leaky_default", "LeakyReLU", [("data", XL)], {}, grad=("data",))
case("leaky_slope", "LeakyReLU", [("data", XL)], dict(act_type="leaky", slope=0.1), grad=("data",))
case("prelu", "LeakyReLU", [("data", XL), ("gamma", rnd(3, lo=0.0, hi=0.5))], dict(act_type="prelu"),
     grad=("data", "gamma"))
case("prelu_scalar", "LeakyReLU", [("data", XL), ("gamma", arr([0.2]))], dict(act_type="prelu"),
     grad=("data", "gamma"))
case("elu", "LeakyReLU", [("data", XL)], dict(act_type="elu", slope=0.7), grad=("data",))
case("selu", "LeakyReLU", [("data", XL)], dict(act_type="selu"), grad=("data",))
case("gelu", "LeakyReLU", [("data", XL)], dict(act_type="gelu"), grad=("data",))
case("rrelu_predict", "LeakyReLU", [("data", XL)], dict(act_type="rrelu"), compare=[0], train=False)
case("dropout_predict", "Dropout", [("data", XL)], dict(p=0.5), grad=("data",), train=False)
case("dropout_train_p0", "Dropout", [("data", XL)], dict(p=0.0), grad=("data",), train=True)
case("softmaxact_2d", "SoftmaxActivation", [("data", rnd(3, 5))], {}, grad=("data",))
case("softmaxact_3d", "SoftmaxActivation", [("data", rnd(2, 3, 4))], {}, grad=("data",))
case("softmaxact_channel", "SoftmaxActivation", [("data", rnd(2, 3, 2, 2))], dict(mode="channel"),
     grad=("data",))

# ---- Embedding / Sequence* --------------------------------------------------------------------
case("embedding", "Embedding", [("data", arr([[0, 2, 4], [5, -1, 1.7], [2, 2, 3]])), ("weight", rnd(5, 3))],
     dict(input_dim=5, output_dim=3), grad=("weight",))
SEQ = rnd(5, 3, 2)
LENS = arr([2, 5, 3])
case("seqmask_axis0", "SequenceMask", [("data", SEQ), ("sequence_length", LENS)],
     dict(use_sequence_length=True, value=-2.0), grad=("data",))
case("seqmask_axis1", "SequenceMask", [("data", rnd(3, 5, 2)), ("sequence_length", LENS)],
     dict(use_sequence_length=True, axis=1), grad=("data",))
case("seqmask_nolen", "SequenceMask", [("data", SEQ)], {}, grad=("data",))
case("seqlast_axis0", "SequenceLast", [("data", SEQ), ("sequence_length", LENS)],
     dict(use_sequence_length=True), grad=("data",))
case("seqlast_axis1", "SequenceLast", [("data", rnd(3, 5, 2)), ("sequence_length", LENS)],
     dict(use_sequence_length=True, axis=1), grad=("data",))
case("seqlast_nolen", "SequenceLast", [("data", SEQ)], {})  # backward segfaults in MXNet 1.9.1
case("seqrev_len", "SequenceReverse", [("data", SEQ), ("sequence_length", LENS)],
     dict(use_sequence_length=True), grad=("data",))
case("seqrev_nolen", "SequenceReverse", [("data", SEQ)], {}, grad=("data",))


# ---- RNN --------------------------------------------------------------------------------------
def rnn_size(mode, i, h, layers, bi, proj=None):
    g = {"lstm": 4, "gru": 3}.get(mode, 1)
    d = 2 if bi else 1
    hp = proj or h
    n = 0
    for layer in range(layers):
        nin = i if layer == 0 else d * hp
        n += d * (g * h * nin + g * h * hp + (hp * h if proj else 0) + 2 * g * h)
    return n


def rnn_case(name, mode, T, N, I, H, layers, bi=False, proj=None, grad=True, **attrs):
    d = 2 if bi else 1
    hp = proj or H
    ins = [("data", rnd(T, N, I)), ("parameters", rnd(rnn_size(mode, I, H, layers, bi, proj), lo=-0.5, hi=0.5)),
           ("state", rnd(layers * d, N, hp, scale=0.5))]
    if mode == "lstm":
        ins.append(("state_cell", rnd(layers * d, N, H, scale=0.5)))
    a = dict(state_size=H, num_layers=layers, bidirectional=bi, mode=mode, state_outputs=True)
    if proj:
        a["projection_size"] = proj
    a.update(attrs)
    case(name, "RNN", ins, a, grad=[n for n, _ in ins] if grad else ())


rnn_case("rnn_tanh_1l", "rnn_tanh", 5, 2, 3, 4, 1)
rnn_case("rnn_relu_2l_bi", "rnn_relu", 4, 3, 2, 3, 2, bi=True)
rnn_case("lstm_2l", "lstm", 5, 2, 3, 4, 2)
rnn_case("lstm_1l_bi", "lstm", 4, 2, 3, 3, 1, bi=True)
rnn_case("gru_2l_bi", "gru", 4, 2, 3, 3, 2, bi=True)
rnn_case("gru_1l", "gru", 6, 3, 2, 4, 1)
rnn_case("lstm_proj", "lstm", 5, 2, 3, 4, 1, proj=2, grad=False)  # MXNet: no CPU training
rnn_case("lstm_no_state_out", "lstm", 3, 2, 2, 2, 1, state_outputs=False)

# ---- losses -----------------------------------------------------------------------------------
SD = rnd(4, 5)
SL = arr([1, 0, 4, 2])
SOG = ("data",)
case("so_default", "SoftmaxOutput", [("data", SD), ("label", SL)], {}, grad=SOG)
case("so_alias_softmax", "Softmax", [("data", SD), ("label", SL)], {}, grad=SOG)
case("so_grad_scale", "SoftmaxOutput", [("data", SD), ("label", SL)], dict(grad_scale=2.5), grad=SOG)
case("so_batch", "SoftmaxOutput", [("data", SD), ("label", SL)], dict(normalization="batch"), grad=SOG)
case("so_valid", "SoftmaxOutput", [("data", SD), ("label", arr([1, -1, 4, -1]))],
     dict(normalization="valid"), grad=SOG)
case("so_ignore", "SoftmaxOutput", [("data", SD), ("label", arr([1, 3, 4, 3]))],
     dict(use_ignore=True, ignore_label=3, normalization="valid"), grad=SOG)
case("so_out_of_range", "SoftmaxOutput", [("data", SD), ("label", arr([-1, 7, 4, 2]))], {}, grad=SOG)
case("so_fractional", "SoftmaxOutput", [("data", SD), ("label", arr([1.7, 0.2, 3.9, 2.5]))], {},
     grad=SOG)
case("so_smooth", "SoftmaxOutput", [("data", SD), ("label", SL)], dict(smooth_alpha=0.2), grad=SOG)
case("so_soft_label", "SoftmaxOutput", [("data", SD), ("label", rnd(4, 5, lo=0.0, hi=0.4))], {},
     grad=SOG)
case("so_out_grad", "SoftmaxOutput", [("data", SD), ("label", SL)], dict(out_grad=True), grad=SOG)
SM = rnd(2, 3, 2, 3)
SML = arr([[[0, 1, 2], [2, 2, 0]], [[1, 0, 1], [0, 2, 1]]])
case("so_multi_null", "SoftmaxOutput", [("data", SM), ("label", SML)], dict(multi_output=True), grad=SOG)
case("so_multi_batch", "SoftmaxOutput", [("data", SM), ("label", SML)],
     dict(multi_output=True, normalization="batch"), grad=SOG)
case("so_multi_valid_ignore", "SoftmaxOutput",
     [("data", SM), ("label", arr([[[0, 1, -1], [2, 2, 0]], [[-1, 0, 1], [0, 2, 1]]]))],
     dict(multi_output=True, normalization="valid", use_ignore=True), grad=SOG)
case("so_preserve", "SoftmaxOutput", [("data", rnd(2, 3, 4)), ("label", arr([[0, 1, 3], [2, 3, 0]]))],
     dict(preserve_shape=True), grad=SOG)
case("err_so_shape", "SoftmaxOutput", [("data", rnd(2, 3, 4)), ("label", arr([0, 1]))], {})
RD = rnd(3, 2)
RL = rnd(3, 2)
for _op in ("LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput"):
    case("reg_" + _op, _op, [("data", RD), ("label", RL)], {}, grad=SOG)
    case("reg_scale_" + _op, _op, [("data", RD), ("label", RL)], dict(grad_scale=3.0), grad=SOG)
case("reg_label_1d", "LinearRegressionOutput", [("data", rnd(4, 1)), ("label", rnd(4))], {}, grad=SOG)
ML = arr([[1.0, -2.0, 0.0], [3.0, 0.5, 0.7]])
case("makeloss", "MakeLoss", [("data", ML)], {}, grad=SOG)
case("makeloss_batch", "MakeLoss", [("data", ML)], dict(normalization="batch", grad_scale=2.0), grad=SOG)
case("makeloss_valid", "MakeLoss", [("data", ML)], dict(normalization="valid", valid_thresh=0.6),
     grad=SOG)
case("makeloss_valid0", "MakeLoss", [("data", ML)], dict(normalization="valid"), grad=SOG)
case("make_loss", "make_loss", [("data", ML)], {}, grad=SOG)
case("blockgrad", "BlockGrad", [("data", ML)], {}, grad=SOG)
case("stop_gradient", "stop_gradient", [("data", ML)], {}, grad=SOG)
case("sce", "softmax_cross_entropy", [("data", SD), ("label", SL)], {}, grad=SOG)

# ---- Pad, im2col, depth/space, Crop -----------------------------------------------------------
XP = rnd(1, 2, 3, 4)
case("pad_constant", "Pad", [("data", XP)], dict(mode="constant", pad_width=(0, 0, 0, 0, 1, 2, 2, 1),
                                                 constant_value=1.5), grad=("data",))
case("pad_edge", "pad", [("data", XP)], dict(mode="edge", pad_width=(0, 0, 0, 0, 2, 1, 1, 3)),
     grad=("data",))
case("pad_reflect_5d", "Pad", [("data", rnd(1, 1, 3, 3, 4))],
     dict(mode="reflect", pad_width=(0, 0, 0, 0, 1, 2, 2, 1, 0, 3)), grad=("data",))
case("err_pad_3d", "Pad", [("data", rnd(2, 3, 4))], dict(mode="constant", pad_width=(0, 0, 0, 0, 1, 1)))
case("im2col_2d", "im2col", [("data", rnd(1, 2, 5, 6))], dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1)),
     grad=("data",))
case("im2col_dilate", "im2col", [("data", rnd(2, 2, 6, 6))], dict(kernel=(2, 3), dilate=(2, 1)),
     grad=("data",))
case("im2col_2d_rect", "im2col", [("data", rnd(2, 3, 4, 5))], dict(kernel=(2, 2), stride=(1, 2)),
     grad=("data",))  # MXNet 1.9.1 fails on 1-D and 3-D im2col
case("col2im_2d", "col2im", [("data", rnd(1, 18, 9))],
     dict(output_size=(5, 6), kernel=(3, 3), stride=(2, 2), pad=(1, 1)), grad=("data",))
case("col2im_dilate", "col2im", [("data", rnd(1, 8, 16))], dict(output_size=(6, 6), kernel=(2, 2),
                                                                 dilate=(2, 2), stride=(1, 1)),
     grad=("data",))
case("d2s", "depth_to_space", [("data", rnd(2, 8, 2, 3))], dict(block_size=2), grad=("data",))
case("s2d", "space_to_depth", [("data", rnd(2, 2, 4, 6))], dict(block_size=2), grad=("data",))
case("crop_hw", "Crop", [("data", rnd(1, 2, 5, 6))], dict(offset=(1, 2), h_w=(3, 2)), grad=("data",))
case("crop_like_center", "Crop", [("data", rnd(1, 2, 5, 6)), ("like", rnd(1, 1, 2, 3))],
     dict(center_crop=True, num_args=2), grad=("data",))


# ---- recording --------------------------------------------------------------------------------
def _message(e):
    lines = [ln for ln in str(e).split("\n") if ln.strip()]
    msg = lines[-1] if lines else str(e)
    return msg[:300]


def run_case(mx, c):
    from mxnet import autograd, nd
    ins = [(n, None if a is None else nd.array(a, dtype=a.dtype)) for n, a in c["inputs"]]
    arrays = {f"in/{n}": a for n, a in c["inputs"] if a is not None}
    grads = {}
    for n, v in ins:
        if n in c["grad"]:
            v.attach_grad()
    fn = getattr(nd, c["op"])
    vals = [v for _, v in ins]
    train = c["train"] is not False
    if c["grad"] or c["train"]:
        with autograd.record(train_mode=train):
            out = fn(*vals, **c["attrs"])
    else:
        out = fn(*vals, **c["attrs"])
    outs = out if isinstance(out, (list, tuple)) else [out]
    if c["grad"]:  # outputs are read after backward: reading first breaks MKLDNN max pooling
        heads_for = outs[:1] if c["heads"] == "first" else outs
        heads = [nd.array(rnd(*o.shape)) for o in heads_for]
        autograd.backward(heads_for, heads)
        nd.waitall()
        for i, h in enumerate(heads):
            arrays[f"head/{i}"] = h.asnumpy()
        for n, v in ins:
            if n in c["grad"]:
                grads[n] = v.grad.asnumpy()
    for i, o in enumerate(outs):
        arrays[f"out/{i}"] = o.asnumpy()
    nd.waitall()
    for n, v in ins:
        if n in c["aux"]:
            arrays[f"aux/{n}"] = v.asnumpy()
    for n, g in grads.items():
        arrays[f"grad/{n}"] = g
    return arrays, len(outs)


def record(names):
    import mxnet as mx
    if getattr(mx, "__version__", None) != "1.9.1" or \
            os.path.basename(os.path.dirname(mx.__file__)) != "mxnet":
        sys.exit("make_nn_goldens.py needs the real MXNet 1.9.1")
    entries, arrays = {}, {}
    for c in CASES:
        if c["name"] not in names:
            continue
        if os.environ.get("NN_GOLDENS_VERBOSE"):
            print(c["name"], flush=True)
        meta = dict(op=c["op"], attrs={k: list(v) if isinstance(v, tuple) else v
                                       for k, v in c["attrs"].items()},
                    inputs=[n for n, _ in c["inputs"]], grad=c["grad"], train=bool(c["train"]),
                    heads=c["heads"], nomkldnn=c["nomkldnn"], compare=c["compare"], aux=c["aux"])
        try:
            got, n_out = run_case(mx, c)
        except Exception as e:  # noqa: BLE001 - MXNet raises MXNetError (or TypeError...)
            meta["error"] = dict(cls=type(e).__name__, message=_message(e))
            for n, a in c["inputs"]:
                if a is not None:
                    arrays[f"{c['name']}/in/{n}"] = a
        else:
            meta["num_outputs"] = n_out
            for k, v in got.items():
                arrays[f"{c['name']}/{k}"] = v
        entries[c["name"]] = meta
    return entries, arrays


def write_npz(path, arrays):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for key in sorted(arrays):
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            data = io.BytesIO()
            np.lib.format.write_array(data, np.asarray(arrays[key]), allow_pickle=False)
            zf.writestr(info, data.getvalue())
    with open(path, "wb") as f:
        f.write(buf.getvalue())


def main():
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names)), "duplicate case names"
    if "--nomkldnn-part" in sys.argv:  # child process: MKLDNN off, write to the given file
        part = sys.argv[sys.argv.index("--nomkldnn-part") + 1]
        entries, arrays = record({c["name"] for c in CASES if c["nomkldnn"]})
        write_npz(part + ".npz", arrays)
        with open(part + ".json", "w") as f:
            json.dump(entries, f)
        return
    os.makedirs(OUT_DIR, exist_ok=True)
    entries, arrays = record({c["name"] for c in CASES if not c["nomkldnn"]})
    part = os.path.join(OUT_DIR, "_nomkldnn_part")
    env = dict(os.environ, MXNET_MKLDNN_ENABLED="0", MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0")
    subprocess.check_call([sys.executable, os.path.abspath(__file__), "--nomkldnn-part", part], env=env)
    with open(part + ".json") as f:
        entries.update(json.load(f))
    with np.load(part + ".npz") as z:
        arrays.update({k: z[k] for k in z.files})
    os.remove(part + ".json")
    os.remove(part + ".npz")
    with open(JSON_PATH, "w") as f:
        json.dump(dict(mxnet="1.9.1", cases=entries), f, indent=1, sort_keys=True)
        f.write("\n")
    write_npz(NPZ_PATH, arrays)
    n_err = sum("error" in e for e in entries.values())
    print(f"wrote {len(entries)} cases ({n_err} errors) to {OUT_DIR}")


if __name__ == "__main__":
    main()
