"""``mx.nd.contrib`` / ``mx.ndarray.contrib``: every ``_contrib_*`` registry operator under its
short name (MXNet strips the ``_contrib_`` prefix: ``mx.nd.contrib.box_nms`` runs
``_contrib_box_nms``), generated from the registry by the same ``op_function`` factory as
``mx.nd`` itself."""
import sys as _sys

import numpy as _np

from ... import _nest
from ...lowering import registry as _registry
from ...lowering import unavailable as _unavailable
from ...ndarray import NDArray as _NDArray, invoke as _invoke
from ...op_function import op_function as _op_function
from ._sync_batchnorm import SyncBatchNorm  # noqa: F401  (waits for the other devices)
# names MXNet's module holds by importing them (its users import them from here)
from ...context import current_context  # noqa: E402,F401
from ..random import uniform  # noqa: E402,F401

_PREFIX = "_contrib_"


def boolean_mask(data, index, axis=0, out=None, name=None):
    """``_contrib_boolean_mask``: the output length is the number of non-zero index values,
    read here (a device-to-host copy) and passed to the operator as its ``size``."""
    if not isinstance(data, _NDArray) or not isinstance(index, _NDArray):
        raise TypeError("boolean_mask: data and index must be NDArrays")
    op = _registry.get("_contrib_boolean_mask")
    size = int(_np.count_nonzero(index.asnumpy())) if index.ndim == 1 else -1
    return _invoke(op, [data, index], op.parse_attrs({"axis": axis, "size": size}), out=out)


for _name, _op in _registry.all_ops().items():  # each under its short name
    if _name.startswith(_PREFIX):
        globals().setdefault(_name[len(_PREFIX):], _op_function(_op, _name[len(_PREFIX):]))



def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """mx.nd.contrib.rand_zipfian (MXNet's Python function; the sampler is written once, for
    nd and sym, in xnd/symbol/contrib.py)."""
    from ...context import current_context
    from ...symbol.contrib import _rand_zipfian
    return _rand_zipfian(lambda n: _op_function(_registry.get(n), n), true_classes,
                         num_sampled, range_max, ctx=ctx or current_context())


_stack = _op_function(_registry.get("stack"), "stack")  # mx.nd.stack (its package imports us)


def _flatten(args, what):
    """MXNet's (flat list, format) of a nested list of NDArrays (format 0: one array)."""
    return _nest.flatten(args, lambda x: ([x], 0) if isinstance(x, _NDArray) else None,
                        lambda x: AssertionError(f"{what} must be (nested) list of NDArray, "
                                                 f"but got {x} of type {type(x)}"))


_regroup = _nest.regroup


def foreach(body, data, init_states):
    """mx.nd.contrib.foreach, as MXNet runs it: a Python loop of ``out, states =
    body(data[i], states)`` over axis 0 (of each array when ``data`` is a list), the
    outputs stacked on a new axis 0; returns (outputs, last states) in ``body``'s nesting.
    Eager, so autograd records each step's operators."""
    flat, _ = _flatten(data, "foreach input")
    assert all(isinstance(d, _NDArray) for d in flat), \
        "data should be an NDArray or a nested list of NDArrays"
    flat, _ = _flatten(init_states, "foreach states")
    assert all(isinstance(s, _NDArray) for s in flat), \
        "init_states should be an NDArray or a nested list of NDArrays"
    single = isinstance(data, _NDArray)
    states, steps, out_fmt = init_states, [], 0
    for i in range((data if single else data[0]).shape[0]):
        outs, states = body(data[i] if single else [d[i] for d in data], states)
        outs, out_fmt = _flatten(outs, "foreach output")
        steps.append(outs)
    outputs, _ = _regroup([_stack(*col) for col in zip(*steps)], out_fmt)
    return outputs, states


def _scalar(value, type_, what):
    """A Python scalar of ``type_`` from a number or a one-element NDArray (MXNet's
    ValueError otherwise)."""
    if isinstance(value, _NDArray):
        value = value.asscalar()
    try:
        return type_(value)
    except Exception:  # noqa: BLE001  (any failure of the conversion is MXNet's ValueError)
        raise ValueError(f"Cannot convert {what} to python {type_.__name__}") from None


def while_loop(cond, func, loop_vars, max_iterations=None):
    """mx.nd.contrib.while_loop, as MXNet runs it eagerly: while ``cond(*loop_vars)`` holds
    and fewer than ``max_iterations`` steps ran, ``step_output, loop_vars =
    func(*loop_vars)``.  Returns (the step outputs stacked on a new axis 0 and padded to
    ``max_iterations`` rows (the padding rows are MXNet's ``empty``, any values; zeros here); the
    last loop variables), in ``func``'s nesting."""
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    max_iterations = _scalar(max_iterations, int, "max_iteration")
    if len(loop_vars) == 0:
        raise ValueError("loop_vars should contain at least one element")
    single = isinstance(loop_vars, _NDArray)
    loop_vars = [loop_vars] if single else list(loop_vars)
    steps, out_fmt = [], None
    while len(steps) < max_iterations and \
            _scalar(cond(*loop_vars), bool, "Return value of cond"):
        step_output, new_vars = func(*loop_vars)
        step_output = [] if step_output is None else step_output
        new_vars = [] if new_vars is None else new_vars
        new_vars = [new_vars] if isinstance(new_vars, _NDArray) else list(new_vars)
        if len(new_vars) != len(loop_vars):
            raise ValueError("The length of loop_vars should be consistent during the loop")
        loop_vars = new_vars
        flat, out_fmt = _flatten(list(step_output) if isinstance(step_output, tuple)
                                 else step_output, "while output")
        if steps and len(flat) != len(steps[0]):
            raise ValueError("Number of elements in step_output should be the same in each "
                             "step")
        steps.append(flat)
    stacked = []
    for col in zip(*steps):
        rows = [x.expand_dims(0) for x in col]
        if len(steps) != max_iterations:
            rows.append(_zeros(shape=(max_iterations - len(steps),) + tuple(col[0].shape),
                               ctx=col[0].context, dtype=col[0].dtype))
        stacked.append(_concat(*rows, dim=0))
    if out_fmt is not None:
        stacked, _ = _regroup(stacked, out_fmt)
    return stacked, (loop_vars[0] if single else loop_vars)


def cond(pred, then_func, else_func):
    """mx.nd.contrib.cond, eager: ``then_func()`` if ``pred`` (a number or one-element
    NDArray) is true, else ``else_func()``."""
    return then_func() if _scalar(pred, bool, "pred") else else_func()


_concat = _op_function(_registry.get("Concat"), "concat")
_zeros = _op_function(_registry.get("_zeros"), "_zeros")  # (MXNet pads with `empty`: any values)
ndarray = _sys.modules[_NDArray.__module__]  # MXNet's module imports the NDArray class module


def _rescale_array(rescale_grad, ctx):
    """MXNet's _get_rescale_grad: a number becomes a (1,) float32 array on the weight's device."""
    if isinstance(rescale_grad, _NDArray):
        return rescale_grad.as_in_context(ctx)
    op = _registry.get("_full")
    return _invoke(op, [], op.parse_attrs({"shape": (1,), "value": float(rescale_grad),
                                            "dtype": "float32"}), ctx=ctx)


def _internal_op(name, *inputs, out=None, **attrs):
    return _op_function(_registry.get(name), name)(*inputs, out=out, **attrs)


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """mx.nd.contrib.adamw_update: ``_adamw_update`` with a numeric rescale_grad made an array;
    mean and var update in place; skipped when rescale_grad is NaN, inf or 0."""
    return _internal_op("_adamw_update", weight, grad, mean, var,
                        _rescale_array(rescale_grad, weight.context), out=out, lr=lr, eta=eta,
                        beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                        clip_gradient=clip_gradient, **kwargs)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9,
                    beta2=0.999, epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None,
                    **kwargs):
    """mx.nd.contrib.mp_adamw_update: adamw_update on the float32 master copy ``weight32``."""
    return _internal_op("_mp_adamw_update", weight, grad, mean, var, weight32,
                        _rescale_array(rescale_grad, weight.context), out=out, lr=lr, eta=eta,
                        beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                        clip_gradient=clip_gradient, **kwargs)


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, out=None,
                       name=None, size=0, **kwargs):
    """mx.nd.contrib.multi_adamw_update: adamw_update of every weight in one call
    (per-weight lrs, wds, etas)."""
    flat = [x for grp in zip(weights, grads, mean, var) for x in grp]
    return _internal_op("_multi_adamw_update", *flat,
                        _rescale_array(rescale_grad, weights[0].context), out=out,
                        num_weights=size or len(weights), lrs=lrs, wds=wds, etas=etas, **kwargs)


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas,
                          out=None, name=None, size=0, **kwargs):
    """mx.nd.contrib.multi_mp_adamw_update: multi_adamw_update on float32 master copies."""
    flat = [x for grp in zip(weights, grads, mean, var, weights32) for x in grp]
    return _internal_op("_multi_mp_adamw_update", *flat,
                        _rescale_array(rescale_grad, weights[0].context), out=out,
                        num_weights=size or len(weights), lrs=lrs, wds=wds, etas=etas, **kwargs)


# MXNet's contrib operators that cannot work on XLA: entries raising MXNetError with the reason
_unavailable.install(globals(), "mxnet.ndarray.contrib", _unavailable.CONTRIB_OPS)
