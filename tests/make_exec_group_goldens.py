"""Record what MXNet 1.9.1's ``mod._exec_group`` (DataParallelExecutorGroup) exposes for a
bound Module, and a group built directly (with a shared group), for one context.

    /work/mxref/bin/python tests/make_exec_group_goldens.py

Writes ``tests/goldens/module/exec_group.json`` (names, shapes, grad_req, slices) and
``exec_group.npz`` (outputs after one forward of fixed parameters), plus: a bucket family
of groups (shared_data_arrays across a bigger net and smaller/larger inputs), and a
two-context Module whose RNN begin states are arguments (state_names).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402

mx = golden_files.real_mxnet()

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "module")


def net():
    data = mx.sym.Variable("data")
    h = mx.sym.FullyConnected(data, num_hidden=5, name="fc1")
    h = mx.sym.BatchNorm(h, name="bn")
    h = mx.sym.FullyConnected(mx.sym.relu(h), num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def describe(g):
    return {"data_shapes": [[d.name, list(d.shape)] for d in g.data_shapes],
            "label_shapes": [[d.name, list(d.shape)] for d in g.label_shapes],
            "param_names": list(g.param_names),
            "grad_req": dict(g.grad_req),
            "batch_size": g.batch_size,
            "slices": [[s.start, s.stop] for s in g.slices],
            "n_execs": len(g.execs),
            "param_arrays": [[list(a.shape) for a in p] for p in g.param_arrays],
            "grad_arrays": [[None if a is None else list(a.shape) for a in p] for p in g.grad_arrays],
            "aux_arrays": [[list(a.shape) for a in p] for p in g.aux_arrays],
            "data_arrays": [[[s.start, s.stop, list(a.shape)] for s, a in p]
                            for p in g.data_arrays],
            "label_arrays": [[[s.start, s.stop, list(a.shape)] for s, a in p]
                             for p in g.label_arrays],
            "shared_data_arrays": [sorted(d) for d in g.shared_data_arrays],
            "output_shapes": [[n, list(s)] for n, s in g.get_output_shapes()]}


def main():
    rng = np.random.RandomState(3)
    mod = mx.mod.Module(net(), context=[mx.cpu(0)], fixed_param_names=["fc1_bias"])
    mod.bind([("data", (6, 4))], [("softmax_label", (6,))])
    mod.init_params(mx.init.Xavier())
    params = {k: rng.uniform(-1, 1, v.shape).astype("float32")
              for k, v in mod.get_params()[0].items()}
    mod.set_params({k: mx.nd.array(v) for k, v in params.items()}, mod.get_params()[1])
    x = rng.uniform(-1, 1, (6, 4)).astype("float32")
    mod.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.zeros((6,))]), is_train=False)
    meta = {"module": describe(mod._exec_group)}
    arrays = {"x": x, "out": mod.get_outputs()[0].asnumpy()}
    arrays.update({"param/" + k: v for k, v in params.items()})
    sym = net()
    names = [n for n in sym.list_arguments() if n not in ("data", "softmax_label")]
    g1 = mx.module.executor_group.DataParallelExecutorGroup(
        sym, [mx.cpu(0)], [1], [("data", (6, 4))], [("softmax_label", (6,))], names,
        for_training=True, inputs_need_grad=False)
    g2 = mx.module.executor_group.DataParallelExecutorGroup(
        sym, [mx.cpu(0)], [1], [("data", (6, 4))], [("softmax_label", (6,))], names,
        for_training=True, inputs_need_grad=True, shared_group=g1)
    meta["direct"] = describe(g1)
    meta["shared"] = describe(g2)
    g1.execs[0].arg_dict["fc1_weight"][:] = 2.5
    meta["shared_param_value"] = float(g2.execs[0].arg_dict["fc1_weight"].asnumpy()[0, 0])
    meta["family"] = bucket_family(names)
    meta["states"], st = module_states()
    arrays.update(st)
    golden_files.write(os.path.join(OUT, "exec_group.json"), os.path.join(OUT, "exec_group.npz"),
                       meta, arrays)


def deeper_net():
    """net() with one more layer: its fc3_* are extra arguments for a group sharing net()'s
    parameters."""
    data = mx.sym.Variable("data")
    h = mx.sym.FullyConnected(data, num_hidden=5, name="fc1")
    h = mx.sym.BatchNorm(h, name="bn")
    h = mx.sym.FullyConnected(mx.sym.relu(h), num_hidden=3, name="fc2")
    h = mx.sym.FullyConnected(h, num_hidden=3, name="fc3")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def buffer_shapes(g):
    return {k: list(v.shape) for k, v in g.shared_data_arrays[0].items()}


def bucket_family(names):
    """Groups sharing one family's shared_data_arrays (MXNet's ReshapeOrCreate)."""
    group = mx.module.executor_group.DataParallelExecutorGroup
    ctx = [mx.cpu(0)]
    g1 = group(net(), ctx, [1], [("data", (6, 4))], [("softmax_label", (6,))], names,
               for_training=True, inputs_need_grad=False)
    res = {"g1": buffer_shapes(g1)}
    deep = group(deeper_net(), ctx, [1], [("data", (6, 4))], [("softmax_label", (6,))], names,
                 for_training=True, inputs_need_grad=False, shared_group=g1)
    res["deep"] = buffer_shapes(deep)
    res["deep_data_is_buffer"] = mx.test_utils.same_array(
        deep.execs[0].arg_dict["data"], deep.shared_data_arrays[0]["data"])
    res["deep_fc3_grad_req"] = deep.grad_req["fc3_weight"]
    small = group(net(), ctx, [1], [("data", (3, 4))], [("softmax_label", (3,))], names,
                  for_training=True, inputs_need_grad=True, shared_group=g1)
    res["small"] = buffer_shapes(small)
    large = group(net(), ctx, [1], [("data", (8, 4))], [("softmax_label", (8,))], names,
                  for_training=True, inputs_need_grad=False, shared_group=g1)
    res["large"] = buffer_shapes(large)
    res["large_data_is_buffer"] = mx.test_utils.same_array(
        large.execs[0].arg_dict["data"], g1.shared_data_arrays[0]["data"])
    return res


def lstm_states_module():
    """Two LSTM cells unrolled over 10 steps; their begin states are Variables of shape
    (0, 20), whose batch size MXNet infers per context."""
    stack = mx.rnn.SequentialRNNCell()
    for i in range(2):
        stack.add(mx.rnn.LSTMCell(num_hidden=20, prefix="lstm_l%d_" % i))
    begin = stack.begin_state(func=mx.sym.Variable)
    _, states = stack.unroll(10, begin_state=begin, inputs=mx.sym.Variable("data"))
    return mx.mod.Module(mx.sym.Group(states), context=[mx.cpu(0), mx.cpu(1)],
                         label_names=None, state_names=[b.name for b in begin])


def module_states():
    rng = np.random.RandomState(7)
    mod = lstm_states_module()
    mod.bind(data_shapes=[("data", (5, 10))], label_shapes=None, for_training=False)
    mod.init_params()
    params = {k: rng.uniform(-0.5, 0.5, v.shape).astype("float32")
              for k, v in sorted(mod.get_params()[0].items())}
    mod.set_params({k: mx.nd.array(v) for k, v in params.items()}, {})
    x = rng.uniform(-1, 1, (5, 10)).astype("float32")
    batch = mx.io.DataBatch(data=[mx.nd.array(x)], label=[])
    mod.set_states(value=1)
    mod.forward(batch)
    out = mod.get_outputs(merge_multi_context=False)
    arrays = {"states/x": x, "states/out1": np.stack([o.asnumpy() for o in
                                                      mod.get_outputs(merge_multi_context=True)])}
    arrays.update({"states/param/" + k: v for k, v in params.items()})
    meta = {"per_device_out": [[list(a.shape) for a in o] for o in out],
            "states_after_value": [[list(a.shape) for a in s]
                                   for s in mod.get_states(merge_multi_context=False)]}
    mod.set_states(states=out)
    arrays["states/set"] = np.stack([np.concatenate([a.asnumpy() for a in s])
                                     for s in mod.get_states(merge_multi_context=False)])
    mod.forward(batch)
    arrays["states/out2"] = np.stack([o.asnumpy() for o in mod.get_outputs()])
    return meta, arrays


if __name__ == "__main__":
    main()
