"""mxnet.base: MXNetError, the Python-level names real code imports, and the small
helpers every layer shares.

MXNet's ``base`` module is half Python helpers (``integer_types``, ``py_str``,
``string_types``, ``numeric_types``, ``mx_real_t``, ``_Null``, ``data_dir``,
``NotImplementedForSymbol``, ``classproperty``, ...) and half the ctypes bridge
to ``libmxnet.so`` (``_LIB``, ``check_call``, ``c_str``, the ``*Handle`` types).
xnd provides the first half as MXNet has it. xnd has no C library, so every
name of the second half exists but raises an MXNetError saying so when it is
used (`xnd check` lists such uses; see porting/check.py).
"""
import ctypes
import inspect as _inspect
import os as _os
import platform as _platform

import numpy as _np

__all__ = ["MXNetError"]

long = int
basestring = str
integer_types = (int, long, _np.int32, _np.int64)  # MXNet's tuples, py2's long included
numeric_types = (float, int, long, _np.generic)
string_types = (basestring,)
error_types = {}
mx_real_t = _np.float32


def py_str(x):
    """bytes from the C library -> str (MXNet: ``x.decode('utf-8')``)."""
    return x.decode("utf-8")


def data_dir_default():
    """MXNet's default data directory: %APPDATA%/mxnet on Windows, ~/.mxnet elsewhere."""
    if _platform.system() == "Windows":
        return _os.path.join(_os.environ.get("APPDATA", ""), "mxnet")
    return _os.path.join(_os.path.expanduser("~"), ".mxnet")


def data_dir():
    """$MXNET_HOME, else `data_dir_default()` (where MXNet keeps models and datasets)."""
    return _os.getenv("MXNET_HOME", data_dir_default())


class _NullType:
    """MXNet's placeholder for an argument that was not given."""

    def __repr__(self):
        return "_Null"


_Null = _NullType()


class MXNetError(RuntimeError):
    """The error MXNet raises from its engine and operators (mxnet.base.MXNetError)."""


_LIKE = {}


def error_like(error):
    """An MXNetError class that is also the builtin class of ``error`` (IndexError, TypeError or
    ValueError): MXNet 1.9.1's numpy operators raise the Python error numpy would
    (``np.transpose(x, (0, 0, 1))`` is a ValueError), so code catches either."""
    cls = next(c for c in (IndexError, TypeError, ValueError) if isinstance(error, c))
    if cls not in _LIKE:
        _LIKE[cls] = type("MXNetError", (MXNetError, cls), {"__module__": __name__})
    return _LIKE[cls]


def register_error(func_name=None, cls=None):
    """Register an error class under a name (MXNet maps C++ error types to these);
    usable as a plain decorator or with a name."""
    if callable(func_name):
        cls, func_name = func_name, func_name.__name__

    def register(mycls):
        error_types[func_name if isinstance(func_name, str) else mycls.__name__] = mycls
        return mycls

    return register if cls is None else register(cls)


register_error("MXNetError", MXNetError)
for _name, _cls in (("ValueError", ValueError), ("TypeError", TypeError),
                    ("AttributeError", AttributeError), ("IndexError", IndexError),
                    ("NotImplementedError", NotImplementedError)):
    register_error(_name, _cls)


class _UnavailableFor(MXNetError):
    """An op or method that exists for NDArray only (MXNet's message, word for word)."""
    _kind = ""

    def __init__(self, function, alias, *args):
        super().__init__()
        self.function = getattr(function, "__name__", str(function))
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        msg = f"Function {self.function}"
        if self.alias:
            msg += f' (namely operator "{self.alias}")'
        if self.args:
            msg += f" with arguments ({', '.join(self.args)})"
        return msg + f" is not {self._kind} and only available in NDArray."


@register_error
class NotImplementedForSymbol(_UnavailableFor):
    """Raised by Symbol methods that only NDArray has (``Symbol.__iadd__``, ...)."""
    _kind = "implemented for Symbol"


class NotSupportedForSparseNDArray(_UnavailableFor):
    """Raised by NDArray methods that sparse arrays lack."""
    _kind = "supported for SparseNDArray"


class _ClassPropertyDescriptor:
    def __init__(self, fget, fset=None):
        self.fget, self.fset = fget, fset

    def __get__(self, obj, klass=None):
        return self.fget.__get__(obj, type(obj) if klass is None else klass)()

    def __set__(self, obj, value):
        if not self.fset:
            raise MXNetError(f"cannot use the setter: {obj.__name__} to set attribute")
        klass, obj = (obj, None) if _inspect.isclass(obj) else (type(obj), obj)
        return self.fset.__get__(obj, klass)(value)

    def setter(self, func):
        self.fset = func if isinstance(func, (classmethod, staticmethod)) else classmethod(func)
        return self


class _ClassPropertyMetaClass(type):
    """Lets a class-level assignment reach a classproperty's setter (MXNet's metaclass)."""

    def __setattr__(cls, key, value):
        obj = cls.__dict__.get(key)
        if isinstance(obj, _ClassPropertyDescriptor):
            return obj.__set__(cls, value)
        return super().__setattr__(key, value)


_MXClassPropertyDescriptor = _ClassPropertyDescriptor
_MXClassPropertyMetaClass = _ClassPropertyMetaClass


def classproperty(func):
    """A property read (and, with ``.setter``, written) on the class itself."""
    return _ClassPropertyDescriptor(
        func if isinstance(func, (classmethod, staticmethod)) else classmethod(func))


def thread_current(make):
    """MXNet's per-thread ``cls.current``: a classproperty over the class's ``_current``
    (a threading.local), set to ``make()`` on a thread's first read; assigning it changes only
    the assigning thread's value. The class needs ``metaclass=_ClassPropertyMetaClass``."""
    def get(cls):
        local = cls._current
        value = getattr(local, "value", None)
        if value is None:
            value = local.value = make()
        return value

    def put(cls, value):
        cls._current.value = value
    return classproperty(get).setter(put)


def with_metaclass(meta, *bases):
    """A base class with metaclass `meta` (six's helper, which MXNet re-exports)."""
    class _Meta(type):
        def __new__(cls, name, this_bases, d):
            return meta(name, bases, d)

        @classmethod
        def __prepare__(cls, name, this_bases):
            return meta.__prepare__(name, bases)

    return type.__new__(_Meta, "temporary_class", (), {})


def _as_list(obj):
    """A list as is; anything else wrapped in one (MXNet's base._as_list)."""
    return obj if isinstance(obj, list) else [obj]


def _as_tuple(x):
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


def build_param_doc(arg_names, arg_types, arg_descs, remove_dup=True):
    """The numpydoc 'Parameters' section MXNet builds for a generated operator."""
    seen, lines = set(), []
    for name, typ, desc in zip(arg_names, arg_types, arg_descs):
        if name in seen and remove_dup:
            continue
        if name == "num_args":
            continue
        seen.add(name)
        lines.append(f"{name} : {typ}")
        if desc:
            lines.append("    " + desc)
    return "Parameters\n----------\n" + "\n".join(lines) + "\n"


# Op-name prefixes MXNet uses to place generated operators into submodules
# (``_contrib_box_nms`` -> ``mx.nd.contrib.box_nms``).
_OP_NAME_PREFIX_LIST = ["_contrib_", "_linalg_", "_sparse_", "_image_", "_random_"]
_NP_OP_PREFIX = "_np_"
_NP_OP_SUBMODULE_LIST = ["_random_", "_linalg_"]
_NP_EXT_OP_PREFIX = "_npx_"
_NP_EXT_OP_SUBMODULE_LIST = ["_image_", "_random_"]
_NP_INTERNAL_OP_PREFIX = "_npi_"


def _get_op_name_prefix(op_name):
    """The submodule prefix of a generated operator's name, or ''."""
    for prefix in _OP_NAME_PREFIX_LIST:
        if op_name.startswith(prefix):
            return prefix
    return ""


# ---- the ctypes half: there is no libmxnet.so under xnd ----

_NO_C_REASON = ("xnd has no C library (libmxnet.so): MXNet's ctypes interface does not exist on "
                "JAX/XLA; use the Python API")


def _no_c_library(what):
    return MXNetError(
        f"{what}: xnd has no C library (libmxnet.so); MXNet's ctypes interface "
        "(mxnet.base._LIB, check_call, c_str, c_array, the *Handle types) does not exist "
        "on JAX/XLA. Use the Python API instead (see `python -m xnd check`).")


class _NoLibrary:
    """Stands for ``mxnet.base._LIB``: any attribute raises the no-C-library error."""
    _xnd_unsupported = _NO_C_REASON

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise _no_c_library(f"mxnet.base._LIB.{name}")

    def __repr__(self):
        return "<xnd: no libmxnet.so>"


_LIB = _NoLibrary()


def _ctypes_stub(name):
    def fn(*args, **kwargs):
        raise _no_c_library(f"mxnet.base.{name}")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"MXNet's ctypes helper {name}: raises MXNetError under xnd (no C library)."
    fn._xnd_unsupported = _NO_C_REASON  # read by `xnd check`
    return fn


CTYPES_NAMES = ("check_call", "c_str", "c_str_array", "c_array", "c_array_buf",
                "c_handle_array", "ctypes2buffer", "ctypes2numpy_shared", "get_last_ffi_error",
                "_load_lib", "_init_op_module", "_generate_op_module_signature",
                "_init_np_op_module")
for _name in CTYPES_NAMES:
    globals()[_name] = _ctypes_stub(_name)


class _Handle:
    """A ctypes handle type of MXNet (NDArrayHandle, SymbolHandle, ...): under xnd
    constructing one raises MXNetError, since there is no C object to point to."""

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)

    _xnd_unsupported = _NO_C_REASON

    def __new__(cls, *args, **kwargs):
        raise _no_c_library(f"mxnet.base.{cls.__name__}")


HANDLE_NAMES = ("NDArrayHandle", "FunctionHandle", "OpHandle", "CachedOpHandle",
                "SymbolHandle", "ExecutorHandle", "DataIterCreatorHandle", "DataIterHandle",
                "KVStoreHandle", "RecordIOHandle", "RtcHandle", "CudaModuleHandle",
                "CudaKernelHandle", "ProfileHandle", "DLPackHandle")
for _name in HANDLE_NAMES[1:]:
    globals()[_name] = type(_name, (_Handle,), {"__doc__": _Handle.__doc__})


class NDArrayHandle(ctypes.c_void_p):
    """MXNet's NDArrayHandle, a ``c_void_p``: monitor callbacks (mx.monitor's own idiom) turn
    the array they get into one with ``ctypes.cast(array, NDArrayHandle)`` and back with
    ``NDArray(handle)``; an xnd array casts to a handle of itself. Nothing in xnd takes it
    to C: the calls that would (``_LIB``, ``check_call``) raise."""
mx_int, mx_uint, mx_float, mx_float_p = (type(n, (_Handle,), {}) for n in
                                         ("mx_int", "mx_uint", "mx_float", "mx_float_p"))
del _name, _cls
