"""MXNet's generated operator functions (``nd.<name>``) and NDArray's fluent methods
(``x.sum()``), both over ``ndarray.invoke``: MXNet's calling convention, inputs first, then
attributes positionally or by keyword."""
import inspect

import numpy as np

from .base import MXNetError, _Null
from .lowering import registry
from .ndarray import NDArray, invoke


def bind(op, args, kwargs):
    """Split an MXNet-style call into (inputs, attribute kwargs)."""
    n_in = len(op.inputs)
    if op.variadic:
        k = 0
        while k < len(args) and isinstance(args[k], NDArray):
            k += 1
        if k == 1 and isinstance(args[0], (list, tuple)):
            k = 0
        inputs, rest = list(args[:k]), args[k:]
        if not inputs and args and isinstance(args[0], (list, tuple)):
            inputs, rest = list(args[0]), args[1:]
        if op.inputs[-1] in kwargs:
            inputs += list(kwargs.pop(op.inputs[-1]))
        if "num_args" in op.params:
            kwargs.setdefault("num_args", len(inputs))
    else:
        inputs = list(args[:n_in])
        rest = args[n_in:]
        for i in range(len(inputs)):
            if not isinstance(inputs[i], NDArray) and inputs[i] is not None:
                raise TypeError(f"{op.name}: input {op.inputs[i]!r} must be an NDArray, got "
                                f"{type(inputs[i]).__name__}")
        inputs += [None] * (n_in - len(inputs))
        for i, nm in enumerate(op.inputs):
            if nm in kwargs:
                if inputs[i] is not None:
                    raise TypeError(f"{op.name}: got multiple values for input {nm!r}")
                inputs[i] = kwargs.pop(nm)
        while inputs and inputs[-1] is None:
            inputs.pop()
    names = list(op.params)
    if len(rest) > len(names):
        raise TypeError(f"{op.name}: too many positional arguments ({len(args)})")
    for nm, v in zip(names, rest):
        if nm in kwargs:
            raise TypeError(f"{op.name}: got multiple values for argument {nm!r}")
        kwargs[nm] = v
    return inputs, kwargs


def signature(op, tail):
    """MXNet's generated signature of `op`: its inputs (None by default; ``*data`` for a
    variadic op), its attributes (``_Null``), then `tail` (``out``/``name`` on mx.nd,
    ``name``/``attr``/``out`` on mx.sym), and ``**kwargs``."""
    P = inspect.Parameter
    var_kw = P("kwargs", P.VAR_KEYWORD)
    if op.variadic:
        return inspect.Signature([P(op.inputs[-1], P.VAR_POSITIONAL), var_kw])
    names = [(n, None) for n in op.inputs] + [(n, _Null) for n in op.params]
    if not op.inputs and "ctx" not in op.params:    # creation / sampling ops take ctx=
        names.append(("ctx", _Null))
    names += [(n, None) for n in tail]
    return inspect.Signature([P(n, P.POSITIONAL_OR_KEYWORD, default=d) for n, d in names] +
                             [var_kw])


_OUT_DTYPES = {"_random_randint": ("int32", "int64")}   # every other sampler: floating types
_FLOATS = ("float16", "float32", "float64")


def shape_dtype_from_out(op, kw, out):
    """MXNet's imperative shape and type inference for an operator without array inputs
    (the ``_random_*`` samplers): an unknown ``shape`` or ``dtype`` attribute is ``out``'s
    (``mx.random.uniform(0, 1, out=a)`` fills ``a``); a given one must agree with it."""
    if out is None or not isinstance(out, NDArray):
        return kw
    kw = dict(kw)
    if "shape" in op.params:
        shape = kw.get("shape")
        if shape is None or shape is _Null or shape == ():
            kw["shape"] = tuple(out.shape)
        elif tuple(shape) != tuple(out.shape) if isinstance(shape, (tuple, list)) \
                else (int(shape),) != tuple(out.shape):
            fmt = (lambda t: "[" + ",".join(map(str, t)) + "]")
            given = tuple(shape) if isinstance(shape, (tuple, list)) else (int(shape),)
            raise MXNetError(f"{op.name}: Shape inconsistent, Provided = {fmt(out.shape)}, "
                             f"inferred shape={fmt(given)}")
    if "dtype" in op.params:
        have = np.dtype(out.dtype).name
        want = kw.get("dtype")
        if want is not None and want is not _Null and np.dtype(want).name != have:
            raise MXNetError(f"{op.name}: Output type does not match requested type: "
                             f"{have} vs {np.dtype(want).name}")
        allowed = _OUT_DTYPES.get(op.name, _FLOATS)
        if op.name.startswith("_random_") and have not in allowed:
            raise MXNetError(f"{op.name}: Output type must be {', '.join(allowed)}: "
                             f"dtype is {have}")
        kw["dtype"] = have
    return kw


def op_function(op, pyname=None):
    """``nd.<name>``: MXNet's generated-function calling convention over ``invoke``."""
    n_in = len(op.inputs)
    defaults = op.parse_attrs({}) if op.default_key is not None else None

    def fn(*args, out=None, name=None, **kwargs):
        if defaults is not None and not kwargs and len(args) == n_in and not op.variadic \
                and (n_in or out is None):
            for x in args:  # fast path: inputs only, default attributes
                if not isinstance(x, NDArray):
                    break
            else:
                return invoke(op, list(args), dict(defaults), out=out)
        # MXNet's generated creation/sampling ops (no array inputs) take ctx=
        ctx = kwargs.pop("ctx", None) if not n_in and "ctx" not in op.params else None
        extra = len(args) - n_in - len(op.params)
        if 0 < extra <= 2 and not op.variadic:   # MXNet's signature: ..., out, name
            out = args[n_in + len(op.params)] if out is None else out
            args = args[:n_in + len(op.params)]
        if out is not None and not isinstance(out, (NDArray, list, tuple)):
            raise TypeError(f"{op.name}: out must be an NDArray, got {type(out).__name__} "
                            f"(a positional argument past the attributes is MXNet's out)")
        inputs, kw = bind(op, args, kwargs)
        if not n_in and out is not None:
            kw = shape_dtype_from_out(op, kw, out)
        for x in inputs:
            if x is not None and not isinstance(x, NDArray):
                raise TypeError(f"{op.name}: inputs must be NDArrays, got {type(x).__name__}")
        return invoke(op, inputs, op.parse_attrs(kw), out=out, ctx=ctx)
    fn.__name__ = pyname or op.name
    fn.__qualname__ = fn.__name__
    fn.__doc__ = op.doc or f"MXNet operator {op.name}."
    fn.__signature__ = signature(op, ("out", "name"))
    fn._xnd_op = op  # which operator it runs (mx.nd.gen_* bind the same function)
    return fn


def check_kwargs(opname, kwargs):
    if kwargs:
        raise MXNetError(f"{opname} got unknown argument(s) {', '.join(sorted(kwargs))}")


_FLUENT = (
    "zeros_like ones_like broadcast_like broadcast_axes repeat swapaxes split slice "
    "slice_axis slice_like take one_hot pick sort topk argsort argmax argmax_channel argmin clip abs "
    "sign flatten shape_array size_array expand_dims tile transpose flip diag sum nansum prod nanprod "
    "mean max min norm round rint fix floor ceil trunc sin cos tan arcsin arccos arctan degrees "
    "radians sinh cosh tanh arcsinh arccosh arctanh exp expm1 log log10 log2 log1p sqrt rsqrt cbrt "
    "rcbrt square reciprocal relu sigmoid softmax log_softmax softmin squeeze reshape_like pad"
).split()


def _fluent(op, name):
    f = op_function(op, name)

    def method(self, *args, **kwargs):
        return f(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f.__doc__
    return method


for _name in _FLUENT:
    setattr(NDArray, _name, _fluent(registry.get(_name), _name))
