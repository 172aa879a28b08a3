"""Recorded sparse operators whose gradients are row_sparse from the start (xnd/sparse/tape.py),
run by MXNet 1.9.1 (tests/make_sparse_goldens.py) and by xnd (tests/test_sparse_tape.py):
``dot(csr, w)``, ``Embedding(sparse_grad=True)``, ``SparseEmbedding``, ``autograd.grad``
and the training loops of benchmarks/sparse_bench.py in small, with the optimizers'
in-place lazy updates. Each gradient is recorded with its storage type and row indices:
MXNet keeps every touched row, also one whose gradient is zero."""
import numpy as np


def _rsp(out, name, g):
    out[name + "/stype"] = np.array(g.stype)
    out[name + "/value"] = g.asnumpy()
    if g.stype == "row_sparse":
        out[name + "/rows"] = g.indices.asnumpy()


def _csr(mx, rs, rows, cols, per_row):
    idx = np.sort(np.stack([rs.choice(cols, per_row, replace=False) for _ in range(rows)]), 1)
    data = rs.uniform(-1, 1, rows * per_row).astype("float32")
    return mx.nd.sparse.csr_matrix((data, idx.ravel(), np.arange(0, rows * per_row + 1,
                                                                 per_row)), shape=(rows, cols))


def dot_grads(mx):
    out = {}
    # a stored zero (column 3) and a column whose contributions cancel (column 6)
    csr = mx.nd.sparse.csr_matrix(([1.0, 0.0, 2.0, 1.0, 3.0, -1.0], [1, 3, 6, 5, 1, 6],
                                   [0, 3, 4, 6]), shape=(3, 8))
    w = mx.nd.array(np.arange(16, dtype="float32").reshape(8, 2))
    w.attach_grad(stype="row_sparse")
    with mx.autograd.record():
        y = mx.nd.sparse.dot(csr, w)
        loss = (y * mx.nd.array([[1.0, 2], [1, 2], [1, 2]])).sum()
    loss.backward()
    out["y"] = y.asnumpy()
    _rsp(out, "w", w.grad)
    # the same csr with one row of no entries, and a 1-D weight column (the linear model)
    csr2 = mx.nd.sparse.csr_matrix(([1.0, 2.0, 3.0], [4, 0, 4], [0, 2, 2, 3]), shape=(3, 5))
    v = mx.nd.array(np.arange(5, dtype="float32").reshape(5, 1))
    v.attach_grad(stype="row_sparse")
    with mx.autograd.record():
        y2 = mx.nd.square(mx.nd.sparse.dot(csr2, v) - 1)
    y2.backward()
    out["y2"] = y2.asnumpy()
    _rsp(out, "v", v.grad)
    # a dense gradient stays dense; csr.T . dense
    d = mx.nd.array(np.arange(16, dtype="float32").reshape(8, 2))
    d.attach_grad()
    t = mx.nd.array(np.arange(6, dtype="float32").reshape(3, 2))
    t.attach_grad()
    with mx.autograd.record():
        z = (mx.nd.sparse.dot(csr, d) * 2).sum() + mx.nd.sparse.dot(csr, t, transpose_a=True).sum()
    z.backward()
    out["z"] = z.asnumpy()
    _rsp(out, "d", d.grad)
    _rsp(out, "t", t.grad)
    return out


def embedding_grads(mx):
    out = {}
    w = mx.nd.array(np.arange(30, dtype="float32").reshape(10, 3))
    w.attach_grad(stype="row_sparse")
    ids = mx.nd.array([[4, 1], [4, 7.9]])
    scale = mx.nd.array(np.arange(12, dtype="float32").reshape(2, 2, 3) - 3)
    with mx.autograd.record():
        e = mx.nd.Embedding(ids, w, input_dim=10, output_dim=3, sparse_grad=True)
        loss = (e * scale).sum()
    loss.backward()
    out["e"] = e.asnumpy()
    _rsp(out, "w", w.grad)
    # two lookups of one table: the union of their rows, zero-gradient rows kept
    with mx.autograd.record():
        a = mx.nd.Embedding(mx.nd.array([2, 4]), w, input_dim=10, output_dim=3, sparse_grad=True)
        b = mx.nd.contrib.SparseEmbedding(mx.nd.array([9, 4, 9]), w, input_dim=10, output_dim=3)
        loss = (a * 2).sum() + (b * mx.nd.array([[1.0], [1], [-1]])).sum()
    loss.backward()
    _rsp(out, "twice", w.grad)
    # autograd.grad: a row_sparse result
    with mx.autograd.record():
        e = mx.nd.Embedding(mx.nd.array([3, 0, 3]), w, input_dim=10, output_dim=3,
                            sparse_grad=True)
    (g,) = mx.autograd.grad(e, [w])
    _rsp(out, "grad", g)
    return out


def linear_loop(mx):
    """benchmarks/sparse_bench.py's linear model in small: csr batches, a row_sparse gradient,
    lazy sgd_update and sgd_mom_update / adam_update in place."""
    rs = np.random.RandomState(3)
    out = {}
    for opt in ("sgd", "sgd_mom", "adam"):
        w = mx.nd.array(rs.uniform(-0.1, 0.1, (50, 1)).astype("float32"))
        w.attach_grad(stype="row_sparse")
        states = [mx.nd.zeros((50, 1)) for _ in range({"sgd": 0, "sgd_mom": 1, "adam": 2}[opt])]
        y = mx.nd.array(rs.randint(0, 2, (4, 1)))
        for step in range(3):
            x = _csr(mx, rs, 4, 50, 3 + step)
            with mx.autograd.record():
                loss = mx.nd.square(mx.nd.sparse.dot(x, w) - y)
            loss.backward()
            if step == 0:
                _rsp(out, opt + "/grad0", w.grad)
            if opt == "sgd":
                mx.nd.sgd_update(w, w.grad, lr=0.1, wd=0.01, lazy_update=True, out=w)
            elif opt == "sgd_mom":
                mx.nd.sgd_mom_update(w, w.grad, states[0], lr=0.1, momentum=0.9, wd=0.01,
                                     lazy_update=True, out=w)
            else:
                mx.nd.adam_update(w, w.grad, states[0], states[1], lr=0.01, wd=0.01,
                                  lazy_update=True, out=w)
        out[opt + "/w"] = w.asnumpy()
        for k, s in enumerate(states):
            out["%s/state%d" % (opt, k)] = s.asnumpy()
    return out


def embedding_trainer(mx):
    """gluon Embedding(sparse_grad=True) with a Trainer: lazy SGD (momentum, weight decay)
    and lazy Adam on each batch's rows only, batches of different unique counts."""
    out = {}
    for name, kw in (("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}),
                     ("adam", {"learning_rate": 0.01})):
        rs = np.random.RandomState(5)
        emb = mx.gluon.nn.Embedding(40, 4, sparse_grad=True)
        emb.initialize(mx.init.Constant(0.5))
        emb.weight.set_data(mx.nd.array(rs.uniform(-1, 1, (40, 4)).astype("float32")))
        tr = mx.gluon.Trainer(emb.collect_params(), name, kw)
        for step in range(3):
            ids = mx.nd.array(rs.randint(0, 40, (6 + 3 * step,)))
            with mx.autograd.record():
                loss = (emb(ids) * mx.nd.array(rs.uniform(-1, 1, (6 + 3 * step, 4)))).sum()
            loss.backward()
            if step == 0:
                _rsp(out, name + "/grad0", emb.weight.grad())
            tr.step(2)
        out[name + "/w"] = emb.weight.data().asnumpy()
    return out


CASES = {"dot_grads": dot_grads, "embedding_grads": embedding_grads, "linear_loop": linear_loop,
         "embedding_trainer": embedding_trainer}
