"""Every MXNet operator as a pure JAX function, in one registry (see registry.py)."""
from . import (attention, boxes, contrib_index, control_flow, conv, ctc,  # noqa: F401
               deformable, elemwise, index, indexing, linalg, loss, multibox, nn, norm,
               optimizer_ops, random, proposal, reduce, resize, rnn, roi, sampling, shape,
               slice_assign, softmax, sparse_ops, sync_batchnorm)  # (registration)
from . import core_extra, custom, image, multi_tensor  # noqa: F401 (registration)
from .registry import all_ops, exists, get, register  # noqa: F401
