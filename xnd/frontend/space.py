"""``mx.space`` (MXNet's ``mxnet/space.py``): the schedule configuration spaces of MXNet's
TVM-compiled operators, objects of its C++ FFI.  xnd has no TVM operators (runtime Features
report TVM_OP off): making one of these classes raises MXNetError saying so, the reason
``xnd check`` reports."""
from ..lowering import unavailable as _unavailable

_unavailable.install(globals(), "mxnet.space", dict.fromkeys(
    ("ConfigSpace", "ConfigSpaces", "OtherOptionEntity", "OtherOptionSpace"), _unavailable.TVM))
