"""Goldens for tests/test_gluon_conformance.py: what MXNet 1.9.1's gluon does where MXNet's own
unit tests showed xnd differing (Trainer's kvstore choice, stores of another class, a
hybridized block's optional arguments). Run: /work/mxref/bin/python tests/make_gluon_conformance_goldens.py
"""
import os

import numpy as np

from golden_files import real_mxnet, write

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "goldens", "gluon_conformance")

# (kvstore, number of contexts, update_on_kvstore)
TRAINER_CASES = [("device", 2, None), ("device", 2, False), ("local", 2, None),
                 (None, 2, None), ("device", 1, None), ("local", 1, False)]


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (the type is the golden)
        return type(e).__name__
    return None


def trainer_cases(mx, arrays):
    out = []
    for k, (kv, n, upd) in enumerate(TRAINER_CASES):
        x = mx.gluon.Parameter("x", shape=(3,))
        x.initialize(ctx=[mx.cpu(i) for i in range(n)], init="ones")
        tr = mx.gluon.Trainer([x], "sgd", {"learning_rate": 0.1, "momentum": 0.5},
                              kvstore=kv, update_on_kvstore=upd)
        for _ in range(2):
            with mx.autograd.record():
                for i, w in enumerate(x.list_data()):
                    (w * w * (i + 1)).sum().backward()
            tr.step(1)
        for i, w in enumerate(x.list_data()):
            arrays[f"trainer{k}_w{i}"] = w.asnumpy()
        out.append({"kvstore": kv, "n_ctx": n, "update_on_kvstore": upd,
                    "store_type": tr._kvstore.type if tr._kvstore else None,
                    "chosen_update_on_kvstore": tr._update_on_kvstore,
                    "distributed": tr._distributed,
                    "update_error": _error(lambda: tr.update(1, ignore_stale_grad=True)),
                    "allreduce_error": _error(tr.allreduce_grads)})
    return out


def teststore_case(mx, arrays):
    x = mx.gluon.Parameter("x", shape=(4,))
    x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="ones")
    kv = mx.kv.create("teststore")
    tr = mx.gluon.Trainer([x], "sgd", {"learning_rate": 0.5}, kvstore=kv)
    with mx.autograd.record():
        for i, w in enumerate(x.list_data()):
            (w * (i + 2)).backward()
    tr.step(1)
    arrays["teststore_w0"] = x.data(mx.cpu(0)).asnumpy()
    arrays["teststore_w1"] = x.data(mx.cpu(1)).asnumpy()
    bad = mx.gluon.Trainer([x], "sgd", kvstore=kv, update_on_kvstore=True)
    return {"type": kv.type, "capable": kv.is_capable("optimizer"),
            "update_on_kvstore": tr._update_on_kvstore,
            "forced_error": _error(bad._init_kvstore)}


def reset_case(mx):
    x = mx.gluon.Parameter("x", shape=(2,))
    x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    tr = mx.gluon.Trainer([x], "sgd", {"learning_rate": 0.1})
    with mx.autograd.record():
        for w in x.list_data():
            (w + 1).backward()
    tr.step(1)
    before = tr._kvstore is not None
    x.set_data(mx.nd.ones((2,)))
    other = mx.gluon.Trainer([x], "sgd")
    return {"store_before": before, "store_after_set_data": tr._kvstore is not None,
            "kv_initialized_after": tr._kv_initialized,
            "second_trainer_owns": x._trainer is other}


def hybrid_none_case(mx, arrays):
    class F(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, a, b=None):
            return a * 2 if b is None else a * 2 + b

    x = mx.nd.array([1.0, 2.0, 3.0])
    res = {}
    for order in ("short_first", "none_first"):
        f = F()
        f.hybridize()
        calls = [(x,), (x, None)] if order == "short_first" else [(x, None), (x,)]
        for j, args in enumerate(calls):
            arrays[f"hybrid_{order}_{j}"] = f(*args).asnumpy()
        res[order] = _error(lambda: f(x, x))
    g = F()
    g.hybridize()
    res["two_contexts"] = _error(lambda: g(mx.nd.ones((3,), ctx=mx.cpu(1)),
                                           mx.nd.ones((3,), ctx=mx.cpu(2))))
    res["scalar_arg"] = _error(lambda: g(x, 1))
    return res


# (angle(s) in degrees, zoom_in, zoom_out); the image is ROTATE_IMAGE (one CHW image, or
# the batch of two when the angle is a list)
ROTATE_CASES = [(30.0, False, False), (90.0, False, False), (-45.0, True, False),
                (20.0, False, True), ([15.0, -120.0], False, False), ([60.0, 10.0], True, False)]


def rotate_image():
    return (np.arange(2 * 3 * 5 * 7, dtype=np.float32).reshape(2, 3, 5, 7) % 11) / 10


def rotate_cases(mx, arrays):
    from mxnet.gluon.data.vision import transforms
    img = mx.nd.array(rotate_image())
    for k, (deg, zin, zout) in enumerate(ROTATE_CASES):
        if isinstance(deg, list):
            out = mx.image.imrotate(img, mx.nd.array(deg), zoom_in=zin, zoom_out=zout)
        else:
            out = transforms.Rotate(deg, zin, zout)(img[0])
        arrays[f"rotate{k}"] = out.asnumpy()
    return {"uint8": _error(lambda: transforms.Rotate(10.0)(img[0].astype("uint8"))),
            "both_zooms": _error(lambda: mx.image.imrotate(img, 10.0, True, True)),
            "angles_mismatch": _error(lambda: mx.image.imrotate(img, mx.nd.array([1.0]))),
            "single_needs_scalar": _error(lambda: mx.image.imrotate(img[0], mx.nd.array([1.0]))),
            "bad_limits": _error(lambda: transforms.RandomRotation([10.0, -10.0])),
            "bad_proba": _error(lambda: transforms.RandomRotation([-10.0, 10.0],
                                                                  rotate_with_proba=1.5))}


def set_fixed_values(mx, block):
    """Deterministic parameter values (initializers draw from each library's own RNG)."""
    for k, (name, p) in enumerate(sorted(block.collect_params().items())):
        n = int(np.prod(p.shape))
        p.set_data(mx.nd.array((0.3 * np.sin(np.arange(n) + k)).reshape(p.shape)))


def rnn_cases(mx, arrays):
    from mxnet import gluon
    # a fused layer and its unfused cells (parameters shared by name)
    layer = gluon.rnn.LSTM(3, num_layers=2, bidirectional=True, input_size=2)
    cells = layer._unfuse()
    layer.initialize()
    set_fixed_values(mx, layer)
    x = mx.nd.array(np.linspace(-1, 1, 3 * 2 * 2).reshape(3, 2, 2))
    arrays["unfuse_layer"] = layer(x).asnumpy()
    arrays["unfuse_cells"] = cells.unroll(3, x, layout="TNC", merge_outputs=True)[0].asnumpy()
    # a stack unrolled on a whole symbolic sequence: begin states from shape inference
    stack = gluon.rnn.SequentialRNNCell()
    stack.add(gluon.rnn.LSTMCell(4, prefix="l0_"))
    stack.add(gluon.rnn.LSTMCell(4, prefix="l1_"))
    out, states = stack.unroll(2, mx.sym.var("data"), merge_outputs=True)
    shapes = {"out": mx.sym.Group([out] + states).infer_shape(data=(5, 2, 6))[1]}
    # a list of (N, C) steps with layout TNC: the batch is each step's first axis
    seq = gluon.rnn.HybridSequentialRNNCell()
    seq.add(gluon.rnn.LSTMCell(3, prefix="s0_"))
    seq.add(gluon.rnn.LSTMCell(3, prefix="s1_"))
    seq.initialize(mx.init.Constant(0.1))
    steps = [mx.nd.array(np.full((2, 5), 0.2 * (k + 1), np.float32)) for k in range(3)]
    outs, _ = seq.unroll(3, steps, layout="TNC")
    for k, o in enumerate(outs):
        arrays[f"tnc_list_{k}"] = o.asnumpy()
    # VariationalDropoutCell without state dropout unrolls its (modified) base cell
    vd = gluon.contrib.rnn.VariationalDropoutCell(gluon.rnn.LSTMCell(3, prefix="v_"))
    vd.initialize(mx.init.Constant(0.05))
    data = mx.nd.array(np.linspace(-1, 1, 2 * 4 * 5).reshape(2, 4, 5))
    outs, st = vd.unroll(4, data, valid_length=mx.nd.array([2, 4]), merge_outputs=True,
                         layout="NTC")
    arrays["vardrop_out"] = outs.asnumpy()
    arrays["vardrop_h"] = st[0].asnumpy()
    # a bidirectional unroll with valid lengths on Symbols (the reversed steps are outputs)
    bi = gluon.rnn.BidirectionalCell(gluon.rnn.LSTMCell(4, prefix="bl_"),
                                     gluon.rnn.LSTMCell(4, prefix="br_"))
    bo, _ = bi.unroll(3, mx.sym.var("data"), valid_length=mx.sym.var("vl"), layout="NTC",
                      merge_outputs=True)
    bi_shapes = bo.infer_shape(data=(6, 3, 5), vl=(6,))[1]
    return {"stack_shapes": [list(t) for t in shapes["out"]],
            "bi_valid_shapes": [list(t) for t in bi_shapes]}


def main():
    mx = real_mxnet()
    arrays = {}
    meta = {"trainer": trainer_cases(mx, arrays), "teststore": teststore_case(mx, arrays),
            "reset": reset_case(mx), "hybrid_none": hybrid_none_case(mx, arrays), "rotate": rotate_cases(mx, arrays),
            "rnn": rnn_cases(mx, arrays)}
    write(os.path.join(OUT, "cases.json"), os.path.join(OUT, "cases.npz"), meta, arrays)


if __name__ == "__main__":
    main()
