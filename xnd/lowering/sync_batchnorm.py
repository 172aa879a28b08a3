"""``_contrib_SyncBatchNorm``: BatchNorm whose batch statistics MXNet reduces over the ``ndev``
devices that share ``key``. xnd runs one such operator per device program, so its numbers
are BatchNorm's over the data it sees (MXNet's on one device); the moving statistics,
gradients, fix_gamma and use_global_stats behave as BatchNorm's. Its third output is the batch
variance, where BatchNorm's is 1 / sqrt(var + eps): MXNet's SyncBatchNorm gives that.
"""
import jax.numpy as jnp

from .attrs import Bool, Float, Int, Str
from .nn_common import param_shapes_from
from .norm import _BN_SHAPES, _GB, _bn_visible, batch_norm, batchnorm_aux_update
from .registry import register


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
    out, mean, invstd = batch_norm(data, gamma, beta, moving_mean, moving_var, eps=eps,
                                   momentum=momentum, fix_gamma=fix_gamma,
                                   use_global_stats=use_global_stats,
                                   output_mean_var=output_mean_var, axis=1, is_train=is_train)
    var = 1 / (invstd * invstd) - jnp.asarray(eps, invstd.dtype)
    return out, mean, var


sync_batch_norm.infer_shapes = _BN_SHAPES
