"""mxnet.autograd: record a tape of operator calls, differentiate it as one compiled vjp.

``with record():`` makes every registry call append a node to a tape while
still computing its value eagerly (so ``asscalar()`` can drive Python control
flow); ``backward()``/``grad()`` turn the tape reachable from the heads into
one pure JAX function and run ``jax.vjp`` of it under ``jax.jit``, cached by
the tape's structure (see engine.py). Importing this package installs the
recording hooks into ``xnd.ndarray.STATE``.
"""
from ..base import MXNetError
from ..ndarray import STATE, GradReqError, NDArray
from . import engine, tape
from .function import Function
# names MXNet's module holds by importing them (its users import them from here)
from ..base import (c_array, c_array_buf, c_handle_array, check_call,  # noqa: E402,F401
                    string_types)

# MXNet's module has no __all__: `from mxnet.autograd import *` also hands over NDArray,
# which test suites and scripts then use
__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training",
           "set_recording", "set_training", "mark_variables", "backward", "grad", "get_symbol",
           "Function", "NDArray"]

tape.install()

_GRAD_REQS = ("write", "add", "null")


def set_recording(is_recording):  # pylint: disable=redefined-outer-name
    """Set recording on/off; returns the previous state."""
    prev = STATE.recording
    STATE.recording = bool(is_recording)
    return bool(prev)


def set_training(train_mode):  # pylint: disable=redefined-outer-name
    """Set training/predicting mode (``is_train`` of Dropout, BatchNorm); returns the previous state."""
    prev = STATE.training
    STATE.training = bool(train_mode)
    return bool(prev)


def is_recording():
    """Whether operators are being recorded for gradient computation."""
    return bool(STATE.recording)


def is_training():
    """Whether operators run in training mode."""
    return bool(STATE.training)


class _RecordingStateScope:
    """Sets recording and/or training on enter, restores them on exit (MXNet's rules)."""

    def __init__(self, is_record, train_mode):  # pylint: disable=redefined-outer-name
        self._enter_is_record = is_record
        self._enter_train_mode = train_mode
        self._prev_is_record = None
        self._prev_train_mode = None

    def __enter__(self):
        if self._enter_is_record is not None:
            self._prev_is_record = set_recording(self._enter_is_record)
        if self._enter_train_mode is not None:
            self._prev_train_mode = set_training(self._enter_train_mode)

    def __exit__(self, ptype, value, trace):
        if self._enter_is_record is not None and self._prev_is_record != self._enter_is_record:
            set_recording(self._prev_is_record)
        if self._enter_train_mode is not None and self._prev_train_mode != self._enter_train_mode:
            set_training(self._prev_train_mode)


def record(train_mode=True):  # pylint: disable=redefined-outer-name
    """Scope that records operators for gradient computation (training mode by default)."""
    return _RecordingStateScope(True, train_mode)


def pause(train_mode=False):  # pylint: disable=redefined-outer-name
    """Scope that stops recording (predicting mode by default); values become constants."""
    return _RecordingStateScope(False, train_mode)


def train_mode():
    """Scope in training mode, recording state unchanged."""
    return _RecordingStateScope(None, True)


def predict_mode():
    """Scope in predicting mode, recording state unchanged."""
    return _RecordingStateScope(None, False)


def _check_req(req):
    if req not in _GRAD_REQS:
        raise GradReqError(f"grad_req must be one of 'write', 'add', 'null', got {req!r}")
    return req


def mark_variables(variables, gradients, grad_reqs="write"):
    """Mark arrays as variables; their gradients go into ``gradients`` (same order)."""
    if isinstance(variables, NDArray):
        if not isinstance(gradients, NDArray):
            raise MXNetError("mark_variables: gradients must be an NDArray when variables is one")
        variables, gradients = [variables], [gradients]
    variables, gradients = list(variables), list(gradients)
    if len(variables) != len(gradients):
        raise MXNetError(f"mark_variables: {len(variables)} variables but {len(gradients)} "
                         "gradients")
    if isinstance(grad_reqs, str):
        grad_reqs = [_check_req(grad_reqs)] * len(variables)
    else:
        grad_reqs = [_check_req(r) for r in grad_reqs]
        if len(grad_reqs) != len(variables):
            raise MXNetError(f"mark_variables: {len(variables)} variables but {len(grad_reqs)} "
                             "grad_reqs")
    for v, g, r in zip(variables, gradients, grad_reqs):
        if not isinstance(v, NDArray) or not isinstance(g, NDArray):
            raise TypeError("mark_variables: variables and gradients must be NDArrays")
        v._grad = g
        v._grad_req = r
        v._fresh = False
        v._ag = None


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):  # pylint: disable=redefined-outer-name
    """Compute the gradients of heads w.r.t. the marked variables, into their ``.grad``."""
    engine.run(heads, head_grads, None, retain_graph, False, train_mode)


type(STATE).backward = staticmethod(backward)  # NDArray.backward (the core never imports us)


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False,
         train_mode=True):  # pylint: disable=redefined-outer-name
    """Gradients of heads w.r.t. variables, returned as new arrays (``.grad`` untouched).

    With ``create_graph=True`` the gradient computation is recorded, so the result
    can be differentiated again (higher-order gradients).
    """
    if isinstance(variables, NDArray):
        variables = [variables]  # MXNet returns a list even then
    else:
        variables = list(variables)
        assert len(variables), "variables cannot be an empty list."
    if retain_graph is None:
        retain_graph = create_graph
    return engine.run(heads, head_grads, variables, retain_graph, create_graph, train_mode)


_SYMBOL_FROM_TAPE = [None]  # installed by the symbol layer (symbol/from_tape.py)


def get_symbol(x):
    """The recorded history of ``x`` as a Symbol (MXNet's names: var0.., node_0..)."""
    assert isinstance(x, NDArray), \
        f"get_symbol: Invalid argument type, expecting {NDArray}, got {type(x)}"
    entry = tape.live_entry(x)
    if entry is None and tape.grad_req(x) is not None:
        entry = tape.var_entry(x)
    if entry is None:
        raise MXNetError("NDArray is not part of a computation graph. Did you forget to turn on "
                         "recording?")
    return _SYMBOL_FROM_TAPE[0](entry)