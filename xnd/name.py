"""mx.name: automatic symbol names (``fullyconnected0``) and name prefixes.

One counter per hint (the Python function name lower-cased), process-global
inside the current manager; ``with NameManager():`` starts fresh counters,
``with Prefix('net_'):`` prepends to automatic and explicit names alike.
"""
import threading

from .base import _ClassPropertyMetaClass, thread_current
# names MXNet's module holds by importing them (its users import them from here)
from .base import classproperty, with_metaclass  # noqa: E402,F401


class NameManager(metaclass=_ClassPropertyMetaClass):
    """``NameManager.current`` is per thread, as in MXNet 1.9.1: a thread starts with a
    fresh manager, and assigning ``current`` in one thread leaves the others alone."""

    _current = threading.local()
    current = thread_current(lambda: NameManager())

    def __init__(self):
        self._counter = {}
        self._old = None

    def get(self, name, hint):
        if name:
            return name
        k = self._counter.get(hint, 0)
        self._counter[hint] = k + 1
        return f"{hint}{k}"

    def __enter__(self):
        self._old = current()
        NameManager._current.value = self
        return self

    def __exit__(self, *exc):
        NameManager._current.value = self._old


class Prefix(NameManager):
    """Every name made inside gets ``prefix`` in front."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)


def current():
    return NameManager.current
