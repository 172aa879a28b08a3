"""``horovod.mxnet`` on JAX: Horovod's MXNet API (xnd/horovod/README.md).

``DistributedOptimizer`` and ``DistributedTrainer`` sum the gradients over every process and
fold the division by ``size()`` into the optimizer's gradient scale, as Horovod does (one
scaling instead of an average per tensor); ``_allreduce_grads`` is the Trainer's override
point, as in Horovod.
"""
import warnings

from xnd.frontend import optimizer as _optimizer
from xnd.frontend.gluon.parameter import ParameterDict
from xnd.frontend.gluon.trainer import Trainer

from .compression import Compression
from .functions import allgather_object, broadcast_object, broadcast_parameters
from .mpi_ops import (Adasum, Average, Max, Min, Product, Sum, allgather, allreduce,
                      allreduce_, alltoall, broadcast, broadcast_, ccl_built, cross_rank,
                      cross_size, cuda_built, ddl_built, gloo_built, gloo_enabled,
                      grouped_allreduce, grouped_allreduce_, init, is_homogeneous,
                      is_initialized, local_rank, local_size, mpi_built, mpi_enabled,
                      mpi_threads_supported, nccl_built, rank, rocm_built, shutdown, size)


def _split(items, groups):
    """``items`` in ``groups`` consecutive runs of near-equal length (Horovod's split_list)."""
    n, rem = divmod(len(items), groups)
    out, start = [], 0
    for g in range(groups):
        end = start + n + (1 if g < rem else 0)
        out.append(items[start:end])
        start = end
    return [o for o in out if o]


def _sum_grads(grads, predivide, num_groups, compression):
    """Sum ``grads`` over the processes in place (compressed on the wire), in ``num_groups``
    grouped calls (0: one call per tensor)."""
    if size() == 1 or not grads:
        return
    packed = [compression.compress(g) for g in grads]
    wire = [p[0] for p in packed]
    runs = _split(wire, num_groups) if num_groups > 0 else [[w] for w in wire]
    for run in runs:
        grouped_allreduce_(run, average=False, prescale_factor=1.0 / predivide)
    for g, (w, ctx) in zip(grads, packed):
        if w is not g:
            g[:] = compression.decompress(w, ctx)


class DistributedOptimizer(_optimizer.Optimizer):
    """Wraps an optimizer: each ``update`` first sums the gradient over every process;
    ``rescale_grad`` is divided by ``size()`` once, here."""

    def __init__(self, optimizer, gradient_predivide_factor=1.0, num_groups=0):
        self._optimizer = optimizer
        self._optimizer.rescale_grad *= (gradient_predivide_factor / size())
        self._gradient_predivide_factor = gradient_predivide_factor
        self._num_groups = num_groups

    def __getattr__(self, item):
        return getattr(self._optimizer, item)

    def create_state_multi_precision(self, index, weight):
        return self._optimizer.create_state_multi_precision(index, weight)

    def create_state(self, index, weight):
        return self._optimizer.create_state(index, weight)

    def _do_allreduce(self, index, grad):
        grads = list(grad) if isinstance(index, (tuple, list)) else [grad]
        _sum_grads(grads, self._gradient_predivide_factor, self._num_groups,
                   Compression.none)

    def update(self, index, weight, grad, state):
        self._do_allreduce(index, grad)
        self._optimizer.update(index, weight, grad, state)

    def update_multi_precision(self, index, weight, grad, state):
        self._do_allreduce(index, grad)
        self._optimizer.update_multi_precision(index, weight, grad, state)

    def set_learning_rate(self, lr):
        self._optimizer.set_learning_rate(lr)

    def set_lr_mult(self, args_lr_mult):
        self._optimizer.set_lr_mult(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        self._optimizer.set_wd_mult(args_wd_mult)


class DistributedTrainer(Trainer):
    """A Gluon Trainer whose gradients are summed over every process before each update
    (no kvstore); ``compression`` applies on the wire."""

    def __init__(self, params, optimizer, optimizer_params=None,
                 compression=Compression.none, gradient_predivide_factor=1.0, prefix=None,
                 num_groups=0):
        self._compression = compression
        if isinstance(optimizer, DistributedOptimizer):
            optimizer = optimizer._optimizer
            warnings.warn("DistributedTrainer does not take DistributedOptimizer as its "
                          "optimizer. We have unwrapped it for you.")
        if isinstance(params, (dict, ParameterDict)):
            params = [params[k] for k in sorted(params.keys())]
        super().__init__(params, optimizer, optimizer_params=optimizer_params, kvstore=None)
        self._scale *= (gradient_predivide_factor / size())
        self._gradient_predivide_factor = gradient_predivide_factor
        if prefix is not None and not isinstance(prefix, str):
            raise ValueError("DistributedTrainer: prefix must be a string, got %r" % (prefix,))
        self._prefix = prefix or ""
        self._num_groups = num_groups

    def _allreduce_grads(self):
        grads = [p.list_grad()[0] for p in self._params if p.grad_req != "null"]
        _sum_grads(grads, self._gradient_predivide_factor, self._num_groups,
                   self._compression)
