"""Networks of the head-gradient goldens, built with either framework (``mx`` passed in)."""
import numpy as np

_r = np.random.RandomState(7)
PARAMS = {"feat_weight": _r.uniform(-0.5, 0.5, (4, 3)).astype("float32"),
          "feat_bias": _r.uniform(-0.5, 0.5, (4,)).astype("float32"),
          "fc2_weight": _r.uniform(-0.5, 0.5, (1, 4)).astype("float32"),
          "fc2_bias": _r.uniform(-0.5, 0.5, (1,)).astype("float32"),
          "side_weight": _r.uniform(-0.5, 0.5, (1, 3)).astype("float32")}


def batch(mx):
    return (mx.nd.array(np.arange(6, dtype="float32").reshape(2, 3) / 5),
            mx.nd.array([[1.0], [2.0]]))


def build(mx, case):
    """(symbol, label names, fixed parameter names) of a case."""
    data, label = mx.sym.Variable("data"), mx.sym.Variable("lin_label")
    h = mx.sym.FullyConnected(data, num_hidden=4, name="feat")
    out = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(h, num_hidden=1, name="fc2"),
                                        label, name="lin")
    if case == "group":
        return (mx.sym.Group([out, mx.sym.BlockGrad(h, name="bg"),
                              mx.sym.MakeLoss(mx.sym.sum(h * h), name="ml")]),
                ["lin_label"], None)
    if case == "plain":
        return h, None, None
    if case == "plain_and_loss":
        return mx.sym.Group([out, h]), ["lin_label"], None
    # 'null_only': a second output computed from fixed (grad_req 'null') parameters only
    side = mx.sym.FullyConnected(data, num_hidden=1, no_bias=True, name="side")
    return mx.sym.Group([out, side]), ["lin_label"], ["side_weight"]
