"""mx.gluon.contrib: the contrib layers xnd provides."""
from . import nn  # noqa: F401
