"""Every MXNet operator as a pure JAX function, in one registry (see registry.py)."""
from . import (conv, elemwise, index, indexing, linalg, loss, nn, norm,  # noqa: F401 (registration)
               optimizer_ops, random, reduce, rnn, shape, softmax)
from .registry import all_ops, exists, get, register  # noqa: F401
