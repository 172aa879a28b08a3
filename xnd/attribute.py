"""mx.AttrScope: attributes (ctx_group, lr_mult, ...) attached to every symbol made inside."""
import threading


class AttrScope:
    _current = threading.local()

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


_default = AttrScope()


def current():
    return getattr(AttrScope._current, "value", None) or _default
