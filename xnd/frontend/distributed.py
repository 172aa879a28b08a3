"""Multi-process training for ``kvstore='dist_*'``: MXNet's launcher variables mapped onto
``jax.distributed``.

MXNet's launcher (``tools/launch.py``, dmlc-tracker) starts one scheduler, the servers
and the workers, and tells each process its part through the environment:

==========================  ===========================================================
``DMLC_ROLE``               ``worker``, ``server`` or ``scheduler``
``DMLC_NUM_WORKER``         the number of workers N
``DMLC_PS_ROOT_URI``        the scheduler's address
``DMLC_PS_ROOT_PORT``       the scheduler's port
``DMLC_WORKER_ID``          the worker's id (the kubernetes launcher sets it);
``DMLC_TASK_ID``            else this one (``--launcher local``: workers are tasks 0..N-1);
                            else ``OMPI_COMM_WORLD_RANK`` / ``PMI_RANK`` / ``SLURM_PROCID``
==========================  ===========================================================

xnd has no parameter server. A worker (with N > 1) joins a JAX multi-process job:
``jax.distributed.initialize(coordinator_address="URI:PORT", num_processes=N,
process_id=id)``; worker 0 hosts JAX's coordinator on that port (so worker 0 must run on
the ``DMLC_PS_ROOT_URI`` host, as it does with ``--launcher local``), and CPU collectives
use gloo. Gradients are then summed with XLA collectives (psum over a mesh of one device
per worker), and every worker applies the optimizer to the same sum -- what MXNet's
servers compute, without servers.

When it happens: at ``import mxnet`` (this module is imported by ``xnd/__init__``).
JAX requires ``jax.distributed.initialize`` before its backend starts, and MXNet scripts
touch devices long before they create the kvstore (``Module.fit`` binds and initializes
parameters first, Gluon initializes the network before the Trainer), so waiting for
``mx.kv.create`` would be too late. A script that sets the ``DMLC_*`` variables itself
after ``import mxnet`` still works if it has not touched a device yet: ``kv.create``
joins the job then, or says clearly why it cannot.

Roles: ``server`` processes exit at import with status 0 (MXNet's servers also never
return from ``import mxnet``); the ``scheduler`` process waits at import until worker 0's
coordinator has come up and gone away again (the job's lifetime, so the launcher, which
waits for its scheduler, returns when the job ends), then exits with status 0. Any other
role is an error at ``kv.create('dist_*')``.

Timeouts: ``XND_DIST_TIMEOUT`` seconds (default 300) for reaching the coordinator, for all
workers to join and for the shutdown barrier. A worker that cannot reach the coordinator
raises MXNetError at import; when not all workers join in time, JAX aborts the process
(xnd prints why first). Child processes of a worker (e.g. data-loading processes) do not
join the job.
"""
import atexit
import logging
import os
import socket
import sys
import threading
import time

from .. import _compat_jax
from ..base import MXNetError

__all__ = ["launcher_env", "initialize", "is_initialized", "num_workers", "rank", "allreduce",
           "broadcast", "allgather", "barrier", "handle_role"]

_log = logging.getLogger("xnd")

_OWNER = "_XND_DIST_PID"    # set by a worker that joined: its children do not join again
_ID_VARS = ("DMLC_WORKER_ID", "DMLC_TASK_ID", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
            "SLURM_PROCID")
_state = {"initialized": False, "env": None}
_FNS = {}


def _timeout(env=None):
    env = os.environ if env is None else env
    try:
        return max(1, int(float(env.get("XND_DIST_TIMEOUT", "300"))))
    except ValueError:
        raise MXNetError("XND_DIST_TIMEOUT=%r is not a number of seconds"
                         % env.get("XND_DIST_TIMEOUT")) from None


def launcher_env(environ=None):
    """The launcher's settings: dict(role, num_workers, uri, port, worker_id) (None where a
    variable is missing; role lower-cased, '' when unset)."""
    env = os.environ if environ is None else environ
    role = (env.get("DMLC_ROLE") or "").strip().lower()
    try:
        n = int(env.get("DMLC_NUM_WORKER", "1") or 1)
    except ValueError:
        raise MXNetError("DMLC_NUM_WORKER=%r is not an integer"
                         % env.get("DMLC_NUM_WORKER")) from None
    port = env.get("DMLC_PS_ROOT_PORT") or None
    wid, wvar = None, None
    for var in _ID_VARS:
        if env.get(var, "") != "":
            wid, wvar = env[var], var
            break
    if wid is not None:
        try:
            wid = int(wid)
        except ValueError:
            raise MXNetError("%s=%r is not an integer worker id" % (wvar, wid)) from None
    return {"role": role, "num_workers": n, "uri": env.get("DMLC_PS_ROOT_URI") or None,
            "port": port, "worker_id": wid, "id_var": wvar}


def is_initialized():
    """True once this process joined a multi-process job."""
    return _state["initialized"]


def num_workers():
    import jax
    return jax.process_count() if _state["initialized"] else 1


def rank():
    import jax
    return jax.process_index() if _state["initialized"] else 0


def _check_worker_env(e):
    missing = [v for v, k in (("DMLC_PS_ROOT_URI", "uri"), ("DMLC_PS_ROOT_PORT", "port"))
               if not e[k]]
    if missing:
        raise MXNetError("xnd distributed worker: DMLC_NUM_WORKER=%d but %s not set; start the "
                         "workers with MXNet's launcher (tools/launch.py) or set DMLC_ROLE, "
                         "DMLC_PS_ROOT_URI, DMLC_PS_ROOT_PORT, DMLC_NUM_WORKER and DMLC_WORKER_ID "
                         "(or DMLC_TASK_ID)" % (e["num_workers"], " and ".join(missing)))
    try:
        port = int(e["port"])
    except ValueError:
        raise MXNetError("DMLC_PS_ROOT_PORT=%r is not a port number" % e["port"]) from None
    if e["worker_id"] is None:
        raise MXNetError("xnd distributed worker: no worker id; set DMLC_WORKER_ID (or "
                         "DMLC_TASK_ID, which MXNet's '--launcher local' sets) to 0..%d"
                         % (e["num_workers"] - 1))
    if not 0 <= e["worker_id"] < e["num_workers"]:
        raise MXNetError("xnd distributed worker: %s=%d is not a worker id in 0..%d "
                         "(DMLC_NUM_WORKER=%d)" % (e["id_var"], e["worker_id"],
                                                   e["num_workers"] - 1, e["num_workers"]))
    return port


def _reachable(host, port, timeout=1.0):
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def initialize(environ=None):
    """Join the job described by the launcher's variables (``jax.distributed.initialize``).
    Idempotent; raises MXNetError with the reason when it cannot."""
    if _state["initialized"]:
        return
    e = launcher_env(environ)
    port = _check_worker_env(e)
    owner = os.environ.get(_OWNER)
    if owner and owner != str(os.getpid()):
        raise MXNetError("this process is a child of distributed worker process %s; only the "
                         "processes the launcher started join the job" % owner)
    timeout = _timeout(environ)
    n, wid, uri = e["num_workers"], e["worker_id"], e["uri"]
    address = "%s:%d" % (uri, port)
    import jax
    try:  # gloo: JAX's CPU collectives across processes (older JAX defaulted to none)
        if str(_compat_jax.config_value("jax_cpu_collectives_implementation")
               or "none").lower() == "none":
            jax.config.update("jax_cpu_collectives_implementation", "gloo")
    except Exception as err:  # pragma: no cover - a JAX without the option
        _log.debug("xnd: jax_cpu_collectives_implementation: %s", err)
    if wid != 0:
        # JAX aborts the process when the coordinator cannot be reached: check first
        deadline = time.monotonic() + timeout
        while not _reachable(uri, port):
            if time.monotonic() > deadline:
                raise MXNetError(
                    "xnd distributed worker %d of %d: cannot reach the coordinator at %s "
                    "(DMLC_PS_ROOT_URI:DMLC_PS_ROOT_PORT) within %d s (XND_DIST_TIMEOUT); worker "
                    "0 hosts it and must run on that host -- is it running?"
                    % (wid, n, address, timeout))
            time.sleep(0.2)
    done = threading.Event()

    def _explain():   # JAX aborts without a Python exception when the job is incomplete
        if not done.wait(timeout + 2):
            sys.stderr.write("xnd: distributed worker %d: not all DMLC_NUM_WORKER=%d workers "
                             "joined the job at %s within %d s (XND_DIST_TIMEOUT); JAX stops "
                             "this process\n" % (wid, n, address, timeout))
            sys.stderr.flush()
    threading.Thread(target=_explain, daemon=True).start()
    try:
        _compat_jax.distributed_initialize(coordinator_address=address, num_processes=n,
                                           process_id=wid, initialization_timeout=timeout,
                                           shutdown_timeout_seconds=timeout)
    except RuntimeError as err:
        done.set()
        if "before" in str(err) or "initialise" in str(err) or "initialize" in str(err):
            raise MXNetError("xnd distributed worker %d: JAX's backend is already running, so "
                             "this process can no longer join the job (%s). Set the DMLC_* "
                             "variables before `import mxnet` (MXNet's launcher does)"
                             % (wid, err)) from None
        raise MXNetError("xnd distributed worker %d: jax.distributed.initialize failed: %s"
                         % (wid, err)) from None
    done.set()
    _state["initialized"] = True
    _state["env"] = e
    os.environ[_OWNER] = str(os.getpid())
    atexit.register(_shutdown)
    _log.info("xnd: distributed worker %d of %d (coordinator %s)", wid, n, address)


def _shutdown():
    import jax
    try:
        jax.distributed.shutdown()
    except Exception as err:  # pragma: no cover - exiting anyway
        _log.debug("xnd: jax.distributed.shutdown: %s", err)



def _scheduler_wait(e, env=None):
    """The scheduler's part: live as long as the job (worker 0's coordinator) does."""
    try:
        port = int(e["port"])
    except (TypeError, ValueError):
        return 0
    uri, timeout = e["uri"] or "127.0.0.1", _timeout(env)
    deadline = time.monotonic() + timeout
    while not _reachable(uri, port):
        if time.monotonic() > deadline:
            _log.warning("xnd scheduler: no worker 0 at %s:%d within %d s; exiting",
                         uri, port, timeout)
            return 0
        time.sleep(0.5)
    misses = 0
    while misses < 2:
        misses = 0 if _reachable(uri, port) else misses + 1
        time.sleep(0.5)
    return 0


def handle_role(environ=None):
    """Called at import: servers exit, the scheduler waits for the job then exits, a worker
    of a several-worker job joins it. Returns quietly in every other case."""
    env = os.environ if environ is None else environ
    role = (env.get("DMLC_ROLE") or "").strip().lower()
    if not role:
        return
    if role == "server":
        _log.info("xnd: DMLC_ROLE=server: xnd has no parameter server; exiting")
        sys.exit(0)
    if role == "scheduler":
        _log.info("xnd: DMLC_ROLE=scheduler: xnd has no scheduler; waiting for the job to end")
        sys.exit(_scheduler_wait(launcher_env(env), env))
    if role != "worker":
        _log.warning("xnd: DMLC_ROLE=%r is not a launcher role (worker, server, scheduler)",
                     role)
        return
    owner = env.get(_OWNER)
    if owner and owner != str(os.getpid()):
        return   # a child of a worker (data loading, ...): not part of the job
    if launcher_env(env)["num_workers"] > 1:
        initialize(env)


def ensure(kv_type):
    """For ``kv.create(kv_type)`` with DMLC_NUM_WORKER > 1: join the job (if not yet) or
    raise MXNetError saying what is missing."""
    if _state["initialized"]:
        return
    e = launcher_env()
    if not e["role"]:
        raise MXNetError("kvstore type %r with DMLC_NUM_WORKER=%d is multi-process training: "
                         "DMLC_ROLE is not set; start the workers with MXNet's launcher "
                         "(tools/launch.py) or set DMLC_ROLE=worker, DMLC_PS_ROOT_URI, "
                         "DMLC_PS_ROOT_PORT and DMLC_WORKER_ID" % (kv_type, e["num_workers"]))
    if e["role"] != "worker":
        raise MXNetError("kvstore type %r: DMLC_ROLE=%r; xnd's multi-process training runs "
                         "workers only (DMLC_ROLE=worker; servers and the scheduler exit)"
                         % (kv_type, e["role"]))
    initialize()


# ---- collectives -------------------------------------------------------------------------
def _platform(v):
    return next(iter(v.devices())).platform


def _collective(platform, mode):
    """(mesh devices, my device, sharding, jitted fn): one device per process; ``fn(*xs)``
    sums (mode 'sum') or takes process r's values (mode ('bcast', r)) of each argument, a
    global array made of one block per process stacked along axis 0."""
    key = (platform, mode)
    got = _FNS.get(key)
    if got is not None:
        return got
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    devs = [jax.local_devices(process_index=p, backend=platform)[0]
            for p in range(jax.process_count())]
    mesh = Mesh(np.array(devs), ("w",))

    def body(*xs):
        if mode != "sum":
            root = jax.lax.axis_index("w") == mode[1]
            xs = [jnp.where(root, x, jnp.zeros_like(x)) for x in xs]
        return tuple(jax.lax.psum(x, "w") for x in xs)

    def fn(*xs):
        n = len(xs)
        return _compat_jax.shard_map(body, mesh=mesh, in_specs=(P("w"),) * n,
                                     out_specs=(P(),) * n)(*xs)
    got = (devs, devs[jax.process_index()], NamedSharding(mesh, P("w")), jax.jit(fn))
    _FNS[key] = got
    return got


def _run(vals, mode):
    import jax
    if not vals:
        return []
    nproc = jax.process_count()
    out = [None] * len(vals)
    groups = {}
    for i, v in enumerate(vals):
        groups.setdefault(_platform(v), []).append(i)
    for platform in sorted(groups):
        idx = groups[platform]
        _, mine, sharding, fn = _collective(platform, mode)
        gl = []
        for i in idx:
            v = vals[i]
            if len(v.devices()) != 1 or next(iter(v.devices())) != mine:
                v = jax.device_put(v.addressable_shards[0].data, mine)
            if v.ndim == 0:
                v = v.reshape(1)
            gl.append(jax.make_array_from_single_device_arrays(
                (nproc * v.shape[0],) + tuple(v.shape[1:]), sharding, [v]))
        res = fn(*gl)
        for i, r in zip(idx, res):
            v = vals[i]
            r = r.addressable_data(0)
            if v.ndim == 0:
                r = r.reshape(())
            if r.sharding != v.sharding:
                r = jax.device_put(r, v.sharding)
            out[i] = r
    return out


def allreduce(vals):
    """The sums over all workers of jax arrays ``vals`` (each worker passes arrays of the same
    shapes, in the same order): one compiled collective per list of shapes. Each result has
    its input's sharding."""
    if not _state["initialized"]:
        return list(vals)
    return _run(list(vals), "sum")


def broadcast(vals, root=0):
    """Worker ``root``'s values of ``vals`` on every worker (same contract as ``allreduce``)."""
    if not _state["initialized"]:
        return list(vals)
    return _run(list(vals), ("bcast", int(root)))


def allgather(value):
    """Every worker's ``value`` (an array; the first dimensions may differ between workers,
    nothing else may), as a list of numpy arrays in rank order."""
    import numpy as np
    a = np.asarray(value)
    if not _state["initialized"]:
        return [a]
    from jax.experimental import multihost_utils
    if a.ndim > 8:
        raise MXNetError("allgather: at most 8 dimensions, got shape %s" % (a.shape,))
    code = np.zeros(10, np.int64)     # ndim, dtype's number, the dimensions
    code[0], code[1], code[2:2 + a.ndim] = a.ndim, a.dtype.num, a.shape
    codes = np.asarray(multihost_utils.process_allgather(code))
    if len({(c[0], c[1]) + tuple(c[3:]) for c in codes}) != 1 and a.ndim or \
            len({tuple(c) for c in codes}) != 1 and not a.ndim:
        raise MXNetError("allgather: the workers' arrays differ in more than their first "
                         "dimension: shapes %s, dtype numbers %s"
                         % ([tuple(int(d) for d in c[2:2 + c[0]]) for c in codes],
                            [int(c[1]) for c in codes]))
    if a.ndim == 0:
        return list(np.asarray(multihost_utils.process_allgather(a)))
    rows = [int(c[2]) for c in codes]
    pad = np.zeros((max(rows) - a.shape[0],) + a.shape[1:], a.dtype)
    full = np.asarray(multihost_utils.process_allgather(np.concatenate([a, pad])))
    return [full[i][:r] for i, r in enumerate(rows)]


def barrier(name="xnd_barrier"):
    """Every worker waits here until all have arrived."""
    if not _state["initialized"]:
        return
    from jax.experimental import multihost_utils
    multihost_utils.sync_global_devices(name)
