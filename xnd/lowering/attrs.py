"""Operator attribute types: parse Python values or symbol-JSON strings safely.

Symbol JSON stores every attribute as a string in Python-repr style
("(3, 3)", "True", "None", "0.001"); ``ast.literal_eval`` reads those without
executing anything.
"""
import ast

import numpy as np

from ..base import MXNetError
from . import dtypes

REQUIRED = object()


def _literal(v):
    if isinstance(v, str):
        s = v.strip()
        try:
            return ast.literal_eval(s)
        except (ValueError, SyntaxError):
            return s
    return v


def Int(v):
    v = _literal(v)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer, float, np.floating)) \
            or int(v) != v:
        raise ValueError(f"expected an integer, got {v!r}")
    return int(v)


def Float(v):
    v = _literal(v)
    if isinstance(v, np.ndarray) and v.size == 1:
        v = v.item()
    return float(v)


def Bool(v):
    v = _literal(v)
    if isinstance(v, str):
        low = v.lower()
        if low in ("true", "1"):
            return True
        if low in ("false", "0"):
            return False
        raise ValueError(f"expected a boolean, got {v!r}")
    return bool(v)


def Str(v):
    return str(v)


def Shape(v):
    """A tuple of ints: ``(3, 3)``, ``[3, 3]``, ``3`` or ``"(3,3)"``."""
    v = _literal(v)
    if isinstance(v, (int, np.integer)):
        return (int(v),)
    return tuple(int(d) for d in v)


def OptShape(v):
    """A shape whose entries may be None (slice begin/end)."""
    v = _literal(v)
    if v is None:
        return None
    if isinstance(v, (int, np.integer)):
        return (int(v),)
    return tuple(None if d is None else int(d) for d in v)


def optional(kind):
    def parse(v):
        v = _literal(v)
        return None if v is None or v == "None" else kind(v)
    parse.__name__ = f"optional({kind.__name__})"
    parse.accepts_none = True
    return parse


def IntOrShape(v):
    """An axis argument: an int, a tuple of ints, or None/()."""
    v = _literal(v)
    if v is None:
        return None
    if isinstance(v, (int, np.integer)):
        return int(v)
    return tuple(int(d) for d in v)


IntOrShape.accepts_none = OptShape.accepts_none = True


def Dtype(v):
    v = _literal(v)
    if v is None:
        return None
    return np.dtype(dtypes.np_dtype(v)).name


def choice(*options):
    def parse(v):
        v = str(_literal(v))
        if v not in options:
            raise ValueError(f"expected one of {options}, got {v!r}")
        return v
    parse.__name__ = "choice"
    return parse


Dtype.accepts_none = True


class Param:
    """One operator attribute: MXNet name, parser, default (REQUIRED if none)."""

    __slots__ = ("name", "parse", "default")

    def __init__(self, name, parse, default=REQUIRED):
        self.name, self.parse, self.default = name, parse, default


def parse_value(op, param, value):
    try:
        return param.parse(value)
    except (ValueError, TypeError, SyntaxError) as e:
        raise MXNetError(f"Invalid parameter {param.name}={value!r} for operator {op}: {e}") from None
