"""Programs that call back into Python (``Custom`` operators), and the programs dispatched
while one runs.

XLA:CPU holds a bounded number of programs in flight per device (32): each holds its slot
from dispatch until it finishes.  A program stopped in a Python callback keeps its slot while
the Python thread that dispatched it runs ahead and dispatches more (the next batch's
forward, a metric update, the next batch's slice), each waiting on the stopped program's
results.  When the callback's own work needs a slot (an ``nd`` operator, a transfer through
a jitted identity, ``_transfer.py``), none frees: the callback waits on JAX and JAX on the
callback.  MXNet's example/numpy-ops/custom_softmax.py hung so in ``Module.score`` after
its first epoch (the dispatching thread and the callback thread both in XLA's
``Semaphore::Acquire``).

So once a program holding a Python callback has been traced in this process (``traced()``,
called by lowering/custom.py), every program xnd makes (``xla_options.jit``/``tiers``, which
wrap theirs in ``Synced``) waits for its results before its caller goes on: at most the
program in its callback and the callback's own work are in flight.  Processes without custom
operators keep asynchronous dispatch.

An error raised in a callback reaches the caller as XLA's runtime error of the program (at the
call or when its results are waited for); the callback records it (``failed``) and ``Synced``
raises that MXNetError instead.
"""
import jax

ACTIVE = False          # a program holding a Python callback has been traced
_LAST = [None]          # the error of the last callback that raised (any thread)


def traced():
    """A Python callback was traced into a program: programs run synchronously from now."""
    global ACTIVE
    ACTIVE = True


def failed(err):
    """Record the MXNetError a callback is about to raise (Synced reraises it)."""
    _LAST[0] = err


def _concrete(leaf):
    return isinstance(leaf, jax.Array) and not isinstance(leaf, jax.core.Tracer)


def wait(out):
    """Block until ``out``'s arrays are computed."""
    for leaf in jax.tree_util.tree_leaves(out):
        if _concrete(leaf):
            leaf.block_until_ready()


def _reraise(e):
    """A program's runtime error that carries a callback's MXNetError: that MXNetError."""
    err, _LAST[0] = _LAST[0], None
    if err is not None and type(err).__name__ in str(e):
        raise err from None
    raise e


class Synced:
    """A program (a jitted function or ``tiers.Tiered``) that, once ``ACTIVE``, returns only
    when its results are computed.  Attributes are the program's own."""

    __slots__ = ("_program", "__weakref__")   # (jax.eval_shape and jit cache by weak reference)

    def __init__(self, program):
        self._program = program

    def __call__(self, *args, **kwargs):
        try:
            out = self._program(*args, **kwargs)
            if ACTIVE:
                wait(out)
        except Exception as e:  # noqa: BLE001  (jaxlib's runtime error type is private)
            if ACTIVE:
                _reraise(e)
            raise
        return out

    def __getattr__(self, name):
        return getattr(self._program, name)


def synced(make):
    """Decorator of a program factory: what it returns (a program, or a tuple of programs or
    None) wrapped in ``Synced``."""
    import functools

    @functools.wraps(make)
    def factory(*args, **kwargs):
        made = make(*args, **kwargs)
        if isinstance(made, tuple):
            return tuple(p if p is None else Synced(p) for p in made)
        return Synced(made)
    return factory
