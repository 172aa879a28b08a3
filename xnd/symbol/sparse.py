"""mx.sym.sparse: the operator names of MXNet's sparse symbol namespace. A graph computes
its values densely; sparse arrays bound to it are read through their dense value, and
gradient buffers of a sparse storage type receive the gradient in that storage."""
import sys

from ..lowering.op_groups import SPARSE as _SPARSE

_sym = sys.modules[__package__]

for _name in _SPARSE:  # MXNet's _sparse_ operators (xnd/lowering/op_groups.py)
    if hasattr(_sym, _name):
        globals()[_name] = getattr(_sym, _name)

# the registry's own ``_sparse_<name>`` operators (xnd/lowering/sparse_ops.py): ``retain``
_int = _sym._internal

for _name in dir(_int):
    if _name.startswith("_sparse_"):
        globals()[_name[len("_sparse_"):]] = getattr(_int, _name)
