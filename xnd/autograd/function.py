"""mx.autograd.Function: user-defined forward/backward on NDArrays.

``forward`` runs eagerly with recording off (as in MXNet); when recording, the
call becomes one tape node whose outputs are the values forward returned.
Inside the compiled backward that node is a ``jax.custom_vjp``: its primal
outputs are the recorded values (jit arguments), and its cotangent rule calls
the user's ``backward`` on NDArrays through ``jax.pure_callback``. The
Function instance is looked up by a slot number that is also a jit argument,
so a training loop that creates a new Function every step still reuses one
compiled backward.
"""
import itertools
import traceback
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from .. import _transfer
from ..ndarray import NDArray, STATE, _wrap
from .tape import record_node

_slots = itertools.count(1)
_LIVE = weakref.WeakValueDictionary()  # slot -> Function instance (kept alive by its node)


def _run_user_backward(slot, *out_grads):
    fn = _LIVE.get(int(np.asarray(slot)))
    if fn is None:
        raise RuntimeError("autograd.Function.backward: the Function was freed")
    try:
        dev = fn._ctx.jax_device()
        grads = [_wrap(_transfer.to_device(np.asarray(g), dev), fn._ctx) for g in out_grads]
        rets = fn.backward(*grads)
        if isinstance(rets, NDArray):
            rets = (rets,)
        rets = tuple(rets)
        if len(rets) != len(fn._in_avals):
            raise ValueError(f"{type(fn).__name__}.backward must return exactly the same number of "
                             f"NDArrays as the number of NDArrays arguments to forward. Expecting "
                             f"{len(fn._in_avals)} got {len(rets)}")
        out = []
        for r, (shape, dtype) in zip(rets, fn._in_avals):
            if not isinstance(r, NDArray):
                raise TypeError(f"autograd.Function.backward must return NDArrays, not {type(r)}")
            a = np.asarray(r.asnumpy(), dtype=dtype)
            if a.shape != shape:
                a = np.broadcast_to(a, shape)
            out.append(np.ascontiguousarray(a))
        return tuple(out)
    except Exception:
        raise RuntimeError("Error in Function.backward: " + traceback.format_exc()) from None


@jax.custom_vjp
def _prim(ins, outs, slot):
    return outs


def _prim_fwd(ins, outs, slot):
    return outs, (tuple(jax.ShapeDtypeStruct(i.shape, i.dtype) for i in ins), slot, outs)


def _prim_bwd(res, cts):
    in_avals, slot, outs = res
    cts = tuple(jnp.zeros(o.shape, o.dtype) if c is None or (hasattr(c, "dtype") and
                c.dtype == jax.dtypes.float0) else c for c, o in zip(cts, outs))
    gins = jax.pure_callback(_run_user_backward, tuple(in_avals), slot, *cts)
    return tuple(gins), tuple(jnp.zeros(o.shape, o.dtype) for o in outs), None


_prim.defvjp(_prim_fwd, _prim_bwd)


def func_caller(ins, dyn):
    outs, slot = dyn
    return tuple(_prim(tuple(ins), tuple(outs), slot))


class Function:
    """Customize differentiation in autograd (mxnet.autograd.Function).

    Subclass it and define ``forward(*inputs)`` and ``backward(*output_grads)``
    on NDArrays; ``backward`` returns one gradient per input. Each instance can be
    called once. ``save_for_backward(*arrays)`` keeps arrays for ``backward`` in
    ``self.saved_tensors``.
    """

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        self.saved_tensors = args

    def __call__(self, *inputs):
        assert not self._used, \
            "Each Function instance can only be called once. Please create another instance."
        self._used = True
        prev = STATE.recording
        STATE.recording = False
        try:
            outputs = self.forward(*inputs)
        finally:
            STATE.recording = prev
        if not prev:
            return outputs
        ret = outputs
        if isinstance(outputs, NDArray):
            outputs = (outputs,)
        outputs = tuple(outputs)
        for x in inputs:
            if not isinstance(x, NDArray):
                raise TypeError(f"autograd.Function inputs must be NDArrays, got {type(x).__name__}")
        slot = next(_slots)
        self._ctx = outputs[0].context if outputs else inputs[0].context
        self._in_avals = tuple((tuple(x.shape), np.dtype(x.dtype)) for x in inputs)
        values = tuple(o._val() for o in outputs)
        node = record_node(("func", len(inputs), len(outputs)), list(inputs),
                           (values, np.int64(slot)), list(outputs), extra=self)
        if node is not None:
            _LIVE[slot] = self
            for o in outputs:
                o._shared = True  # the node keeps these buffers: never donate them
        return ret

    def forward(self, *inputs):
        """Forward computation."""
        raise NotImplementedError

    def backward(self, *output_grads):
        """Backward computation.

        Takes as many inputs as forward's outputs, and returns as many NDArrays as
        forward's inputs.
        """
        raise NotImplementedError
