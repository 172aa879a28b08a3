"""mx.sym.sparse: the operator names of MXNet's sparse symbol namespace, as the dense
registry operators (xnd has no sparse storage; see frontend/ndarray/sparse.py)."""
import sys

from ..lowering.op_groups import SPARSE as _SPARSE

_sym = sys.modules[__package__]

for _name in _SPARSE:  # MXNet's _sparse_ operators (xnd/lowering/op_groups.py)
    if hasattr(_sym, _name):
        globals()[_name] = getattr(_sym, _name)
