"""mx.nd.linalg: the ``_linalg_*`` registry ops under their short names (gemm2, potrf, ...)."""
import sys

from ...lowering import registry
from ...op_function import op_function


def _install():
    mod = sys.modules[__name__]
    for name, op in registry.all_ops().items():
        if name.startswith("_linalg_"):
            setattr(mod, name[len("_linalg_"):], op_function(op, name[len("_linalg_"):]))


_install()
