"""Every MXNet operator as a pure JAX function, in one registry (see registry.py)."""
from . import (# noqa: F401 (registration, boxes, conv, ctc, elemwise, index, indexing,  # noqa: F401 (registration)
               linalg, loss, multibox, nn)
               norm, optimizer_ops, random, reduce, rnn, shape, softmax)
from .registry import all_ops, exists, get, register  # noqa: F401
