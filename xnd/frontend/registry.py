"""mx.registry: class registries keyed by base class (MXNet's python/mxnet/registry.py).

One mechanism for every "register a subclass under a name, create it from a name" table:
mx.metric and mx.init build their ``register``/``alias``/``create`` from it, mx.optimizer and
mx.kv register through ``register_class``.

MXNet 1.9.1 behaviour matched: names are the lower-cased class name (or the given name);
registering a name again warns (UserWarning) and the new class wins; ``create`` takes an
instance (returned as is, no further arguments allowed), a registered name plus constructor
arguments, a dict of keyword arguments, or a JSON string ``'["name", {...}]'`` /
``'{"<nickname>": "name", ...}'``; an unknown name is an AssertionError (xnd lists the
registered names in it).
"""
import json
import warnings
# names MXNet's module holds by importing them (its users import them from here)
from ..base import string_types  # noqa: E402,F401

__all__ = ["add", "register_class", "table", "get_registry", "get_register_func", "get_alias_func",
           "get_create_func"]

_TABLES = {}


def table(base_class):
    """The live {name: class} table of ``base_class`` (what create looks names up in)."""
    return _TABLES.setdefault(base_class, {})


def get_registry(base_class):
    """A copy of the {name: class} table of ``base_class``."""
    return dict(table(base_class))


def add(names, klass, name, message):
    """Put ``klass`` into the table ``names`` under ``name``; ``message(old)`` is the warning
    text when ``name`` was taken (by class ``old``)."""
    if name in names:
        warnings.warn(message(names[name]), UserWarning, stacklevel=3)
    names[name] = klass
    return klass


def _qualname(klass):
    return "%s.%s" % (klass.__module__, klass.__name__)


def register_class(names, klass, nickname):
    """Optimizer.register and KVStoreBase.register: ``klass`` under its lower-cased class name,
    warning 'WARNING: New <nickname> ... is overriding existing <nickname> ...' when taken."""
    assert isinstance(klass, type)
    return add(names, klass, klass.__name__.lower(),
               lambda old: "WARNING: New %s %s is overriding existing %s %s"
               % (nickname, _qualname(klass), nickname, _qualname(old)))


def get_register_func(base_class, nickname):
    """``register(klass, name=None)`` for subclasses of ``base_class``."""
    names = table(base_class)

    def register(klass, name=None):
        assert issubclass(klass, base_class), \
            "Can only register subclass of %s" % base_class.__name__
        key = (klass.__name__ if name is None else name).lower()
        # (MXNet's message has no space between "is" and "overriding")
        return add(names, klass, key, lambda old: "\033[91mNew %s %s registered with name %s is"
                   "overriding existing %s %s\033[0m"
                   % (nickname, _qualname(klass), key, nickname, _qualname(old)))
    register.__doc__ = "Register a %s subclass under its lower-cased class name (or name)." \
        % nickname
    return register


def get_alias_func(base_class, nickname):
    """``alias(*names)``: a class decorator registering under extra names."""
    register = get_register_func(base_class, nickname)

    def alias(*aliases):
        def reg(klass):
            for name in aliases:
                register(klass, name)
            return klass
        return reg
    return alias


def get_create_func(base_class, nickname):
    """``create(name_or_instance_or_config, *args, **kwargs)`` for ``base_class``."""
    names = table(base_class)

    def create(*args, **kwargs):
        if args:
            name, args = args[0], args[1:]
        else:
            name = kwargs.pop(nickname)
        if isinstance(name, base_class):
            assert not args and not kwargs, \
                "%s is already an instance. Additional arguments are invalid" % nickname
            return name
        if isinstance(name, dict):
            return create(**name)
        assert isinstance(name, str), "%s must be of string type" % nickname
        if name.startswith("["):
            assert not args and not kwargs
            name, kwargs = json.loads(name)
            return create(name, **kwargs)
        if name.startswith("{"):
            assert not args and not kwargs
            return create(**json.loads(name))
        name = name.lower()
        assert name in names, \
            "%s is not registered. Please register with %s.register first (registered: %s)" \
            % (name, nickname, ", ".join(sorted(names)))
        return names[name](*args, **kwargs)
    create.__doc__ = "A %s from an instance, a registered name plus arguments, a dict or a " \
        "JSON string." % nickname
    return create
