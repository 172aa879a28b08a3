"""The global random stream behind ``mx.random.seed``: a (seed, counter) pair.

Every draw (an eager sampling operator, an Executor or Module step, an initializer)
takes ``next_key()``, a uint32 ``[seed, counter]`` pair that the sampling kernel turns
into its stream with ``fold_in``; ``seed()`` resets the counter, so a seed reproduces a
run.  It sits at the bottom of the package so that the NDArray core, the tape and the
executor draw keys without importing the frontend; ``xnd/frontend/random.py``
(``mx.random``) is its user-facing side.
"""
import numpy as np

_state = {"seed": 0, "counter": 0}


def seed(seed_state):
    """Restart the stream at ``seed_state`` (taken modulo 2**32)."""
    _state["seed"] = int(seed_state) & 0xFFFFFFFF
    _state["counter"] = 0


def next_key():
    """The key of the next draw (advances the counter)."""
    _state["counter"] += 1
    return current_key()


def current_key():
    """The key of the latest draw (the counter unchanged)."""
    return np.array([_state["seed"], _state["counter"] & 0xFFFFFFFF], dtype=np.uint32)
