"""mx.gluon.model_zoo: model architectures with MXNet's parameter names (vision)."""
from . import model_store  # noqa: F401
from . import vision  # noqa: F401
