"""mx.AttrScope: attributes (ctx_group, lr_mult, ...) attached to every symbol made inside."""
import threading

from .base import _ClassPropertyMetaClass, thread_current
# names MXNet's module holds by importing them (its users import them from here)
from .base import classproperty, string_types, with_metaclass  # noqa: E402,F401


class AttrScope(metaclass=_ClassPropertyMetaClass):
    """``AttrScope.current`` is per thread, as in MXNet 1.9.1."""

    _current = threading.local()
    current = thread_current(lambda: AttrScope())

    def __init__(self, **kwargs):
        for v in kwargs.values():
            if not isinstance(v, str):
                raise ValueError("Attributes need to be string")
        self._attr = kwargs
        self._old = None

    def get(self, attr):
        """Merge the scope's attributes under the user's ``attr`` dict."""
        out = dict(self._attr)
        if attr:
            out.update(attr)
        return out

    def __enter__(self):
        self._old = current()
        merged = AttrScope(**{**self._old._attr, **self._attr})
        AttrScope._current.value = merged
        return self

    def __exit__(self, *exc):
        AttrScope._current.value = self._old


def current():
    return AttrScope.current
