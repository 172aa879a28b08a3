"""Every difference between the JAX and NumPy releases xnd supports, in one place.

The supported range (pyproject.toml declares the same): jax and jaxlib 0.4.30 up to the
0.10 series, with numpy 1.23 up to 2.x.  jax 0.4.30 is the last release that installs
beside numpy 1.23.5 on Python 3.11 (MXNet 1.9.1's own numpy); jax 0.7.1 is the newest with
numpy 1.x; 0.7.2 and later need numpy 2 (``.ci/run`` tests both ends).

At import this module checks the installed versions from their package metadata, before
anything imports jax or jaxlib (a jaxlib built for numpy 2 fails obscurely under numpy 1),
and raises ImportError naming the versions found and the pip command that fixes them.

The API differences inside the range:

* ``jax.jit(compiler_options=...)`` exists from jax 0.4.31 on (`JIT_COMPILER_OPTIONS`);
* ``jax.shard_map(..., check_vma=)`` replaced ``jax.experimental.shard_map.shard_map(...,
  check_rep=)`` (`shard_map`);
* ``jax.device_put(x, may_alias=False)`` (a copy that shares no buffer) is newer than
  0.4.30 (`fresh_copy`);
* ``Array.committed`` (placed on a device on purpose, so jit keeps it there) is public from
  0.4.31 on; 0.4.30 names it ``_committed`` (`committed`);
* ``jax.distributed.initialize(shutdown_timeout_seconds=)`` is newer than 0.7.1; older
  releases keep their default (`distributed_initialize`);
* some options (``jax_cpu_collectives_implementation``) are no ``jax.config`` attribute on
  0.4.30 (`config_value`);
* jax 0.4.30's CPU runtime crashes (SIGSEGV, heap corruption) running programs that a
  second process loads from the persistent compilation cache; 0.5.3 and 0.7.1 run them
  (MXNet's train_mnist.py twice on one cache directory), so xnd turns its cache on from
  jax 0.5 on (`PERSISTENT_CACHE`; 0.4.31-0.4.38 are untested and get none either);
* ``jnp.asarray(x, device=)`` exists from 0.4.31 on: xnd calls ``jax.device_put(x, device)``,
  which every release has.
"""
import importlib.metadata as _md
import inspect
import re

JAX_MIN = (0, 4, 30)
JAX_BELOW = (0, 11)          # the first release not tested
NUMPY_MIN = (1, 23)
# the oldest numpy each jaxlib release accepts (its own metadata); later releases: numpy 2
_NUMPY_FOR_JAXLIB = [((0, 4, 30), (1, 22)), ((0, 4, 31), (1, 24)), ((0, 5, 0), (1, 25)),
                     ((0, 6, 0), (1, 26)), ((0, 7, 2), (2, 0))]


def version_tuple(text):
    """``'0.4.30'`` -> ``(0, 4, 30)``; ``'2.1.0rc1'`` -> ``(2, 1, 0)``; None for None."""
    if text is None:
        return None
    return tuple(int(p) for p in re.findall(r"\d+", text.split("+")[0])[:3])


def _installed(dist):
    try:
        return _md.version(dist)
    except _md.PackageNotFoundError:
        return None


def numpy_floor(jaxlib_version):
    """The oldest numpy the jaxlib release ``jaxlib_version`` (a tuple) runs with."""
    floor = _NUMPY_FOR_JAXLIB[0][1]
    for release, need in _NUMPY_FOR_JAXLIB:
        if jaxlib_version >= release:
            floor = need
    return floor


def v_str(v):
    return ".".join(map(str, v))


def problems(jax_v, jaxlib_v, numpy_v):
    """What is wrong with these versions (strings or None when not installed), as sentences."""
    found = []
    j, jl, n = version_tuple(jax_v), version_tuple(jaxlib_v), version_tuple(numpy_v)
    low = ".".join(map(str, JAX_MIN))
    for name, v in (("jax", j), ("jaxlib", jl)):
        if v is None:
            found.append(f"{name} is not installed")
        elif v < JAX_MIN:
            found.append(f"{name} {v_str(v)} is older than {low}, the oldest xnd supports")
    if n is None:
        found.append("numpy is not installed")
    elif n < NUMPY_MIN:
        found.append(f"numpy {numpy_v} is older than 1.23, the oldest xnd supports")
    elif jl is not None and jl >= JAX_MIN and n < numpy_floor(jl):
        found.append(f"jaxlib {jaxlib_v} needs numpy>={v_str(numpy_floor(jl))}, "
                     f"but numpy {numpy_v} is installed")
    return found


def check_environment():
    """Raise ImportError when the installed jax, jaxlib and numpy are outside xnd's range or
    do not go together; the message names them and the commands that fix it."""
    versions = {d: _installed(d) for d in ("jax", "jaxlib", "numpy")}
    found = problems(versions["jax"], versions["jaxlib"], versions["numpy"])
    if found:
        have = ", ".join(f"{d} {v or '(none)'}" for d, v in versions.items())
        raise ImportError(
            "xnd cannot run in this environment: " + "; ".join(found) + f" ({have}). "
            "xnd supports jax/jaxlib 0.4.30 to 0.10 with numpy 1.23 to 2.x. Fix it with "
            "`pip install --upgrade xnd` (newest jax, numpy 2) or `pip install --upgrade "
            "xnd 'numpy<2'` (code that needs numpy 1.x; a jax that runs with it).")


check_environment()

import jax  # noqa: E402  (after the check: an unsupported jaxlib may fail to import)

JAX_VERSION = version_tuple(jax.__version__)
JIT_COMPILER_OPTIONS = "compiler_options" in inspect.signature(jax.jit).parameters
PERSISTENT_CACHE = JAX_VERSION >= (0, 5)
# XLA:CPU's max and min of +0.0 and -0.0 (the host tier follows them bit for bit): jaxlib
# 0.4.30 returns the first operand (numpy its second); 0.10 orders -0.0 below +0.0 (IEEE
# 754's maximum and minimum).  Releases between were not checked: None, and such a pair
# compiles.
ZERO_ORDER = "first" if JAX_VERSION < (0, 4, 31) else "ieee" if JAX_VERSION >= (0, 10) else None
# jax 0.4.30 has no public optimization_barrier: there values go through unchanged (only a
# program's speed depends on it)
optimization_barrier = getattr(jax.lax, "optimization_barrier", lambda x: x)

if hasattr(jax, "shard_map"):
    _shard_map = jax.shard_map
    _CHECK = "check_vma" if "check_vma" in inspect.signature(jax.shard_map).parameters \
        else "check_rep"
else:
    from jax.experimental.shard_map import shard_map as _shard_map
    _CHECK = "check_rep"


def shard_map(f, mesh, in_specs, out_specs, check=True):
    """``jax.shard_map`` with its replication/varying-axes check on or off (``check``)."""
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, **{_CHECK: check})



_MAY_ALIAS = "may_alias" in inspect.signature(jax.device_put).parameters


def fresh_copy(x, sharding):
    """A copy of ``x`` (a JAX or numpy array) placed by ``sharding`` (or a Device) that
    shares no buffer with ``x``, compiling nothing (``jnp.array(copy=True)`` compiles a copy
    kernel per shape): through the host where ``device_put`` has no ``may_alias``."""
    if _MAY_ALIAS:
        return jax.device_put(x, sharding, may_alias=False)
    import numpy as np
    return jax.device_put(np.array(x), sharding)


def out_tree(traced):
    """The output pytree structure of a ``jax.jit(...).trace(...)`` (``out_tree``; 0.4.30
    names it ``_out_tree``)."""
    t = getattr(traced, "out_tree", None)
    return traced._out_tree if t is None else t


def committed(x):
    """Whether JAX array ``x`` is committed to its device(s) (``Array.committed``)."""
    c = getattr(x, "committed", None)
    return x._committed if c is None else c


def computing(arrays):
    """Whether one of ``arrays`` is still being computed (JAX dispatches asynchronously;
    ``Array.is_ready``)."""
    for a in arrays:
        ready = getattr(a, "is_ready", None)
        if ready is not None and not ready():
            return True
    return False


def distributed_initialize(**kwargs):
    """``jax.distributed.initialize(**kwargs)`` without the keywords this release lacks."""
    import jax.distributed
    takes = inspect.signature(jax.distributed.initialize).parameters
    jax.distributed.initialize(**{k: v for k, v in kwargs.items() if k in takes})


def config_value(name):
    """The value of JAX option ``name`` (``jax.config.<name>``), None for an unknown one."""
    try:
        return getattr(jax.config, name)
    except AttributeError:
        return jax.config.values.get(name)
