"""Entry points of MXNet features that have no XLA counterpart.

Each is a real function with MXNet's name that raises MXNetError saying why; it (and its
module) carries the reason as ``_xnd_unsupported``, which ``xnd check`` reports."""
from ...base import MXNetError

__all__ = ["install"]


def _entry(qualname, reason):
    def fn(*args, **kwargs):
        raise MXNetError(f"{qualname}: {reason}")
    fn.__name__ = qualname.rpartition(".")[2]
    fn.__qualname__ = fn.__name__
    fn.__doc__ = f"MXNet's {qualname}; raises MXNetError under xnd: {reason}"
    fn._xnd_unsupported = reason
    return fn


def install(namespace, module_name, names, reason):
    """Define each of `names` in `namespace` (a module's globals) as an entry that raises
    MXNetError naming ``module_name.<name>`` and `reason`."""
    namespace["_xnd_unsupported"] = reason
    for name in names:
        namespace[name] = _entry(f"{module_name}.{name}", reason)
