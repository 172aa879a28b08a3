"""Recorded sparse operators (xnd/sparse/tape.py) and the lazy updates on device
(xnd/sparse/rows.py): values, gradient storage types and row indices against MXNet 1.9.1's
goldens (tests/sparse_tape_cases.py); no dense table-sized gradient or dense csr batch is
made; and a training loop compiles nothing new once warm, whatever its batches' counts."""
import jax
import numpy as np
import pytest

import golden_files
import sparse_tape_cases
import xnd as mx
from xnd import tiers
from xnd.sparse import rows as sparse_rows
from xnd.sparse import tape as sparse_tape

GOLD = golden_files.read("sparse_tape")[1]


@pytest.mark.parametrize("case", sorted(sparse_tape_cases.CASES))
def test_matches_mxnet(case):
    got = sparse_tape_cases.CASES[case](mx)
    want = {k[len(case) + 1:]: v for k, v in GOLD.items() if k.startswith(case + "/")}
    assert sorted(got) == sorted(want)
    for k, v in want.items():
        if v.dtype.kind == "U":
            assert str(got[k]) == str(v), k
        elif k.endswith("/rows"):
            np.testing.assert_array_equal(got[k], v, err_msg=k)
        else:
            np.testing.assert_allclose(np.asarray(got[k], dtype=v.dtype), v, rtol=2e-6,
                                       atol=1e-6, err_msg=k)


def test_no_dense_table_or_batch_is_made(monkeypatch):
    """The rows a batch touches are all that enters the tape; the csr batch is never dense."""
    from xnd.sparse import arrays
    made = []
    monkeypatch.setattr(arrays.CSRNDArray, "todense_numpy",
                        lambda self: made.append("csr") or np.zeros(self.shape))
    gathered = []
    real = sparse_tape.GATHER

    def spy(a, i):
        gathered.append(i.shape)
        return real(a, i)
    monkeypatch.setattr(sparse_tape, "GATHER", spy)
    w = mx.nd.zeros((100000, 1))
    w.attach_grad(stype="row_sparse")
    x = mx.nd.sparse.csr_matrix(([1.0, 2, 3], [7, 99999, 7], [0, 2, 3]), shape=(2, 100000))
    with mx.autograd.record():
        loss = mx.nd.square(mx.nd.sparse.dot(x, w) - 1)
    loss.backward()
    assert not made
    assert gathered == [(2,)]                       # the two columns used, padded to 2
    g = w.grad
    assert g.stype == "row_sparse" and g.indices.asnumpy().tolist() == [7, 99999]
    assert g.data.asnumpy().ravel().tolist() == [-2.0 * 1 - 2.0 * 3, -2.0 * 2]
    assert g._dense is None                         # never made dense


def test_higher_order_through_a_sparse_gradient_is_refused():
    w = mx.nd.ones((5, 2))
    w.attach_grad(stype="row_sparse")
    with mx.autograd.record():
        e = mx.nd.Embedding(mx.nd.array([1, 2]), w, input_dim=5, output_dim=2, sparse_grad=True)
        with pytest.raises(mx.base.MXNetError, match="_backward_Embedding is non-differentiable"):
            mx.autograd.grad(e, [w], create_graph=True)


def test_grad_req_add_sums_the_row_sets():
    w = mx.nd.ones((6, 2))
    w.attach_grad(grad_req="add", stype="row_sparse")
    for ids in ([1, 4], [4, 5]):
        with mx.autograd.record():
            e = mx.nd.Embedding(mx.nd.array(ids), w, input_dim=6, output_dim=2, sparse_grad=True)
        e.backward()
    assert w.grad.indices.asnumpy().tolist() == [1, 4, 5]
    assert w.grad.data.asnumpy().tolist() == [[1, 1], [2, 2], [1, 1]]


def test_bucket_pads_to_powers_of_two():
    assert [sparse_rows.bucket(n) for n in (0, 1, 2, 3, 5, 256, 257)] == \
        [1, 1, 2, 4, 8, 256, 512]


class _Compiles:
    def __init__(self):
        self.n = 0
        jax.monitoring.register_event_duration_secs_listener(self._on)

    def _on(self, event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            self.n += 1


_COUNTER = []


def _compiles():
    if not _COUNTER:
        _COUNTER.append(_Compiles())
    return _COUNTER[0].n


def test_training_steps_compile_nothing_new_once_warm():
    """Batches with other counts of stored entries and touched rows (inside one bucket) reuse
    the programs: the rows gather, the csr dot, the backward, the lazy updates."""
    _compiles()
    rs = np.random.RandomState(0)
    w = mx.nd.zeros((5000, 1))
    w.attach_grad(stype="row_sparse")
    emb = mx.gluon.nn.Embedding(5000, 8, sparse_grad=True)
    emb.initialize(mx.init.Uniform(0.1))
    tr = mx.gluon.Trainer(emb.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    y = mx.nd.array(rs.randint(0, 2, (16, 1)))

    def step(i):
        per = 9 + i % 5                              # 144..208 entries: bucket 256
        idx = np.sort(rs.choice(5000, (16, per)), axis=1).ravel()
        x = mx.nd.sparse.csr_matrix((rs.uniform(0, 1, idx.size).astype("f"), idx,
                                     np.arange(0, idx.size + 1, per)), shape=(16, 5000))
        with mx.autograd.record():
            loss = mx.nd.square(mx.nd.sparse.dot(x, w) - y)
        loss.backward()
        mx.nd.sgd_update(w, w.grad, lr=0.1, lazy_update=True, out=w)
        ids = rs.choice(5000, 40, replace=False)
        ids[:i % 7] = ids[-1]                        # 34..40 distinct rows: bucket 64
        ids = mx.nd.array(ids)
        with mx.autograd.record():
            l2 = emb(ids).square().sum()
        l2.backward()
        tr.step(1)
        mx.nd.waitall()

    warm = max(3, tiers.TABLE.quick_calls, tiers.TABLE.eager_host_calls,
               tiers.TABLE.bucket_calls) + 2
    for i in range(warm):
        step(i)
    before = _compiles()
    for i in range(warm, warm + 8):
        step(i)
    assert _compiles() == before
