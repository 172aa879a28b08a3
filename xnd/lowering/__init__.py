"""Every MXNet operator as a pure JAX function, in one registry (see registry.py)."""
from . import conv, elemwise, index, indexing, linalg, loss, nn, norm, random, reduce, rnn, shape, softmax  # noqa: F401,E501  (registration)
from .registry import all_ops, exists, get, register  # noqa: F401
