"""Cross-device SyncBatchNorm against MXNet 1.9.1 (tests/sync_batchnorm_cases.py, goldens from
tests/make_sync_batchnorm_goldens.py on cpu(0) and cpu(1)): the statistics are those of all
devices' data, the data gradients cross devices, each device's gamma/beta gradients and
running statistics are its own copy's. Run in this process (both contexts on one JAX device)
and in a subprocess with two host devices, where each part and each gradient lives on its own
device. Also the errors of the patterns MXNet would deadlock on, and the multi-device autograd
pieces this needs (a backward over heads on several devices, a recorded cross-device copy)."""
import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import xnd as mx
from xnd import autograd, gluon, nd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import device_threads  # noqa: E402
import golden_files  # noqa: E402
import sync_batchnorm_cases as cases  # noqa: E402

_, GOLD = golden_files.read("sync_batchnorm")


def _close(res, golden_prefix=None):
    assert res
    for k, v in res.items():
        g = GOLD[k if golden_prefix is None else golden_prefix + k.split("/", 1)[1]]
        assert v.shape == g.shape, k
        np.testing.assert_allclose(v, g, rtol=1e-5, atol=1e-5 * (np.abs(g).max() + 1), err_msg=k)


_NO_HYBRID = ("layer", "module")


@pytest.mark.parametrize("name", ["layer", "net_loop", "net_threads"])
@pytest.mark.parametrize("hybridize", [False, True])
def test_against_mxnet(name, hybridize):
    fn = cases.CASES[name]
    _close(fn(mx) if name in _NO_HYBRID else fn(mx, hybridize))


def test_module_over_two_contexts_meets_as_mxnet():
    """A Module over cpu(0) and cpu(1) (one JAX device here: its slices run as one vmap whose
    SyncBatchNorm layers meet) trains with MXNet's statistics across the batch."""
    _close(cases.module(mx))


@pytest.mark.parametrize("hybridize", [False, True])
def test_loop_backward_gives_the_threaded_gradients(hybridize):
    """One backward of every device's loss, after a loop that runs the whole network per
    device (MXNet 1.9.1 deadlocks in that backward): MXNet's gradients of the threaded case."""
    res = cases.net_loop(mx, hybridize, backward=True)
    _close({k: v for k, v in res.items() if "grad" in k or "running" in k}, "threads/")


def _two_device_worker():
    import sync_batchnorm_cases as c
    out = {}
    for hybridize in (False, True):
        for name, fn in c.CASES.items():
            res = fn(mx) if name in _NO_HYBRID else fn(mx, hybridize)
            out.update({f"{hybridize}/{k}": v for k, v in res.items()})
    devices = sorted({str(a.ctx) for a in [nd.ones(1, ctx=mx.cpu(1))]})
    return out, devices, len(__import__("jax").devices())


def test_two_host_devices():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2")
    code = ("import sys, json, numpy as np; sys.path.insert(0, %r); import test_sync_batchnorm as t; "
            "out, devs, n = t._two_device_worker(); np.savez(sys.argv[1], **out); "
            "print(json.dumps([devs, n]))" % HERE)
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"xnd_syncbn_{os.getpid()}.npz")
    proc = subprocess.run([sys.executable, "-c", code, path], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    devs, n = json.loads(proc.stdout.strip().splitlines()[-1])
    assert n == 2 and devs == ["cpu(1)"]
    with np.load(path) as z:
        res = dict(z)
    os.remove(path)
    assert len(res) == 2 * len(GOLD)
    for k, v in res.items():
        g = GOLD[k.split("/", 1)[1]]
        np.testing.assert_allclose(v, g, rtol=1e-5, atol=1e-5 * (np.abs(g).max() + 1), err_msg=k)


def _bn_pair():
    ctxs = [mx.cpu(0), mx.cpu(1)]
    bn = gluon.contrib.nn.SyncBatchNorm(in_channels=2, num_devices=2)
    bn.initialize(ctx=ctxs)
    xs = [nd.ones((2, 2, 3), ctx=c) * (i + 1) for i, c in enumerate(ctxs)]
    return bn, xs


def test_read_before_every_device_arrived_is_an_error():
    bn, xs = _bn_pair()
    with autograd.record():
        out = bn(xs[0])
        with pytest.raises(mx.base.MXNetError, match=r"read when 1 of the 2 devices.*no other "
                                                     r"thread"):
            out.asnumpy()
        assert out.shape == (2, 2, 3)  # the shape is known without the other device
    # the barrier was abandoned: a new round works
    with autograd.record():
        outs = [bn(x) for x in xs]
    # mean over both devices: 1.5, var 0.25 -> (1 - 1.5) / sqrt(0.25 + 1e-5) on device 0
    np.testing.assert_allclose(outs[0].asnumpy(), -0.5 / np.sqrt(0.25 + 1e-5), rtol=1e-6)
    np.testing.assert_allclose(outs[1].asnumpy(), 0.5 / np.sqrt(0.25 + 1e-5), rtol=1e-6)


def test_one_device_backward_alone_is_an_error():
    """Device 0's loss depends on device 1's data through the shared statistics: its backward
    alone would leave that gradient out (MXNet waits for device 1's backward)."""
    bn, xs = _bn_pair()
    for x in xs:
        x.attach_grad()
    with autograd.record():
        losses = [bn(x).sum() for x in xs]
    with pytest.raises(mx.base.MXNetError, match="joins 2 devices through SyncBatchNorm"):
        losses[0].backward()
    autograd.backward(losses)  # both heads in one call: fine
    np.testing.assert_allclose(xs[0].grad.asnumpy(), 0, atol=1e-4)  # sum of a normalized x


def test_threads_reading_early_wait_for_the_others():
    bn, xs = _bn_pair()
    got, started = {}, threading.Barrier(2)

    def work(i):
        started.wait()
        with autograd.record():
            got[i] = bn(xs[i]).asnumpy()  # thread 0 may read before thread 1 has called

    device_threads.run(work, 2)
    np.testing.assert_allclose(got[0], -0.5 / np.sqrt(0.25 + 1e-5), rtol=1e-6)


def test_bad_calls():
    x = nd.ones((2, 3, 4))
    g, b, m, v = nd.ones(3), nd.zeros(3), nd.zeros(3), nd.ones(3)
    with autograd.record():
        nd.contrib.SyncBatchNorm(x, g, b, m, v, ndev=2, key="bad1")
        with pytest.raises(mx.base.MXNetError, match="ndev=3 where the devices already waiting "
                                                     "have ndev=2"):
            nd.contrib.SyncBatchNorm(x, g, b, m, v, ndev=3, key="bad1")
        with pytest.raises(mx.base.MXNetError, match="out= is not supported"):
            nd.contrib.SyncBatchNorm(x, g, b, m, v, ndev=2, key="bad2", out=nd.zeros(x.shape))
        with pytest.raises(mx.base.MXNetError, match=r"channel axis 1 of gamma's length"):
            nd.contrib.SyncBatchNorm(x, nd.ones(4), b, m, v, ndev=2, key="bad3")
    # outside training the operator runs at once (MXNet's: no barrier), with the moving stats
    out = nd.contrib.SyncBatchNorm(x, g, b, m, v, ndev=2, key="bad4")
    np.testing.assert_allclose(out.asnumpy(), 1 / np.sqrt(1 + 1e-3), rtol=1e-6)


def test_cross_device_copy_is_recorded():
    """``copyto`` another context under record passes the gradient back (MXNet's)."""
    x = nd.array([1.0, 2.0, 3.0], ctx=mx.cpu(0))
    x.attach_grad()
    with autograd.record():
        y = x.copyto(mx.cpu(1)) * nd.array([4.0, 5.0, 6.0], ctx=mx.cpu(1))
    y.backward()
    assert y.ctx == mx.cpu(1) and x.grad.ctx == mx.cpu(0)
    np.testing.assert_array_equal(x.grad.asnumpy(), [4.0, 5.0, 6.0])


_DATA_PARALLEL = r"""
import json, numpy as np, xnd as mx
from xnd import autograd, gluon, nd
ctxs = [mx.cpu(0), mx.cpu(1)]
net = gluon.nn.HybridSequential()
net.add(gluon.nn.Dense(3, in_units=2), gluon.nn.BatchNorm(in_channels=3))
net.initialize(mx.init.Uniform(), ctx=ctxs)
net[0].weight.set_data(nd.array([[1., 2.], [-1., 0.5], [0.3, 0.2]]))
xs = [nd.array([[1., 2.], [3., 5.], [0., 1.]], ctx=ctxs[0]),
      nd.array([[0., 1.], [2., 2.], [4., -1.]], ctx=ctxs[1])]
with autograd.record():
    losses = [(net(x) * nd.array([[1., 2., 3.], [0., 1., 0.], [2., 0., 1.]], ctx=x.ctx)).sum()
              for x in xs]
autograd.backward(losses)
w = net[0].weight
print(json.dumps([[g.ctx.device_id for g in w.list_grad()],
                  [g.asnumpy().tolist() for g in w.list_grad()]]))
"""


def test_backward_over_heads_on_two_devices():
    """``autograd.backward([loss0, loss1])`` of a data-parallel step (plain BatchNorm) with
    each context on its own host device: each device's parameters get its own loss's gradient,
    the numbers of the same step with both contexts on one device."""
    runs = []
    for flags in ("--xla_force_host_platform_device_count=2", ""):
        proc = subprocess.run([sys.executable, "-c", _DATA_PARALLEL], capture_output=True,
                              env=dict(os.environ, XLA_FLAGS=flags), text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    (ids, grads), (_, one_device) = runs
    assert ids == [0, 1]
    assert not np.allclose(grads[0], grads[1])  # each device's own data
    np.testing.assert_allclose(grads, one_device, rtol=1e-6, atol=1e-7)


def test_a_device_that_never_comes_times_out(monkeypatch):
    """Another thread is alive but never calls the layer (it died before, or waits on
    something else): the read raises after engine.BARRIER_TIMEOUT_S, not never."""
    monkeypatch.setattr(mx.engine, "BARRIER_TIMEOUT_S", 0.5)
    bn, xs = _bn_pair()
    release = threading.Event()
    idle = threading.Thread(target=release.wait)
    idle.start()
    try:
        with autograd.record():
            out = bn(xs[0])
        with pytest.raises(mx.base.MXNetError, match=r"none did within 0.5 s"):
            out.asnumpy()
    finally:
        release.set()
        idle.join()


def test_module_with_another_ndev_than_its_contexts_is_an_error():
    data = mx.sym.Variable("data")
    net = mx.sym.MakeLoss(mx.sym.sum(mx.sym.contrib.SyncBatchNorm(data, ndev=3, key="k")))
    mod = mx.mod.Module(net, context=[mx.cpu(0), mx.cpu(1)], label_names=None)
    mod.bind(data_shapes=[("data", (4, 2, 3))])
    mod.init_params()
    with pytest.raises(mx.base.MXNetError, match=r"ndev=3, but the module runs on 2 devices"):
        mod.forward(mx.io.DataBatch([nd.ones((4, 2, 3))]), is_train=True)
        mod.get_outputs()[0].asnumpy()
