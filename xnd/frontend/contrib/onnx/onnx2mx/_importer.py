"""ONNX -> MXNet Symbol and parameters (``mx.contrib.onnx.import_model``): the importer
behind the onnx2mx package's modules.

Each ONNX node becomes the MXNet operator that computes it (a table, ``_IMPORTERS``); the
initializers become ``arg_params`` (BatchNormalization's mean and variance ``aux_params``),
except the small constants that MXNet keeps as attributes (shapes, axes, clip bounds,
scalars).  Names: a node's MXNet name is its first ONNX output's name, a parameter keeps its
initializer's name.  Covers what ``mx.onnx.export_model`` writes and the common operators
of other exporters; any other operator fails with MXNetError naming it."""
import numpy as np

from .....base import MXNetError
from ....onnx._common import registrar, require_onnx as _onnx

__all__ = ["import_model", "get_model_metadata", "import_to_gluon"]

_IMPORTERS = {}
_imports = registrar(_IMPORTERS)


class _Importer:
    def __init__(self, model):
        from ..... import symbol as sym
        onnx = _onnx()
        self.sym, self.onnx = sym, onnx
        graph = model.graph
        self.consts = {t.name: onnx.numpy_helper.to_array(t) for t in graph.initializer}
        self.values = {}           # ONNX name -> Symbol
        self.used_params = {}      # name -> numpy value (initializers used as tensors)
        self.aux = set()
        for node in graph.node:    # Constant nodes are initializers too
            if node.op_type == "Constant":
                self.consts[node.output[0]] = onnx.numpy_helper.to_array(
                    onnx.helper.get_attribute_value(node.attribute[0]))
        self.inputs = [i for i in graph.input if i.name not in self.consts]
        for i in self.inputs:
            self.values[i.name] = sym.Variable(i.name)
        for node in graph.node:
            if node.op_type == "Constant":
                continue
            if node.op_type == "Transpose" and node.input[0] in self.consts:
                perm = [a.ints for a in node.attribute if a.name == "perm"]
                self.consts[node.output[0]] = np.ascontiguousarray(np.transpose(
                    self.consts[node.input[0]], list(perm[0]) if perm else None))
                continue
            fn = _IMPORTERS.get(node.op_type)
            if fn is None:
                raise MXNetError("import_model: no MXNet translation for the ONNX operator %r "
                                 "(node %r)" % (node.op_type, node.name or node.output[0]))
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            res = fn(self, node, attrs)
            res = res if isinstance(res, (list, tuple)) else [res]
            for name, s in zip(node.output, res):
                if name:
                    self.values[name] = s
        outs = [self.values[o.name] for o in graph.output]
        self.symbol = outs[0] if len(outs) == 1 else sym.Group(outs)

    # ---- helpers used by the translations ---------------------------------------------------
    def t(self, name, aux=False):
        """The Symbol of an ONNX tensor (an initializer becomes a parameter variable)."""
        if name not in self.values:
            if name not in self.consts:
                raise MXNetError("import_model: tensor %r is neither an input, an initializer "
                                 "nor a node output" % name)
            self.values[name] = self.sym.Variable(name)
            self.used_params[name] = self.consts[name]
        if aux:
            self.aux.add(name)
        return self.values[name]

    def const(self, name):
        if name not in self.consts:
            raise MXNetError("import_model: %r must be a constant (an initializer) for MXNet"
                             % name)
        return self.consts[name]

    @staticmethod
    def name(node):
        return node.output[0]


def _pads(attrs, n):
    pads = list(attrs.get("pads", [0] * (2 * n)))
    if pads[:n] != pads[n:]:
        raise MXNetError("import_model: asymmetric pads %s have no MXNet translation" % pads)
    return tuple(pads[:n])


@_imports("Conv", "ConvTranspose")
def _conv(im, node, a):
    w = im.const(node.input[1])
    k = tuple(a.get("kernel_shape", w.shape[2:]))
    n = len(k)
    kw = dict(kernel=k, stride=tuple(a.get("strides", [1] * n)),
              dilate=tuple(a.get("dilations", [1] * n)), pad=_pads(a, n),
              num_group=int(a.get("group", 1)), no_bias=len(node.input) < 3,
              name=im.name(node))
    args = [im.t(node.input[0]), im.t(node.input[1])] + \
        ([im.t(node.input[2])] if len(node.input) > 2 else [])
    if node.op_type == "Conv":
        return im.sym.Convolution(*args, num_filter=w.shape[0], **kw)
    if a.get("output_padding"):
        kw["adj"] = tuple(a["output_padding"])
    return im.sym.Deconvolution(*args, num_filter=w.shape[1] * kw["num_group"], **kw)


@_imports("Gemm")
def _gemm(im, node, a):
    if a.get("transA", 0) or a.get("alpha", 1.0) != 1.0 or a.get("beta", 1.0) != 1.0:
        raise MXNetError("import_model: Gemm with transA/alpha/beta has no MXNet translation")
    wname = node.input[1]
    if not a.get("transB", 0):  # MXNet's weight is (out, in)
        wname = wname + "_T"
        im.consts[wname] = np.ascontiguousarray(im.const(node.input[1]).T)
    w = im.consts[wname] if wname in im.consts else im.const(wname)
    args = [im.t(node.input[0]), im.t(wname)]
    if len(node.input) > 2:
        args.append(im.t(node.input[2]))
    return im.sym.FullyConnected(*args, num_hidden=w.shape[0], no_bias=len(args) < 3,
                                 flatten=True, name=im.name(node))


@_imports("BatchNormalization")
def _bn(im, node, a):
    x, gamma, beta, mean, var = node.input[:5]
    return im.sym.BatchNorm(im.t(x), im.t(gamma), im.t(beta), im.t(mean, aux=True),
                            im.t(var, aux=True), eps=float(a.get("epsilon", 1e-5)),
                            momentum=float(a.get("momentum", 0.9)), fix_gamma=False,
                            name=im.name(node))


_ACTS = {"Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Softplus": "softrelu",
         "Softsign": "softsign"}


@_imports(*_ACTS)
def _act(im, node, a):
    return im.sym.Activation(im.t(node.input[0]), act_type=_ACTS[node.op_type],
                             name=im.name(node))


@_imports("LeakyRelu", "Elu")
def _leaky(im, node, a):
    act = "leaky" if node.op_type == "LeakyRelu" else "elu"
    return im.sym.LeakyReLU(im.t(node.input[0]), act_type=act,
                            slope=float(a.get("alpha", 0.01 if act == "leaky" else 1.0)),
                            name=im.name(node))


@_imports("PRelu")
def _prelu(im, node, a):
    slope = im.const(node.input[1]).reshape(-1)
    im.consts[node.input[1] + "_flat"] = slope
    return im.sym.LeakyReLU(im.t(node.input[0]), im.t(node.input[1] + "_flat"),
                            act_type="prelu", name=im.name(node))


@_imports("MaxPool", "AveragePool", "GlobalMaxPool", "GlobalAveragePool")
def _pool(im, node, a):
    kind = "max" if "Max" in node.op_type else "avg"
    if node.op_type.startswith("Global"):
        return im.sym.Pooling(im.t(node.input[0]), kernel=(1, 1), pool_type=kind,
                              global_pool=True, name=im.name(node))
    k = tuple(a["kernel_shape"])
    n = len(k)
    kw = dict(kernel=k, stride=tuple(a.get("strides", [1] * n)), pad=_pads(a, n),
              pool_type=kind, pooling_convention="full" if a.get("ceil_mode") else "valid")
    if kind == "avg":
        kw["count_include_pad"] = bool(a.get("count_include_pad", 0))
    return im.sym.Pooling(im.t(node.input[0]), name=im.name(node), **kw)


@_imports("Flatten")
def _flatten(im, node, a):
    if a.get("axis", 1) != 1:
        raise MXNetError("import_model: Flatten axis %s has no MXNet translation" % a["axis"])
    return im.sym.Flatten(im.t(node.input[0]), name=im.name(node))


@_imports("Concat")
def _concat(im, node, a):
    return im.sym.Concat(*[im.t(i) for i in node.input], dim=int(a.get("axis", 1)),
                         name=im.name(node))


_BIN = {"Add": ("broadcast_add", "_plus_scalar", "_plus_scalar"),
        "Sub": ("broadcast_sub", "_minus_scalar", "_rminus_scalar"),
        "Mul": ("broadcast_mul", "_mul_scalar", "_mul_scalar"),
        "Div": ("broadcast_div", "_div_scalar", "_rdiv_scalar"),
        "Pow": ("broadcast_power", "_power_scalar", "_rpower_scalar"),
        "Max": ("broadcast_maximum", "_maximum_scalar", "_maximum_scalar"),
        "Min": ("broadcast_minimum", "_minimum_scalar", "_minimum_scalar")}


@_imports(*_BIN)
def _binary(im, node, a):
    full, right, left = _BIN[node.op_type]
    x, y = node.input[:2]
    for scalar_in, other, op in ((y, x, right), (x, y, left)):
        if scalar_in in im.consts and im.consts[scalar_in].size == 1 and other not in im.consts:
            return getattr(im.sym, op)(im.t(other), scalar=float(im.consts[scalar_in]),
                                       name=im.name(node))
    return getattr(im.sym, full)(im.t(x), im.t(y), name=im.name(node))


_UN = {"Exp": "exp", "Log": "log", "Sqrt": "sqrt", "Abs": "abs", "Neg": "negative",
       "Floor": "floor", "Ceil": "ceil", "Erf": "erf", "Reciprocal": "reciprocal",
       "Sin": "sin", "Cos": "cos", "Identity": "identity", "Dropout": "identity",
       "Sign": "sign", "Round": "round"}


@_imports(*_UN)
def _unary(im, node, a):
    op = _UN[node.op_type]
    if op == "identity":
        return im.sym.identity(im.t(node.input[0]), name=im.name(node))
    return getattr(im.sym, op)(im.t(node.input[0]), name=im.name(node))


@_imports("Softmax", "LogSoftmax")
def _softmax(im, node, a):
    f = im.sym.softmax if node.op_type == "Softmax" else im.sym.log_softmax
    return f(im.t(node.input[0]), axis=int(a.get("axis", -1)), name=im.name(node))


@_imports("Clip")
def _clip(im, node, a):
    lo = float(im.const(node.input[1])) if len(node.input) > 1 and node.input[1] else \
        float(a.get("min", -np.inf))
    hi = float(im.const(node.input[2])) if len(node.input) > 2 and node.input[2] else \
        float(a.get("max", np.inf))
    return im.sym.clip(im.t(node.input[0]), a_min=lo, a_max=hi, name=im.name(node))


@_imports("Reshape")
def _reshape(im, node, a):
    shape = tuple(int(s) for s in im.const(node.input[1]))
    return im.sym.reshape(im.t(node.input[0]), shape=shape, name=im.name(node))


@_imports("Transpose")
def _transpose(im, node, a):
    perm = a.get("perm")
    return im.sym.transpose(im.t(node.input[0]), axes=tuple(perm) if perm else (),
                            name=im.name(node))


@_imports("Unsqueeze", "Squeeze")
def _unsqueeze(im, node, a):
    axes = [int(v) for v in im.const(node.input[1])] if len(node.input) > 1 else \
        list(a.get("axes", []))
    x = im.t(node.input[0])
    if node.op_type == "Squeeze":
        return im.sym.squeeze(x, axis=tuple(axes) if axes else None, name=im.name(node))
    for k, ax in enumerate(sorted(axes)):
        x = im.sym.expand_dims(x, axis=ax, name=im.name(node) if k == len(axes) - 1 else None)
    return x


@_imports("Cast")
def _cast(im, node, a):
    dt = im.onnx.helper.tensor_dtype_to_np_dtype(a["to"])
    return im.sym.Cast(im.t(node.input[0]), dtype=np.dtype(dt).name, name=im.name(node))


@_imports("Gather")
def _gather(im, node, a):
    data, idx = node.input[:2]
    axis = int(a.get("axis", 0))
    if data in im.consts and axis == 0 and im.consts[data].ndim == 2:
        w = im.consts[data]
        return im.sym.Embedding(im.t(idx), im.t(data), input_dim=w.shape[0],
                                output_dim=w.shape[1], name=im.name(node))
    return im.sym.take(im.t(data), im.t(idx), axis=axis, name=im.name(node))


@_imports("MatMul")
def _matmul(im, node, a):
    x, y = im.t(node.input[0]), im.t(node.input[1])
    if node.input[1] in im.consts and im.consts[node.input[1]].ndim == 2:
        return im.sym.dot(x, y, name=im.name(node))   # (..., k) x (k, n)
    return im.sym.batch_dot(x, y, name=im.name(node))


@_imports("Slice")
def _slice(im, node, a):
    starts = im.const(node.input[1])
    ends = im.const(node.input[2])
    axes = im.const(node.input[3]) if len(node.input) > 3 else range(len(starts))
    if len(node.input) > 4 and any(int(s) != 1 for s in im.const(node.input[4])):
        raise MXNetError("import_model: Slice with steps has no MXNet translation here")
    x = im.t(node.input[0])
    for b, e, ax in zip(starts, ends, axes):
        e = None if int(e) >= np.iinfo(np.int32).max else int(e)
        x = im.sym.slice_axis(x, axis=int(ax), begin=int(b), end=e)
    return x


@_imports("Split")
def _split(im, node, a):
    axis = int(a.get("axis", 0))
    n = len(node.output)
    if len(node.input) > 1 and node.input[1]:
        sizes = [int(s) for s in im.const(node.input[1])]
        if len(set(sizes)) != 1:
            raise MXNetError("import_model: Split into unequal parts has no MXNet translation")
    out = im.sym.split(im.t(node.input[0]), num_outputs=n, axis=axis, name=im.name(node))
    return [out[i] for i in range(n)]


_RED = {"ReduceSum": "sum", "ReduceMean": "mean", "ReduceMax": "max", "ReduceMin": "min",
        "ReduceProd": "prod"}


@_imports(*_RED)
def _reduce(im, node, a):
    axes = a.get("axes")
    if axes is None and len(node.input) > 1 and node.input[1]:
        axes = [int(v) for v in im.const(node.input[1])]
    kw = dict(keepdims=bool(a.get("keepdims", 1)), name=im.name(node))
    if axes:
        kw["axis"] = tuple(axes)
    return getattr(im.sym, _RED[node.op_type])(im.t(node.input[0]), **kw)


# ONNX gate blocks -> MXNet's (inverse of the export's orders)
_RNN = {"LSTM": ("lstm", 4, [0, 2, 3, 1]), "GRU": ("gru", 3, [1, 0, 2]), "RNN": (None, 1, [0])}


@_imports("LSTM", "GRU", "RNN")
def _rnn(im, node, a):
    mode, ngates, order = _RNN[node.op_type]
    if mode is None:
        acts = [s.decode() if isinstance(s, bytes) else s for s in a.get("activations", ["Tanh"])]
        mode = "rnn_relu" if acts[0].lower() == "relu" else "rnn_tanh"
    H = int(a["hidden_size"])
    D = 2 if a.get("direction", b"forward") in (b"bidirectional", "bidirectional") else 1
    W, R = im.const(node.input[1]), im.const(node.input[2])
    B = im.const(node.input[3]) if len(node.input) > 3 and node.input[3] else \
        np.zeros((D, 2 * ngates * H), W.dtype)

    def reorder(x):
        blocks = np.split(x, ngates, axis=0)
        return np.concatenate([blocks[i] for i in order], axis=0)
    flat = []
    for d in range(D):
        flat += [reorder(W[d]).ravel(), reorder(R[d]).ravel()]
    for d in range(D):
        flat += [reorder(B[d][:ngates * H]), reorder(B[d][ngates * H:])]
    pname = im.name(node) + "_parameters"
    im.consts[pname] = np.concatenate(flat).astype(W.dtype)
    if len(node.input) > 4 and node.input[4]:
        raise MXNetError("import_model: %s with sequence_lens has no MXNet translation"
                         % node.op_type)
    args = [im.t(node.input[0]), im.t(pname)]
    if len(node.input) > 5 and node.input[5]:
        args.append(im.t(node.input[5]))
    else:
        raise MXNetError("import_model: %s without an initial state input has no MXNet "
                         "translation here" % node.op_type)
    if mode == "lstm":
        if not (len(node.input) > 6 and node.input[6]):
            raise MXNetError("import_model: LSTM without an initial cell state input has no "
                             "MXNet translation here")
        args.append(im.t(node.input[6]))
    out = im.sym.RNN(*args, state_size=H, num_layers=1, bidirectional=D == 2, mode=mode,
                     state_outputs=True, name=im.name(node))
    # MXNet's (T, N, D*H) -> ONNX's Y (T, D, N, H)
    y = im.sym.transpose(im.sym.reshape(out[0], shape=(0, 0, D, H)), axes=(0, 2, 1, 3))
    res = [y, out[1]]
    if mode == "lstm":
        res.append(out[2])
    return res


def _load(model_file):
    onnx = _onnx()
    return onnx.load(model_file) if isinstance(model_file, str) else model_file


def import_model(model_file):
    """``(sym, arg_params, aux_params)`` of an ONNX model file (or ModelProto)."""
    from .... import ndarray as nd
    im = _Importer(_load(model_file))
    args, auxs = set(im.symbol.list_arguments()), set(im.symbol.list_auxiliary_states())
    arg = {k: nd.array(v, dtype=v.dtype) for k, v in im.used_params.items() if k in args}
    aux = {k: nd.array(v, dtype=v.dtype) for k, v in im.used_params.items() if k in auxs}
    return im.symbol, arg, aux


def get_model_metadata(model_file):
    """The names and shapes of an ONNX model's inputs and outputs."""
    graph = _load(model_file).graph
    inits = {t.name for t in graph.initializer}

    def shape(vi):
        return tuple(d.dim_value if d.HasField("dim_value") else None
                     for d in vi.type.tensor_type.shape.dim)
    return {"input_tensor_data": [(i.name, shape(i)) for i in graph.input if i.name not in inits],
            "output_tensor_data": [(o.name, shape(o)) for o in graph.output]}


def import_to_gluon(model_file, ctx):
    """A Gluon SymbolBlock of an ONNX model, its parameters on `ctx`."""
    from ..... import symbol
    from ....gluon import SymbolBlock
    sym, arg, aux = import_model(model_file)
    meta = get_model_metadata(model_file)
    net = SymbolBlock(sym, [symbol.Variable(n) for n, _ in meta["input_tensor_data"]])
    params = {"arg:%s" % k: v for k, v in arg.items()}
    params.update({"aux:%s" % k: v for k, v in aux.items()})
    net.collect_params().load_dict(params, ctx=ctx)
    return net
