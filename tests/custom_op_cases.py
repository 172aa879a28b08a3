"""Custom-operator scenarios run on MXNet 1.9.1 (tests/make_custom_op_goldens.py writes what
it returns) and on xnd (tests/test_custom_op.py compares). ``run(mx, tmpdir)`` takes the
``mxnet`` module to use; the operators are registered on first use.

Operators: ``t_sqr`` (y = x^2, gradient 2 x dy), ``t_scaled_mult`` (two inputs, a ``scale``
keyword passed as a string), ``t_softmax`` (a loss: need_top_grad=False, backward is
softmax - one_hot(label), label shape inferred from data), ``t_ones`` (no inputs),
``t_bad_shape`` (infer_shape returns two output shapes for one output).
"""
import os

import numpy as np


def register_softmax(mx, name, forward):
    """Registers custom operator `name`: a softmax loss (inputs data and label, the label's
    shape inferred from data; need_top_grad=False) whose output is forward(data NDArray)
    and whose backward is output - one_hot(label)."""
    class Softmax(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], forward(in_data[0]))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            label = in_data[1].asnumpy().ravel().astype(int)
            y = out_data[0].asnumpy().copy()
            y[np.arange(label.shape[0]), label] -= 1.0
            self.assign(in_grad[0], req[0], mx.nd.array(y))

    @mx.operator.register(name)
    class SoftmaxProp(mx.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=False)

        def list_arguments(self):
            return ["data", "label"]

        def infer_shape(self, in_shape):
            return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []

        def create_operator(self, ctx, shapes, dtypes):
            return Softmax()


def register_raising(mx, name, message):
    """Registers custom operator `name` (one input) whose forward raises ValueError(message)."""
    class Raises(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            raise ValueError(message)

    @mx.operator.register(name)
    class RaisesProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Raises()


def define(mx):
    if getattr(mx, "_custom_cases_defined", False):
        return
    mx._custom_cases_defined = True

    class Sqr(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * in_data[0])

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])

    @mx.operator.register("t_sqr")
    class SqrProp(mx.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=True)

        def create_operator(self, ctx, shapes, dtypes):
            return Sqr()

    class Mult(mx.operator.CustomOp):
        def __init__(self, scale):
            super().__init__()
            self.scale = scale

        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * in_data[1] * self.scale)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], in_data[1] * out_grad[0] * self.scale)
            self.assign(in_grad[1], req[1], in_data[0] * out_grad[0] * self.scale)

    @mx.operator.register("t_scaled_mult")
    class MultProp(mx.operator.CustomOpProp):
        def __init__(self, scale="1.0"):
            super().__init__(need_top_grad=True)
            assert isinstance(scale, str)  # MXNet passes every keyword as a string
            self.scale = float(scale)

        def list_arguments(self):
            return ["lhs", "rhs"]

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0]], []

        def create_operator(self, ctx, shapes, dtypes):
            return Mult(self.scale)

    def numpy_softmax(x):
        x = x.asnumpy()
        y = np.exp(x - x.max(axis=1, keepdims=True))
        return mx.nd.array(y / y.sum(axis=1, keepdims=True))
    register_softmax(mx, "t_softmax", numpy_softmax)

    class Ones(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], mx.nd.ones(out_data[0].shape))

    @mx.operator.register("t_ones")
    class OnesProp(mx.operator.CustomOpProp):
        def __init__(self, rows, cols):
            super().__init__()
            self.shape = (int(rows), int(cols))

        def list_arguments(self):
            return []

        def infer_shape(self, in_shape):
            return [], [self.shape], []

        def infer_type(self, in_type):
            return [], [np.float32], []

        def create_operator(self, ctx, shapes, dtypes):
            return Ones()

    @mx.operator.register("t_bad_shape")
    class BadProp(mx.operator.CustomOpProp):
        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0], in_shape[0]], []

        def create_operator(self, ctx, shapes, dtypes):
            return Sqr()


def _data():
    rs = np.random.RandomState(0)
    x = rs.uniform(-1, 1, (4, 5)).astype(np.float32)
    w = rs.uniform(-1, 1, (4, 5)).astype(np.float32)
    feats = rs.uniform(-1, 1, (40, 6)).astype(np.float32)
    labels = (feats[:, 0] > 0).astype(np.float32) + (feats[:, 1] > 0.3)
    fc_w = rs.uniform(-0.3, 0.3, (3, 6)).astype(np.float32)
    return x, w, feats, labels, fc_w


def run(mx, tmpdir):
    define(mx)
    x, w, feats, labels, fc_w = _data()
    out = {}
    nx, nw = mx.nd.array(x), mx.nd.array(w)
    out["imperative_sqr"] = mx.nd.Custom(nx, op_type="t_sqr").asnumpy()
    out["imperative_mult"] = mx.nd.Custom(nx, nw, op_type="t_scaled_mult", scale=2.5).asnumpy()
    out["ones"] = mx.nd.Custom(op_type="t_ones", rows=2, cols=3).asnumpy()

    a, b = mx.nd.array(x), mx.nd.array(w)
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(a, b, op_type="t_scaled_mult", scale="0.5")
        z = mx.nd.Custom(y, op_type="t_sqr")
        loss = (z * mx.nd.array(w)).sum()
    loss.backward()
    out["autograd_loss"] = loss.asnumpy()
    out["autograd_grad_lhs"] = a.grad.asnumpy()
    out["autograd_grad_rhs"] = b.grad.asnumpy()

    # a bound symbol: keyword inputs by the prop's argument names, head gradient w
    sa, sb = mx.sym.var("a"), mx.sym.var("b")
    net = mx.sym.Custom(lhs=sa, rhs=sb, op_type="t_scaled_mult", scale=3, name="m")
    net = mx.sym.Custom(mx.sym.sin(net), op_type="t_sqr", name="s")
    out["sym_arguments"] = np.array(net.list_arguments())
    out["sym_outputs"] = np.array(net.list_outputs())
    ex = net.simple_bind(mx.cpu(), a=x.shape, b=w.shape)
    ex.forward(is_train=True, a=x, b=w)
    ex.backward(mx.nd.array(w))
    out["sym_forward"] = ex.outputs[0].asnumpy()
    out["sym_grad_a"] = ex.grad_dict["a"].asnumpy()
    out["sym_grad_b"] = ex.grad_dict["b"].asnumpy()
    net2 = mx.sym.load_json(net.tojson())
    ex2 = net2.bind(mx.cpu(), {"a": mx.nd.array(x), "b": mx.nd.array(w)})
    out["sym_json_forward"] = ex2.forward()[0].asnumpy()

    # a custom loss in Module.fit: the label variable comes from the prop's arguments
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    sm = mx.sym.Custom(fc, op_type="t_softmax", name="softmax")
    out["fit_arguments"] = np.array(sm.list_arguments())
    it = mx.io.NDArrayIter(feats, labels, batch_size=10, label_name="softmax_label")
    mod = mx.mod.Module(sm, data_names=["data"], label_names=["softmax_label"])
    mod.fit(it, num_epoch=2, optimizer="sgd", optimizer_params={"learning_rate": 0.5},
            arg_params={"fc_weight": mx.nd.array(fc_w), "fc_bias": mx.nd.zeros((3,))},
            initializer=mx.init.Zero(), eval_metric="acc")
    args, _ = mod.get_params()
    out["fit_fc_weight"] = args["fc_weight"].asnumpy()
    out["fit_fc_bias"] = args["fc_bias"].asnumpy()
    out["fit_predict"] = mod.predict(mx.io.NDArrayIter(feats, batch_size=10)).asnumpy()

    # a hybridized block that calls F.Custom, trained one step, exported and imported
    class Net(mx.gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.dense = mx.gluon.nn.Dense(5, in_units=5)

        def hybrid_forward(self, F, v):
            h = F.Custom(self.dense(v), op_type="t_sqr")
            return F.Custom(h, v, op_type="t_scaled_mult", scale=1.5)

    blk = Net(prefix="net_")
    blk.initialize(mx.init.Constant(0.1))
    blk.hybridize()
    v = mx.nd.array(x)
    v.attach_grad()
    with mx.autograd.record():
        r = blk(v)
        lo = (r * mx.nd.array(w)).sum()
    lo.backward()
    out["hybrid_forward"] = r.asnumpy()
    out["hybrid_grad_x"] = v.grad.asnumpy()
    out["hybrid_grad_w"] = blk.dense.weight.grad().asnumpy()
    prefix = os.path.join(tmpdir, "custom_net")
    blk.export(prefix)
    imported = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"],
                                            prefix + "-0000.params")
    out["imported_forward"] = imported(mx.nd.array(w)).asnumpy()
    return out


def errors(mx):
    """Name -> the exception type name each bad call raises."""
    define(mx)
    got = {}
    x = mx.nd.ones((2, 3))

    def record(name, fn):
        try:
            fn()
            mx.nd.waitall()
            got[name] = None
        except Exception as e:  # the type is what is compared
            got[name] = type(e).__name__
    record("bad_infer_shape", lambda: mx.nd.Custom(x, op_type="t_bad_shape").wait_to_read())
    record("unregistered", lambda: mx.nd.Custom(x, op_type="t_not_there").wait_to_read())
    return got
