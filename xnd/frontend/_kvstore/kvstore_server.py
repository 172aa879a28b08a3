"""``mxnet.kvstore.kvstore_server``: MXNet's parameter-server process (``KVStoreServer``).
xnd's 'dist_*' stores keep the values on the workers (xnd/frontend/distributed.py): a
process the launcher starts as a server or scheduler ends at ``import mxnet``: making a
``KVStoreServer`` raises MXNetError saying so, the reason ``xnd check`` reports."""
from ...base import check_call  # noqa: F401
from .base import create  # noqa: F401
from ...lowering import unavailable as _unavailable

_unavailable.install(globals(), "mxnet.kvstore.kvstore_server",
                     {"KVStoreServer": _unavailable.PS_SERVER})
