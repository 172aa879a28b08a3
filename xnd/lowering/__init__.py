"""Every MXNet operator as a pure JAX function, in one registry (see registry.py)."""
from . import (attention, boxes, contrib_index, conv, ctc, elemwise, index, indexing, linalg, loss,  # noqa: F401 (registration)
               multibox, nn, norm, optimizer_ops, random, reduce, rnn, resize, roi,
               shape, softmax)
from . import core_extra, custom, multi_tensor  # noqa: F401 (registration)
from .registry import all_ops, exists, get, register  # noqa: F401
