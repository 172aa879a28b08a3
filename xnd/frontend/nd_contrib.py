"""``mx.nd.contrib`` / ``mx.ndarray.contrib``: every ``_contrib_*`` registry operator under its
short name (MXNet strips the ``_contrib_`` prefix: ``mx.nd.contrib.box_nms`` runs
``_contrib_box_nms``), generated from the registry by the same ``op_function`` factory as
``mx.nd`` itself."""
from ..lowering import registry
from ..ndarray import op_function

_PREFIX = "_contrib_"


def _install(namespace):
    for name, op in registry.all_ops().items():
        if name.startswith(_PREFIX):
            short = name[len(_PREFIX):]
            namespace.setdefault(short, op_function(op, short))


_install(globals())
del registry, op_function
