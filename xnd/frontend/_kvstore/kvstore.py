"""``mxnet.kvstore.kvstore``: the KVStore class, mx.kvstore's, with the names MXNet's module
imports."""
from ...base import c_str, check_call, py_str  # noqa: F401
from ...ndarray import NDArray  # noqa: F401
from .. import kvstore as _kv
from .. import optimizer as opt  # noqa: F401

KVStore, KVStoreBase = _kv.KVStore, _kv.KVStoreBase

__all__ = ["KVStore"]
