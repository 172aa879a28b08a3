"""``mx.nd.image`` / ``mx.ndarray.image``: every ``_image_*`` registry operator under its
short name (``mx.nd.image.to_tensor`` runs ``_image_to_tensor``), from the same factory as
``mx.nd``. ``resize`` runs mx.image's cv::resize, a hook that xnd/frontend/image.py installs
into the registry op when ``import xnd`` loads it."""
from ...lowering import registry as _registry
from ...op_function import op_function as _op_function

_PREFIX = "_image_"


for _name, _op in _registry.all_ops().items():  # each under its short name
    if _name.startswith(_PREFIX):
        globals().setdefault(_name[len(_PREFIX):], _op_function(_op, _name[len(_PREFIX):]))
