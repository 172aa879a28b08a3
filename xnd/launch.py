"""``python -m xnd launch -n N [-H HOSTS] [--launcher local|ssh] CMD...``: start a job of N
processes with the variables both MXNet's ``tools/launch.py`` and ``horovodrun`` give their
scripts, forward their output with a rank prefix, and end them all when one fails.

Every process is a worker of one ``jax.distributed`` job (xnd/frontend/distributed.py):
rank 0 hosts JAX's coordinator on the first host. What a process gets:

- MXNet's launcher: ``DMLC_ROLE=worker``, ``DMLC_NUM_WORKER``, ``DMLC_NUM_SERVER``,
  ``DMLC_PS_ROOT_URI``/``DMLC_PS_ROOT_PORT`` (the coordinator), ``DMLC_WORKER_ID`` and
  ``DMLC_TASK_ID``: ``kvstore='dist_sync'``/``'dist_device_sync'``/``'dist_async'`` scripts
  run as under ``tools/launch.py`` (xnd has no parameter servers: workers sum with
  collectives, so no server or scheduler processes are started);
- Horovod's: ``HOROVOD_RANK``, ``HOROVOD_SIZE``, ``HOROVOD_LOCAL_RANK``,
  ``HOROVOD_LOCAL_SIZE``, ``HOROVOD_CROSS_RANK``, ``HOROVOD_CROSS_SIZE``,
  ``HOROVOD_HOSTNAME``, ``HOROVOD_CONTROLLER=gloo``, ``HOROVOD_CPU_OPERATIONS=gloo``.

HOSTS is ``host[:slots],...`` (horovodrun's ``-H``) or a file of lines ``host[:slots]`` or
``host slots=N`` (MXNet's ``-H hostfile``); ranks fill each host's slots in order. The ssh
launcher runs ``ssh HOST 'cd CWD && env VARS CMD'`` (``XND_LAUNCH_SSH`` names another ssh).
"""
import argparse
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time

GRACE_S = 5.0   # between SIGTERM and SIGKILL when the job ends early
_LOCAL = {"localhost", "127.0.0.1", "::1", socket.gethostname()}


def parse_hosts(spec, n):
    """[(host, slots)] from ``-H``; None (no -H) is this host with n slots."""
    if not spec:
        return [("127.0.0.1", n)]
    if os.path.isfile(spec):
        with open(spec) as f:
            entries = [ln.split("#")[0].strip() for ln in f]
    else:
        entries = [e.strip() for e in spec.split(",")]
    hosts = []
    for e in filter(None, entries):
        host, slots = e, None
        if " slots=" in e:
            host, _, slots = e.partition(" slots=")
        elif ":" in e and not e.startswith("["):
            host, _, slots = e.rpartition(":")
        try:
            slots = 1 if slots is None else int(slots)
        except ValueError:
            raise SystemExit("xnd launch: %r: the slots of a host must be a number" % e)
        if slots < 1:
            raise SystemExit("xnd launch: %r: a host needs at least one slot" % e)
        hosts.append((host.strip(), slots))
    if not hosts:
        raise SystemExit("xnd launch: -H %r names no host" % spec)
    if sum(s for _, s in hosts) < n:
        raise SystemExit("xnd launch: -n %d processes but the hosts have %d slots: %s"
                         % (n, sum(s for _, s in hosts), spec))
    return hosts


def placement(hosts, n):
    """[(host, local_rank, local_size, cross_rank, cross_size)] of ranks 0..n-1: each host's
    slots filled in order, as horovodrun places them."""
    ranks, left = [], n
    for host, slots in hosts:
        take = min(slots, left)
        ranks += [(host, i, take) for i in range(take)]
        left -= take
    out = []
    for host, lr, ls in ranks:
        same = [h for h, l, _ in ranks if l == lr]
        seen = []
        for h, l, _ in ranks:
            if l == lr and h not in seen:
                seen.append(h)
        out.append((host, lr, ls, seen.index(host), len(set(same))))
    return out


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def job_env(rank, n, place, root, port):
    """The variables rank ``rank`` of ``n`` gets (both launchers' names)."""
    host, lr, ls, cr, cs = place
    return {"DMLC_ROLE": "worker", "DMLC_NUM_WORKER": str(n), "DMLC_NUM_SERVER": str(n),
            "DMLC_PS_ROOT_URI": root, "DMLC_PS_ROOT_PORT": str(port),
            "DMLC_WORKER_ID": str(rank), "DMLC_TASK_ID": str(rank),
            "HOROVOD_RANK": str(rank), "HOROVOD_SIZE": str(n), "HOROVOD_LOCAL_RANK": str(lr),
            "HOROVOD_LOCAL_SIZE": str(ls), "HOROVOD_CROSS_RANK": str(cr),
            "HOROVOD_CROSS_SIZE": str(cs), "HOROVOD_HOSTNAME": host,
            "HOROVOD_CONTROLLER": "gloo", "HOROVOD_CPU_OPERATIONS": "gloo"}


def command(cmd):
    """A script path runs with this interpreter (``launch -n 2 train.py``)."""
    return [sys.executable] + cmd if cmd[0].endswith(".py") else list(cmd)


def ssh_argv(host, env, cmd, cwd):
    ssh = shlex.split(os.environ.get("XND_LAUNCH_SSH", "ssh -o StrictHostKeyChecking=no"))
    remote = "cd %s && env %s %s" % (shlex.quote(cwd), " ".join(
        "%s=%s" % (k, shlex.quote(v)) for k, v in sorted(env.items())),
        " ".join(shlex.quote(c) for c in cmd))
    return ssh + [host, remote]


def _forward(stream, rank, name, out, lock):
    for line in iter(stream.readline, b""):
        with lock:
            out.write(b"[%d]<%s>:" % (rank, name) + line)
            out.flush()
    stream.close()


def _stop(procs):
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + GRACE_S
    for p in procs:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()


def launch(n, cmd, hosts=None, launcher="local", port=None):
    """Run the job; returns 0 when every process exits 0, else the first failure's status
    (the other processes are ended then)."""
    hosts = parse_hosts(hosts, n)
    if launcher == "local" and any(h not in _LOCAL for h, _ in hosts):
        raise SystemExit("xnd launch: --launcher local runs on this host only; %s are other "
                         "hosts (use --launcher ssh)" % sorted({h for h, _ in hosts} - _LOCAL))
    places = placement(hosts, n)
    root = "127.0.0.1" if launcher == "local" else places[0][0]
    port = port or _free_port()
    cmd, cwd, lock = command(cmd), os.getcwd(), threading.Lock()
    procs, threads = [], []
    base = {k: v for k, v in os.environ.items()
            if not (k.startswith("DMLC_") or k.startswith("HOROVOD_") or k == "_XND_DIST_PID")}
    try:
        for rank, place in enumerate(places):
            env = job_env(rank, n, place, root, port)
            if launcher == "ssh":
                argv, penv = ssh_argv(place[0], env, cmd, cwd), base
            else:
                argv, penv = cmd, dict(base, **env)
            p = subprocess.Popen(argv, env=penv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
            procs.append(p)
            for stream, name, out in ((p.stdout, b"stdout", sys.stdout.buffer),
                                      (p.stderr, b"stderr", sys.stderr.buffer)):
                t = threading.Thread(target=_forward, args=(stream, rank, name, out, lock),
                                     daemon=True)
                t.start()
                threads.append(t)
        status = 0
        while True:
            codes = [p.poll() for p in procs]     # every one: any() would stop at the first
            status = next((c for c in codes if c not in (None, 0)), 0)
            if status or all(c is not None for c in codes):
                break
            time.sleep(0.05)
        if status:
            rank = next(i for i, p in enumerate(procs) if p.returncode == status)
            sys.stderr.write("xnd launch: rank %d exited with status %d; ending the job\n"
                             % (rank, status))
    except KeyboardInterrupt:
        status = 130
    finally:
        _stop(procs)
        for t in threads:
            t.join(timeout=GRACE_S)
    return status if status >= 0 else 128 - status


def main(argv):
    ap = argparse.ArgumentParser(prog="python -m xnd launch", description=__doc__.split("\n")[0])
    ap.add_argument("-n", "--num-workers", "-np", type=int, required=True, dest="n",
                    help="number of processes")
    ap.add_argument("-H", "--hosts", default=None,
                    help="host[:slots],... or a host file (default: this host)")
    ap.add_argument("--launcher", choices=("local", "ssh"), default="local")
    ap.add_argument("-p", "--port", type=int, default=None,
                    help="the coordinator's port on the first host (default: a free one)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER, help="the command each process runs")
    args = ap.parse_args(argv)
    if args.n < 1:
        ap.error("-n must be at least 1")
    if not args.cmd:
        ap.error("no command to run")
    return launch(args.n, args.cmd, args.hosts, args.launcher, args.port)
