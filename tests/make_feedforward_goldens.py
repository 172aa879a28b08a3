"""Golden results of the legacy ``mx.model.FeedForward`` from real MXNet 1.9.1, for
tests/test_feedforward.py.

    /work/mxref/bin/python tests/make_feedforward_goldens.py

Writes ``tests/goldens/feedforward/cases.{json,npz}``. Each case is a function
``f(mx, tmpdir)`` using only MXNet 1.x API; the test imports this file and runs the same
functions on xnd. It returns ``[(name, value)]``: NumPy arrays or NDArrays (compared to
float32 rounding), numbers (compared to 1e-6), strings or lists of numbers/strings (exact).
Weights are set through ``arg_params`` (initializers' random streams differ between
frameworks), and the training data is fixed.
"""
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(HERE, "goldens", "feedforward")
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _net(mx):
    data = mx.sym.Variable("data")
    h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=5, name="fc1"),
                          act_type="relu", name="relu1")
    out = mx.sym.FullyConnected(h, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(out, name="softmax")


def _params(mx):
    def grid(shape, scale, shift):
        n = int(np.prod(shape))
        return mx.nd.array(((np.arange(n) * 7 % 11) - shift).reshape(shape) * scale)
    return {"fc1_weight": grid((5, 4), 0.1, 5), "fc1_bias": grid((5,), 0.05, 2),
            "fc2_weight": grid((3, 5), 0.08, 4), "fc2_bias": mx.nd.zeros((3,))}


def _data(n=12):
    x = (np.arange(n * 4).reshape(n, 4) % 9 - 4).astype(np.float32) * 0.25
    y = (np.arange(n) % 3).astype(np.float32)
    return x, y


@case
def iter_sgd_momentum(mx, tmpdir):
    """DataIter input, SGD with momentum and wd, eval data, batch/epoch callbacks."""
    x, y = _data()
    train = mx.io.NDArrayIter(x, y, batch_size=4, shuffle=False)
    seen = []
    epochs = []
    model = mx.model.FeedForward(_net(mx), num_epoch=2, optimizer="sgd", learning_rate=0.5,
                                 momentum=0.9, wd=0.01, arg_params=_params(mx))
    model.fit(train, eval_data=mx.io.NDArrayIter(x[:8], y[:8], batch_size=4),
              batch_end_callback=lambda p: seen.append(float(p.eval_metric.get()[1])),
              epoch_end_callback=lambda e, s, a, x_: epochs.append(e))
    out = [("batch_acc", seen), ("epochs", epochs)]
    out += [("arg:" + k, v) for k, v in sorted(model.arg_params.items())]
    out.append(("predict", model.predict(mx.io.NDArrayIter(x, y, batch_size=5))))
    pred, data, label = model.predict(x[:7], return_data=True)
    out += [("predict_np", pred), ("predict_data", data), ("predict_label", label)]
    out.append(("predict_num_batch", model.predict(mx.io.NDArrayIter(x, y, batch_size=5),
                                                   num_batch=1)))
    out.append(("score_acc", float(model.score(mx.io.NDArrayIter(x, y, batch_size=4)))))
    out.append(("score_ce", float(model.score(mx.io.NDArrayIter(x, y, batch_size=4),
                                              eval_metric="ce"))))
    return out


@case
def numpy_rollover_epoch_size(mx, tmpdir):
    """NumPy input (shuffled NDArrayIter, roll_over), numpy_batch_size, epoch_size."""
    x, y = _data(10)
    np.random.seed(3)
    model = mx.model.FeedForward(_net(mx), num_epoch=2, epoch_size=3, numpy_batch_size=4,
                                 learning_rate=0.2, arg_params=_params(mx))
    model.fit(x, y.reshape(10, 1))
    return [("arg:" + k, v) for k, v in sorted(model.arg_params.items())]


@case
def create_save_load(mx, tmpdir):
    """FeedForward.create, save, load (begin_epoch = epoch) and a further epoch."""
    x, y = _data()
    model = mx.model.FeedForward.create(_net(mx), mx.io.NDArrayIter(x, y, batch_size=6),
                                        num_epoch=1, learning_rate=0.3,
                                        arg_params=_params(mx))
    prefix = os.path.join(tmpdir, "ff")
    model.save(prefix)
    loaded = mx.model.FeedForward.load(prefix, 1, num_epoch=2, learning_rate=0.3)
    before = loaded.predict(x)
    loaded.fit(mx.io.NDArrayIter(x, y, batch_size=6))
    files = sorted(os.listdir(tmpdir))
    return [("files", files), ("begin_epoch", loaded.begin_epoch), ("loaded_predict", before),
            ("after", loaded.predict(x)), ("fc2_weight", loaded.arg_params["fc2_weight"])]


@case
def batchnorm_aux(mx, tmpdir):
    """Auxiliary states (BatchNorm moving statistics) copied back after fit."""
    x, y = _data()
    data = mx.sym.Variable("data")
    h = mx.sym.BatchNorm(mx.sym.FullyConnected(data, num_hidden=5, name="fc1"), name="bn")
    out = mx.sym.FullyConnected(mx.sym.Activation(h, act_type="tanh"), num_hidden=3,
                                name="fc2")
    params = _params(mx)
    params.update({"bn_gamma": mx.nd.ones((5,)), "bn_beta": mx.nd.zeros((5,))})
    model = mx.model.FeedForward(mx.sym.SoftmaxOutput(out, name="softmax"), num_epoch=2,
                                 learning_rate=0.1, arg_params=params,
                                 aux_params={"bn_moving_mean": mx.nd.zeros((5,)),
                                             "bn_moving_var": mx.nd.ones((5,))})
    model.fit(mx.io.NDArrayIter(x, y, batch_size=6))
    out = [("arg:" + k, v) for k, v in sorted(model.arg_params.items())]
    out += [("aux:" + k, v) for k, v in sorted(model.aux_params.items())]
    out.append(("predict", model.predict(x)))
    return out


@case
def sym_gen_buckets(mx, tmpdir):
    """A sym_gen callable: each batch runs sym_gen(batch.bucket_key), parameters shared;
    predict uses the symbol of the iterator's default_bucket_key."""
    x, y = _data()

    def sym_gen(key):
        data = mx.sym.Variable("data")
        h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=5, name="fc1"),
                              act_type=key)
        out = mx.sym.FullyConnected(h, num_hidden=3, name="fc2")
        return mx.sym.SoftmaxOutput(out, name="softmax")

    class Buckets(mx.io.DataIter):
        def __init__(self):
            super().__init__(4)
            self.default_bucket_key = "relu"
            self.provide_data = [mx.io.DataDesc("data", (4, 4))]
            self.provide_label = [mx.io.DataDesc("softmax_label", (4,))]
            self.i = 0

        def reset(self):
            self.i = 0

        def next(self):
            if self.i == 3:
                raise StopIteration
            sl = slice(4 * self.i, 4 * self.i + 4)
            key = ("relu", "tanh", "sigmoid")[self.i]
            self.i += 1
            return mx.io.DataBatch([mx.nd.array(x[sl])], [mx.nd.array(y[sl])], pad=0,
                                   bucket_key=key, provide_data=self.provide_data,
                                   provide_label=self.provide_label)
    model = mx.model.FeedForward(sym_gen, num_epoch=2, learning_rate=0.2,
                                 arg_params=_params(mx))
    model.fit(Buckets())
    out = [("arg:" + k, v) for k, v in sorted(model.arg_params.items())]
    out.append(("predict", model.predict(mx.io.NDArrayIter(x, y, batch_size=4))))
    return out


@case
def errors(mx, tmpdir):
    x, y = _data()
    model = mx.model.FeedForward(_net(mx), num_epoch=1, arg_params=_params(mx))
    out = []
    for name, call in (("no_y", lambda: model.fit(x)),
                       ("y_list", lambda: model.fit(x, list(y))),
                       ("y_len", lambda: model.fit(x, y[:3])),
                       ("y_2d", lambda: model.fit(x, np.zeros((12, 2)))),
                       ("x_list", lambda: model.fit([1, 2, 3])),
                       ("eval_none", lambda: model.fit(x, y, eval_data=(None, None))),
                       ("eval_bad", lambda: model.fit(x, y, eval_data=5))):
        try:
            call()
            out.append((name, "no error"))
        except Exception as e:  # noqa: BLE001 - the class is the golden
            out.append((name, type(e).__name__ + ": " + str(e)))
    return out


def encode(results):
    meta, arrays = [], {}
    for name, v in results:
        if hasattr(v, "asnumpy"):
            v = v.asnumpy()
        if isinstance(v, np.ndarray):
            arrays[name] = v
            meta.append([name, {"t": "array", "dtype": str(v.dtype), "shape": list(v.shape)}])
        else:
            meta.append([name, {"t": "value", "value": v}])
    return meta, arrays


def main():
    import warnings
    sys.path.insert(0, HERE)
    import mxnet as mx
    from golden_files import write
    warnings.simplefilter("ignore", DeprecationWarning)
    meta, arrays = {}, {}
    for name, fn in CASES.items():
        with tempfile.TemporaryDirectory() as d:
            m, a = encode(fn(mx, d))
        meta[name] = m
        arrays.update({name + "/" + k: v for k, v in a.items()})
    write(os.path.join(GOLDEN_DIR, "cases.json"), os.path.join(GOLDEN_DIR, "cases.npz"),
          meta, arrays)


if __name__ == "__main__":
    main()
