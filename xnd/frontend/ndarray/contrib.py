"""``mx.nd.contrib`` / ``mx.ndarray.contrib``: every ``_contrib_*`` registry operator under its
short name (MXNet strips the ``_contrib_`` prefix: ``mx.nd.contrib.box_nms`` runs
``_contrib_box_nms``), generated from the registry by the same ``op_function`` factory as
``mx.nd`` itself."""
import numpy as _np

from ... import _nest
from ...lowering import registry as _registry
from ...ndarray import NDArray as _NDArray, invoke as _invoke
from ...op_function import op_function as _op_function
from ._sync_batchnorm import SyncBatchNorm  # noqa: F401  (waits for the other devices)

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
