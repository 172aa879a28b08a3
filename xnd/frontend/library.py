"""``mx.library``: loading C++ extension libraries (custom operators, partitioners,
graph passes) built against libmxnet.

xnd has no libmxnet and runs no compiled MXNet extensions, so ``load`` raises MXNetError;
write the operator in Python (``mx.operator.CustomOp``) or as a JAX function instead."""
from .contrib._unavailable import install
# names MXNet's module holds by importing them (its users import them from here)
from ..base import MXNetError, check_call  # noqa: E402,F401

install(globals(), "mxnet.library", ("load",),
        "C++ extension libraries are built against libmxnet's C ABI, which xnd on JAX/XLA does not have; "
        "write the operator with mx.operator.CustomOp or as a JAX function instead")
__all__ = ["load"]
