"""``Custom``: an operator whose forward and backward are Python (``mx.operator.CustomOp``).

MXNet matched: ``nd.Custom(*inputs, op_type='name', **kwargs)`` looks ``op_type`` up among the
``mx.operator.register``-ed CustomOpProp classes and builds the prop with every other keyword
as a string; the inputs are the prop's ``list_arguments`` followed by its
``list_auxiliary_states``; the outputs are its ``list_outputs``, with shapes and dtypes from
``infer_shape``/``infer_type``.

Inside a compiled program (executor, hybridized block, autograd's backward) the Python forward
runs as a ``jax.pure_callback`` and the gradient is a ``jax.custom_vjp`` whose backward is a
second callback, so the rest of the graph stays one XLA program; from the first such trace on,
xnd's programs run synchronously (host_callbacks.py: a callback's own JAX work would otherwise
wait for a slot held by programs that wait for the callback). Eager calls skip the callback
and run the Python forward directly (errors then surface at the call, as MXNetError).

The Python side lives in ``xnd.frontend.operator`` and is reached through ``HOST``, which that
module installs (lowering knows nothing of NDArray): ``HOST.signature(op_type, extra, avals)``
gives (instance token, output avals, number of aux inputs), ``HOST.forward(token, is_train,
arrays)`` and ``HOST.backward(token, out_grads, in_arrays, out_arrays)`` work on numpy arrays.
"""
import jax
import jax.numpy as jnp
import numpy as np

from ..base import MXNetError
from . import host_callbacks
from .attrs import Str, _literal
from .registry import register

HOST = None  # installed by xnd.frontend.operator
AUX = "__aux__"  # the slot name of every aux-state input (symbols mark those variables aux)


def _host():
    if HOST is None:  # importing xnd installs it; a bare xnd.lowering does not
        raise MXNetError("Custom: mx.operator is not loaded (import xnd.frontend.operator)")
    return HOST


def Pairs(v):
    """The prop's keywords: sorted (name, string) pairs (or their repr from symbol JSON)."""
    v = _literal(v)
    return tuple((str(k), str(x)) for k, x in (v.items() if isinstance(v, dict) else v))


def _n_outputs(attrs):
    return _host().num_outputs(attrs["op_type"], attrs["extra"])


def _output_names(attrs):
    return tuple(_host().output_names(attrs["op_type"], attrs["extra"]))


def _is_loss(attrs):  # need_top_grad=False: a loss head, backward needs no head gradient
    return not _host().need_top_grad(attrs["op_type"], attrs["extra"])


def _input_names(attrs):  # the prop's arguments, then its aux states under the aux marker
    return _host().input_names(attrs["op_type"], attrs["extra"])


def _param_shapes(attrs, given):
    return _host().input_shapes(attrs["op_type"], attrs["extra"], given)


def _is_float(dt):
    return jnp.issubdtype(dt, jnp.floating)


def _reporting(method, *args):
    """A host method run inside a program: its MXNetError recorded for the caller (XLA turns
    it into a runtime error of the program, host_callbacks.wait gives it back)."""
    try:
        return method(*args)
    except MXNetError as e:
        host_callbacks.failed(e)
        raise


@register("Custom", num_outputs=_n_outputs, output_names=_output_names, extra="extra",
          param_shapes=_param_shapes, loss=_is_loss, aux=(AUX,), input_names=_input_names)
def custom(*data, op_type: Str, extra: Pairs = (), is_train=False):
    host = _host()
    avals = tuple(jax.ShapeDtypeStruct(x.shape, x.dtype) for x in data)
    token, out_avals, n_aux = host.signature(op_type, extra, avals)
    n_out = len(out_avals)

    def fwd_host(*xs):
        outs = _reporting(host.forward, token, is_train, [np.asarray(x) for x in xs])
        return tuple(np.asarray(o, dtype=a.dtype).reshape(a.shape) for o, a in zip(outs, out_avals))

    def run(*xs):
        host_callbacks.traced()  # this program calls back into Python: run programs in sync
        return jax.pure_callback(fwd_host, out_avals, *xs)

    if not data:  # nothing to differentiate
        outs = run()
        return outs if n_out > 1 else outs[0]
    n_arg = len(data) - n_aux
    diff = [k for k in range(n_arg) if _is_float(avals[k].dtype)]

    def bwd_host(*args):
        gs, xs, ys = args[:n_out], args[n_out:n_out + len(data)], args[n_out + len(data):]
        grads = _reporting(host.backward, token, [np.asarray(g) for g in gs],
                           [np.asarray(x) for x in xs], [np.asarray(y) for y in ys])
        return tuple(np.asarray(grads[k], dtype=avals[k].dtype).reshape(avals[k].shape)
                     for k in diff)

    @jax.custom_vjp
    def f(*xs):
        return run(*xs)

    def f_fwd(*xs):
        ys = run(*xs)
        return ys, (xs, ys)

    def f_bwd(res, gs):
        xs, ys = res
        gs = [jnp.asarray(g, a.dtype) for g, a in zip(gs, out_avals)]
        got = jax.pure_callback(bwd_host, tuple(avals[k] for k in diff), *gs, *xs, *ys) \
            if diff else ()
        grads = [None] * len(xs)
        for k, g in zip(diff, got):
            grads[k] = g
        for k in range(len(xs)):  # aux states and integer inputs get no gradient
            if grads[k] is None:
                grads[k] = jnp.zeros(avals[k].shape, avals[k].dtype) if _is_float(avals[k].dtype) \
                    else np.zeros(avals[k].shape, jax.dtypes.float0)
        return tuple(grads)

    f.defvjp(f_fwd, f_bwd)
    outs = f(*data)
    return outs if n_out > 1 else outs[0]


def _eager(static):
    """Eager kernel: the Python forward straight on the values, no compiled callback."""
    op_type, extra, is_train = static["op_type"], static["extra"], static.get("is_train", False)

    def kern(*xs):
        host = _host()
        avals = tuple(jax.ShapeDtypeStruct(x.shape, x.dtype) for x in xs)
        token, out_avals, _ = host.signature(op_type, extra, avals)
        outs = host.forward(token, is_train, [np.asarray(x) for x in xs])
        res = tuple(jnp.asarray(np.asarray(o, dtype=a.dtype).reshape(a.shape))
                    for o, a in zip(outs, out_avals))
        return res if len(res) > 1 else res[0]
    return kern


custom.eager_kernel = _eager
