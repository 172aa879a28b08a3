"""Every MXNet operator as a pure JAX function, in one registry (see registry.py)."""
from . import elemwise, index, indexing, linalg, random, reduce, shape, softmax  # noqa: F401  (registration)
from .registry import all_ops, exists, get, register  # noqa: F401
