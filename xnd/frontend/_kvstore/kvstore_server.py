"""``mxnet.kvstore.kvstore_server``: MXNet's parameter-server process (``KVStoreServer``).
xnd's 'dist_*' stores keep the values on the workers (xnd/frontend/distributed.py): a
process the launcher starts as a server or scheduler ends at ``import mxnet``, so the
server class is not here (xnd/porting/surface_exceptions.py says so to ``xnd check``)."""
from ...base import check_call  # noqa: F401
from .base import create  # noqa: F401
