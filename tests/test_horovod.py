"""horovod.mxnet on JAX (xnd/horovod): the API in one process (Horovod's size-1 semantics,
exact values), and under ``python -m xnd launch -n 2``: the collectives' values, and a Gluon
training script whose two ranks end on the same weights as one process on the combined
batches."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import xnd as mx
from xnd.base import MXNetError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "xnd", "examples", "horovod_mnist.py")


@pytest.fixture
def hvd():
    import horovod.mxnet as hvd
    hvd.init()
    yield hvd
    hvd.shutdown()


def test_import_hook_gives_xnd_horovod():
    import horovod
    import horovod.mxnet as hvd
    assert hvd is sys.modules["xnd.horovod.mxnet"] and horovod.__version__ == "0.28.1"
    from xnd import compat
    assert compat.installed_horovod() is None


def test_not_initialized_raises():
    import horovod.mxnet as hvd
    hvd.shutdown()
    with pytest.raises(ValueError, match="hvd.init"):
        hvd.rank()


def test_single_process_collectives(hvd):
    assert (hvd.rank(), hvd.size(), hvd.local_rank(), hvd.local_size(), hvd.cross_rank(),
            hvd.cross_size(), hvd.is_initialized()) == (0, 1, 0, 1, 0, 1, True)
    x = mx.nd.array([1, 2, 3])
    np.testing.assert_array_equal(hvd.allreduce(x).asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(
        hvd.allreduce(x, average=False, prescale_factor=2.0, postscale_factor=3.0).asnumpy(),
        [6, 12, 18])
    y = x.copy()
    assert hvd.allreduce_(y, op=hvd.Sum, postscale_factor=0.5) is y
    np.testing.assert_array_equal(y.asnumpy(), [0.5, 1, 1.5])
    a, b = hvd.grouped_allreduce([x, x * 2], average=True)
    np.testing.assert_array_equal(b.asnumpy(), [2, 4, 6])
    np.testing.assert_array_equal(hvd.allgather(x).asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(hvd.broadcast(x, 0).asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(hvd.alltoall(x).asnumpy(), [1, 2, 3])
    assert hvd.broadcast_object({"a": 1}) == {"a": 1} and hvd.allgather_object(5) == [5]


def test_errors_name_the_call(hvd):
    x = mx.nd.array([1, 2, 3])
    with pytest.raises(ValueError, match="root_rank=1"):
        hvd.broadcast(x, root_rank=1)
    with pytest.raises(ValueError, match="Adasum"):
        hvd.allreduce(x, op=hvd.Adasum)
    with pytest.raises(TypeError, match="NDArray"):
        hvd.allreduce(np.ones(3))
    with pytest.raises(MXNetError, match="splits"):
        hvd.alltoall(x, splits=[2])
    with pytest.raises(MXNetError, match="scalar"):
        hvd.allgather(mx.nd.array(1.0).reshape(()))
    hvd.broadcast_parameters([x])   # one process: returns first, as Horovod's (no checks)


def test_compression_fp16_round_trip():
    from horovod.mxnet import Compression
    x = mx.nd.array([1.0, 2.5, 1e-8], dtype="float32")
    w, ctx = Compression.fp16.compress(x)
    assert w.dtype == np.float16 and ctx == np.float32
    back = Compression.fp16.decompress(w, ctx)
    assert back.dtype == np.float32
    np.testing.assert_array_equal(back.asnumpy(), np.float32(np.float16([1.0, 2.5, 1e-8])))
    i = mx.nd.array([1, 2], dtype="int32")
    assert Compression.fp16.compress(i) == (i, None)
    assert Compression.none.compress(x) == (x, None)


def test_distributed_optimizer_and_trainer_scale(hvd):
    opt = mx.optimizer.SGD(learning_rate=0.5, rescale_grad=2.0)
    dopt = hvd.DistributedOptimizer(opt, gradient_predivide_factor=1.0)
    assert dopt.rescale_grad == 2.0 and dopt.learning_rate == 0.5
    w, g = mx.nd.array([1.0, 1.0]), mx.nd.array([0.25, 0.5])
    dopt.update(0, w, g, dopt.create_state(0, w))
    np.testing.assert_allclose(w.asnumpy(), [1 - 0.5 * 2 * 0.25, 1 - 0.5 * 2 * 0.5])
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize(mx.init.One())
    tr = hvd.DistributedTrainer(net.collect_params(), "sgd", {"learning_rate": 1.0},
                                gradient_predivide_factor=2.0)
    assert tr._scale == 2.0 and tr._kvstore_params["kvstore"] is None
    with mx.autograd.record():
        out = net(mx.nd.ones((1, 3))).sum()
    out.backward()
    tr.step(2)   # rescale 2/2: a plain step of the gradient (1 per weight)
    np.testing.assert_array_equal(net.weight.data().asnumpy(), np.zeros((2, 3)))


def _launch(args, timeout=240):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DMLC_", "HOROVOD_"))}
    # the ranks switch to optimized programs at the same call counts (docs/porting.md)
    env.update(JAX_PLATFORMS="cpu", XND_DIST_TIMEOUT="60", MXNET_ENFORCE_DETERMINISM="1")
    return subprocess.run([sys.executable, "-m", "xnd", "launch", "-n", "2"] + args, cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=timeout)


COLLECTIVES = r'''
import json
import horovod.mxnet as hvd, mxnet as mx
hvd.init()
r = hvd.rank()
x = mx.nd.ones((2, 3)) * (r + 1)
out = {
 "size": hvd.size(), "local": [hvd.local_rank(), hvd.local_size(), hvd.cross_rank(), hvd.cross_size()],
 "sum": hvd.allreduce(x, average=False).asnumpy().tolist(),
 "avg": hvd.allreduce(x).asnumpy().tolist(),
 "scaled": hvd.allreduce(x, average=False, prescale_factor=2.0, postscale_factor=0.5).asnumpy().tolist(),
 "grouped": [t.asnumpy().tolist() for t in hvd.grouped_allreduce([x, x * 10], op=hvd.Sum)],
 "gather": hvd.allgather(mx.nd.arange(r + 1) + 10 * r).asnumpy().tolist(),
 "bcast": hvd.broadcast(x, root_rank=1).asnumpy().tolist(),
 "a2a": hvd.alltoall(mx.nd.arange(3) + 10 * r, splits=[1, 2]).asnumpy().tolist(),
 "obj": [hvd.broadcast_object({"from": r}, root_rank=1), hvd.allgather_object(r)],
}
y = mx.nd.ones((2,)) * r
hvd.broadcast_(y, root_rank=0)
out["bcast_"] = y.asnumpy().tolist()
print("RESULT", r, json.dumps(out))
'''


def test_collectives_over_two_processes(tmp_path):
    script = tmp_path / "coll.py"
    script.write_text(COLLECTIVES)
    res = _launch([str(script)])
    assert res.returncode == 0, res.stdout + res.stderr
    got = {}
    for line in res.stdout.splitlines():
        if "RESULT" in line:
            r, rest = line.split("RESULT ")[1].split(" ", 1)
            got[int(r)] = json.loads(rest)
            assert line.startswith("[%s]<stdout>:" % r)
    assert sorted(got) == [0, 1]
    for r, o in got.items():
        assert o["size"] == 2 and o["local"] == [r, 2, 0, 1]
        assert o["sum"] == [[3.0] * 3] * 2 and o["avg"] == [[1.5] * 3] * 2
        assert o["scaled"] == [[3.0] * 3] * 2
        assert o["grouped"] == [[[3.0] * 3] * 2, [[30.0] * 3] * 2]
        assert o["gather"] == [0.0, 10.0, 11.0]
        assert o["bcast"] == [[2.0] * 3] * 2 and o["bcast_"] == [0.0, 0.0]
        assert o["obj"] == [{"from": 1}, [0, 1]]
    assert got[0]["a2a"] == [0.0, 10.0] and got[1]["a2a"] == [1.0, 2.0, 11.0, 12.0]


def test_horovod_training_equals_one_process_on_combined_batches(tmp_path):
    res = _launch([sys.executable, EXAMPLE, "--out-dir", str(tmp_path)])
    assert res.returncode == 0, res.stdout + res.stderr
    accs = [ln for ln in res.stdout.splitlines() if "epoch 1: accuracy" in ln]
    assert len(accs) == 2 and accs[0].split(":")[-1] == accs[1].split(":")[-1]
    ref = subprocess.run([sys.executable, EXAMPLE, "--reference", "--out-dir", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert ref.returncode == 0, ref.stderr
    assert ref.stdout.splitlines()[-1].split(":")[-1] == accs[0].split(":")[-1]
    w0, w1, wr = (np.load(tmp_path / f) for f in ("rank0.npz", "rank1.npz", "reference.npz"))
    assert sorted(w0) == sorted(wr) and len(w0) == 6
    for k in w0:
        np.testing.assert_array_equal(w0[k], w1[k])
        np.testing.assert_allclose(w0[k], wr[k], rtol=0, atol=1e-6)


def test_kvstore_horovod_single_process(hvd):
    kv = mx.kv.create("horovod")
    assert kv.type == "horovod" and (kv.rank, kv.num_workers, kv.local_rank) == (0, 1, 0)
    assert not kv.is_capable("optimizer")
    a, out = mx.nd.ones((2, 3)) * 2, mx.nd.zeros((2, 3))
    kv.pushpull("w", a, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 3), 2.0))
    kv.broadcast("b", mx.nd.arange(3), out=[out[0], out[1]])
    net = mx.gluon.nn.Dense(1, in_units=2)
    net.initialize(mx.init.One())
    tr = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5},
                          kvstore="horovod")
    with mx.autograd.record():
        net(mx.nd.ones((1, 2))).backward()
    tr.step(1)
    np.testing.assert_array_equal(net.weight.data().asnumpy(), [[0.5, 0.5]])
