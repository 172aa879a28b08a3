"""``_contrib_SyncBatchNorm``: BatchNorm whose batch statistics MXNet reduces over the ``ndev``
devices that share ``key``. With ``ndev`` 1 (and outside training) its numbers are BatchNorm's;
its third output is the batch variance, where BatchNorm's is 1 / sqrt(var + eps), as MXNet's.

With ``ndev`` > 1 in training, each device's call waits for the others (MXNet's barrier); the
eager rendezvous is ``frontend/ndarray/_sync_batchnorm.py``, which runs the three pieces below:
``MOMENTS`` on each device (E[x] and E[x^2] per channel, each a sum times 1/count), ``COMBINE``
on the first device (MXNet's average of the devices' moments, var = E[x^2] - mean^2), and
``DEVICE_PART`` on each device (its normalization, (x - mean) / sqrt(var + eps) * gamma + beta,
and its moving statistics' update in the backward pass). Each is an eager, recorded op, so
autograd differentiates through the shared statistics: the data gradients are MXNet's
cross-device ones, gamma's and beta's each device's own sums, as MXNet's.

A Module over several contexts runs one program under ``shard_map`` (frontend/module/
_programs.py), which names its device axis here (``device_axis``): inside it the same pieces
meet through ``lax.pmean`` over that axis, and JAX differentiates through it, so the data
gradients cross devices as in the eager rendezvous.
"""
import contextlib
import contextvars

import jax.numpy as jnp
from jax import lax

from ..base import MXNetError

from .attrs import Bool, Float, Int, Str
from .nn_common import param_shapes_from
from .norm import (_BN_SHAPES, _GB, _bn_visible, batch_norm, batchnorm_aux_update,
                   batchnorm_moving_update)
from .registry import Op, get, register


def _invstd(var, eps):
    return 1 / jnp.sqrt(var + jnp.asarray(eps, var.dtype))


def _sync_aux_update(attrs, inputs, outputs):
    out, mean, var = outputs[:3]
    return batchnorm_aux_update(attrs, inputs, (out, mean, _invstd(var, attrs.get("eps", 1e-3))))


@register("_contrib_SyncBatchNorm", num_visible=_bn_visible, aux=("moving_mean", "moving_var"),
          num_outputs=3, output_names=("output", "mean", "var"), aux_update=_sync_aux_update,
          param_shapes=param_shapes_from(_BN_SHAPES, _GB + ("moving_mean", "moving_var")),
          input_init={"moving_mean": '["zero", {}]', "moving_var": '["one", {}]'})
def sync_batch_norm(data, gamma, beta, moving_mean, moving_var, *, eps: Float = 1e-3,
                    momentum: Float = 0.9, fix_gamma: Bool = True, use_global_stats: Bool = False,
                    output_mean_var: Bool = False, ndev: Int = 1, key: Str, is_train=False):
    """BatchNorm over axis 1 (see module doc); returns (out, mean, var)."""
    axis = _AXIS.get()
    if axis is not None and ndev > 1 and is_train and not use_global_stats:
        name, n = axis
        if n != ndev:
            raise MXNetError(f"_contrib_SyncBatchNorm (key {key!r}): ndev={ndev}, but the module "
                             f"runs on {n} devices (MXNet 1.9.1 waits for {ndev} forever)")
        m1, m2 = (lax.pmean(m, name) for m in _moments(data))
        return _device_part(data, gamma, beta, moving_mean, moving_var, m1, m2 - m1 * m1,
                            eps=eps, fix_gamma=fix_gamma)
    out, mean, invstd = batch_norm(data, gamma, beta, moving_mean, moving_var, eps=eps,
                                   momentum=momentum, fix_gamma=fix_gamma,
                                   use_global_stats=use_global_stats,
                                   output_mean_var=output_mean_var, axis=1, is_train=is_train)
    var = 1 / (invstd * invstd) - jnp.asarray(eps, invstd.dtype)
    return out, mean, var


sync_batch_norm.infer_shapes = _BN_SHAPES
get("_contrib_SyncBatchNorm").imperative = lambda attrs: attrs["ndev"] > 1  # the devices meet


_AXIS = contextvars.ContextVar("xnd_sync_batchnorm_axis", default=None)


@contextlib.contextmanager
def device_axis(name, size):
    """Inside: SyncBatchNorm layers in training meet over the mapped axis ``name`` of ``size``
    devices (the caller traces a ``shard_map`` over them)."""
    token = _AXIS.set((name, size))
    try:
        yield
    finally:
        _AXIS.reset(token)


def _channels(v, ndim):
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def _moments(data):
    """One device's (E[x], E[x^2]) per channel (axis 1)."""
    axes = (0,) + tuple(range(2, data.ndim))
    scale = jnp.asarray(data.shape[1] / data.size if data.size else 0, data.dtype)
    return jnp.sum(data, axes) * scale, jnp.sum(data * data, axes) * scale


def _combine(*moments):
    """The devices' (E[x], E[x^2]) pairs -> (mean, var), each averaged over the devices."""
    scale = jnp.asarray(2 / len(moments), moments[0].dtype)
    mean = sum(moments[2::2], moments[0]) * scale
    sq = sum(moments[3::2], moments[1]) * scale
    return mean, sq - mean * mean


def _device_part(data, gamma, beta, moving_mean, moving_var, mean, var, *, eps: Float = 1e-3,
                 fix_gamma: Bool = True, momentum: Float = 0.9):
    """One device's output with the shared statistics; returns (out, mean, var)."""
    nd = data.ndim
    g = jnp.ones_like(gamma) if fix_gamma else gamma
    out = (data - _channels(mean, nd)) / jnp.sqrt(_channels(var, nd) + jnp.asarray(eps, var.dtype))
    return out * _channels(g, nd) + _channels(beta, nd), mean, var


def _device_part_aux(attrs, inputs, outputs):
    return batchnorm_moving_update(inputs[3], inputs[4], inputs[5], inputs[6],
                                   attrs.get("momentum", 0.9))


MOMENTS = Op("_contrib_SyncBatchNorm", _moments, num_outputs=2)
COMBINE = Op("_contrib_SyncBatchNorm", _combine, num_outputs=2)
DEVICE_PART = Op("_contrib_SyncBatchNorm", _device_part, aux=("moving_mean", "moving_var"),
                 num_outputs=3, aux_update=_device_part_aux)
