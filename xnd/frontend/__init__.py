"""The user-facing surfaces, laid out as MXNet's namespace: ``mx.a.b`` lives at
``xnd/frontend/a/b.py`` or ``a/`` (see README.md here)."""
# Until every module says `from .. import ndarray as nd` (issue 18 moved mx.nd from nd.py
# to the ndarray/ package), `from .. import nd` keeps working through this name.
from . import ndarray as nd  # noqa: F401
