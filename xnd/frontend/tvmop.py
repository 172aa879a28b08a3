"""``mx.tvmop`` (MXNet's ``mxnet/tvmop.py``): loads MXNet's TVM-compiled operators when the
library was built with ``TVM_OP``.  xnd's runtime features report TVM_OP off (there is no
libtvmop), so, as on such an MXNet build, importing it does nothing more."""
from .runtime import Features  # noqa: F401
