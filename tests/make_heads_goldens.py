"""Record MXNet 1.9.1's Module/Executor backward without head gradients (issue 22).

    /work/mxref/bin/python tests/make_heads_goldens.py

A Group of LinearRegressionOutput, BlockGrad(h) and MakeLoss(sum(h*h)) trains with
forward_backward + update (no out_grads); a plain non-loss output, alone or grouped with a
loss, raises MXNet's "head_gradient is required"; an output that depends only on 'null'
arguments needs none.  Writes ``tests/goldens/module/heads.json`` / ``heads.npz``.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402

mx = golden_files.real_mxnet()

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "module")
sys.path.insert(0, OUT)
from heads_cases import PARAMS, batch, build  # noqa: E402


def error_of(fn):
    try:
        fn()
    except mx.base.MXNetError as e:
        return "MXNetError: " + ("head_gradient is required" if "head_gradient is required"
                                 in str(e) else str(e)[:80])
    return None


def main():
    meta, arrays = {}, {}
    data, label = batch(mx)
    b = mx.io.DataBatch([data], [label])
    for case in ("group", "plain", "plain_and_loss", "null_only"):
        net, lnames, reqs = build(mx, case)
        mod = mx.mod.Module(net, data_names=["data"], label_names=lnames, fixed_param_names=reqs)
        mod.bind([("data", (2, 3))], [("lin_label", (2, 1))] if lnames else None)
        names = set(net.list_arguments())
        mod.init_params(arg_params={k: mx.nd.array(v) for k, v in PARAMS.items() if k in names})
        mod.init_optimizer(optimizer_params={"learning_rate": 0.1})

        def step():
            mod.forward_backward(b)
            mod.update()
        meta[case] = error_of(step)
        if meta[case] is None:
            for k, v in mod.get_params()[0].items():
                arrays["%s/%s" % (case, k)] = v.asnumpy()
            for i, o in enumerate(mod.get_outputs()):
                arrays["%s/out%d" % (case, i)] = o.asnumpy()
    # Executor.backward() the same way
    net, _, _ = build(mx, "group")
    args = {k: mx.nd.array(v) for k, v in PARAMS.items() if k != "side_weight"}
    args["data"], args["lin_label"] = data, label
    grads = {k: mx.nd.zeros(v.shape) for k, v in args.items()}
    exe = net.bind(mx.cpu(), args, args_grad=grads)
    exe.forward(is_train=True)
    exe.backward()
    for k in args:
        arrays["exec/grad/" + k] = grads[k].asnumpy()
    golden_files.write(os.path.join(OUT, "heads.json"), os.path.join(OUT, "heads.npz"),
                       meta, arrays)


if __name__ == "__main__":
    main()
