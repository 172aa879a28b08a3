"""Host (numpy) arrays onto a device, cheaply when the same shape comes back.

``jax.device_put`` of a small numpy array costs 110-190 us of Python on jax 0.10 (sharding
checks, tree handling, profiler hooks); a jitted identity takes the same array through jit's
C++ dispatch in 20-30 us, but compiles once per (shape, dtype, device), 25-70 ms here: it
pays for itself after some 300 transfers.  So the first ``PROMOTE_AFTER`` transfers of a
signature use ``device_put`` (a loop over random shapes never compiles; with 8, the 200
random-shape ``broadcast_to`` calls of benchmarks/workloads/first_broadcast.py spent more on
compiles than they saved) and later ones the identity: a custom operator's callbacks,
``nd.array`` of each batch and the host path's results (``lowering/host_eval.py``) in a
steady loop stop paying device_put's price.

Both give the source's values and dtype (x64 rules included).  The caller hands the numpy
array over: device_put may alias its memory on CPU, so it must not be written afterwards
(every caller passes a fresh array).  ``to_device(value, device)`` is committed to
``device``, as ``device_put(value, device)`` is; ``to_default(value, device)`` is not
committed (``device_put`` under ``jax.default_device(device)``), so that jit may move it.
"""
import math

import jax
import jax.numpy as jnp
import numpy as np

PROMOTE_AFTER = 256
MAX_SIGNATURES = 1 << 16   # a loop over ever new shapes starts counting afresh past this many
_seen = {}          # (shape, dtype, device, committed) -> transfers so far
_identity = {}      # (device, committed) -> jitted identity


def _ident(device, commit):
    f = _identity.get((device, commit))
    if f is None:
        shard = jax.sharding.SingleDeviceSharding(device)
        f = _identity[(device, commit)] = jax.jit(lambda a: a, out_shardings=shard) if commit \
            else jax.jit(lambda a: a)
    return f


def _promoted(value, device, commit):
    if type(value) is not np.ndarray:
        return False
    key = (value.shape, value.dtype, device, commit)
    n = _seen.get(key, 0)
    if n >= PROMOTE_AFTER:
        return True
    if not n and len(_seen) >= MAX_SIGNATURES:
        _seen.clear()
    _seen[key] = n + 1
    return False


def to_device(value, device):
    """``jax.device_put(value, device)``: committed to ``device``."""
    if _promoted(value, device, True):
        return _ident(device, True)(value)
    return jax.device_put(value, device)


HOST_ZEROS_MAX = 1 << 22


def zeros(shape, dtype, device):
    """Zeros committed to ``device`` (a Device or a Sharding) without a compiled program.
    ``jnp.zeros`` compiles a fill per (shape, dtype), 20-120 ms here: a ``Module.bind``
    paid one per argument shape, ``attach_grad`` one per array shape.  Past
    ``HOST_ZEROS_MAX`` elements the fill kernel (no host buffer of that size)."""
    shape = tuple(shape)
    if math.prod(shape) > HOST_ZEROS_MAX:
        return jax.device_put(jnp.zeros(shape, dtype), device)
    host = np.zeros(shape, dtype)
    if isinstance(device, jax.sharding.Sharding):
        return jax.device_put(host, device)
    return to_device(host, device)


def _is_default(device):
    return jax.config.jax_default_device is None and device == jax.devices()[0]


def to_default(value, device):
    """``jax.device_put(value)`` under ``jax.default_device(device)``: not committed."""
    if _is_default(device):
        if _promoted(value, device, False):
            return _ident(device, False)(value)
        return jax.device_put(value)
    with jax.default_device(device):
        return jax.device_put(value)


def to_device_all(values, device, commit):
    """``[to_device(v, device) for v in values]`` (``commit``) or ``to_default``'s, with
    one ``device_put`` for all those not promoted: a host-tier training step puts hundreds
    of results, and device_put's Python costs per call (30 us each, not 60, batched)."""
    default = not commit and _is_default(device)
    out = [None] * len(values)
    rest = []
    for i, v in enumerate(values):
        if (commit or default) and _promoted(v, device, commit):
            out[i] = _ident(device, commit)(v)
        else:
            rest.append(i)
    if rest:
        batch = [values[i] for i in rest]
        if commit:
            put = jax.device_put(batch, device)
        elif default:
            put = jax.device_put(batch)
        else:
            with jax.default_device(device):
                put = jax.device_put(batch)
        for i, p in zip(rest, put):
            out[i] = p
    return out
