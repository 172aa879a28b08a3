"""``mod._exec_group`` and a directly built DataParallelExecutorGroup expose what MXNet
1.9.1's do (goldens: tests/make_exec_group_goldens.py)."""
import json
import os

import numpy as np

import xnd as mx
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
