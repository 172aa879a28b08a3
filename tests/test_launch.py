"""``python -m xnd launch`` (xnd/launch.py): host parsing and placement, the variables each
rank gets (MXNet's DMLC_* and Horovod's HOROVOD_*), rank-prefixed output, a failing rank
ending the job with its status, the ssh launcher (through a stand-in ssh), and MXNet's
dist_sync kvstore values under it (tests/dist_worker.py, checked on MXNet 1.9.1)."""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from xnd import launch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def test_parse_hosts_forms(tmp_path):
    assert launch.parse_hosts(None, 3) == [("127.0.0.1", 3)]
    assert launch.parse_hosts("a:2,b:3", 4) == [("a", 2), ("b", 3)]
    assert launch.parse_hosts("a,b", 2) == [("a", 1), ("b", 1)]
    f = tmp_path / "hosts"
    f.write_text("# cluster\nnode1 slots=2\nnode2:1\n\nnode3\n")
    assert launch.parse_hosts(str(f), 4) == [("node1", 2), ("node2", 1), ("node3", 1)]
    with pytest.raises(SystemExit, match="slots"):
        launch.parse_hosts("a:2", 3)
    with pytest.raises(SystemExit, match="must be a number"):
        launch.parse_hosts("a:x", 1)


def test_placement_fills_slots_in_order():
    got = launch.placement([("a", 2), ("b", 2)], 3)
    # (host, local_rank, local_size, cross_rank, cross_size): horovodrun's numbers
    assert got == [("a", 0, 2, 0, 2), ("a", 1, 2, 0, 1), ("b", 0, 1, 1, 2)]
    env = launch.job_env(2, 3, got[2], "a", 1234)
    assert env["DMLC_WORKER_ID"] == env["HOROVOD_RANK"] == "2"
    assert (env["HOROVOD_LOCAL_RANK"], env["HOROVOD_CROSS_RANK"], env["DMLC_PS_ROOT_URI"],
            env["DMLC_PS_ROOT_PORT"], env["DMLC_ROLE"]) == ("0", "1", "a", "1234", "worker")


def _run(args, env=None, timeout=120):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("DMLC_", "HOROVOD_"))}
    e.update(JAX_PLATFORMS="cpu", **(env or {}))
    return subprocess.run([sys.executable, "-m", "xnd", "launch"] + args, cwd=ROOT, env=e,
                          capture_output=True, text=True, timeout=timeout)


ENV_SCRIPT = ("import os, sys; print(' '.join(os.environ[k] for k in ('DMLC_WORKER_ID', "
              "'DMLC_NUM_WORKER', 'HOROVOD_RANK', 'HOROVOD_SIZE', 'HOROVOD_LOCAL_RANK'))); "
              "print('err', file=sys.stderr)")


def test_ranks_get_variables_and_prefixed_output():
    res = _run(["-n", "3", sys.executable, "-c", ENV_SCRIPT])
    assert res.returncode == 0, res.stderr
    out = sorted(res.stdout.splitlines())
    assert out == ["[%d]<stdout>:%d 3 %d 3 %d" % (r, r, r, r) for r in range(3)]
    assert sorted(ln for ln in res.stderr.splitlines() if "err" in ln) == \
        ["[%d]<stderr>:err" % r for r in range(3)]


def test_a_failing_rank_ends_the_job():
    script = ("import os, sys, time\nif os.environ['HOROVOD_RANK'] == '1': sys.exit(3)\n"
              "time.sleep(120)\n")
    tic = time.monotonic()
    res = _run(["-n", "2", sys.executable, "-c", script])
    assert res.returncode == 3
    assert time.monotonic() - tic < 60
    assert "rank 1 exited with status 3" in res.stderr


def test_local_launcher_refuses_other_hosts():
    res = _run(["-n", "2", "-H", "elsewhere:2", sys.executable, "-c", "pass"])
    assert res.returncode != 0 and "--launcher ssh" in res.stderr


def test_ssh_launcher_runs_through_ssh(tmp_path):
    fake = tmp_path / "fake_ssh"
    fake.write_text('#!/bin/sh\necho "host=$1" >&2\nexec sh -c "$2"\n')
    fake.chmod(0o755)
    res = _run(["-n", "2", "-H", "nodeA:1,nodeB:1", "--launcher", "ssh",
                sys.executable, "-c", ENV_SCRIPT], env={"XND_LAUNCH_SSH": str(fake)})
    assert res.returncode == 0, res.stderr
    assert sorted(res.stdout.splitlines()) == ["[0]<stdout>:0 2 0 2 0", "[1]<stdout>:1 2 1 2 0"]
    assert "[0]<stderr>:host=nodeA" in res.stderr and "[1]<stderr>:host=nodeB" in res.stderr


def test_dist_sync_kvstore_under_the_launcher(tmp_path):
    res = _run(["-n", "2", sys.executable, os.path.join(HERE, "dist_worker.py"), str(tmp_path),
                "kv"], env={"XND_DIST_TIMEOUT": "60"}, timeout=240)
    assert res.returncode == 0, res.stdout + res.stderr
    shape = (2, 3)
    want = {"kv_init": np.ones(shape), "kv_push": np.full(shape, 3.0),
            "kv_pushpull": 3 * np.arange(6.0).reshape(shape), "kv_sgd": [0.25, -0.5, -1.25]}
    for r in range(2):
        got = np.load(tmp_path / ("worker%d_kv.npz" % r))
        for k, v in want.items():
            np.testing.assert_allclose(got[k], v, rtol=1e-6, err_msg=k)   # float32 SGD steps
