"""MXNet's legacy rule for 0 in a shape: in a symbol or a hybridized block a creation op's 0
dim is unknown, filled by shape inference from its consumers (GluonTS's DeepAR:
``F.where(cond, F.zeros(shape=(0, C)), h)``); imperatively it is refused; under
``mx.np_shape()`` it is a real zero-size dim. Shared by make_unknown_dims_goldens.py (MXNet
1.9.1) and test_unknown_dims.py."""
import numpy as np


def run_all(mx):
    """{case: [shape, values] or ["error", type name] or inferred shapes}."""
    F = mx.sym

    class Where(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, h, c):
            return F.where(c, F.zeros(shape=(0, 4)), h) * 2

    class AddZeros(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, h):
            return F.zeros(shape=(0, 4)) + F.ones(shape=(0, 0)) * h

    class BroadcastOnes(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, h):
            return F.broadcast_add(F.ones(shape=(0, 1)), h)

    class DeferredDense(mx.gluon.HybridBlock):  # the layer's weight shape inferred through it
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.d = mx.gluon.nn.Dense(3, flatten=False)

        def hybrid_forward(self, F, h, c):
            return self.d(F.where(c, F.zeros(shape=(0, 4)), h)) + F.zeros(shape=(0, 3))

    class BeginState(mx.gluon.HybridBlock):  # DeepAR: one zeros begin state on both sides
        def hybrid_forward(self, F, h, c):
            z = F.zeros(shape=(0, 4))
            return F.where(c, z, z) + F.where(c.sum(axis=1), F.ones(shape=(0, 4)), h) + h

    class RowCondition(mx.gluon.HybridBlock):  # a 1-D condition leaves both sides unknown
        def hybrid_forward(self, F, h, c):
            return F.where(c.sum(axis=1), F.ones(shape=(0, 4)), F.zeros(shape=(0, 4))) + h

    def attempt(f):
        try:
            r = f()
            return [list(r.shape), r.asnumpy().tolist()]
        except Exception as e:  # noqa: BLE001  (the error type is the result)
            return ["error", type(e).__name__]

    out = {}
    rs = np.random.RandomState(1)
    for rows in (3, 5):  # one hybridized block, two batch sizes
        h = mx.nd.array(rs.randn(rows, 4).round(3))
        c = mx.nd.array(rs.randint(0, 2, (rows, 4)))
        for name, block, args in (("where", Where(), (h, c)), ("add", AddZeros(), (h,))):
            block.hybridize()
            out["hybridized %s %d rows" % (name, rows)] = attempt(lambda: block(*args))
            # and recorded, with the gradient of h
            x = h.copy()
            x.attach_grad()
            with mx.autograd.record():
                y = block(x, *args[1:])
            y.backward()
            out["hybridized %s %d rows grad" % (name, rows)] = attempt(lambda: x.grad)
    net = DeferredDense()
    net.initialize(mx.init.Constant(0.1))
    net.hybridize()
    out["deferred Dense 2 rows"] = attempt(lambda: net(mx.nd.ones((2, 4)),
                                                      mx.nd.array([[1, 0, 1, 0]] * 2)))
    out["deferred Dense 3 rows"] = attempt(lambda: net(mx.nd.ones((3, 4)), mx.nd.zeros((3, 4))))
    bs = BeginState()
    bs.hybridize()
    out["begin state where"] = attempt(lambda: bs(mx.nd.ones((3, 4)),
                                                  mx.nd.array([[1, 0, 1, 0], [0] * 4, [1] * 4])))
    rc = RowCondition()
    rc.hybridize()
    out["row condition where"] = attempt(lambda: rc(mx.nd.ones((3, 4)), mx.nd.ones((3, 4))))
    bo = BroadcastOnes()
    bo.hybridize()
    out["hybridized broadcast (0, 1)"] = attempt(lambda: bo(mx.nd.ones((3, 4))))
    out["imperative zeros (0, 4)"] = attempt(lambda: mx.nd.zeros((0, 4)))
    with mx.np_shape(True):
        out["np_shape zeros (0, 4)"] = attempt(lambda: mx.nd.zeros((0, 4)))
    s = F.where(F.var("c"), F.zeros(shape=(0, 4)), F.var("h"))
    out["symbol where infer_shape"] = [list(map(list, x)) for x in
                                       s.infer_shape(c=(3, 4), h=(3, 4))]
    ex = s.bind(mx.cpu(), {"c": mx.nd.array([[1, 0, 1, 0]] * 3), "h": mx.nd.ones((3, 4))})
    out["symbol where forward"] = attempt(lambda: ex.forward()[0])
    s = F.elemwise_add(F.zeros(shape=(2, 0)), F.var("h"))
    out["symbol elemwise_add infer_shape"] = [list(map(list, x)) for x in
                                              s.infer_shape(h=(2, 6))]
    return out
