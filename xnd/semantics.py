"""The two per-thread NumPy-semantics flags of MXNet (NumPy shape, NumPy array), kept at
the core so that shape inference and array creation can read them; mx.util
(frontend/util.py) is the user-facing API that sets them."""
import threading

_state = threading.local()


_global = {}  # MXNet's "GlobalOn" mode (set_np_shape(2)): every thread sees the flag


def flag(name):
    return getattr(_state, name, False) or _global.get(name, False)


def global_flag(name):
    """Whether the flag is on for every thread (MXNet's GlobalOn, set_np_shape(2))."""
    return _global.get(name, False)


def set_global(name, value):
    _global[name] = bool(value)


def set_flag(name, value):
    setattr(_state, name, bool(value))


def is_np_shape():
    """Whether NumPy shape semantics is on in this thread."""
    return flag("np_shape")


def is_np_array():
    """Whether NumPy array semantics is on in this thread."""
    return flag("np_array")
