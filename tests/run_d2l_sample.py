"""Run a sample of Dive into Deep Learning's MXNet code (d2l 1.0.3, ``from mxnet import np,
npx``) on xnd, and on MXNet 1.9.1 when a reference interpreter is given; print a table.

    python tests/run_d2l_sample.py --python /tmp/d2lenv/bin/python [--ref /tmp/d2lref/bin/python]

Each interpreter needs ``pip install d2l==1.0.3 --no-deps`` (plus pandas, matplotlib,
matplotlib-inline, ipython, requests) and, for xnd, ``import mxnet`` resolved to xnd (the
``xnd-mxnet.pth`` line of xnd.compat.PTH_LINE in its site-packages).  The cells are
d2l-style code from the chapters on preliminaries, linear networks, MLPs, builders' guide,
CNNs, modern CNNs and RNNs.  Deterministic cells (parameters set from a seeded numpy
generator) must give MXNet's numbers within float tolerance; cells that draw from MXNet's
random generator (whose bit stream xnd does not reproduce) are compared on their outcome
(a loss below a bound).
"""
import argparse
import json
import os
import subprocess
import sys
import time

CELLS = {}


def cell(name, deterministic=True):
    def deco(fn):
        CELLS[name] = (fn, deterministic)
        return fn
    return deco


def _det_init(net, seed=0):
    """Set every parameter from a seeded numpy generator (same numbers on xnd and MXNet)."""
    import numpy as onp
    from mxnet import np
    rs = onp.random.RandomState(seed)
    for p in net.collect_params().values():
        p.set_data(np.array(rs.uniform(-0.3, 0.3, p.shape).astype("float32")))


def _train(net, X, y, loss, steps=5, lr=0.1):
    from mxnet import autograd, gluon
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": lr})
    out = []
    for _ in range(steps):
        with autograd.record():
            lv = loss(net(X), y)
        lv.backward()
        trainer.step(X.shape[0])
        out.append(float(lv.mean()))
    return out


@cell("prelim_ndarray")
def _ndarray():
    from mxnet import np
    x = np.arange(12)
    X = x.reshape(3, 4)
    Y = np.array([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
    cat0 = np.concatenate((X, Y), axis=0)
    a, b = np.arange(3).reshape(3, 1), np.arange(2).reshape(1, 2)
    X[1, 2] = 17
    X[0:2, :] = 12
    Z = np.zeros_like(Y)
    before = id(Z)
    Z[:] = X + Y
    A = X.asnumpy()
    s = np.array([3.5])
    return {"x": x.tolist(), "cat0": cat0.shape, "eq": (X == Y).sum().item(),
            "sum": X.sum().item(), "bcast": (a + b).tolist(), "last": X[-1].tolist(),
            "X": X.tolist(), "same_id": id(Z) == before, "A": type(A).__name__,
            "item": [s.item(), float(s), int(s)], "dtype": str(x.dtype),
            "zero_d": X.sum().shape, "repr": repr(np.array([1.0, 2.0]))}


@cell("prelim_linalg")
def _linalg():
    from mxnet import np
    A = np.arange(6).reshape(3, 2)
    x, y = np.arange(4), np.ones(4)
    B = np.ones((2, 3))
    u = np.array([3.0, -4.0])
    return {"T": A.T.tolist(), "sum0": A.sum(axis=0).tolist(), "mean": A.mean().item(),
            "keep": A.sum(axis=1, keepdims=True).tolist(), "cumsum": A.cumsum(axis=0).tolist(),
            "dot": np.dot(x, y).item(), "mv": np.dot(A.T, np.arange(3)).tolist(),
            "mm": np.dot(A, B).tolist(), "norm": np.linalg.norm(u).item(),
            "l1": np.abs(u).sum().item(), "fro": np.linalg.norm(np.ones((4, 9))).item(),
            "div": (A / A.sum(axis=1, keepdims=True)).tolist()}


@cell("prelim_autograd")
def _autograd():
    from mxnet import autograd, np
    x = np.arange(4.0)
    x.attach_grad()
    with autograd.record():
        y = 2 * np.dot(x, x)
    y.backward()
    g1 = x.grad.tolist()
    with autograd.record():
        y = x * x
        u = y.detach()
        z = u * x
    z.backward()
    g2 = x.grad.tolist()

    def f(a):
        b = a * 2
        while np.linalg.norm(b) < 1000:
            b = b * 2
        c = b if b.sum() > 0 else 100 * b
        return c
    a = np.random.normal()
    a.attach_grad()
    with autograd.record():
        d = f(a)
    d.backward()
    return {"g1": g1, "g2": g2, "ctrl": bool(abs(a.grad - d / a) < 1e-3)}


@cell("prelim_probability", deterministic=False)
def _prob():
    from mxnet import np
    fair = [1.0 / 6] * 6
    counts = np.random.multinomial(1000, fair).astype(np.float32)
    return {"close": bool(np.abs(counts / 1000 - 1 / 6).max() < 0.06),
            "shape": counts.shape}


@cell("linreg_scratch", deterministic=False)
def _linreg_scratch():
    from mxnet import np
    from d2l import mxnet as d2l
    data = d2l.SyntheticRegressionData(w=np.array([2, -3.4]), b=4.2)
    model = d2l.LinearRegressionScratch(2, lr=0.03)
    d2l.Trainer(max_epochs=3).fit(model, data)
    return {"w_err_small": bool(np.abs(data.w - model.w.reshape(data.w.shape)).max() < 0.3),
            "b_err_small": bool(abs(float(data.b - model.b)) < 0.3)}


@cell("linreg_concise", deterministic=False)
def _linreg_concise():
    from mxnet import np
    from d2l import mxnet as d2l
    data = d2l.SyntheticRegressionData(w=np.array([2, -3.4]), b=4.2)
    model = d2l.LinearRegression(lr=0.03)
    d2l.Trainer(max_epochs=3).fit(model, data)
    w, b = model.get_w_b()
    return {"w_err_small": bool(np.abs(data.w - w.reshape(data.w.shape)).max() < 0.3),
            "b_err_small": bool(abs(float(data.b - b)) < 0.3)}


@cell("softmax_scratch")
def _softmax_scratch():
    from mxnet import autograd, np
    from d2l import mxnet as d2l
    X = np.array([[0.1, 0.2, 0.3], [0.6, 0.5, 0.4]])
    p = d2l.softmax(X) if hasattr(d2l, "softmax") else np.exp(X) / np.exp(X).sum(1, keepdims=True)
    y = np.array([0, 2])
    W = np.array([[0.1, -0.2, 0.0], [0.3, 0.1, -0.1], [-0.1, 0.2, 0.4]])
    W.attach_grad()
    with autograd.record():
        logits = np.dot(X, W)
        e = np.exp(logits)
        prob = e / e.sum(1, keepdims=True)
        loss = -np.log(prob[range(len(prob)), y]).mean()  # d2l's cross_entropy
    loss.backward()
    acc = (prob.argmax(axis=1).astype(y.dtype) == y).astype(np.float32).sum()
    return {"p": p.tolist(), "loss": loss.item(), "grad": W.grad.tolist(), "acc": acc.item()}


@cell("mlp_concise")
def _mlp():
    from mxnet import gluon, np, npx
    from mxnet.gluon import nn
    net = nn.Sequential()
    net.add(nn.Dense(16, activation="relu"), nn.Dense(4))
    net.initialize()
    X = np.arange(40.0).reshape(8, 5) / 40
    y = np.array([0, 1, 2, 3, 0, 1, 2, 3])
    net(X)
    _det_init(net)
    losses = _train(net, X, y, gluon.loss.SoftmaxCrossEntropyLoss())
    return {"losses": losses, "relu": npx.relu(np.array([-1.0, 2.0])).tolist()}


@cell("mlp_dropout_predict")
def _dropout():
    from mxnet import np
    from mxnet.gluon import nn
    net = nn.Sequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dropout(0.5), nn.Dense(2))
    net.initialize()
    X = np.arange(12.0).reshape(3, 4) / 10
    net(X)
    _det_init(net, 1)
    return {"out": net(X).tolist()}


@cell("builders_custom_block")
def _builders():
    import tempfile
    from mxnet import np, npx
    from mxnet.gluon import nn

    class MLP(nn.Block):
        def __init__(self):
            super().__init__()
            self.hidden = nn.Dense(6, activation="relu")
            self.out = nn.Dense(3)

        def forward(self, X):
            return self.out(self.hidden(X))

    class CenteredLayer(nn.Block):
        def forward(self, X):
            return X - X.mean()

    net = MLP()
    net.initialize()
    X = np.arange(8.0).reshape(2, 4) / 8
    net(X)
    _det_init(net, 2)
    out = net(X)
    path = os.path.join(tempfile.mkdtemp(), "mlp.params")
    net.save_parameters(path)
    clone = MLP()
    clone.load_parameters(path)
    x = np.arange(4.0)
    npx.save(path + ".x", x)
    x2 = npx.load(path + ".x")
    layer = CenteredLayer()
    return {"out": out.tolist(), "clone_eq": bool((clone(X) == out).all()),
            "centered": layer(np.array([1.0, 2, 3, 4, 5])).tolist(),
            "w_type": type(net.hidden.weight.data()).__name__,
            "n_params": len(list(net.collect_params().keys())), "loaded": x2[0].tolist()}


@cell("cnn_lenet_hybrid")
def _lenet():
    from mxnet import gluon, np
    from mxnet.gluon import nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, kernel_size=5, padding=2, activation="sigmoid"),
            nn.AvgPool2D(pool_size=2, strides=2),
            nn.Conv2D(16, kernel_size=5, activation="sigmoid"),
            nn.AvgPool2D(pool_size=2, strides=2),
            nn.Dense(32, activation="sigmoid"), nn.Dense(10))
    net.initialize()
    X = (np.arange(4 * 28 * 28.0).reshape(4, 1, 28, 28) % 17) / 17
    y = np.array([1, 3, 5, 7])
    net(X)
    _det_init(net, 3)
    net.hybridize()
    losses = _train(net, X, y, gluon.loss.SoftmaxCrossEntropyLoss(), steps=3, lr=0.5)
    return {"losses": losses, "shape": net(X).shape}


@cell("modern_cnn_batchnorm")
def _bn():
    from mxnet import autograd, np
    from mxnet.gluon import nn
    net = nn.Sequential()
    net.add(nn.Conv2D(4, kernel_size=3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
            nn.GlobalAvgPool2D(), nn.Dense(2))
    net.initialize()
    X = (np.arange(2 * 3 * 6 * 6.0).reshape(2, 3, 6, 6) % 7) / 7
    net(X)
    _det_init(net, 4)
    with autograd.record():
        train_out = net(X)
    return {"train": train_out.tolist(), "predict": net(X).tolist()}


@cell("rnn_concise")
def _rnn():
    from mxnet import np
    from mxnet.gluon import rnn
    layer = rnn.RNN(8)
    layer.initialize()
    X = np.arange(5 * 2 * 3.0).reshape(5, 2, 3) / 30
    state = layer.begin_state(batch_size=2)
    layer(X, state)
    _det_init(layer, 5)
    Y, new = layer(X, state)
    return {"Y": Y.shape, "sum": Y.sum().item(), "state": new[0].shape}


@cell("attention_masking")
def _attention():
    from mxnet import np, npx
    from d2l import mxnet as d2l
    X = np.arange(2 * 2 * 4.0).reshape(2, 2, 4) / 10
    m = d2l.masked_softmax(X, np.array([2, 3]))
    q, k = np.ones((2, 1, 3)), np.arange(2 * 4 * 3.0).reshape(2, 4, 3) / 10
    return {"masked": m.tolist(), "bdot": npx.batch_dot(q, k.transpose(0, 2, 1)).tolist(),
            "seqmask": npx.sequence_mask(np.ones((2, 3)), np.array([1, 2]), True, value=-1,
                                         axis=1).tolist()}


def _run_cells(names):
    import matplotlib
    matplotlib.use("Agg")
    from mxnet import npx
    npx.set_np()
    results = {}
    for name in names:
        fn, _ = CELLS[name]
        t = time.time()
        stdout = sys.stdout
        try:
            sys.stdout = open(os.devnull, "w")  # d2l's progress board prints figures
            value = fn()
            results[name] = {"ok": True, "value": _jsonable(value)}
        except Exception as e:  # a cell's failure is a row of the table, not the end of the run
            results[name] = {"ok": False, "error": f"{type(e).__name__}: {str(e)[:200]}"}
        finally:
            sys.stdout.close()
            sys.stdout = stdout
        results[name]["s"] = round(time.time() - t, 2)
    return results


def _jsonable(v):
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    return str(v)


def _close(a, b, rtol=1e-4, atol=1e-5):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], rtol, atol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        try:
            return abs(float(a) - float(b)) <= atol + rtol * abs(float(b))
        except (TypeError, ValueError):
            return False
    return a == b


def _collect(python, names):
    out = subprocess.run([python, os.path.abspath(__file__), "--worker", *names],
                         capture_output=True, text=True, timeout=1800)
    marker = [line for line in out.stdout.splitlines() if line.startswith("RESULTS ")]
    if not marker:
        raise SystemExit(f"{python} failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")
    return json.loads(marker[-1][len("RESULTS "):])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable, help="interpreter whose mxnet is xnd")
    ap.add_argument("--ref", help="interpreter with MXNet 1.9.1 (and d2l) to compare against")
    ap.add_argument("--worker", nargs="*", help=argparse.SUPPRESS)
    ap.add_argument("cells", nargs="*", help="cells to run (default: all)")
    args = ap.parse_args()
    if args.worker is not None:
        print("RESULTS " + json.dumps(_run_cells(args.worker or list(CELLS))))
        return 0
    names = args.cells or list(CELLS)
    mine = _collect(args.python, names)
    ref = _collect(args.ref, names) if args.ref else None
    print(f"| cell | xnd | {'MXNet 1.9.1 | same numbers |' if ref else ''} xnd s |")
    print(f"|---|---|{'---|---|' if ref else ''}---|")
    bad = 0
    for n in names:
        m = mine[n]
        status = "ok" if m["ok"] else "FAIL " + m["error"]
        row = f"| {n} | {status} |"
        if ref:
            r = ref[n]
            same = (m["ok"] and r["ok"] and _close(m["value"], r["value"])) if CELLS[n][1] else \
                (m["ok"] and r["ok"] and m["value"] == r["value"])
            row += f" {'ok' if r['ok'] else 'FAIL ' + r['error']} | {'yes' if same else 'NO'} |"
            bad += not same
            if not same and m["ok"] and r["ok"]:
                print(f"<!-- {n}: xnd {json.dumps(m['value'])[:300]} vs MXNet "
                      f"{json.dumps(r['value'])[:300]} -->")
        row += f" {m['s']} |"
        bad += not m["ok"]
        print(row)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
