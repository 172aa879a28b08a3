"""``mx.contrib.autograd``: MXNet's first autograd API (before ``mx.autograd``).

``train_section()`` turns recording and training on together, ``test_section()`` turns
both off; ``compute_gradient``/``backward`` differentiate the recorded heads into the
gradients given to ``mark_variables``; ``grad_and_loss(func)``/``grad(func)`` wrap a loss
function so calling it returns the gradients of the chosen arguments (and the loss).  All of
it runs on xnd's tape (``mx.autograd``)."""
import functools

from ... import autograd as _ag
from ...ndarray import NDArray
from .. import ndarray as nd
# names MXNet's module holds by importing them (its users import them from here)
from ...base import (c_array, c_array_buf, c_handle_array, check_call,  # noqa: E402,F401
                     string_types)
from ..ndarray import zeros_like  # noqa: E402,F401

__all__ = ["set_is_training", "TrainingStateScope", "train_section", "test_section",
           "mark_variables", "backward", "compute_gradient", "grad_and_loss", "grad"]


def set_is_training(is_train):
    """Set both recording and training to `is_train`; returns the previous training state."""
    prev = _ag.set_training(is_train)
    _ag.set_recording(is_train)
    return prev


class TrainingStateScope:
    """Scope that sets recording and training to `enter_state` and restores them on exit."""

    def __init__(self, enter_state):
        self._enter_state = enter_state
        self._prev = None

    def __enter__(self):
        self._prev = set_is_training(self._enter_state)

    def __exit__(self, ptype, value, trace):
        if self._prev != self._enter_state:
            set_is_training(self._prev)


def train_section():
    """Scope in which operators are recorded and run in training mode."""
    return TrainingStateScope(True)


def test_section():
    """Scope in which operators are neither recorded nor run in training mode."""
    return TrainingStateScope(False)


mark_variables = _ag.mark_variables


def backward(outputs, out_grads=None, retain_graph=False):
    """Gradients of `outputs` (a list) into the marked variables' gradient arrays."""
    assert isinstance(outputs, (list, tuple)), "outputs must be a list or tuple of NDArrays"
    if out_grads is not None:
        assert len(out_grads) == len(outputs), \
            "outputs and out_grads must have the same length"
    _ag.backward(list(outputs), None if out_grads is None else list(out_grads),
                 retain_graph=retain_graph)


def compute_gradient(outputs):
    """``backward(outputs)``."""
    backward(outputs)


def grad_and_loss(func, argnum=None):
    """Wrap `func` so that calling it returns ``(gradients, outputs)``: the gradients of the
    arguments at `argnum` (an int or a list; every argument by default)."""
    @functools.wraps(func)
    def wrapped(*args):
        variables = args
        if argnum is not None:
            variables = [args[i] for i in (argnum if isinstance(argnum, list) else [argnum])]
        for x in variables:
            assert isinstance(x, NDArray), "type of autograd input should NDArray."
        grads = [nd.zeros_like(x) for x in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func, argnum=None):
    """Wrap `func` so that calling it returns the gradients of the arguments at `argnum`."""
    grad_with_loss_func = grad_and_loss(func, argnum)

    @functools.wraps(grad_with_loss_func)
    def wrapped(*args):
        return grad_with_loss_func(*args)[0]
    return wrapped
