"""kvstore='dist_sync' across processes (xnd.frontend.distributed over jax.distributed).

The main test starts what MXNet's ``tools/launch.py --launcher local -n 2 -s 1`` starts --
a scheduler, a server and two workers, with the launcher's DMLC_* variables -- running
tests/dist_worker.py, and a single-process reference run on the combined batches; both
workers must end with the same parameters, equal to the reference's. (The expected kvstore
values and the reference semantics were checked against MXNet 1.9.1's own dist_sync.)
"""
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import xnd as mx
from xnd.base import MXNetError
from xnd.frontend import distributed, kvstore

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORKER = os.path.join(HERE, "dist_worker.py")
DEADLINE = 150   # seconds for a whole launch (normally ~15)


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DMLC_") and k != "_XND_DIST_PID"}
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env["JAX_PLATFORMS"] = "cpu"
    env["XND_DIST_TIMEOUT"] = "40"
    env.update({k: str(v) for k, v in extra.items()})
    return env


class _Procs:
    """Processes started with their output in files; ``wait`` reports every one's output
    when any fails or the deadline passes."""

    def __init__(self, tmp):
        self.tmp, self.procs = tmp, []

    def start(self, name, args, env):
        out = open(os.path.join(self.tmp, name + ".out"), "wb")
        err = open(os.path.join(self.tmp, name + ".err"), "wb")
        p = subprocess.Popen([sys.executable] + args, cwd=ROOT, env=env, stdout=out,
                             stderr=err, stdin=subprocess.DEVNULL)
        self.procs.append((name, p, out, err))
        return p

    def output(self, name, which="err"):
        with open(os.path.join(self.tmp, "%s.%s" % (name, which)), "rb") as f:
            return f.read().decode("utf-8", "replace")

    def report(self):
        lines = []
        for name, p, _, _ in self.procs:
            lines.append("---- %s (exit %s)\nstdout: %s\nstderr: %s" % (
                name, p.returncode, self.output(name, "out")[-3000:],
                self.output(name, "err")[-6000:]))
        return "\n".join(lines)

    def wait(self, deadline=DEADLINE):
        end = time.monotonic() + deadline
        try:
            for name, p, out, err in self.procs:
                try:
                    p.wait(timeout=max(1, end - time.monotonic()))
                except subprocess.TimeoutExpired:
                    self.kill()
                    pytest.fail("%s did not finish within %d s\n%s"
                                % (name, deadline, self.report()))
        finally:
            for _, _, out, err in self.procs:
                out.close()
                err.close()
        return {name: p.returncode for name, p, _, _ in self.procs}

    def kill(self):
        for _, p, _, _ in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def _launch_local(procs, n, script_args, port):
    """What MXNet's local launcher starts: a scheduler (DMLC_ROLE=scheduler), the workers
    (tasks 0..n-1) and a server (task n), all with DMLC_NUM_WORKER, DMLC_NUM_SERVER,
    DMLC_PS_ROOT_URI and DMLC_PS_ROOT_PORT."""
    common = dict(DMLC_NUM_WORKER=n, DMLC_NUM_SERVER=1, DMLC_PS_ROOT_URI="127.0.0.1",
                  DMLC_PS_ROOT_PORT=port)
    procs.start("scheduler", script_args, _env(DMLC_ROLE="scheduler", **common))
    for i in range(n):
        procs.start("worker%d" % i, script_args,
                    _env(DMLC_ROLE="worker", DMLC_TASK_ID=i, DMLC_JOB_CLUSTER="local", **common))
    procs.start("server", script_args,
                _env(DMLC_ROLE="server", DMLC_TASK_ID=n, DMLC_JOB_CLUSTER="local", **common))


def test_dist_sync_two_workers(tmp_path):
    tmp = str(tmp_path)
    procs = _Procs(tmp)
    _launch_local(procs, 2, [WORKER, tmp], _free_port())
    procs.start("reference", [WORKER, tmp, "reference"], _env())
    codes = procs.wait()
    assert all(c == 0 for c in codes.values()), procs.report()
    # the scheduler and the server never ran the script (as in MXNet)
    for role in ("scheduler", "server"):
        assert "done" not in procs.output(role, "out"), procs.report()
    w0 = np.load(os.path.join(tmp, "worker0_kv_module_gluon.npz"))
    w1 = np.load(os.path.join(tmp, "worker1_kv_module_gluon.npz"))
    ref = np.load(os.path.join(tmp, "reference.npz"))
    # (a) the store: MXNet 1.9.1's dist_sync values
    shape = (2, 3)
    want = {"kv_init": np.ones(shape), "kv_push": np.full(shape, 3.0),
            "kv_push_list": np.full(shape, 33.0),
            "kv_pushpull": 3 * np.arange(6.0).reshape(shape),
            "kv_multi_init": [5, 5, 5, 5, 6], "kv_multi_push": [3, 3, 3, 3, 300],
            "kv_sgd": [0.25, -0.5, -1.25]}
    for k, v in want.items():
        for w in (w0, w1):
            np.testing.assert_allclose(w[k], v, rtol=1e-6, err_msg=k)
    # (b) Module.fit and (c) gluon Trainer: identical on both workers, equal to one process
    # training on the combined batches
    keys = sorted(k for k in w0.files if k.startswith(("mod_", "gluon_")))
    assert sorted(ref.files) == keys
    assert len([k for k in keys if k.startswith("mod_")]) == 4
    assert len([k for k in keys if k.startswith("gluon_")]) == 4
    for k in keys:
        np.testing.assert_array_equal(w0[k], w1[k], err_msg=k)
        np.testing.assert_allclose(w0[k], ref[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_launcher_roles_and_errors(monkeypatch):
    """What happens at import (distributed.handle_role / initialize), run in this process:
    every case stops before JAX is involved."""
    port = _free_port()       # nobody listens there
    base = {"DMLC_NUM_WORKER": "2", "DMLC_PS_ROOT_URI": "127.0.0.1",
            "DMLC_PS_ROOT_PORT": str(port)}
    # a worker that cannot reach worker 0's coordinator: a clear error within the timeout
    t0 = time.monotonic()
    with pytest.raises(MXNetError, match="worker 1 of 2: cannot reach the coordinator at "
                       "127.0.0.1:%d .*within 1 s .XND_DIST_TIMEOUT" % port):
        distributed.initialize(dict(base, DMLC_ROLE="worker", DMLC_TASK_ID="1",
                                    XND_DIST_TIMEOUT="1"))
    assert time.monotonic() - t0 < 10
    assert not distributed.is_initialized()
    # servers stop at import with status 0; the scheduler too, once the job is over (here:
    # after waiting XND_DIST_TIMEOUT for a job that never came)
    with pytest.raises(SystemExit) as stop:
        distributed.handle_role(dict(base, DMLC_ROLE="server"))
    assert stop.value.code == 0
    t0 = time.monotonic()
    with pytest.raises(SystemExit) as stop:
        distributed.handle_role(dict(base, DMLC_ROLE="scheduler", XND_DIST_TIMEOUT="1"))
    assert stop.value.code == 0 and time.monotonic() - t0 < 10
    # the launcher's variables, checked before anything starts
    with pytest.raises(MXNetError, match="no worker id; set DMLC_WORKER_ID .or DMLC_TASK_ID"):
        distributed.initialize(dict(base, DMLC_ROLE="worker"))
    with pytest.raises(MXNetError, match="DMLC_WORKER_ID=5 is not a worker id in 0..1"):
        distributed.initialize(dict(base, DMLC_ROLE="worker", DMLC_WORKER_ID="5"))
    with pytest.raises(MXNetError, match="DMLC_PS_ROOT_PORT not set"):
        distributed.initialize({"DMLC_ROLE": "worker", "DMLC_NUM_WORKER": "2",
                                "DMLC_TASK_ID": "0", "DMLC_PS_ROOT_URI": "127.0.0.1"})
    with pytest.raises(MXNetError, match="DMLC_PS_ROOT_PORT='x' is not a port"):
        distributed.initialize(dict(base, DMLC_ROLE="worker", DMLC_TASK_ID="0",
                                    DMLC_PS_ROOT_PORT="x"))
    # an unknown role: import works (a warning), kv.create says what is wrong
    for k in [k for k in os.environ if k.startswith("DMLC_")]:
        monkeypatch.delenv(k)
    for k, v in base.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("DMLC_ROLE", "trainer")
    distributed.handle_role()
    with pytest.raises(MXNetError, match="DMLC_ROLE='trainer'.*workers only"):
        kvstore.create("dist_sync")
    assert kvstore.create("local").num_workers == 1


def test_dist_types_in_one_process(monkeypatch):
    for k in [k for k in os.environ if k.startswith("DMLC_")]:
        monkeypatch.delenv(k)
    kv = kvstore.create("dist_async")        # no launcher: rank 0 of 1, a local store
    assert (type(kv), kv.type, kv.rank, kv.num_workers) == (kvstore.KVStore, "dist_async", 0, 1)
    kv._barrier()
    monkeypatch.setenv("DMLC_NUM_WORKER", "2")
    with pytest.raises(MXNetError, match="multi-process.*DMLC_ROLE is not set"):
        kvstore.create("dist_sync")
    monkeypatch.setenv("DMLC_ROLE", "worker")
    with pytest.raises(MXNetError, match="DMLC_PS_ROOT_URI and DMLC_PS_ROOT_PORT not set"):
        kvstore.create("dist_sync")
    monkeypatch.setenv("DMLC_NUM_WORKER", "two")
    with pytest.raises(MXNetError, match="DMLC_NUM_WORKER='two' is not an integer"):
        kvstore.create("dist_sync")
    # a child process of a worker (its variables inherited) does not join the job
    monkeypatch.setenv("DMLC_NUM_WORKER", "2")
    monkeypatch.setenv("_XND_DIST_PID", str(os.getpid() + 1))
    distributed.handle_role()
    assert not distributed.is_initialized()
    env = distributed.launcher_env({"DMLC_ROLE": "Worker", "DMLC_NUM_WORKER": "4",
                                    "DMLC_TASK_ID": "3", "DMLC_PS_ROOT_URI": "10.0.0.1",
                                    "DMLC_PS_ROOT_PORT": "9091"})
    assert (env["role"], env["num_workers"], env["worker_id"], env["uri"], env["port"]) == \
        ("worker", 4, 3, "10.0.0.1", "9091")
    # DMLC_WORKER_ID (kubernetes launcher) wins over DMLC_TASK_ID
    assert distributed.launcher_env({"DMLC_WORKER_ID": "1", "DMLC_TASK_ID": "3"})[
        "worker_id"] == 1
    # collectives of a one-process run are the identity
    assert distributed.allreduce([1]) == [1] and distributed.broadcast([2]) == [2]


def test_trainer_dist_type_one_process(monkeypatch):
    """gluon.Trainer(kvstore='dist_sync') without the launcher: rank 0 of 1, MXNet's
    update_on_kvstore rules, the same numbers as 'local'."""
    for k in [k for k in os.environ if k.startswith("DMLC_")]:
        monkeypatch.delenv(k)
    from xnd import autograd, gluon
    results = []
    for kvs in ("local", "dist_sync"):
        mx.random.seed(3)
        net = gluon.nn.Dense(2, in_units=3)
        net.initialize()
        tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1}, kvstore=kvs)
        x = mx.nd.array(np.arange(6.0).reshape(2, 3))
        for _ in range(2):
            with autograd.record():
                loss = (net(x) ** 2).sum()
            loss.backward()
            tr.step(2)
        results.append(net.weight.data().asnumpy())
        if kvs == "dist_sync":
            assert tr._kvstore.type == "dist_sync" and tr._update_on_kvstore
            with pytest.raises(AssertionError, match="update_on_kvstore"):
                tr.update(2)
            with pytest.raises(AssertionError, match="allreduce_grads"):
                tr.allreduce_grads()
            with pytest.raises(UserWarning, match="batch_size"):
                tr.step(4)
            other = gluon.nn.Dense(2, in_units=3)
            other.initialize()
            with pytest.raises(ValueError, match="async"):
                gluon.Trainer(other.collect_params(), "sgd", kvstore="dist_async",
                              update_on_kvstore=False)._init_kvstore()
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
