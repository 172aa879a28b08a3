"""``mx.np.ndarray`` and the generic call of every ``mx.np`` function.

``ndarray`` is a second face over xnd's NDArray handle: the same mutable handle,
views, contexts and autograd, with MXNet 1.9.1's numpy-mode semantics: true 0-d
results, numpy indexing (boolean masks included), the bool dtype, MXNet's dtype
rules (xnd/lowering/numpy.py) and numpy's printing (``array([1., 2.])``).

Every function goes through `call`: arrays become operator inputs, Python
scalars of binary ops run-time arguments, everything else the frozen static
call of the ``_npi_<name>`` registry operator (see lowering/numpy.py).  A face
is only a class: results of any operator whose first input is an ``ndarray``
are ``ndarray``s (the invoke hook), so Gluon layers written with legacy ops
return numpy arrays in numpy mode.
"""
import numbers

import numpy as onp

import importlib
# names MXNet's module holds by importing them (its users import them from here)
from ...base import (c_array, c_array_buf, check_call, integer_types,  # noqa: E402,F401
                     numeric_types)
from ..util import set_module  # noqa: E402,F401

_core = importlib.import_module("xnd.ndarray")  # the core module (xnd.ndarray is mx.nd)
from ... import _transfer
from ...base import MXNetError
from ...context import Context, current_context
from ...lowering import numpy as _lnp
from ...lowering import registry
from ...ndarray import NDArray, STATE, invoke

__all__ = ["ndarray", "array", "call", "func", "from_nd"]

_SCALARS = (numbers.Number, onp.bool_, onp.number)


def _face(x):
    """Turn an operator result (an NDArray or a list of them) into the numpy face, in place."""
    if isinstance(x, NDArray):
        x.__class__ = ndarray
    elif isinstance(x, (list, tuple)):
        for v in x:
            _face(v)
    return x


def _mixed(v):
    return TypeError(f"type {type(v)} not supported: a numpy operator can only accept MXNet "
                     f"numpy ndarrays (mx.np.ndarray); convert a legacy NDArray with "
                     f"as_np_ndarray()")


def _ctx_of(ctx, device):
    c = ctx if ctx is not None else device
    if c is None:
        return current_context()
    if not isinstance(c, Context):
        raise TypeError(f"ctx must be a Context such as mx.cpu(), got {c!r}")
    return c


class _Enc:
    __slots__ = ("arrays", "scalars", "dyn", "ctx")

    def __init__(self, dyn, ctx):
        self.arrays, self.scalars, self.dyn, self.ctx = [], [], dyn, ctx

    def __call__(self, v):
        if isinstance(v, NDArray):
            if not isinstance(v, ndarray):
                raise _mixed(v)
            self.arrays.append(v)
            return ("a", len(self.arrays) - 1)
        if isinstance(v, onp.ndarray):
            self.arrays.append(array(v, ctx=self.ctx))
            return ("a", len(self.arrays) - 1)
        if self.dyn and isinstance(v, _SCALARS):
            self.scalars.append(v)
            return ("s", len(self.scalars) - 1)
        if isinstance(v, (list, tuple)) and any(isinstance(e, NDArray) for e in v):
            return ("l", tuple(self(e) for e in v))
        return ("v", _lnp.freeze_value(v))


def call(op, args, kwargs, out=None, ctx=None, dynamic=False):
    """Run registry ``op`` (an ``_npi_*`` operator) on a numpy-style call."""
    enc = _Enc(dynamic, ctx)
    pos = tuple(enc(a) for a in args)
    kw = tuple((k, enc(v)) for k, v in kwargs.items())
    if out is not None and not isinstance(out, ndarray):
        raise TypeError(f"out must be an mx.np.ndarray, got {type(out).__name__}")
    if enc.arrays or ctx is None:
        ctx = None
    return _face(invoke(op, enc.arrays, {"call": (pos, kw), "scalars": tuple(enc.scalars)},
                        out=out, ctx=ctx))


# the functions MXNet 1.9.1 treats as ufuncs: numpy's ufunc keywords are accepted at their
# defaults only (another legal value: NotImplementedError; anything else: TypeError)
UFUNCS = frozenset((
    "add subtract multiply divide mod matmul remainder power lcm sin cos sinh cosh tanh log10 "
    "sqrt cbrt abs fabs absolute exp expm1 arcsin arccos arctan sign log rint log2 log1p "
    "degrees rad2deg radians deg2rad reciprocal square negative fix tan ceil floor invert "
    "bitwise_not trunc logical_not arcsinh arccosh arctanh maximum minimum copysign arctan2 "
    "hypot bitwise_and bitwise_xor bitwise_or ldexp isnan isinf isposinf isneginf "
    "isfinite").split())
_UFUNC_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "dtype": None,
                   "subok": True}
_UFUNC_DTYPES = frozenset("int8 uint8 int32 int64 float16 float32 float64".split())


def _ufunc_legal(key, value):
    if key == "where":
        return True
    if key == "casting":
        return value in ("no", "equiv", "safe", "same_kind", "unsafe")
    if key == "order":
        return isinstance(value, str)
    if key == "dtype":
        try:
            return onp.dtype(value).name in _UFUNC_DTYPES
        except TypeError:
            return False
    return key == "subok" and isinstance(value, bool)


def check_ufunc_kwargs(name, kwargs):
    """MXNet's checks of numpy's ufunc keywords (``where=``, ``casting=``, ``order=``,
    ``dtype=``, ``subok=``): only the defaults run; the keywords are then dropped."""
    for key in list(kwargs):
        if key not in _UFUNC_DEFAULTS:
            raise TypeError(f"{key} is an invalid keyword to function '{name}'")
        value = kwargs.pop(key)
        if isinstance(value, onp.ndarray) or value != _UFUNC_DEFAULTS[key]:
            if _ufunc_legal(key, value):
                raise NotImplementedError(f"{key}={value} is not implemented yet for operator "
                                          f"{name}")
            raise TypeError(f"{key}={value} not understood for operator {name}")


_PREDICATES = frozenset("isnan isinf isfinite isposinf isneginf".split())


def func(name, doc=None):
    """The ``mx.np`` function over registry operator ``_npi_<name>``."""
    op = registry.get("_npi_" + name)
    dynamic = _lnp.NP_FUNCS[name][1] == "binary"
    ufunc, listed, tupled = name in UFUNCS, name in _lnp.LISTS, name in _lnp.TUPLES
    # what this function needs besides the call, decided once here, not per call
    nin = 2 if name in _lnp._BINARY or name == "matmul" else 1
    predicate, in_place = name in _PREDICATES, name == "nan_to_num"
    host_args = name in _lnp.STATIC_ARRAYS

    def fn(*args, out=None, ctx=None, device=None, **kwargs):
        if ufunc:
            if len(args) == nin + 1 and out is None:  # numpy's ufunc(x, out)
                args, out = args[:nin], args[nin]
            if kwargs:
                check_ufunc_kwargs(name, kwargs)
            if predicate and out is not None and out.dtype != onp.bool_:
                raise TypeError(f"{name}: the result is bool, out= is {out.dtype}")
        if in_place and kwargs.get("copy", args[1] if len(args) > 1 else True) is False \
                and out is None and isinstance(args[0], ndarray):
            out = args[0]  # copy=False replaces the values in place, as numpy does
        c = None if ctx is None and device is None else _ctx_of(ctx, device)
        if host_args:
            args, kwargs = _lnp.static_arrays(name, args, kwargs, NDArray)
        res = call(op, args, kwargs, out, c, dynamic)
        if listed or tupled:
            res = list(res) if isinstance(res, (list, tuple)) else [res]
        return tuple(res) if tupled else res
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc or f"numpy.{name} on MXNet numpy ndarrays (MXNet 1.9.1's dtype rules)."
    return fn


def host_func(name):
    """An ``mx.np`` function whose result shape depends on the values (``unique``,
    ``nonzero`` ...): numpy computes it on the host; MXNet's float32 default applies."""
    f = _lnp.HOST_NUMPY[name]

    def fn(*args, **kwargs):
        ins = []

        def conv(v):
            if isinstance(v, NDArray):
                if not isinstance(v, ndarray):
                    raise _mixed(v)
                ins.append(v)
                return v.asnumpy()
            return v
        res = f(*[conv(a) for a in args], **{k: conv(v) for k, v in kwargs.items()})
        ctx = ins[0].context if ins else current_context()
        f64 = any(a.dtype == onp.float64 for a in ins)

        def back(r):
            r = onp.asarray(r)
            if r.dtype == onp.float64 and not f64:
                r = r.astype(onp.float32)
            return array(r, ctx=ctx)
        return tuple(back(r) for r in res) if isinstance(res, tuple) else back(res)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"numpy.{name} on MXNet numpy ndarrays (computed on the host: its result " \
                 f"shape depends on the values)."
    return fn


# ---- printing --------------------------------------------------------------------------
def _repr(a):
    """numpy's repr, with MXNet's reading of the dtype: float32 and bool are implicit,
    float64 is spelled out."""
    r = onp.array_repr(a)
    name = a.dtype.name
    if name == "float32":
        r = r.replace(", dtype=float32)", ")").replace(",\n      dtype=float32)", ")")
        for pad in range(1, 12):  # numpy wraps `dtype=` onto its own line for long rows
            r = r.replace(",\n" + " " * pad + "dtype=float32)", ")")
    elif name != "bool" and "dtype=" not in r:  # numpy leaves out its defaults (int64, float64)
        r = r[:-1] + f", dtype={name})"
    return r


def _basic(key):
    return all(k is None or k is Ellipsis or isinstance(k, (slice, numbers.Integral))
               for k in key)


def _np_shape(shape, key):
    """numpy's result shape of a basic key (0-d for all-int keys)."""
    z = onp.lib.stride_tricks.as_strided(onp.zeros(1, onp.int8), shape, (0,) * len(shape))
    return z[key].shape


def _bool_mask(k):
    if isinstance(k, NDArray) and k.dtype == onp.bool_:
        return k.asnumpy()
    if isinstance(k, onp.ndarray) and k.dtype == onp.bool_:
        return k
    if isinstance(k, list) and k and all(isinstance(e, (bool, onp.bool_)) for e in k):
        return onp.asarray(k)
    if isinstance(k, (bool, onp.bool_)):
        return onp.asarray(k)
    return None


def _mask_key(key, shape, ctx):
    """Boolean masks -> integer index arrays (numpy's nonzero), which advanced indexing
    then handles.  A mask must match the axes it covers (numpy's IndexError).  Returns the
    key and what its 0-d masks say (None if it has none): MXNet drops 0-d masks from a tuple
    key and puts one new leading axis on the result, of length 1 if all are True, else 0
    (``x[0, True, i]`` is ``x[0, i][None]``; numpy would broadcast it with ``i``)."""
    if not isinstance(key, tuple):
        key = (key,)
    out, dim, lead = [], 0, None
    for k in key:
        if isinstance(k, range):  # d2l's y_hat[range(len(y_hat)), y]
            k = array(onp.arange(k.start, k.stop, k.step), dtype="int64", ctx=ctx)
        m = _bool_mask(k)
        if m is None:
            out.append(k)
            if k is Ellipsis:
                dim = None  # the axes after an Ellipsis are counted from the end: not checked
            elif k is not None and dim is not None:
                dim += 1
            continue
        if m.ndim == 0:
            lead = bool(m) and lead is not False
            continue
        if dim is not None:
            covered = tuple(shape[dim:dim + m.ndim])
            if covered != m.shape:
                axis = next((i for i, (c, n) in enumerate(zip(covered, m.shape)) if c != n),
                            len(covered))
                have = covered[axis] if axis < len(covered) else 0
                raise IndexError(f"boolean index did not match indexed array along dimension "
                                 f"{dim + axis}; dimension is {have} but corresponding boolean "
                                 f"dimension is {m.shape[axis]}")
            dim += m.ndim
        out.extend(array(i, dtype="int64", ctx=ctx) for i in onp.nonzero(m))
    return tuple(out), lead


def _norm_shape(shape, size, op="reshape"):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = tuple(int(s) for s in shape)
    if shape.count(-1) > 1 or any(s < -1 for s in shape):
        raise MXNetError(f"{op}: the shape dimension size to be inferred must be -1, got {shape}")
    if -1 in shape:
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        if known == 0 or size % known:
            raise MXNetError(f"{op}: cannot reshape array of size {size} into shape {shape}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    n = 1
    for s in shape:
        n *= s
    if n != size:
        raise MXNetError(f"{op}: cannot reshape array of size {size} into shape {shape}")
    return shape


class ndarray(NDArray):
    """MXNet's numpy-semantics array (mx.np.ndarray)."""

    __slots__ = ()

    # ---- the face ------------------------------------------------------------------
    def _view(self, offset, shape):
        v = NDArray._view(self, offset, shape)
        v.__class__ = ndarray
        return v

    def as_nd_ndarray(self):
        """The legacy face of the same memory (a view: writes show through)."""
        v = NDArray._view(self, 0, self.shape)
        _share(self, v)
        return v

    def as_np_ndarray(self):
        return self

    @property
    def dtype(self):
        return onp.dtype(NDArray.dtype.fget(self))

    @property
    def grad(self):
        g = self._grad
        if g is not None and type(g) is NDArray:
            g.__class__ = ndarray
        return g

    def attach_grad(self, grad_req="write", stype=None):
        NDArray.attach_grad(self, grad_req, stype)
        self._grad.__class__ = ndarray

    def detach(self):
        return self._view(0, self.shape)

    def copyto(self, other):
        r = NDArray.copyto(self, other)
        return _face(r) if isinstance(r, NDArray) else r

    def copy(self, order="C"):
        _order_c("copy", order)
        return _face(NDArray.copy(self))

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        dt = onp.dtype(dtype if dtype is not None else "float32")
        if not copy and dt == self.dtype:
            return self
        return call(_OP["astype"], (self,), {"dtype": dt})

    # ---- conversion and printing ---------------------------------------------------
    def __repr__(self):
        return _repr(self.asnumpy())

    def __str__(self):
        return str(self.asnumpy())

    def __format__(self, spec):
        """0-d arrays format as their number; others only with an empty spec (numpy's rule)."""
        if self.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to ndarray.__format__")
        return str(self)

    def item(self, *args):
        return self.asnumpy().item(*args)

    def tolist(self):
        return self.asnumpy().tolist()

    def asscalar(self):
        return self.item()

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return NDArray.__iter__(self)

    def __bool__(self):
        if self.size == 1:
            return bool(self.asnumpy().reshape(()))
        if self.size == 0:
            raise ValueError("The truth value of an empty array is ambiguous.")
        raise ValueError("The truth value of an ndarray with more than one element is ambiguous. "
                         "Use a.any() or a.all()")

    def __float__(self):
        if self.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return float(self.asnumpy().reshape(()))

    def __int__(self):
        if self.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return int(self.asnumpy().reshape(()))

    __hash__ = NDArray.__hash__

    # ---- shape -----------------------------------------------------------------------
    def reshape(self, *shape, order="C", **kwargs):
        """numpy's reshape (-1 infers one axis; no MXNet codes, see npx.reshape).  Unlike the
        legacy NDArray's, MXNet 1.9.1's numpy reshape is an operator: a copy, not a view."""
        if "newshape" in kwargs or "shape" in kwargs:
            shape = (kwargs.pop("newshape", None) or kwargs.pop("shape"),)
        if kwargs:
            raise TypeError(f"reshape() got unexpected keyword arguments {sorted(kwargs)}")
        return call(_OP["reshape"], (self, _norm_shape(shape, self.size)), {})

    @property
    def T(self):
        return self.transpose()

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return call(_OP["transpose"], (self, tuple(axes) if axes else None), {})

    def flatten(self, order="C"):
        return self.reshape(-1).copy()

    # ---- indexing ----------------------------------------------------------------------
    def __getitem__(self, key):
        m = _bool_mask(key)
        if m is not None and m.ndim == 0:  # x[True] is x[None], x[False] is x[None][0:0]
            return self[None] if m else self[None][0:0]
        key, lead = _mask_key(key, self.shape, self._ctx)
        if lead is not None:
            return self[key][None] if lead else self[key][None][0:0]
        if _basic(key) and not STATE.recording:
            plan = _core._index_plan(self.shape, key, self._ctx)
            if plan[0] == "view":
                return self._view(plan[1], _np_shape(self.shape, key))
        if len(key) == 1 and isinstance(key[0], numbers.Integral) and self.ndim == 0:
            raise IndexError("too many indices for array: array is 0-dimensional")
        plan = _core._index_plan(self.shape, key, self._ctx)
        frozen, arrays = plan[-2], _face(plan[-1])  # (lists in the key became index arrays)
        return call(_OP["getitem"], (self, *arrays), {"index": frozen})

    def __setitem__(self, key, value):
        if isinstance(value, NDArray) and not isinstance(value, ndarray):
            raise _mixed(value)
        if isinstance(value, onp.ndarray):
            value = array(value, dtype=self.dtype, ctx=self._ctx)
        m = _bool_mask(key[0] if type(key) is tuple and len(key) == 1 else key)
        if m is not None and m.ndim == 0:  # x[True] = v sets x (v as for x[None]), x[False] no-op
            if m:
                if isinstance(value, NDArray) and value.ndim == self.ndim + 1:
                    value = value.reshape(value.shape[1:]) if value.shape[0] == 1 else value
                NDArray.__setitem__(self, Ellipsis, value)
            return
        if isinstance(key, slice):
            return NDArray.__setitem__(self, key, value)
        key, lead = _mask_key(key, self.shape, self._ctx)
        if lead is not False:
            NDArray.__setitem__(self, key, value)

    # ---- operators -------------------------------------------------------------------
    def __pos__(self):
        return self

    def __matmul__(self, other):
        return _F["matmul"](self, other)

    # ---- numpy's dispatch protocols (mx.numpy_dispatch_protocol) ----------------------
    def __array_function__(self, func, types, args, kwargs):
        """``onp.<f>(mx_array)`` runs ``mx.np.<f>``; functions mx.np lacks run on host
        copies (results come back as mx arrays)."""
        mod = func.__module__ or ""
        ns = _F if "linalg" not in mod else {k[len("linalg_"):]: v for k, v in _F.items()
                                             if k.startswith("linalg_")}
        mine = ns.get(func.__name__) or _PY.get(func.__name__)
        if mine is not None:
            return mine(*args, **kwargs)
        return _on_host(func, args, kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        mine = _F.get(ufunc.__name__)
        if method != "__call__" or mine is None:
            return _on_host(getattr(ufunc, method), inputs, kwargs)
        return mine(*inputs, **kwargs)

    def __rmatmul__(self, other):
        return _F["matmul"](other, self)


def _on_host(func, args, kwargs):
    ctx = [None]

    def down(v):
        if isinstance(v, NDArray):
            ctx[0] = ctx[0] or v.context
            return v.asnumpy()
        if isinstance(v, (list, tuple)):
            return type(v)(down(e) for e in v)
        return v

    def up(r):
        if isinstance(r, onp.ndarray):
            return array(r, ctx=ctx[0])
        if isinstance(r, (tuple, list)):  # (histogramdd's edges are a list)
            return type(r)(up(e) for e in r)
        return r
    return up(func(*down(args), **{k: down(v) for k, v in kwargs.items()}))


def _block(x):
    """(root, first, last+1) of the buffer elements an array reads (views are one block)."""
    if x._base is None:
        return x, 0, x.size
    return x._base, x._offset, x._offset + x.size


def may_share_memory(a, b, max_work=None):
    """Whether two arrays' elements overlap in one buffer (views of a root are one block)."""
    if not (isinstance(a, NDArray) and isinstance(b, NDArray)):
        return False
    ra, sa, ea = _block(a)
    rb, sb, eb = _block(b)
    return ra is rb and sa < eb and sb < ea and a.size > 0 and b.size > 0


_PY = {"shares_memory": may_share_memory, "may_share_memory": may_share_memory}


def _order_c(name, order):
    if order != "C":
        raise NotImplementedError(f"{name}: only order='C' is supported (as in MXNet 1.9.1), "
                                  f"got order={order!r}")


def _share(a, b):
    """a and b are two faces of one memory: neither buffer may be donated, grads are shared."""
    a._shared = True
    b._ag = a._ag
    if a._grad is not None:
        b._grad, b._grad_req = a._grad, a._grad_req


def _binop(name, reflected=False):
    def op(self, other):
        if isinstance(other, NDArray) and not isinstance(other, ndarray) or isinstance(
                other, onp.ndarray):
            raise TypeError(f"type {type(other)} not supported")
        if not isinstance(other, (NDArray,) + _SCALARS):
            return NotImplemented
        return _F[name](other, self) if reflected else _F[name](self, other)
    op.__name__ = name
    return op


def _iop(name):
    def op(self, other):
        if isinstance(other, NDArray) and not isinstance(other, ndarray) or isinstance(
                other, onp.ndarray):
            raise TypeError(f"type {type(other)} not supported")
        return _F[name](self, other, out=self)
    return op


for _dunder, _name in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                       ("truediv", "true_divide"), ("mod", "mod"), ("pow", "power")):
    setattr(ndarray, f"__{_dunder}__", _binop(_name))
    setattr(ndarray, f"__r{_dunder}__", _binop(_name, True))
    setattr(ndarray, f"__i{_dunder}__", _iop(_name))
for _dunder, _name in (("eq", "equal"), ("ne", "not_equal"), ("gt", "greater"),
                       ("ge", "greater_equal"), ("lt", "less"), ("le", "less_equal"),
                       ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor")):
    setattr(ndarray, f"__{_dunder}__", _binop(_name))
for _dunder, _name in (("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor")):
    setattr(ndarray, f"__r{_dunder}__", _binop(_name, True))
for _dunder, _name in (("neg", "negative"), ("abs", "absolute"), ("invert", "invert")):
    setattr(ndarray, f"__{_dunder}__", (lambda n: lambda self: _F[n](self))(_name))


def _no_floordiv(self, other):
    return NotImplemented  # MXNet 1.9.1's ndarray has no //: Python raises its TypeError


ndarray.__floordiv__ = ndarray.__rfloordiv__ = ndarray.__ifloordiv__ = _no_floordiv

_OP = {n: registry.get("_npi_" + n) for n in ("astype", "reshape", "transpose", "getitem")}
_F = {n: func(n) for n in _lnp.NP_FUNCS}
_F.update({n: host_func(n) for n in _lnp.HOST_FUNCS})

# methods of mx.np.ndarray that are the functions of the same name with self first
_METHODS = ("sum prod max min mean std var argmax argmin argsort sort cumsum clip round "
            "squeeze swapaxes repeat tile nonzero all any dot diagonal trace take ravel "
            "abs sign sqrt square exp log sin cos tan tanh floor ceil trunc rint expand_dims "
            "flip ptp").split()


def _method(f):
    def m(self, *args, **kwargs):
        return f(self, *args, **kwargs)
    m.__name__ = f.__name__
    m.__doc__ = f.__doc__
    return m


for _name in _METHODS:
    setattr(ndarray, _name, _method(_F[_name]))


def from_nd(x):
    """NDArray.as_np_ndarray: the numpy face of the same memory (a view, no copy)."""
    if isinstance(x, ndarray):
        return x
    v = NDArray._view(x, 0, x.shape)
    v.__class__ = ndarray
    _share(x, v)
    return v


def _as_nd(x):
    return x


# the hooks of the core class: NDArray.as_np_ndarray / as_nd_ndarray (no copies)
NDArray.as_np_ndarray = from_nd
NDArray.as_nd_ndarray = _as_nd


def _place(value, ctx):
    return _face(_core._wrap(_transfer.to_device(value, ctx.jax_device()), ctx))


def array(object, dtype=None, ctx=None, device=None):
    """mx.np.array: float32 unless ``dtype`` is given, except that an MXNet or numpy array
    keeps its dtype (MXNet 1.9.1)."""
    c = _ctx_of(ctx, device)
    if isinstance(object, NDArray):
        src = object.asnumpy()
        dt = onp.dtype(dtype) if dtype is not None else src.dtype
        if ctx is None and device is None:
            c = object.context
        return _place(src.astype(dt), c)
    if isinstance(object, (list, tuple)) and any(isinstance(v, NDArray) for v in object):
        object = onp.asarray([v.asnumpy() if isinstance(v, NDArray) else v for v in object])
    if isinstance(object, (onp.ndarray, onp.generic)):
        src = onp.asarray(object)
        dt = onp.dtype(dtype) if dtype is not None else src.dtype
    else:
        src = onp.asarray(object)
        if src.dtype == object:
            raise TypeError("source_array must be array like object")
        dt = onp.dtype(dtype) if dtype is not None else onp.dtype("float32")
    if dt.name not in _DTYPES:
        raise TypeError(f"array: dtype {dt.name} is not supported by MXNet's numpy ndarray; "
                        f"use one of {', '.join(sorted(_DTYPES))}")
    return _place(src.astype(dt), c)


_DTYPES = {"float16", "float32", "float64", "uint8", "int8", "int32", "int64", "bool"}


assert MXNetError and invoke
