"""mx.rnn scenarios run with either framework (``mx`` passed in): returns (meta, arrays).

Every network gets parameters from a fixed numpy seed, so forward values are comparable."""
import numpy as np

T, N, C, H = 3, 2, 4, 5


def _forward(mx, sym, feeds, rng):
    shapes = {k: v.shape for k, v in feeds.items()}
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    args = {}
    for name, shape in zip(sym.list_arguments(), arg_shapes):
        args[name] = mx.nd.array(feeds[name] if name in feeds else
                                 rng.uniform(-0.5, 0.5, shape).astype("float32"))
    exe = sym.bind(mx.cpu(), args)
    outs = exe.forward(is_train=False)
    return {k: v.asnumpy() for k, v in args.items()}, [o.asnumpy() for o in outs]


def _cells(mx):
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(H, prefix="l0_"))
    stack.add(mx.rnn.ResidualCell(mx.rnn.GRUCell(H, prefix="l1_")))
    return {
        "rnn": lambda: mx.rnn.RNNCell(H, prefix="rnn_"),
        "rnn_relu": lambda: mx.rnn.RNNCell(H, activation="relu", prefix="rr_"),
        "lstm": lambda: mx.rnn.LSTMCell(H, prefix="lstm_", forget_bias=2.0),
        "gru": lambda: mx.rnn.GRUCell(H, prefix="gru_"),
        "stack": lambda: stack,
        "bidir": lambda: mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(H, prefix="bl_"),
                                                  mx.rnn.GRUCell(H, prefix="br_"),
                                                  output_prefix="bi_"),
        "dropout0": lambda: mx.rnn.DropoutCell(0.0),
    }


def run(mx):
    meta, arrays = {}, {}
    rng = np.random.RandomState(11)
    x = rng.uniform(-1, 1, (N, T, C)).astype("float32")
    for label, make in sorted(_cells(mx).items()):
        for merge in (True, False):
            cell = make()
            cell.reset()
            data = mx.sym.Variable("data")
            outs, states = cell.unroll(T, data, layout="NTC", merge_outputs=merge)
            grp = mx.sym.Group(outs if isinstance(outs, list) else [outs])
            key = "%s/%s" % (label, "merged" if merge else "steps")
            meta[key] = {"outputs": grp.list_outputs(), "arguments": grp.list_arguments(),
                         "params": sorted(cell.params._params),
                         "state_info": [dict(s, shape=list(s["shape"])) if s else None
                                        for s in cell.state_info],
                         "n_states": len(states)}
            if label == "dropout0" and merge:
                continue
            args, vals = _forward(mx, grp, {"data": x}, np.random.RandomState(5))
            for i, v in enumerate(vals):
                arrays["%s/out%d" % (key, i)] = v
            if merge:
                unpacked = cell.unpack_weights({k: mx.nd.array(v) for k, v in args.items()})
                meta[key]["unpacked"] = sorted(unpacked)
                for k in sorted(unpacked):
                    if k not in args:
                        arrays["%s/unpacked/%s" % (key, k)] = unpacked[k].asnumpy()
                repacked = cell.pack_weights(unpacked)
                meta[key]["repacked_equal"] = all(
                    np.array_equal(repacked[k].asnumpy(), v) for k, v in args.items())
    # FusedRNNCell: the packed layout, the unfused network's values, TNC layout
    for mode, bidir, layers in (("lstm", False, 2), ("gru", True, 1), ("rnn_tanh", False, 1)):
        key = "fused/%s/%s/%d" % (mode, bidir, layers)
        cell = mx.rnn.FusedRNNCell(H, num_layers=layers, mode=mode, bidirectional=bidir,
                                   get_next_state=True, prefix="f_")
        data = mx.sym.Variable("data")
        outs, states = cell.unroll(T, data, layout="TNC", merge_outputs=True)
        grp = mx.sym.Group([outs] + list(states))
        meta[key] = {"outputs": grp.list_outputs(), "arguments": grp.list_arguments(),
                     "state_info": [dict(s, shape=list(s["shape"])) for s in cell.state_info]}
        xt = x.transpose(1, 0, 2).copy()
        arg_shapes, out_shapes, _ = grp.infer_shape(data=xt.shape)
        meta[key]["shapes"] = [list(s) for s in arg_shapes] + [list(s) for s in out_shapes]
        psize = arg_shapes[grp.list_arguments().index("f_parameters")]
        params = np.random.RandomState(9).uniform(-0.5, 0.5, psize).astype("float32")
        unpacked = cell.unpack_weights({"f_parameters": mx.nd.array(params)})
        meta[key]["unpacked"] = sorted(unpacked)
        for k, v in unpacked.items():
            arrays["%s/unpacked/%s" % (key, k)] = v.asnumpy()
        back = cell.pack_weights(unpacked)["f_parameters"].asnumpy()
        meta[key]["repacked_equal"] = bool(np.array_equal(back, params))
        unfused = cell.unfuse()
        u_outs, _ = unfused.unroll(T, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
        meta[key]["unfused_params"] = sorted(unfused.params._params)
        meta[key]["unfused_outputs"] = u_outs.list_outputs()
        feeds = {"data": xt}
        feeds.update({k: v.asnumpy() for k, v in unfused.pack_weights(unpacked).items()})
        _, vals = _forward(mx, u_outs, feeds, np.random.RandomState(1))
        arrays[key + "/unfused_out"] = vals[0]
    # FusedRNN initializer: constant pieces show the layout; LSTM forget-gate biases
    arr = mx.nd.zeros((4 * H * (C + H + 2),))
    # the pieces go to the global initializer by name: weights 0.25, biases 0, forget 3
    fused = mx.init.FusedRNN(None, H, 1, "lstm", forget_bias=3.0)
    mx.init.Constant(0.25)(mx.init.InitDesc("f_parameters", {"__init__": fused.dumps()}), arr)
    meta["fused_init_dumps"] = fused.dumps()
    arrays["fused_init"] = arr.asnumpy()
    # encode_sentences and BucketSentenceIter
    sents = [["a", "b", "c"], ["b", "c", "d", "e"], ["a"], ["c", "a"], ["e", "e", "b", "a", "c"]]
    coded, vocab = mx.rnn.encode_sentences(sents, start_label=1, invalid_label=0)
    meta["encode"] = {"coded": coded, "vocab": vocab}
    coded2, vocab2 = mx.rnn.encode_sentences([["a", "zz"]], vocab=dict(vocab),
                                             unknown_token="e")
    meta["encode_unknown"] = {"coded": coded2, "vocab": vocab2}
    try:
        mx.rnn.encode_sentences([["zz"]], vocab=dict(vocab))
        meta["encode_error"] = None
    except AssertionError as e:
        meta["encode_error"] = str(e)
    it = mx.rnn.BucketSentenceIter(coded * 4, 4, buckets=[2, 4], invalid_label=0)
    batches = []
    for b in it:
        batches.append({"key": b.bucket_key, "data": list(b.data[0].shape),
                        "label": list(b.label[0].shape),
                        "shift_ok": bool(np.array_equal(b.label[0].asnumpy()[:, :-1],
                                                        b.data[0].asnumpy()[:, 1:]))})
    meta["bucket_iter"] = {"buckets": it.buckets, "default": it.default_bucket_key,
                           "provide_data": [[d.name, list(d.shape)] for d in it.provide_data],
                           "batches": sorted(batches, key=lambda d: (d["key"], d["data"]))}
    it = mx.rnn.BucketSentenceIter(coded * 4, 2, layout="TN", invalid_label=0)
    meta["bucket_iter_tn"] = {"buckets": it.buckets,
                              "provide_label": [[d.name, list(d.shape), d.layout]
                                                for d in it.provide_label]}
    return meta, arrays
