"""``mx.nd.image`` / ``mx.ndarray.image``: every ``_image_*`` registry operator under its
short name (``mx.nd.image.to_tensor`` runs ``_image_to_tensor``), from the same factory as
``mx.nd``."""
from ..lowering import registry as _registry
from ..ndarray import op_function as _op_function
from . import image as _image  # noqa: F401  (installs resize's cv::resize)

_PREFIX = "_image_"


def _install(namespace):
    for name, op in _registry.all_ops().items():
        if name.startswith(_PREFIX):
            namespace.setdefault(name[len(_PREFIX):], _op_function(op, name[len(_PREFIX):]))


_install(globals())
