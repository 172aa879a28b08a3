"""Goldens for tests/test_python_optimizer.py: optimizers whose rule is a Python ``update()``
(MXNet's LBSGD and a user-defined one), stepped through mx.optimizer's Updater, gluon's
Trainer and Module. Run: /work/mxref/bin/python tests/make_python_optimizer_goldens.py
"""
import os

import numpy as np

from golden_files import real_mxnet, write

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "goldens", "python_optimizer")
STEPS = 6

# LBSGD keyword sets (learning_rate 0.1 unless given)
LBSGD_CASES = [
    {"batch_scale": 1},
    {"batch_scale": 2, "warmup_epochs": 2, "updates_per_epoch": 2},
    {"batch_scale": 3, "warmup_epochs": 1, "updates_per_epoch": 4, "warmup_strategy": "power2",
     "momentum": 0.9},
    {"batch_scale": 2, "warmup_epochs": 3, "updates_per_epoch": 1, "warmup_strategy": "sqrt",
     "wd": 0.01, "begin_epoch": 1},
    {"batch_scale": 2, "warmup_strategy": "lars", "momentum": 0.5, "wd": 0.1,
     "clip_gradient": 0.3, "rescale_grad": 0.5},
    {"batch_scale": 4, "warmup_epochs": 5, "updates_per_epoch": 32, "warmup_strategy": "other"},
]


def grads(step, shape):
    base = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    return np.sin(base * 0.7 + step).astype(np.float32)


def lbsgd_updater(mx, arrays):
    for k, kw in enumerate(LBSGD_CASES):
        kw = dict({"learning_rate": 0.1}, **kw)
        upd = mx.optimizer.get_updater(mx.optimizer.create("lbsgd", **kw))
        w = mx.nd.array(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
        for s in range(STEPS):
            upd(0, mx.nd.array(grads(s, (3, 4))), w)
            arrays[f"lbsgd{k}_step{s}"] = w.asnumpy()
    return LBSGD_CASES


def trainer(mx, arrays, opt, kw, tag):
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize(mx.init.Constant(0.5))
    tr = mx.gluon.Trainer(net.collect_params(), opt, kw)
    x = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3) / 6)
    for s in range(4):
        with mx.autograd.record():
            y = (net(x) * (s + 1)).sum()
        y.backward()
        tr.step(2)
        arrays[f"{tag}_weight_step{s}"] = net.weight.data().asnumpy()
        arrays[f"{tag}_bias_step{s}"] = net.bias.data().asnumpy()


def module_fit(mx, arrays):
    data = mx.sym.var("data")
    out = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    out = mx.sym.LinearRegressionOutput(out, name="lro")
    mod = mx.mod.Module(out, label_names=["lro_label"])
    x = np.arange(24, dtype=np.float32).reshape(8, 3) / 24
    y = np.stack([x.sum(1), x[:, 0] - x[:, 2]], 1).astype(np.float32)
    it = mx.io.NDArrayIter(x, y, batch_size=4, label_name="lro_label")
    mod.fit(it, num_epoch=3, optimizer="lbsgd",
            optimizer_params={"learning_rate": 0.2, "batch_scale": 2, "momentum": 0.9,
                              "warmup_epochs": 1, "updates_per_epoch": 2},
            arg_params={"fc_weight": mx.nd.ones((2, 3)) * 0.1, "fc_bias": mx.nd.zeros((2,))},
            initializer=mx.init.Zero())
    args, _ = mod.get_params()
    arrays["module_fc_weight"] = args["fc_weight"].asnumpy()
    arrays["module_fc_bias"] = args["fc_bias"].asnumpy()


def register_half_step(mx):
    """A user-defined optimizer in MXNet's style: its own state and ``update()``."""
    @mx.optimizer.register
    class HalfStepSGD(mx.optimizer.Optimizer):
        """w -= lr/2 * m with m = m/2 + grad."""

        def create_state(self, index, weight):
            return mx.nd.zeros(weight.shape, weight.context)

        def update(self, index, weight, grad, state):
            lr = self._get_lr(index)
            self._update_count(index)
            state[:] = 0.5 * state + grad
            weight[:] = weight - lr / 2 * state
    return HalfStepSGD


TRAINER_LBSGD = {"learning_rate": 0.5, "batch_scale": 2, "momentum": 0.5, "warmup_epochs": 1,
                 "updates_per_epoch": 2}


def main():
    mx = real_mxnet()
    register_half_step(mx)
    arrays = {}
    cases = lbsgd_updater(mx, arrays)
    trainer(mx, arrays, "halfstepsgd", {"learning_rate": 0.5}, "custom")
    trainer(mx, arrays, "lbsgd", TRAINER_LBSGD, "trainer_lbsgd")
    module_fit(mx, arrays)
    write(os.path.join(OUT, "cases.json"), os.path.join(OUT, "cases.npz"),
          {"lbsgd": cases, "steps": STEPS}, arrays)


if __name__ == "__main__":
    main()
