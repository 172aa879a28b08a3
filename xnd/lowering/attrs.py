"""Operator attribute types: parse Python values or symbol-JSON strings safely.

Symbol JSON stores every attribute as a string in Python-repr style
("(3, 3)", "True", "None", "0.001"); ``ast.literal_eval`` reads those without
executing anything. A string is bounded in length and bracket depth before it
is parsed (``literal_eval`` of 100,000 nested brackets exhausts the stack), and
numbers must be finite and fit int64: a bad value is an MXNetError in MXNet's
words, "Invalid Parameter format for k expect int but value='inf', in operator
topk(...)", never an OverflowError or RecursionError from the parser.
"""
import ast
import copy
import functools
import math

import numpy as np

from ..base import MXNetError
from . import dtypes

REQUIRED = object()

MAX_LITERAL_CHARS = 4096  # the longest attribute MXNet's own files hold is a few hundred
MAX_LITERAL_DEPTH = 8     # shapes nest one level; lists of shapes two
_INT64 = 2 ** 63


def _literal(v):
    if isinstance(v, str):
        r = _eval_string(v)
        # the memo hands out its containers: a copy, so that no caller can change them
        return copy.deepcopy(r) if isinstance(r, (list, dict, set)) else r
    return v


@functools.lru_cache(maxsize=4096)
def _eval_string(v):
    """The Python literal a string attribute spells, else the stripped string itself (a
    memo: every eager call parses its attributes again, and ast.parse costs 20-40 us)."""
    s = v.strip()
    if len(s) > MAX_LITERAL_CHARS:
        raise ValueError(f"the value is {len(s)} characters long (at most "
                         f"{MAX_LITERAL_CHARS})")
    depth = 0
    for c in s:
        depth += c in "([{"
        if depth > MAX_LITERAL_DEPTH:
            raise ValueError(f"the value nests brackets deeper than {MAX_LITERAL_DEPTH}")
        depth -= c in ")]}"
    try:
        return ast.literal_eval(s)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return s


def _int(v):
    """One integer: Python or numpy int, or an integral finite float; within int64."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer, float, np.floating)):
        raise ValueError(f"expected an integer, got {v!r}")
    if isinstance(v, (float, np.floating)) and not (math.isfinite(v) and int(v) == v):
        raise ValueError(f"expected an integer, got {v!r}")
    if not -_INT64 <= int(v) < _INT64:
        raise ValueError(f"{v!r} does not fit in int64")
    return int(v)


def Int(v):
    return _int(_literal(v))


_INT32 = 2 ** 31


def Int32(v):
    """An attribute MXNet declares as a C++ ``int``: dmlc's parser refuses a value outside
    int32 as an invalid format ("Invalid Parameter format for dim1 expect int but
    value='2147483648'"), before the operator sees it."""
    i = Int(v)
    if not -_INT32 <= i < _INT32:
        raise ValueError(f"{i} does not fit in int")
    return i


def Float(v):
    text = isinstance(v, str)
    v = _literal(v)
    if isinstance(v, np.ndarray) and v.size == 1:
        v = v.item()
    f = float(v)
    if text and math.isinf(f) and not isinstance(v, str):  # '1e400' (but not 'inf')
        raise ValueError("out of range")
    return f


def Bool(v):
    """MXNet's booleans: True/False, 1/0, 'true'/'false' in any case, '1'/'0'; not 1.5 or 2."""
    v = _literal(v)
    if isinstance(v, str):
        low = v.lower()
        if low in ("true", "1"):
            return True
        if low in ("false", "0"):
            return False
        raise ValueError(f"expected a boolean, got {v!r}")
    if isinstance(v, (bool, np.bool_)) or (isinstance(v, (int, np.integer)) and v in (0, 1)):
        return bool(v)
    raise ValueError(f"expected a boolean, got {v!r}")


def Str(v):
    return str(v)


def _ints(v, none_ok, one, entry=_int):
    """The shape-like kinds: None (when `none_ok`), one int (as ``one`` makes it), or a
    sequence of entries."""
    v = _literal(v)
    if v is None and none_ok:
        return None
    if isinstance(v, (int, np.integer)):
        return one(_int(v))
    return tuple(entry(d) for d in _seq(v))


def _one_tuple(i):
    return (i,)


def Shape(v):
    """A tuple of ints: ``(3, 3)``, ``[3, 3]``, ``3`` or ``"(3,3)"``."""
    return _ints(v, False, _one_tuple)


def _seq(v):
    if isinstance(v, (str, bytes, dict, set)) or not hasattr(v, "__iter__"):
        raise ValueError(f"expected a tuple of integers, got {v!r}")
    return v


def OptShape(v):
    """A shape whose entries may be None (slice begin/end)."""
    return _ints(v, True, _one_tuple, lambda d: None if d is None else _int(d))


def optional(kind):
    def parse(v):
        v = _literal(v)
        return None if v is None or v == "None" else kind(v)
    parse.__name__ = f"optional({kind.__name__})"
    parse.accepts_none = True
    return parse


def IntOrShape(v):
    """An axis argument: an int, a tuple of ints, or None/()."""
    return _ints(v, True, int)


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
    parse.options = options
    return parse


Dtype.accepts_none = True


class OutOfBound(ValueError):
    """A well-formed value outside its parameter's range (MXNet's set_range/set_lower_bound)."""


def bounded(kind, lo=None, hi=None):
    """``kind`` limited to [lo, hi]: Dropout's p in [0, 1], UpSampling's scale >= 1."""
    def parse(v):
        x = kind(v)
        if hi is not None and lo is not None and not lo <= x <= hi:
            raise OutOfBound(f"value {x} for Parameter {{name}} exceed bound [{lo},{hi}]")
        if hi is None and x < lo:
            raise OutOfBound(f"value {x} for Parameter {{name}} should be greater equal to {lo}")
        return x
    parse.__name__ = f"bounded({kind.__name__})"
    return parse


class Param:
    """One operator attribute: MXNet name, parser, default (REQUIRED if none)."""

    __slots__ = ("name", "parse", "default")

    def __init__(self, name, parse, default=REQUIRED):
        self.name, self.parse, self.default = name, parse, default


_KINDS = {"Int": "int", "Int32": "int", "Float": "double", "Bool": "boolean", "Shape": "Shape(tuple)",
          "OptShape": "Shape(tuple)", "IntOrShape": "Shape or None", "Dtype": "dtype"}


def parse_value(op, param, value):
    """MXNet's message for a value its parameter parser refuses (dmlc::Parameter's words)."""
    try:
        return param.parse(value)
    except OutOfBound as e:
        raise MXNetError(f"{str(e).format(name=param.name)}, in operator {op}") from None
    except (ValueError, TypeError, SyntaxError, OverflowError, MemoryError, RecursionError) as e:
        name = getattr(getattr(param.parse, "parse", param.parse), "__name__", "")
        kind = _KINDS.get(name.split("(")[-1].rstrip(")"), "")
        text = str(value)
        shown = text if len(text) <= 200 else text[:200] + f"... ({len(text)} characters)"
        raise MXNetError(f"Invalid Parameter format for {param.name}"
                         f"{' expect ' + kind if kind else ''} but value='{shown}', in operator "
                         f"{op}(name=\"\", {param.name}=\"{shown}\"): {e}") from None
