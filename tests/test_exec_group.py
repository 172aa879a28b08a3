"""``mod._exec_group`` and a directly built DataParallelExecutorGroup expose what MXNet
1.9.1's do (goldens: tests/make_exec_group_goldens.py)."""
import json
import os

import numpy as np
import pytest

import xnd as mx
from xnd.frontend.module.base_module import ModuleError
from xnd.frontend.module.executor_group import DataParallelExecutorGroup

HERE = os.path.join(os.path.dirname(__file__), "goldens", "module")
G = json.load(open(os.path.join(HERE, "exec_group.json")))
A = np.load(os.path.join(HERE, "exec_group.npz"))


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
            "grad_arrays": [[None if a is None else list(a.shape) for a in p]
                            for p in g.grad_arrays],
            "aux_arrays": [[list(a.shape) for a in p] for p in g.aux_arrays],
            "data_arrays": [[[s.start, s.stop, list(a.shape)] for s, a in p]
                            for p in g.data_arrays],
            "label_arrays": [[[s.start, s.stop, list(a.shape)] for s, a in p]
                             for p in g.label_arrays],
            "shared_data_arrays": [sorted(d) for d in g.shared_data_arrays],
            "output_shapes": [[n, list(s)] for n, s in g.get_output_shapes()]}


def test_module_exec_group_matches_mxnet():
    from xnd.compat import alias_mxnet
    alias_mxnet()     # scripts import the group from mxnet's path
    from mxnet.module.executor_group import DataParallelExecutorGroup as Aliased
    mod = mx.mod.Module(net(), context=[mx.cpu(0)], fixed_param_names=["fc1_bias"])
    mod.bind([("data", (6, 4))], [("softmax_label", (6,))])
    mod.init_params(mx.init.Xavier())
    params = {k[6:]: mx.nd.array(A[k]) for k in A.files if k.startswith("param/")}
    mod.set_params(params, mod.get_params()[1])
    assert isinstance(mod._exec_group, Aliased)
    assert describe(mod._exec_group) == G["module"]
    mod.forward(mx.io.DataBatch([mx.nd.array(A["x"])], [mx.nd.zeros((6,))]), is_train=False)
    np.testing.assert_allclose(mod._exec_group.get_outputs()[0].asnumpy(), A["out"],
                               rtol=1e-5, atol=1e-6)


def test_direct_and_shared_groups_match_mxnet():
    sym = net()
    names = [n for n in sym.list_arguments() if n not in ("data", "softmax_label")]
    g1 = DataParallelExecutorGroup(sym, [mx.cpu(0)], [1], [("data", (6, 4))],
                                   [("softmax_label", (6,))], names, for_training=True,
                                   inputs_need_grad=False)
    g2 = DataParallelExecutorGroup(sym, [mx.cpu(0)], [1], [("data", (6, 4))],
                                   [("softmax_label", (6,))], names, for_training=True,
                                   inputs_need_grad=True, shared_group=g1)
    assert describe(g1) == G["direct"]
    assert describe(g2) == G["shared"]
    g1.execs[0].arg_dict["fc1_weight"][:] = 2.5          # the two share parameters
    assert g2.execs[0].arg_dict["fc1_weight"].asnumpy()[0, 0] == G["shared_param_value"]


def deeper_net():
    data = mx.sym.Variable("data")
    h = mx.sym.FullyConnected(data, num_hidden=5, name="fc1")
    h = mx.sym.BatchNorm(h, name="bn")
    h = mx.sym.FullyConnected(mx.sym.relu(h), num_hidden=3, name="fc2")
    h = mx.sym.FullyConnected(h, num_hidden=3, name="fc3")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def buffer_shapes(g):
    return {k: list(v.shape) for k, v in g.shared_data_arrays[0].items()}


def test_bucket_family_shared_data_arrays_match_mxnet():
    """One dict per context for the family: a bigger net's extra arguments join it, a
    smaller input reuses the entry, a larger one replaces it (MXNet's ReshapeOrCreate)."""
    F = G["family"]
    names = [n for n in net().list_arguments() if n not in ("data", "softmax_label")]
    ctx = [mx.cpu(0)]

    def group(sym, n, **kw):
        return DataParallelExecutorGroup(sym, ctx, [1], [("data", (n, 4))],
                                         [("softmax_label", (n,))], names, for_training=True,
                                         **kw)
    g1 = group(net(), 6, inputs_need_grad=False)
    assert buffer_shapes(g1) == F["g1"]
    deep = group(deeper_net(), 6, inputs_need_grad=False, shared_group=g1)
    assert buffer_shapes(deep) == F["deep"]
    assert deep.shared_data_arrays is g1.shared_data_arrays
    assert mx.test_utils.same_array(deep.execs[0].arg_dict["data"],
                                    deep.shared_data_arrays[0]["data"]) \
        == F["deep_data_is_buffer"]
    assert deep.grad_req["fc3_weight"] == F["deep_fc3_grad_req"]
    # the extra layer's arrays are the deeper group's own
    assert deep.shared_data_arrays[0]["fc3_weight"] is deep.execs[0].arg_dict["fc3_weight"]
    small = group(net(), 3, inputs_need_grad=True, shared_group=g1)
    assert buffer_shapes(small) == F["small"]
    large = group(net(), 8, inputs_need_grad=False, shared_group=g1)
    assert buffer_shapes(large) == F["large"]
    assert mx.test_utils.same_array(large.execs[0].arg_dict["data"],
                                    g1.shared_data_arrays[0]["data"]) \
        == F["large_data_is_buffer"]


def lstm_states_module():
    stack = mx.rnn.SequentialRNNCell()
    for i in range(2):
        stack.add(mx.rnn.LSTMCell(num_hidden=20, prefix="lstm_l%d_" % i))
    begin = stack.begin_state(func=mx.sym.Variable)
    _, states = stack.unroll(10, begin_state=begin, inputs=mx.sym.Variable("data"))
    return mx.mod.Module(mx.sym.Group(states), context=[mx.cpu(0), mx.cpu(1)],
                         label_names=None, state_names=[b.name for b in begin])


def test_rnn_begin_states_over_two_contexts_match_mxnet():
    """Begin states declared (0, 20) get the batch size of each context's slice (MXNet
    infers them per executor, here 2 and 3 rows of 5); set_states takes what
    get_outputs(merge_multi_context=False) gives."""
    S = G["states"]
    mod = lstm_states_module()
    mod.bind(data_shapes=[("data", (5, 10))], label_shapes=None, for_training=False)
    mod.init_params()
    pre = "states/param/"
    mod.set_params({k[len(pre):]: mx.nd.array(A[k]) for k in A.files if k.startswith(pre)}, {})
    batch = mx.io.DataBatch(data=[mx.nd.array(A["states/x"])], label=[])
    mod.set_states(value=1)
    mod.forward(batch)
    out = mod.get_outputs(merge_multi_context=False)
    assert [[list(a.shape) for a in o] for o in out] == S["per_device_out"]
    assert [[list(a.shape) for a in s] for s in mod.get_states(merge_multi_context=False)] \
        == S["states_after_value"]
    merged = np.stack([o.asnumpy() for o in mod.get_outputs(merge_multi_context=True)])
    np.testing.assert_allclose(merged, A["states/out1"], rtol=1e-5, atol=1e-6)
    mod.set_states(states=out)
    np.testing.assert_allclose(
        np.stack([np.concatenate([a.asnumpy() for a in s])
                  for s in mod.get_states(merge_multi_context=False)]),
        A["states/set"], rtol=1e-5, atol=1e-6)
    mod.forward(batch)
    np.testing.assert_allclose(np.stack([o.asnumpy() for o in mod.get_outputs()]),
                               A["states/out2"], rtol=1e-5, atol=1e-6)
    with pytest.raises(ModuleError, match="merge_multi_context=True is not supported"):
        mod.get_states(merge_multi_context=True)
    with pytest.raises(ModuleError, match="Only one of states & value"):
        mod.set_states(states=out, value=1)
