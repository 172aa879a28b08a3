"""Which index a custom optimizer's ``update(index, ...)`` receives (MXNet 1.9.1: Module on one
device passes each parameter's position, on several devices its name through the kvstore;
Gluon's Trainer the parameter's position), and that an SGD subclass's ``update`` is never
called (MXNet's SGD, NAG, LARS and LAMB update through update_multi_precision; its
example/dsd SparseSGD relies on it). Shared by make_optimizer_index_goldens.py and
test_optimizer_index.py."""
import numpy as np


def run_all(mx):
    seen = []

    class RecSGD(mx.optimizer.SGD):
        def update(self, index, weight, grad, state):
            seen.append(index)
            super().update(index, weight, grad, state)

    class RecBase(mx.optimizer.Optimizer):
        def create_state(self, index, weight):
            return None

        def update(self, index, weight, grad, state):
            seen.append(index)
            weight[:] = weight - 0.1 * grad

    out = {}
    for opt_cls in (RecSGD, RecBase):
        for ctxs in (1, 2):
            del seen[:]
            data = mx.sym.var("data")
            net = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
            net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=2, name="fc2"),
                                       name="softmax")
            mod = mx.mod.Module(net, context=[mx.cpu(i) for i in range(ctxs)])
            rs = np.random.RandomState(0)
            it = mx.io.NDArrayIter(rs.rand(4, 5).astype("float32"),
                                   np.array([0, 1, 1, 0], "float32"), batch_size=2)
            init = {"fc_weight": rs.randn(3, 5) * 0.3, "fc_bias": np.zeros(3),
                    "fc2_weight": rs.randn(2, 3) * 0.3, "fc2_bias": np.zeros(2)}
            mod.fit(it, num_epoch=1, optimizer=opt_cls(learning_rate=0.1),
                    arg_params={k: mx.nd.array(v) for k, v in init.items()})
            key = "module %s %d device(s)" % (opt_cls.__name__, ctxs)
            out[key + " indices"] = [repr(i) for i in seen]
            out[key + " fc_weight"] = np.round(
                mod.get_params()[0]["fc_weight"].asnumpy(), 5).tolist()
        del seen[:]
        net = mx.gluon.nn.Dense(2, in_units=3)
        net.initialize(mx.init.Constant(0.5))
        tr = mx.gluon.Trainer(net.collect_params(), opt_cls(learning_rate=0.1))
        with mx.autograd.record():
            loss = net(mx.nd.ones((2, 3))).sum()
        loss.backward()
        tr.step(2)
        out["gluon %s indices" % opt_cls.__name__] = sorted(repr(i) for i in seen)
    return out
