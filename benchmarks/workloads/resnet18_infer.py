"""ResNet-18-style inference: a symbol built with mx.sym, batch 8, 3x112x112, images/s.

The graph is ResNet v1 (conv-BN-ReLU, basic blocks 2-2-2-2, 1x1 stride-2 projection
shortcuts, global average pooling, FullyConnected(1000), SoftmaxOutput), BatchNorm with
``fix_gamma=False, eps=2e-5`` as in MXNet's image-classification examples.  The MXNet-API
version binds it with ``simple_bind(grad_req='null')``, loads random weights and random
BatchNorm statistics (same numpy values on every implementation) and times ``n`` calls of
``forward(is_train=False)``; the JAX twin is the same network hand-written in NHWC with
``lax.conv_general_dilated`` and inference BatchNorm, under one ``jax.jit``.
Checksum: sum over the batch of the expected class index under the softmax.
"""
import functools
import sys

import numpy as np

N, N_QUICK = 40, 2                # batches
WARMUP = 3
QUICK = "--quick" in sys.argv     # smoke run: a 2-stage net at 32x32 (compiles fast)
BATCH = 8
SIZE = 32 if QUICK else 112
STAGES = ((64, 1), (128, 1)) if QUICK else ((64, 2), (128, 2), (256, 2), (512, 2))
CLASSES = 1000
EPS = 2e-5
METRICS = {"img/s": "higher"}
GOAL = "xnd images/s >= MXNet's (xnd/MXNet >= 1.0); colleague: MXNet ~221, JAX twin ~127 img/s"
CHECKS = [("img/s", "mxnet", ">=", 1.0)]


def metrics(seconds, n, out):
    return {"img/s": BATCH * n / seconds}


def _layers():
    """[(kind, name, attrs)] in order: 'conv' (name, cin, cout, k, stride, pad), 'bn' (name, c)."""
    convs = [("conv0", 3, 64, 7, 2, 3)]
    cin = 64
    for s, (cout, blocks) in enumerate(STAGES):
        for b in range(blocks):
            stride = 2 if s > 0 and b == 0 else 1
            p = f"stage{s + 1}_unit{b + 1}"
            convs.append((p + "_conv1", cin, cout, 3, stride, 1))
            convs.append((p + "_conv2", cout, cout, 3, 1, 1))
            if stride != 1 or cin != cout:
                convs.append((p + "_sc", cin, cout, 1, stride, 0))
            cin = cout
    return convs, cin


@functools.cache
def _params():
    """Random weights (He-scaled) and BatchNorm statistics, keyed by MXNet argument names."""
    rng = np.random.default_rng(0)
    convs, feat = _layers()
    args, aux = {}, {}
    for name, cin, cout, k, _, _ in convs:
        args[name + "_weight"] = (rng.standard_normal((cout, cin, k, k))
                                  * np.sqrt(2.0 / (cin * k * k))).astype("float32")
        bn = name.replace("conv", "bn") if name.endswith(("conv0", "conv1", "conv2")) \
            else name + "_bn"
        args[bn + "_gamma"] = rng.uniform(0.5, 1.5, cout).astype("float32")
        args[bn + "_beta"] = (rng.standard_normal(cout) * 0.1).astype("float32")
        aux[bn + "_moving_mean"] = (rng.standard_normal(cout) * 0.1).astype("float32")
        aux[bn + "_moving_var"] = rng.uniform(0.5, 1.5, cout).astype("float32")
    args["fc1_weight"] = (rng.standard_normal((CLASSES, feat)) / np.sqrt(feat)).astype("float32")
    args["fc1_bias"] = (rng.standard_normal(CLASSES) * 0.1).astype("float32")
    data = rng.standard_normal((BATCH, 3, SIZE, SIZE)).astype("float32")
    return args, aux, data


def _bn_name(conv):
    return conv.replace("conv", "bn") if conv.endswith(("conv0", "conv1", "conv2")) \
        else conv + "_bn"


def build_symbol(mx):
    convs = {c[0]: c for c in _layers()[0]}

    def conv_bn(x, name, relu):
        _, _, cout, k, s, p = convs[name]
        x = mx.sym.Convolution(x, kernel=(k, k), stride=(s, s), pad=(p, p), num_filter=cout,
                               no_bias=True, name=name)
        x = mx.sym.BatchNorm(x, fix_gamma=False, eps=EPS, momentum=0.9, name=_bn_name(name))
        return mx.sym.Activation(x, act_type="relu", name=name + "_relu") if relu else x

    x = conv_bn(mx.sym.Variable("data"), "conv0", True)
    x = mx.sym.Pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max",
                       name="pool0")
    for s, (_, blocks) in enumerate(STAGES):
        for b in range(blocks):
            p = f"stage{s + 1}_unit{b + 1}"
            y = conv_bn(x, p + "_conv1", True)
            y = conv_bn(y, p + "_conv2", False)
            sc = conv_bn(x, p + "_sc", False) if p + "_sc" in convs else x
            x = mx.sym.Activation(y + sc, act_type="relu", name=p + "_relu")
    x = mx.sym.Pooling(x, kernel=(1, 1), global_pool=True, pool_type="avg", name="pool1")
    x = mx.sym.Flatten(x, name="flatten")
    x = mx.sym.FullyConnected(x, num_hidden=CLASSES, name="fc1")
    return mx.sym.SoftmaxOutput(x, name="softmax")


def _check(prob):
    return float((np.asarray(prob, "float64") * np.arange(CLASSES)).sum())


_EXE = {}


def _executor(mx):
    exe = _EXE.get("exe")
    if exe is None:
        args, aux, data = _params()
        exe = mx.sym.load_json(build_symbol(mx).tojson()).simple_bind(
            mx.cpu(), grad_req="null", data=(BATCH, 3, SIZE, SIZE))
        for k, v in args.items():
            exe.arg_dict[k][:] = v
        for k, v in aux.items():
            exe.aux_dict[k][:] = v
        exe.arg_dict["data"][:] = data
        _EXE["exe"] = exe
    return exe


def run_mx(mx, n):
    exe = _executor(mx)
    for _ in range(n):
        out = exe.forward(is_train=False)[0]
    mx.nd.waitall()
    return {"check": _check(out.asnumpy())}


@functools.cache
def _jax_net():
    import jax
    import jax.numpy as jnp
    from jax import lax
    convs, _ = _layers()
    spec = {c[0]: c for c in convs}

    def conv_bn(p, x, name, relu):
        _, _, _, _, s, pad = spec[name]
        y = lax.conv_general_dilated(x, p[name + "_weight"], (s, s), [(pad, pad)] * 2,
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        bn = _bn_name(name)
        scale = p[bn + "_gamma"] * lax.rsqrt(p[bn + "_moving_var"] + EPS)
        y = y * scale + (p[bn + "_beta"] - p[bn + "_moving_mean"] * scale)
        return jax.nn.relu(y) if relu else y

    def net(p, x):
        x = jnp.transpose(x, (0, 2, 3, 1))
        x = conv_bn(p, x, "conv0", True)
        x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                              ((0, 0), (1, 1), (1, 1), (0, 0)))
        for s, (_, blocks) in enumerate(STAGES):
            for b in range(blocks):
                q = f"stage{s + 1}_unit{b + 1}"
                y = conv_bn(p, x, q + "_conv1", True)
                y = conv_bn(p, y, q + "_conv2", False)
                sc = conv_bn(p, x, q + "_sc", False) if q + "_sc" in spec else x
                x = jax.nn.relu(y + sc)
        x = jnp.mean(x, axis=(1, 2))
        return jax.nn.softmax(x @ p["fc1_weight"].T + p["fc1_bias"], axis=-1)

    args, aux, data = _params()
    p = {k: jnp.asarray(v.transpose(2, 3, 1, 0) if v.ndim == 4 else v) for k, v in args.items()}
    p.update({k: jnp.asarray(v) for k, v in aux.items()})
    return jax.jit(net), p, jnp.asarray(data)


def run_jax(n):
    f, p, x = _jax_net()
    for _ in range(n):
        out = f(p, x)
    out.block_until_ready()
    return {"check": _check(out)}
