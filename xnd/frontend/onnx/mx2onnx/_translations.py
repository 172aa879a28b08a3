"""MXNet operator -> ONNX nodes (opset 13), one converter per MXNet operator.

A converter is ``fn(g, node, ins, outs, p)``: `g` is the graph being built (constants,
shapes, parameter values, fresh names), `node` the MXNet node, `ins`/`outs` the ONNX names
of its inputs/outputs, `p` its parsed attributes.  It appends ONNX nodes with ``g.add``.
``CONVERTERS`` maps every MXNet name (aliases included) to its converter; an operator that
is not there makes the export fail naming it."""
import numpy as np

from ....base import MXNetError
from .._common import registrar

CONVERTERS = {}
converts = registrar(CONVERTERS)


def _tup(v, n=None):
    if v is None:
        return []
    v = list(v) if isinstance(v, (tuple, list)) else [v]
    return v * n if n and len(v) == 1 else v


# ---- identity-like and elementwise ----------------------------------------------------------
@converts("Dropout", "BlockGrad", "stop_gradient", "_copy", "identity", "make_loss", "MakeLoss")
def _identity(g, node, ins, outs, p):
    g.add("Identity", ins[:1], outs[:1])


_UNARY = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "exp": "Exp", "log": "Log",
          "sqrt": "Sqrt", "abs": "Abs", "negative": "Neg", "floor": "Floor", "ceil": "Ceil",
          "sin": "Sin", "cos": "Cos", "tan": "Tan", "arcsin": "Asin", "arccos": "Acos",
          "arctan": "Atan", "erf": "Erf", "sign": "Sign", "round": "Round",
          "reciprocal": "Reciprocal", "softsign": "Softsign", "logical_not": "Not"}
for _mx, _ox in _UNARY.items():
    CONVERTERS[_mx] = (lambda ox: lambda g, node, ins, outs, p: g.add(ox, ins, outs[:1]))(_ox)


@converts("square")
def _square(g, node, ins, outs, p):
    g.add("Mul", [ins[0], ins[0]], outs[:1])


@converts("rsqrt")
def _rsqrt(g, node, ins, outs, p):
    t = g.fresh(node.name + "_sqrt")
    g.add("Sqrt", ins, [t])
    g.add("Reciprocal", [t], outs[:1])


_BINARY = {"Add": ("elemwise_add", "_plus", "_add", "broadcast_add", "broadcast_plus"),
           "Sub": ("elemwise_sub", "_minus", "_sub", "broadcast_sub", "broadcast_minus"),
           "Mul": ("elemwise_mul", "_mul", "broadcast_mul"),
           "Div": ("elemwise_div", "_div", "broadcast_div"),
           "Pow": ("_power", "broadcast_power"),
           "Max": ("_maximum", "broadcast_maximum"), "Min": ("_minimum", "broadcast_minimum")}
for _ox, _names in _BINARY.items():
    converts(*_names)((lambda ox: lambda g, node, ins, outs, p: g.add(ox, ins, outs[:1]))(_ox))

_COMPARE = {"Equal": ("_equal", "broadcast_equal"), "Greater": ("_greater", "broadcast_greater"),
            "Less": ("_lesser", "broadcast_lesser")}
for _ox, _names in _COMPARE.items():
    @converts(*_names)
    def _cmp(g, node, ins, outs, p, _ox=_ox):
        t = g.fresh(node.name + "_bool")
        g.add(_ox, ins, [t])
        g.add("Cast", [t], outs[:1], to=g.onnx_type(g.dtype_of(node, 0)))

_SCALAR = {"_plus_scalar": ("Add", False), "_minus_scalar": ("Sub", False),
           "_rminus_scalar": ("Sub", True), "_mul_scalar": ("Mul", False),
           "_div_scalar": ("Div", False), "_rdiv_scalar": ("Div", True),
           "_power_scalar": ("Pow", False), "_rpower_scalar": ("Pow", True),
           "_maximum_scalar": ("Max", False), "_minimum_scalar": ("Min", False)}
for _mx, (_ox, _rev) in _SCALAR.items():
    @converts(_mx)
    def _scalar(g, node, ins, outs, p, _ox=_ox, _rev=_rev):
        c = g.const(np.array(p["scalar"], dtype=g.dtype_of(node, 0)), node.name + "_scalar")
        g.add(_ox, [c, ins[0]] if _rev else [ins[0], c], outs[:1])


@converts("Cast", "cast", "amp_cast")
def _cast(g, node, ins, outs, p):
    g.add("Cast", ins, outs[:1], to=g.onnx_type(np.dtype(p["dtype"])))


@converts("clip")
def _clip(g, node, ins, outs, p):
    dt = g.dtype_of(node, 0)
    lo = g.const(np.array(p["a_min"], dtype=dt), node.name + "_min")
    hi = g.const(np.array(p["a_max"], dtype=dt), node.name + "_max")
    g.add("Clip", [ins[0], lo, hi], outs[:1])


# ---- activations ------------------------------------------------------------------------
_ACT = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "softrelu": "Softplus",
        "softsign": "Softsign"}


@converts("Activation")
def _activation(g, node, ins, outs, p):
    g.add(_ACT[p["act_type"]], ins, outs[:1])


@converts("LeakyReLU")
def _leaky(g, node, ins, outs, p):
    act = p["act_type"]
    if act == "leaky":
        g.add("LeakyRelu", ins[:1], outs[:1], alpha=float(p["slope"]))
    elif act == "elu":
        g.add("Elu", ins[:1], outs[:1], alpha=float(p["slope"]))
    elif act == "selu":
        g.add("Selu", ins[:1], outs[:1], alpha=1.6732632423543772, gamma=1.0507009873554805)
    elif act == "prelu":
        rank = len(g.shape_of_input(node, 0))
        slope = ins[1]
        if rank > 2:  # gamma (C,) against NCHW: (C, 1, 1)
            shape = g.const(np.array([-1] + [1] * (rank - 2), np.int64), node.name + "_gshape")
            slope = g.fresh(node.name + "_gamma")
            g.add("Reshape", [ins[1], shape], [slope])
        g.add("PRelu", [ins[0], slope], outs[:1])
    elif act == "gelu":
        dt = g.dtype_of(node, 0)
        x = ins[0]
        t1, t2, t3, t4 = (g.fresh(node.name + s) for s in ("_s", "_erf", "_p1", "_x"))
        g.add("Mul", [x, g.const(np.array(1 / np.sqrt(2), dt), node.name + "_c")], [t1])
        g.add("Erf", [t1], [t2])
        g.add("Add", [t2, g.const(np.array(1, dt), node.name + "_one")], [t3])
        g.add("Mul", [x, t3], [t4])
        g.add("Mul", [t4, g.const(np.array(0.5, dt), node.name + "_half")], outs[:1])
    else:
        raise MXNetError("export_model: LeakyReLU act_type %r has no ONNX translation" % act)


@converts("softmax", "Softmax", "SoftmaxActivation", "log_softmax")
def _softmax(g, node, ins, outs, p):
    op = "LogSoftmax" if node.op.name == "log_softmax" else "Softmax"
    if node.op.name == "SoftmaxActivation":
        axis = 1 if p.get("mode") == "channel" else -1
    else:
        axis = p.get("axis", -1)
    x = ins[0]
    temp = p.get("temperature")
    if temp not in (None, 1.0):
        x = g.fresh(node.name + "_t")
        g.add("Div", [ins[0], g.const(np.array(temp, g.dtype_of(node, 0)), node.name + "_T")],
              [x])
    g.add(op, [x], outs[:1], axis=int(axis))


@converts("SoftmaxOutput")
def _softmax_output(g, node, ins, outs, p):
    # inference: the softmax of the data over the channel axis (the label is not an input)
    g.add("Softmax", ins[:1], outs[:1], axis=1 if p.get("multi_output") else -1)


@converts("LinearRegressionOutput", "MAERegressionOutput")
def _regression(g, node, ins, outs, p):
    g.add("Identity", ins[:1], outs[:1])


@converts("LogisticRegressionOutput")
def _logistic(g, node, ins, outs, p):
    g.add("Sigmoid", ins[:1], outs[:1])


# ---- layers -----------------------------------------------------------------------------
@converts("FullyConnected")
def _fc(g, node, ins, outs, p):
    x = ins[0]
    if p["flatten"]:
        if len(g.shape_of_input(node, 0)) != 2:
            x = g.fresh(node.name + "_flatten")
            g.add("Flatten", [ins[0]], [x], axis=1)
        args = [x, ins[1]] + ([] if p["no_bias"] else [ins[2]])
        g.add("Gemm", args, outs[:1], alpha=1.0, beta=1.0, transA=0, transB=1)
        return
    w = g.param_value(node, 1)
    if w is not None:   # the transposed weight as a constant
        wt = g.const(np.ascontiguousarray(w.T), node.name + "_weight_T")
    else:
        wt = g.fresh(node.name + "_wT")
        g.add("Transpose", [ins[1]], [wt], perm=[1, 0])
    if p["no_bias"]:
        g.add("MatMul", [x, wt], outs[:1])
    else:
        t = g.fresh(node.name + "_mm")
        g.add("MatMul", [x, wt], [t])
        g.add("Add", [t, ins[2]], outs[:1])


@converts("Convolution")
def _conv(g, node, ins, outs, p):
    k = list(p["kernel"])
    n = len(k)
    pad = _tup(p.get("pad"), n) or [0] * n
    if p.get("layout") not in (None, "NCW", "NCHW", "NCDHW"):
        raise MXNetError("export_model: Convolution %s: layout %s has no ONNX translation"
                         % (node.name, p["layout"]))
    args = ins[:2] + ([] if p["no_bias"] else ins[2:3])
    g.add("Conv", args, outs[:1], kernel_shape=k, strides=_tup(p.get("stride"), n) or [1] * n,
          dilations=_tup(p.get("dilate"), n) or [1] * n, pads=pad + pad,
          group=int(p.get("num_group", 1)))


@converts("Deconvolution")
def _deconv(g, node, ins, outs, p):
    k = list(p["kernel"])
    n = len(k)
    pad = _tup(p.get("pad"), n) or [0] * n
    attrs = dict(kernel_shape=k, strides=_tup(p.get("stride"), n) or [1] * n,
                 dilations=_tup(p.get("dilate"), n) or [1] * n, pads=pad + pad,
                 group=int(p.get("num_group", 1)))
    adj = _tup(p.get("adj"), n)
    if adj and any(adj):
        attrs["output_padding"] = adj
    g.add("ConvTranspose", ins[:2] + ([] if p["no_bias"] else ins[2:3]), outs[:1], **attrs)


@converts("BatchNorm")
def _batchnorm(g, node, ins, outs, p):
    if p.get("axis", 1) != 1:
        raise MXNetError("export_model: BatchNorm %s: axis %s has no ONNX translation (only 1)"
                         % (node.name, p["axis"]))
    gamma = ins[1]
    if p["fix_gamma"]:  # MXNet uses 1 whatever gamma holds
        gamma = g.const(np.ones(g.shape_of_input(node, 1), g.dtype_of_input(node, 1)),
                        node.name + "_gamma_fixed")
    g.add("BatchNormalization", [ins[0], gamma, ins[2], ins[3], ins[4]], outs[:1],
          epsilon=float(p["eps"]), momentum=float(p["momentum"]))


@converts("InstanceNorm")
def _instancenorm(g, node, ins, outs, p):
    g.add("InstanceNormalization", ins[:3], outs[:1], epsilon=float(p["eps"]))


@converts("LayerNorm")
def _layernorm(g, node, ins, outs, p):
    dt = g.dtype_of(node, 0)
    axis = p.get("axis", -1)
    rank = len(g.shape_of_input(node, 0))
    axis = axis % rank
    x = ins[0]
    mean, d, sq, var, ve, sd, nrm, sc = (g.fresh(node.name + s) for s in (
        "_mean", "_d", "_sq", "_var", "_ve", "_sd", "_n", "_sc"))
    g.add("ReduceMean", [x], [mean], axes=[axis], keepdims=1)
    g.add("Sub", [x, mean], [d])
    g.add("Mul", [d, d], [sq])
    g.add("ReduceMean", [sq], [var], axes=[axis], keepdims=1)
    g.add("Add", [var, g.const(np.array(p["eps"], dt), node.name + "_eps")], [ve])
    g.add("Sqrt", [ve], [sd])
    g.add("Div", [d, sd], [nrm])
    shape = [1] * rank
    shape[axis] = -1
    gshape = g.const(np.array(shape, np.int64), node.name + "_pshape")
    gam, bet = g.fresh(node.name + "_g"), g.fresh(node.name + "_b")
    g.add("Reshape", [ins[1], gshape], [gam])
    g.add("Reshape", [ins[2], gshape], [bet])
    g.add("Mul", [nrm, gam], [sc])
    g.add("Add", [sc, bet], outs[:1])


@converts("Pooling")
def _pooling(g, node, ins, outs, p):
    kind = p["pool_type"]
    if p.get("layout") not in (None, "NCW", "NCHW", "NCDHW"):
        raise MXNetError("export_model: Pooling %s: layout %s has no ONNX translation"
                         % (node.name, p["layout"]))
    if p["global_pool"]:
        op = {"max": "GlobalMaxPool", "avg": "GlobalAveragePool"}.get(kind)
        if op is None:
            raise MXNetError("export_model: Pooling pool_type %r has no ONNX translation" % kind)
        g.add(op, ins, outs[:1])
        return
    k = list(p["kernel"])
    n = len(k)
    pad = _tup(p.get("pad"), n) or [0] * n
    attrs = dict(kernel_shape=k, strides=_tup(p.get("stride"), n) or [1] * n, pads=pad + pad,
                 ceil_mode=1 if p.get("pooling_convention") == "full" else 0)
    if kind == "max":
        g.add("MaxPool", ins, outs[:1], **attrs)
    elif kind == "avg":
        g.add("AveragePool", ins, outs[:1],
              count_include_pad=0 if p.get("count_include_pad") is False else 1, **attrs)
    elif kind == "lp":
        g.add("LpPool", ins, outs[:1], p=int(p.get("p_value") or 2),
              **{k_: v for k_, v in attrs.items() if k_ != "ceil_mode"})
    else:
        raise MXNetError("export_model: Pooling pool_type %r has no ONNX translation" % kind)


@converts("Flatten", "flatten")
def _flatten(g, node, ins, outs, p):
    g.add("Flatten", ins, outs[:1], axis=1)


@converts("Concat", "concat")
def _concat(g, node, ins, outs, p):
    g.add("Concat", ins, outs[:1], axis=int(p.get("dim", 1)))


@converts("Embedding")
def _embedding(g, node, ins, outs, p):
    idx = g.fresh(node.name + "_idx")
    g.add("Cast", [ins[0]], [idx], to=g.onnx_type(np.int64))
    g.add("Gather", [ins[1], idx], outs[:1], axis=0)


# ---- shapes -----------------------------------------------------------------------------
def _static_shape(g, node, ins, outs):
    shape = g.const(np.array(g.shape_of(node, 0), np.int64), node.name + "_shape")
    g.add("Reshape", [ins[0], shape], outs[:1])


@converts("Reshape", "reshape")
def _reshape(g, node, ins, outs, p):
    spec = list(p.get("shape") or ())
    if g.dynamic and spec and all(s >= -1 for s in spec) and not p.get("reverse"):
        g.add("Reshape", [ins[0], g.const(np.array(spec, np.int64), node.name + "_shape")],
              outs[:1])  # 0 copies a dimension and -1 infers one in ONNX too
    else:
        _static_shape(g, node, ins, outs)


@converts("transpose")
def _transpose(g, node, ins, outs, p):
    axes = list(p.get("axes") or ())
    if not axes:
        axes = list(range(len(g.shape_of_input(node, 0))))[::-1]
    g.add("Transpose", ins, outs[:1], perm=axes)


@converts("expand_dims")
def _expand_dims(g, node, ins, outs, p):
    g.add("Unsqueeze", [ins[0], g.const(np.array([p["axis"]], np.int64), node.name + "_ax")],
          outs[:1])


@converts("squeeze")
def _squeeze(g, node, ins, outs, p):
    axis = p.get("axis")
    if axis is None:
        g.add("Squeeze", ins[:1], outs[:1])
    else:
        g.add("Squeeze", [ins[0], g.const(np.array(_tup(axis), np.int64), node.name + "_ax")],
              outs[:1])


@converts("SwapAxis", "swapaxes")
def _swapaxes(g, node, ins, outs, p):
    perm = list(range(len(g.shape_of_input(node, 0))))
    a, b = p.get("dim1", 0), p.get("dim2", 0)
    perm[a], perm[b] = perm[b], perm[a]
    g.add("Transpose", ins, outs[:1], perm=perm)


@converts("slice_axis")
def _slice_axis(g, node, ins, outs, p):
    end = p.get("end")
    end = np.iinfo(np.int64).max if end is None else end
    c = lambda v, s: g.const(np.array([v], np.int64), node.name + s)
    g.add("Slice", [ins[0], c(p["begin"], "_b"), c(end, "_e"), c(p["axis"], "_a")], outs[:1])


@converts("SliceChannel", "split")
def _split(g, node, ins, outs, p):
    axis = int(p.get("axis", 1))
    n = int(p["num_outputs"])
    size = g.shape_of_input(node, 0)[axis] // n
    split = g.const(np.array([size] * n, np.int64), node.name + "_split")
    if p.get("squeeze_axis"):
        parts = [g.fresh(o + "_unsq") for o in outs]
        g.add("Split", [ins[0], split], parts, axis=axis)
        ax = g.const(np.array([axis], np.int64), node.name + "_ax")
        for part, o in zip(parts, outs):
            g.add("Squeeze", [part, ax], [o])
    else:
        g.add("Split", [ins[0], split], outs, axis=axis)


_REDUCE = {"sum": "ReduceSum", "mean": "ReduceMean", "max": "ReduceMax", "min": "ReduceMin",
           "prod": "ReduceProd"}


@converts(*_REDUCE)
def _reduce(g, node, ins, outs, p):
    op = _REDUCE[node.op.name]
    rank = len(g.shape_of_input(node, 0))
    axis = p.get("axis")
    axes = list(range(rank)) if axis is None or axis == () else [a % rank for a in _tup(axis)]
    if p.get("exclude"):
        axes = [a for a in range(rank) if a not in axes]
    keep = 1 if p.get("keepdims") else 0
    if op == "ReduceSum":  # opset 13 takes ReduceSum's axes as an input
        g.add(op, [ins[0], g.const(np.array(axes, np.int64), node.name + "_axes")], outs[:1],
              keepdims=keep)
    else:
        g.add(op, ins[:1], outs[:1], axes=axes, keepdims=keep)


@converts("dot", "batch_dot")
def _dot(g, node, ins, outs, p):
    a, b = ins[0], ins[1]
    ra, rb = len(g.shape_of_input(node, 0)), len(g.shape_of_input(node, 1))
    if node.op.name == "dot" and (ra > 2 or rb > 2) and not (ra == 2 and rb == 2):
        if p.get("transpose_a") or p.get("transpose_b") or rb != 2:
            raise MXNetError("export_model: dot %s of ranks %d and %d has no ONNX translation"
                             % (node.name, ra, rb))
    for flag, name, rank, i in (("transpose_a", "a", ra, 0), ("transpose_b", "b", rb, 1)):
        if p.get(flag):
            t = g.fresh(node.name + "_" + name + "T")
            perm = list(range(rank))
            perm[-1], perm[-2] = perm[-2], perm[-1]
            g.add("Transpose", [ins[i]], [t], perm=perm)
            if i == 0:
                a = t
            else:
                b = t
    g.add("MatMul", [a, b], outs[:1])


# ---- recurrent layers -----------------------------------------------------------------------
# MXNet's gate blocks -> ONNX's: LSTM i,f,g,o -> i,o,f,c; GRU r,z,n -> z,r,h
_GATES = {"lstm": (4, [0, 3, 1, 2], "LSTM"), "gru": (3, [1, 0, 2], "GRU"),
          "rnn_tanh": (1, [0], "RNN"), "rnn_relu": (1, [0], "RNN")}


@converts("RNN")
def _rnn(g, node, ins, outs, p):
    mode = p["mode"]
    if p.get("projection_size") or p.get("use_sequence_length") or \
            p.get("lstm_state_clip_min") is not None:
        raise MXNetError("export_model: RNN %s: projection, sequence lengths and state "
                         "clipping have no ONNX translation" % node.name)
    ngates, order, op = _GATES[mode]
    flat = g.param_value(node, 1)
    if flat is None:
        raise MXNetError("export_model: RNN %s: its parameters must be given in params (the "
                         "ONNX recurrent ops take their weights as constants here)" % node.name)
    T, N, I = g.shape_of_input(node, 0)
    H, L = int(p["state_size"]), int(p["num_layers"])
    D = 2 if p["bidirectional"] else 1
    dt = flat.dtype
    weights, pos = [], 0
    for layer in range(L):
        isz = I if layer == 0 else H * D
        for _ in range(D):
            w = flat[pos:pos + ngates * H * isz].reshape(ngates * H, isz)
            pos += w.size
            r = flat[pos:pos + ngates * H * H].reshape(ngates * H, H)
            pos += r.size
            weights.append([w, r])
    for layer in range(L):
        for d in range(D):
            bw = flat[pos:pos + ngates * H]
            pos += ngates * H
            br = flat[pos:pos + ngates * H]
            pos += ngates * H
            weights[layer * D + d] += [bw, br]

    def reorder(a):
        blocks = np.split(a, ngates, axis=0)
        return np.concatenate([blocks[i] for i in order], axis=0)

    x = ins[0]
    h_all, c_all = ins[2], ins[3] if mode == "lstm" else None
    hs, cs = [], []
    for layer in range(L):
        ws = weights[layer * D:(layer + 1) * D]
        W = g.const(np.stack([reorder(w[0]) for w in ws]).astype(dt), "%s_l%d_W" % (node.name, layer))
        R = g.const(np.stack([reorder(w[1]) for w in ws]).astype(dt), "%s_l%d_R" % (node.name, layer))
        B = g.const(np.stack([np.concatenate([reorder(w[2]), reorder(w[3])]) for w in ws])
                    .astype(dt), "%s_l%d_B" % (node.name, layer))
        sl = lambda src, tag: _slice_states(g, node, src, layer * D, (layer + 1) * D,
                                            "%s_l%d_%s" % (node.name, layer, tag))
        args = [x, W, R, B, "", sl(h_all, "h0")]
        attrs = dict(hidden_size=H, direction="bidirectional" if D == 2 else "forward")
        if mode == "lstm":
            args.append(sl(c_all, "c0"))
        elif mode == "gru":
            attrs["linear_before_reset"] = 1
        else:
            attrs["activations"] = ["Tanh" if mode == "rnn_tanh" else "Relu"] * D
        y, yh = g.fresh("%s_l%d_Y" % (node.name, layer)), g.fresh("%s_l%d_Yh" % (node.name, layer))
        res = [y, yh]
        if mode == "lstm":
            res.append(g.fresh("%s_l%d_Yc" % (node.name, layer)))
            cs.append(res[2])
        hs.append(yh)
        g.add(op, args, res, **attrs)
        # (T, D, N, H) -> (T, N, D*H)
        yt = g.fresh("%s_l%d_Yt" % (node.name, layer))
        g.add("Transpose", [y], [yt], perm=[0, 2, 1, 3])
        x = outs[0] if layer == L - 1 else g.fresh("%s_l%d_out" % (node.name, layer))
        g.add("Reshape", [yt, g.const(np.array([0, 0, D * H], np.int64),
                                      "%s_l%d_shape" % (node.name, layer))], [x])
    if p.get("state_outputs"):
        for states, o in ((hs, outs[1] if len(outs) > 1 else None),
                          (cs, outs[2] if len(outs) > 2 else None)):
            if o is None:
                continue
            if len(states) == 1:
                g.add("Identity", states, [o])
            else:
                g.add("Concat", states, [o], axis=0)


def _slice_states(g, node, src, begin, end, name):
    out = g.fresh(name)
    c = lambda v, s: g.const(np.array([v], np.int64), name + s)
    g.add("Slice", [src, c(begin, "_b"), c(end, "_e"), c(0, "_a")], [out])
    return out
