"""Backward without head gradients, as MXNet 1.9.1 (goldens: tests/make_heads_goldens.py):
loss heads, BlockGrad outputs and outputs of 'null' arguments need none; any other output
raises MXNet's 'head_gradient is required'."""
import json
import os
import sys

import numpy as np
import pytest

import xnd as mx

HERE = os.path.join(os.path.dirname(__file__), "goldens", "module")
sys.path.insert(0, HERE)
from heads_cases import PARAMS, batch, build  # noqa: E402

META = json.load(open(os.path.join(HERE, "heads.json")))
ARR = np.load(os.path.join(HERE, "heads.npz"))


@pytest.mark.parametrize("case", sorted(META))
def test_module_step_without_out_grads(case):
    data, label = batch(mx)
    b = mx.io.DataBatch([data], [label])
    net, lnames, fixed = build(mx, case)
    mod = mx.mod.Module(net, data_names=["data"], label_names=lnames, fixed_param_names=fixed)
    mod.bind([("data", (2, 3))], [("lin_label", (2, 1))] if lnames else None)
    names = set(net.list_arguments())
    mod.init_params(arg_params={k: mx.nd.array(v) for k, v in PARAMS.items() if k in names})
    mod.init_optimizer(optimizer_params={"learning_rate": 0.1})
    if META[case] is not None:
        with pytest.raises(mx.MXNetError, match="head_gradient is required"):
            mod.forward_backward(b)
            mod.update()
        return
    mod.forward_backward(b)
    mod.update()
    for k, v in mod.get_params()[0].items():
        np.testing.assert_allclose(v.asnumpy(), ARR["%s/%s" % (case, k)], rtol=1e-5, atol=1e-6)
    for i, o in enumerate(mod.get_outputs()):
        np.testing.assert_allclose(o.asnumpy(), ARR["%s/out%d" % (case, i)], rtol=1e-5, atol=1e-6)


def test_executor_backward_without_out_grads():
    net, _, _ = build(mx, "group")
    data, label = batch(mx)
    args = {k: mx.nd.array(v) for k, v in PARAMS.items() if k != "side_weight"}
    args["data"], args["lin_label"] = data, label
    grads = {k: mx.nd.zeros(v.shape) for k, v in args.items()}
    exe = net.bind(mx.cpu(), args, args_grad=grads)
    exe.forward(is_train=True)
    exe.backward()
    for k in args:
        np.testing.assert_allclose(grads[k].asnumpy(), ARR["exec/grad/" + k], rtol=1e-5,
                                   atol=1e-6)
    plain = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=4, name="feat")
    exe = plain.simple_bind(mx.cpu(), data=(2, 3))
    exe.forward(is_train=True)
    with pytest.raises(mx.MXNetError, match="head_gradient is required for output of feat"):
        exe.backward()
