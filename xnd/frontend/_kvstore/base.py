"""``mxnet.kvstore.base``: KVStoreBase (and its registry), TestStore and ``create``, those of
mx.kvstore (xnd/frontend/kvstore.py), with the names MXNet's module imports."""
from ...base import (c_array, c_array_buf, c_handle_array, c_str, c_str_array,  # noqa: F401
                     check_call, string_types)
from ...ndarray import NDArray  # noqa: F401
from ...lowering import unavailable as _unavailable
from .. import kvstore as _kv

KVStoreBase, TestStore, create = _kv.KVStoreBase, _kv.TestStore, _kv.create

__all__ = ["create", "KVStoreBase"]

_unavailable.install(globals(), "mxnet.kvstore.base", {"set_kvstore_handle": _unavailable.C_LIBRARY})
