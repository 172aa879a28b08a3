"""Record what real MXNet 1.9.1's convolutional recurrent cells
(``mx.gluon.contrib.rnn.Conv{1,2,3}D{RNN,LSTM,GRU}Cell``), ``contrib.rnn.rnn_cell.
dynamic_unroll`` and ``mx.nd/sym.contrib.foreach`` do, for tests/test_gluon_conv_rnn.py.

Run with the reference interpreter (it must import the real ``mxnet``):

    /work/mxref/bin/python tests/make_conv_rnn_goldens.py

Writes ``tests/goldens/conv_rnn/conv_rnn.npz`` (inputs, weights set explicitly, outputs,
final states, gradients) and ``tests/goldens/conv_rnn/conv_rnn.json`` (parameter names and
shapes, output names and inferred shapes, reprs, state_info, a foreach graph's symbol JSON,
error messages). Deterministic: fixed seeds, sorted keys, fixed zip timestamps.

The case tables and the ``run_*`` functions are plain code shared with the test, which runs
the same functions on xnd; nothing here imports mxnet at import time.
"""
import os

import numpy as np

import golden_files

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "goldens", "conv_rnn")
JSON_PATH = os.path.join(OUT_DIR, "conv_rnn.json")
NPZ_PATH = os.path.join(OUT_DIR, "conv_rnn.npz")

N, T = 2, 3  # batch and sequence length of the cell cases

# ---- the convolutional cells ---------------------------------------------------------------
# cls; shape: input_shape (no batch axis); hidden: hidden_channels; k: (i2h_kernel,
# h2h_kernel); kw: other constructor keywords ("leaky": nn.LeakyReLU(0.25) as activation);
# zeros: begin_state left to the cell (zeros), else random begin states are given; step:
# stepped by hand, not unrolled (an activation block is a child of the cell in MXNet, and
# unroll's reset() of the children fails on it: recorded as block_activation_error);
# twin: a channel-last case whose values are not recorded (MXNet 1.9.1's CPU convolution
# infers channel-last shapes but cannot compute them: "could not create a descriptor for a
# dilated convolution forward propagation primitive"); the test checks it against its
# channel-first twin, data, weights and results moved to channel-last.
CELL_CASES = {
    "rnn1d": dict(cls="Conv1DRNNCell", shape=(3, 7), hidden=4, k=(3, 3)),
    "rnn2d_pad_dilate_relu": dict(cls="Conv2DRNNCell", shape=(2, 6, 5), hidden=3,
                                  k=((3, 2), 3), kw=dict(i2h_pad=(1, 0), i2h_dilate=(1, 2),
                                                         h2h_dilate=(2, 1), activation="relu")),
    "rnn3d_zero_state": dict(cls="Conv3DRNNCell", shape=(2, 4, 4, 3), hidden=2, k=(3, 1),
                             zeros=True),
    "lstm1d_softsign": dict(cls="Conv1DLSTMCell", shape=(3, 8), hidden=2, k=(3, 5),
                            kw=dict(i2h_pad=1, activation="softsign")),
    "lstm2d": dict(cls="Conv2DLSTMCell", shape=(2, 5, 4), hidden=3, k=(3, 3)),
    "lstm2d_nhwc": dict(cls="Conv2DLSTMCell", shape=(5, 4, 2), hidden=3, k=(3, 3),
                        kw=dict(conv_layout="NHWC"), twin="lstm2d"),
    "lstm3d_zero_state": dict(cls="Conv3DLSTMCell", shape=(1, 3, 4, 4), hidden=2, k=(2, 3),
                              zeros=True),
    "gru1d_leaky": dict(cls="Conv1DGRUCell", shape=(2, 6), hidden=3, k=(2, 3),
                        kw=dict(activation="leaky"), step=True),
    "gru2d_dilate": dict(cls="Conv2DGRUCell", shape=(3, 6, 6), hidden=2, k=(3, 3),
                         kw=dict(i2h_dilate=2, h2h_dilate=2, i2h_pad=2)),
    "gru3d": dict(cls="Conv3DGRUCell", shape=(2, 4, 4, 3), hidden=2, k=(3, 3),
                  kw=dict(i2h_pad=(1, 1, 1))),
    "gru3d_ndhwc": dict(cls="Conv3DGRUCell", shape=(4, 4, 3, 2), hidden=2, k=(3, 3),
                        kw=dict(conv_layout="NDHWC", i2h_pad=(1, 1, 1)), twin="gru3d"),
}

# constructor calls MXNet refuses: (class, args, kwargs)
ERROR_CASES = {
    "even_h2h_kernel": ("Conv2DRNNCell", ((2, 5, 5), 3, 3, (2, 3)), {}),
    "kernel_length": ("Conv2DLSTMCell", ((2, 5, 5), 3, (3, 3, 3), 3), {}),
    "pad_length": ("Conv1DGRUCell", ((2, 5), 3, 3, 3), dict(i2h_pad=(1, 1))),
}


def make_cell(mx, case, prefix="cell_"):
    c = CELL_CASES[case]
    kw = dict(c.get("kw", {}))
    if kw.get("activation") == "leaky":
        kw["activation"] = mx.gluon.nn.LeakyReLU(0.25)
    cls = getattr(mx.gluon.contrib.rnn, c["cls"])
    return cls(c["shape"], c["hidden"], c["k"][0], c["k"][1], prefix=prefix, **kw)


def set_params(mx, block, arrays, key):
    """Every parameter of ``block`` from ``arrays[key/param/<name>]`` (deterministic)."""
    for name, p in block.collect_params().items():
        p.set_data(mx.nd.array(arrays[f"{key}/param/{name}"]))


def run_cell(mx, case, arrays, hybridize=False):
    """Unroll a case's cell over ``arrays[cell/<case>/data]`` (layout NTC, merged outputs)
    under autograd and back-propagate a random head through outputs and final states:
    {name: numpy array} of outputs, states and gradients (data and every parameter)."""
    key = f"cell/{case}"
    cell = make_cell(mx, case)
    cell.initialize()
    set_params(mx, cell, arrays, key)
    if hybridize:
        cell.hybridize()
    x = mx.nd.array(arrays[f"{key}/data"])
    x.attach_grad()
    n_states = len(cell.state_info())
    begin = None if CELL_CASES[case].get("zeros") else \
        [mx.nd.array(arrays[f"{key}/begin{i}"]) for i in range(n_states)]
    with mx.autograd.record():
        if CELL_CASES[case].get("step"):
            states, outs = begin or cell.begin_state(batch_size=N), []
            for t in range(T):
                o, states = cell(x[:, t], states)
                outs.append(o)
            out = mx.nd.stack(*outs, axis=1)
        else:
            out, states = cell.unroll(T, x, begin_state=begin, layout="NTC",
                                      merge_outputs=True)
        loss = (out * mx.nd.array(arrays[f"{key}/head"])).sum()
        for i, s in enumerate(states):
            loss = loss + (s * mx.nd.array(arrays[f"{key}/state_head{i}"])).sum()
    loss.backward()
    res = {"out": out.asnumpy(), "grad/data": x.grad.asnumpy()}
    res.update({f"state{i}": s.asnumpy() for i, s in enumerate(states)})
    res.update({f"grad/{n}": p.grad().asnumpy() for n, p in cell.collect_params().items()})
    return res


def cell_symbol_facts(mx, case):
    """Names and shapes of a cell unrolled on Symbols: parameters, outputs (3 steps and the
    final states), the inferred shapes, and the cell's repr and state_info."""
    c = CELL_CASES[case]
    cell = make_cell(mx, case, prefix="sym_")
    steps = [mx.sym.var(f"sym_t{i}_data") for i in range(T)]
    if c.get("step"):
        states, outs = cell.begin_state(batch_size=N, func=mx.sym.zeros), []
        for x in steps:
            o, states = cell(x, states)
            outs.append(o)
    else:
        outs, states = cell.unroll(T, steps)
    g = mx.sym.Group(list(outs) + list(states))
    shapes = {f"sym_t{i}_data": (N,) + tuple(c["shape"]) for i in range(T)}
    arg_shapes, out_shapes, _ = g.infer_shape(**shapes)
    return {"params": {n: list(p.shape) for n, p in sorted(cell.collect_params().items())},
            "outputs": g.list_outputs(), "out_shapes": [list(s) for s in out_shapes],
            "args": dict(zip(g.list_arguments(), [list(s) for s in arg_shapes])),
            "repr": repr(cell),
            "state_info": [{"shape": list(i["shape"]), "__layout__": i["__layout__"]}
                           for i in cell.state_info(N)]}


# ---- dynamic_unroll ------------------------------------------------------------------------
# cell: a gluon.rnn cell (hidden 5, input 6) or "Conv1DLSTMCell" ((2, 6) -> 3 channels);
# layout of the inputs; valid: with valid_length VALID_LENGTH.
UNROLL_CASES = {
    "rnn_tnc": dict(cell="RNNCell", layout="TNC"),
    "rnn_ntc_valid": dict(cell="RNNCell", layout="NTC", valid=True),
    "lstm_ntc": dict(cell="LSTMCell", layout="NTC"),
    "lstm_tnc_valid": dict(cell="LSTMCell", layout="TNC", valid=True),
    "gru_ntc_valid": dict(cell="GRUCell", layout="NTC", valid=True),
    "convlstm_tnc_valid": dict(cell="Conv1DLSTMCell", layout="TNC", valid=True),
}
U_T, U_N, U_C, U_H = 5, 4, 6, 5
VALID_LENGTH = [5, 2, 4, 1]


def _unroll_cell(mx, case):
    name = UNROLL_CASES[case]["cell"]
    if name.startswith("Conv"):
        return getattr(mx.gluon.contrib.rnn, name)((2, 6), 3, 3, 3, prefix="rnn_")
    return getattr(mx.gluon.rnn, name)(U_H, input_size=U_C, prefix="rnn_")


def unroll_data_shape(case):
    conv = UNROLL_CASES[case]["cell"].startswith("Conv")
    step = (2, 6) if conv else (U_C,)
    return ((U_T, U_N) if UNROLL_CASES[case]["layout"] == "TNC" else (U_N, U_T)) + step


def make_unroll_net(mx, case):
    """A HybridBlock whose forward is dynamic_unroll of its cell (MXNet's test's layer)."""
    c = UNROLL_CASES[case]
    dynamic_unroll = mx.gluon.contrib.rnn.rnn_cell.dynamic_unroll

    class UnrollNet(mx.gluon.HybridBlock):
        def __init__(self):
            super().__init__(prefix="net_")
            with self.name_scope():
                self.cell = _unroll_cell(mx, case)

        def hybrid_forward(self, F, x, states, *valid_length):
            return dynamic_unroll(self.cell, x, states, layout=c["layout"],
                                  valid_length=valid_length[0] if valid_length else None)
    return UnrollNet()


def run_unroll(mx, case, arrays, hybridize=False):
    """dynamic_unroll of a case's cell under autograd, a random head back-propagated
    through outputs and states: {name: numpy array}."""
    key = f"unroll/{case}"
    net = make_unroll_net(mx, case)
    net.initialize()
    set_params(mx, net, arrays, key)
    if hybridize:
        net.hybridize()
    x = mx.nd.array(arrays[f"{key}/data"])
    x.attach_grad()
    n_states = len(net.cell.state_info())
    begin = [mx.nd.array(arrays[f"{key}/begin{i}"]) for i in range(n_states)]
    extra = [mx.nd.array(VALID_LENGTH)] if UNROLL_CASES[case].get("valid") else []
    with mx.autograd.record():
        out, states = net(x, begin, *extra)
        loss = (out * mx.nd.array(arrays[f"{key}/head"])).sum()
        for i, s in enumerate(states):
            loss = loss + (s * mx.nd.array(arrays[f"{key}/state_head{i}"])).sum()
    loss.backward()
    res = {"out": out.asnumpy(), "grad/data": x.grad.asnumpy()}
    res.update({f"state{i}": s.asnumpy() for i, s in enumerate(states)})
    res.update({f"grad/{n}": p.grad().asnumpy() for n, p in net.collect_params().items()})
    return res


# ---- foreach -------------------------------------------------------------------------------
# data [a (F_T, F_N, 4), b (F_T, F_N, 2)], states [h (F_N, 3), [c (F_N, 2)]], a weight w
# (3, 4) read from outside the body and an outer value `scale` (2 * an input, so a symbolic
# body cuts it off the graph around it).
F_T, F_N = 4, 3
FOREACH_INPUTS = {"a": (F_T, F_N, 4), "b": (F_T, F_N, 2), "h": (F_N, 3), "c": (F_N, 2),
                  "w": (3, 4), "s": (F_N, 2)}


def foreach_body(F, w, scale):
    def body(x, states):
        a, b = x
        h, (c,) = states
        h2 = F.tanh(F.FullyConnected(a, weight=w, no_bias=True, num_hidden=3) + h)
        return [h2, h2 * 2], [h2, [c + b * scale]]
    return body


def run_foreach_nd(mx, arrays):
    """mx.nd.contrib.foreach under autograd: outputs, states, input gradients."""
    v = {k: mx.nd.array(arrays[f"foreach/in/{k}"]) for k in FOREACH_INPUTS}
    for x in v.values():
        x.attach_grad()
    with mx.autograd.record():
        outs, states = mx.nd.contrib.foreach(foreach_body(mx.nd, v["w"], v["s"] * 2),
                                             [v["a"], v["b"]], [v["h"], [v["c"]]])
        flat = list(outs) + [states[0]] + list(states[1])
        loss = sum((o * mx.nd.array(arrays[f"foreach/head{i}"])).sum()
                   for i, o in enumerate(flat))
    loss.backward()
    res = {f"out{i}": o.asnumpy() for i, o in enumerate(flat)}
    res.update({f"grad/{k}": x.grad.asnumpy() for k, x in v.items()})
    return res


def foreach_symbol(mx):
    """The foreach graph: Group(outputs, states), in a fresh NameManager."""
    with mx.name.NameManager():
        v = {k: mx.sym.var(k) for k in FOREACH_INPUTS}
        outs, states = mx.sym.contrib.foreach(foreach_body(mx.sym, v["w"], v["s"] * 2),
                                              [v["a"], v["b"]], [v["h"], [v["c"]]])
        return mx.sym.Group(list(outs) + [states[0]] + list(states[1]))


def run_foreach_sym(mx, arrays, sym=None):
    """The foreach graph bound and run forward and backward: outputs, input gradients."""
    sym = foreach_symbol(mx) if sym is None else sym
    args = {k: mx.nd.array(arrays[f"foreach/in/{k}"]) for k in FOREACH_INPUTS}
    grads = {k: mx.nd.zeros(v.shape) for k, v in args.items()}
    ex = sym.bind(mx.cpu(), args, args_grad=grads)
    outs = ex.forward(is_train=True)
    ex.backward([mx.nd.array(arrays[f"foreach/head{i}"]) for i in range(len(outs))])
    res = {f"out{i}": o.asnumpy() for i, o in enumerate(outs)}
    res.update({f"grad/{k}": g.asnumpy() for k, g in grads.items()})
    return res


def nested_foreach_symbol(mx):
    """A foreach whose body runs a foreach over the rows of its step, reading the outer
    state (a variable of the outer body, cut into the inner one)."""
    def outer(x, st):
        o, s = mx.sym.contrib.foreach(lambda r, s2: (r * st[0] + s2[0], [s2[0] + r]), x,
                                      [st[0] * 0.5])
        return o.sum(axis=0), [s[0]]
    with mx.name.NameManager():
        o, s = mx.sym.contrib.foreach(outer, mx.sym.var("d"), [mx.sym.var("s0")])
        return mx.sym.Group([o] + s)


def run_nested_foreach(mx, arrays, sym=None):
    sym = nested_foreach_symbol(mx) if sym is None else sym
    ex = sym.bind(mx.cpu(), {k: mx.nd.array(arrays[f"nested/in/{k}"]) for k in ("d", "s0")})
    return {f"out{i}": o.asnumpy() for i, o in enumerate(ex.forward())}


def foreach_errors(mx):
    """MXNet's messages for bodies that foreach refuses."""
    x, s = mx.sym.var("x"), mx.sym.var("s")
    bodies = {
        "data_unused": lambda d, st: (st[0] * 2, [st[0] + 1]),
        "state_format": lambda d, st: (d + st[0], [[st[0] + d]]),
    }
    out = {}
    for name, body in bodies.items():
        try:
            mx.sym.contrib.foreach(body, x, [s])
            out[name] = None
        except AssertionError as e:
            out[name] = str(e)
    return out


# ---- recording -----------------------------------------------------------------------------
def _rand(rs, shape, lo=-0.5, hi=0.5):
    return rs.uniform(lo, hi, size=shape).astype(np.float32)


def _record(mx, meta, arrays):
    for ci, case in enumerate(sorted(CELL_CASES)):
        if CELL_CASES[case].get("twin"):
            meta["cells"][case] = cell_symbol_facts(mx, case)
            continue
        rs = np.random.RandomState(100 + ci)
        key = f"cell/{case}"
        cell = make_cell(mx, case)
        shape = CELL_CASES[case]["shape"]
        arrays[f"{key}/data"] = _rand(rs, (N, T) + tuple(shape), -1, 1)
        for name, p in sorted(cell.collect_params().items()):
            arrays[f"{key}/param/{name}"] = _rand(rs, p.shape)
        for i, info in enumerate(cell.state_info(N)):
            arrays[f"{key}/begin{i}"] = _rand(rs, info["shape"], -1, 1)
            arrays[f"{key}/state_head{i}"] = _rand(rs, info["shape"], -1, 1)
        state_shape = cell.state_info(N)[0]["shape"]
        arrays[f"{key}/head"] = _rand(rs, (N, T) + tuple(state_shape[1:]), -1, 1)
        res = run_cell(mx, case, arrays)
        again = run_cell(mx, case, arrays, hybridize=True)
        for k, v in res.items():
            np.testing.assert_allclose(again[k], v, rtol=1e-5, atol=1e-5, err_msg=(case, k))
            arrays[f"{key}/res/{k}"] = v
        meta["cells"][case] = dict(cell_symbol_facts(mx, case), results=sorted(res))

    try:
        make_cell(mx, "gru1d_leaky").unroll(T, mx.sym.var("x"))
        meta["block_activation_error"] = None
    except AttributeError as e:
        meta["block_activation_error"] = str(e)
    for case, (cls, args, kw) in sorted(ERROR_CASES.items()):
        try:
            getattr(mx.gluon.contrib.rnn, cls)(*args, **kw)
            meta["errors"][case] = None
        except AssertionError as e:
            meta["errors"][case] = str(e)

    for ci, case in enumerate(sorted(UNROLL_CASES)):
        rs = np.random.RandomState(200 + ci)
        key = f"unroll/{case}"
        net = make_unroll_net(mx, case)
        arrays[f"{key}/data"] = _rand(rs, unroll_data_shape(case), -1, 1)
        for name, p in sorted(net.collect_params().items()):
            arrays[f"{key}/param/{name}"] = _rand(rs, p.shape)
        for i, info in enumerate(net.cell.state_info(U_N)):
            arrays[f"{key}/begin{i}"] = _rand(rs, info["shape"], -1, 1)
            arrays[f"{key}/state_head{i}"] = _rand(rs, info["shape"], -1, 1)
        out_shape = unroll_data_shape(case)[:2] + net.cell.state_info(U_N)[0]["shape"][1:]
        arrays[f"{key}/head"] = _rand(rs, out_shape, -1, 1)
        res = run_unroll(mx, case, arrays)
        for k, v in res.items():
            arrays[f"{key}/res/{k}"] = v
        meta["unroll"][case] = {"params": sorted(net.collect_params()), "results": sorted(res)}

    rs = np.random.RandomState(300)
    for k, shape in sorted(FOREACH_INPUTS.items()):
        arrays[f"foreach/in/{k}"] = _rand(rs, shape, -1, 1)
    out_shapes = [(F_T, F_N, 3), (F_T, F_N, 3), (F_N, 3), (F_N, 2)]
    for i, shape in enumerate(out_shapes):
        arrays[f"foreach/head{i}"] = _rand(rs, shape, -1, 1)
    nd_res, sym_res = run_foreach_nd(mx, arrays), run_foreach_sym(mx, arrays)
    for k, v in nd_res.items():
        np.testing.assert_allclose(sym_res[k], v, rtol=1e-5, atol=1e-6, err_msg=k)
        arrays[f"foreach/res/{k}"] = v
    sym = foreach_symbol(mx)
    shapes = {k: s for k, s in FOREACH_INPUTS.items() if k != "w"}
    arg_shapes, out_shapes, _ = sym.infer_shape(**shapes)
    arrays["nested/in/d"] = _rand(rs, (4, 3, 2), -1, 1)
    arrays["nested/in/s0"] = _rand(rs, (2,), -1, 1)
    for k, v in run_nested_foreach(mx, arrays).items():
        arrays[f"nested/res/{k}"] = v
    meta["nested"] = {"json": nested_foreach_symbol(mx).tojson()}
    meta["foreach"] = {"json": sym.tojson(), "outputs": sym.list_outputs(),
                       "args": dict(zip(sym.list_arguments(), [list(s) for s in arg_shapes])),
                       "out_shapes": [list(s) for s in out_shapes],
                       "results": sorted(nd_res), "errors": foreach_errors(mx)}


def main():
    mx = golden_files.real_mxnet()
    meta = {"cells": {}, "errors": {}, "unroll": {}, "foreach": {}, "nested": {}}
    arrays = {}
    _record(mx, meta, arrays)
    meta["mxnet_version"] = mx.__version__
    golden_files.write(JSON_PATH, NPZ_PATH, meta, arrays)


if __name__ == "__main__":
    main()
