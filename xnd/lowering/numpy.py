"""The operators of MXNet's numpy interface (``mx.np``), each once, as a jnp call.

One table, `NP_FUNCS`, names every numpy function that ``mx.np`` maps onto
``jax.numpy`` and the MXNet 1.9.1 dtype rule its result follows; each entry
becomes a registry operator ``_npi_<name>`` with one generic signature::

    fn(*data, call=(), scalars=())

``call`` is the frozen call (`freeze`): where each positional and keyword
argument of the numpy function comes from -- ``('a', i)`` the i-th array
input, ``('l', (...))`` a list of them, ``('s', i)`` the i-th Python scalar
(passed at run time in ``scalars``, so a changing scalar does not recompile),
``('v', value)`` a static value.  Shape and dtype inference, autograd and the
kernel cache therefore see these operators exactly like the legacy ones.

MXNet 1.9.1's numpy-mode dtype rules, checked on MXNet (tests/make_np_goldens.py):

* float32 is the default float: a result is float64 only when an input array is
  float64 or ``dtype`` asks for it (jnp under x64 would give float64);
* binary ops (`promote`): equal dtypes keep it; bool gives way to the other;
  int with float gives the float; two floats or two ints give the wider; with a
  Python scalar the array's dtype wins, except that a bool array gives int64;
  true division of integers gives float32; comparisons give bool;
* ``keep``: unary math keeps an integer input's dtype (``sqrt(int32)`` is int32);
* ``keep_int``: reductions keep an integer input's dtype (``sum(int32)`` is int32,
  ``sum(bool)`` int64); ``mean`` of integers is float32.
"""
import math

import jax
import jax.numpy as jnp
import numpy as onp

from ..base import MXNetError
from . import elemwise as _elemwise
from .dtypes import c_cast, int_math
from .indexing import thaw as _thaw_index
from .registry import Dynamic, _ANY_SHAPE, register
from .registry import _OPS as _REGISTERED, get as _get_op
from .shape import cast_passing_grad

# ---- the frozen call ----------------------------------------------------------------------


def thaw_value(v):
    """The Python value of a frozen static value (see `freeze_value`)."""
    if type(v) is tuple and v:
        tag = v[0]
        if tag == "t":
            return tuple(thaw_value(x) for x in v[1])
        if tag == "L":
            return [thaw_value(x) for x in v[1]]
        if tag == "d":
            return jnp.dtype(v[1])
        if tag == "S":
            return slice(*(thaw_value(x) for x in v[1]))
        if tag in ("f", "i", "b"):
            return v[1]
        if tag == "A":
            return onp.array(v[3], dtype=v[1]).reshape(v[2])
    return v


class Static:
    """An array argument read on the host: the result's shape depends on its values
    (``np.delete(a, obj)``), so it joins the call's static values, not its inputs."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = onp.asarray(value)


# function -> (position, keyword) of its array arguments that are read on the host
STATIC_ARRAYS = {"delete": (1, "obj"), "insert": (1, "obj")}


def static_arrays(name, args, kwargs, concrete, symbolic=False):
    """``args``/``kwargs`` with the host-read arrays of function ``name`` (``concrete``
    instances) as Static values.  MXNet's symbolic insert/delete take no array there
    (TypeError)."""
    where = STATIC_ARRAYS.get(name)
    if where is None:
        return args, kwargs
    i, key = where
    for v in (args[i] if i < len(args) else None, kwargs.get(key)):
        if symbolic and isinstance(v, concrete):
            raise TypeError(f"'obj' can not support type {type(v)}")
    if i < len(args) and isinstance(args[i], concrete):
        args = (*args[:i], Static(args[i].asnumpy()), *args[i + 1:])
    if isinstance(kwargs.get(key), concrete):
        kwargs = {**kwargs, key: Static(kwargs[key].asnumpy())}
    return args, kwargs


def freeze_value(v):
    """A hashable, type-tagged form of a static value (1, 1.0 and True must not share a
    kernel)."""
    if v is None or isinstance(v, str):
        return v if v is None else str(v)  # (numpy's str_ would not survive symbol JSON)
    if isinstance(v, (bool, onp.bool_)):
        return ("b", bool(v))
    if isinstance(v, (int, onp.integer)):
        return ("i", int(v))
    if isinstance(v, (float, onp.floating)):
        return ("f", float(v))
    if isinstance(v, tuple):
        return ("t", tuple(freeze_value(x) for x in v))
    if isinstance(v, list):
        return ("L", tuple(freeze_value(x) for x in v))
    if isinstance(v, (onp.dtype, type)) and v is not slice:
        try:
            return ("d", onp.dtype(v).name)
        except TypeError:
            pass
    if isinstance(v, Static):
        return ("A", v.value.dtype.name, v.value.shape, tuple(v.value.ravel().tolist()))
    if isinstance(v, slice):  # (slices are unhashable before Python 3.12)
        return ("S", tuple(freeze_value(x) for x in (v.start, v.stop, v.step)))
    raise TypeError(f"unsupported argument {v!r} of type {type(v).__name__}")


def _thaw(item, data, scalars):
    tag = item[0]
    if tag == "a":
        return data[item[1]]
    if tag == "s":
        return scalars[item[1]]
    if tag == "l":
        return [_thaw(x, data, scalars) for x in item[1]]
    return thaw_value(item[1])


def _arrays_of(call, data):
    pos, kw = call
    idx = []
    for item in list(pos) + [v for _, v in kw]:
        if item[0] == "a":
            idx.append(item[1])
        elif item[0] == "l":
            idx.extend(x[1] for x in item[1] if x[0] == "a")
    return [data[i] for i in idx]


# ---- MXNet's dtype rules ------------------------------------------------------------------
_F32, _F64, _BOOL, _I64 = (jnp.dtype(n) for n in ("float32", "float64", "bool", "int64"))


def _isfloat(d):
    return jnp.issubdtype(d, jnp.floating)


def promote(da, db, op="binary"):
    """MXNet 1.9.1's result dtype of a binary numpy op on two arrays."""
    da, db = jnp.dtype(da), jnp.dtype(db)
    if da == db:
        return da
    if da == _BOOL:
        return db
    if db == _BOOL:
        return da
    fa, fb = _isfloat(da), _isfloat(db)
    if fa and fb:
        return da if da.itemsize >= db.itemsize else db
    if fa or fb:
        return da if fa else db
    if {da.name, db.name} == {"int8", "uint8"}:
        raise TypeError(f"{op}: MXNet 1.9.1 does not support combining int8 with uint8")
    return da if da.itemsize >= db.itemsize else db


_COMPARE = frozenset(("equal", "not_equal", "greater", "greater_equal", "less", "less_equal"))
_TRUE_DIV = frozenset(("true_divide", "divide"))


def _to(x, t):
    """x cast to t; bool goes to a float through int8: XLA folds a broadcast division of two
    converted bools to 0 where it is 0/0 (NaN in numpy and MXNet)."""
    if x.dtype == _BOOL and _isfloat(t):
        x = x.astype(jnp.int8)
    return x.astype(t)


def _binary(jfn, name):
    def run(a, b, a_arr, b_arr):
        if name in _FLOAT_ONLY and a_arr and b_arr and not (
                _isfloat(a.dtype) and _isfloat(b.dtype)):
            raise MXNetError(f"_npi_{name}: Check failed: common::is_float(in_attrs->at(0)): "
                             f"Do not support `int` as input")
        if a_arr and b_arr:
            t = promote(a.dtype, b.dtype, name)
        else:
            arr = a if a_arr else b
            t = arr.dtype
            if t == _BOOL and name not in _COMPARE:
                t = _I64
        if name in _TRUE_DIV and not _isfloat(t):
            t = _F32
        if name in _COMPARE and t == _BOOL:
            t = _F32 if not (a_arr and b_arr) else t
        a, b = _to(jnp.asarray(a), t), _to(jnp.asarray(b), t)
        out = jfn(a, b)
        return out if name in _COMPARE else out.astype(t)
    return run


_FLOAT_ONLY = {"hypot"}  # MXNet 1.9.1's np.hypot refuses integer arrays


def _post(rule, out, ins, explicit_dtype):
    """Apply MXNet's result-dtype rule to one jnp result."""
    if not hasattr(out, "dtype"):
        return out
    first = ins[0].dtype if ins else None
    if rule in ("keep", "keep_int") and first is not None and not explicit_dtype:
        if jnp.issubdtype(first, jnp.integer):
            return c_cast(out, first)  # MXNet's float -> int (NaN: the type's minimum)
        if rule == "keep" and first == _BOOL and out.dtype == _F64:
            return out.astype(_F32)
    if out.dtype == _F64 and not explicit_dtype and not any(a.dtype == _F64 for a in ins):
        return out.astype(_F32)
    return out


def _literal(v):
    """A frozen call or scalar tuple, also from its string in symbol JSON."""
    if isinstance(v, str):
        import ast
        return ast.literal_eval(v)
    return v


def _static(pos, kw, i, key, default=None):
    """The static value of argument ``i`` (or keyword ``key``) of a frozen call; array
    arguments count by themselves (``('a', k)``)."""
    for k, v in kw:
        if k == key:
            return v if v[0] != "v" else thaw_value(v[1])
    if i is not None and i < len(pos):
        v = pos[i]
        return v if v[0] != "v" else thaw_value(v[1])
    return default


def _n_split(pos, kw):
    sec = _static(pos, kw, 1, "indices_or_sections")
    return sec if isinstance(sec, int) else len(sec) + 1


def _n_arrays(pos, kw):
    if len(pos) == 1 and pos[0][0] == "l":
        return len(pos[0][1])
    return len(pos)


# the split family (and meshgrid, broadcast_arrays) return a list of arrays even of one part
# (``np.split(x, 1)[0]`` is x);
# these others a tuple (MXNet's eig, svd, divmod ...; unravel_index even of one array, and in a
# graph one array of them stacked)
SPLITS = frozenset(("split", "array_split", "hsplit", "vsplit", "dsplit"))
LISTS = SPLITS | {"meshgrid", "broadcast_arrays"}
TUPLES = frozenset(("unravel_index", "linalg_eig", "linalg_eigh", "linalg_svd", "linalg_qr",
                    "divmod", "modf", "frexp", "tril_indices", "triu_indices"))
STACKED = frozenset(("unravel_index",))

# functions returning several arrays: how many, from their frozen call (a graph node needs it
# before it runs)
_N_OUTPUTS = {
    **dict.fromkeys(SPLITS, _n_split),
    **dict.fromkeys(("divmod", "modf", "frexp", "linalg_qr", "linalg_eig", "linalg_eigh",
                     "linalg_slogdet", "tril_indices", "triu_indices"), lambda pos, kw: 2),
    "meshgrid": _n_arrays, "broadcast_arrays": _n_arrays,
    **dict.fromkeys(("atleast_1d", "atleast_2d", "atleast_3d"), lambda pos, kw: len(pos)),
    "average": lambda pos, kw: 2 if _static(pos, kw, 3, "returned", False) else 1,
    "unravel_index": lambda pos, kw: (lambda s: 1 if isinstance(s, int) else len(s))(
        _static(pos, kw, 1, "shape")),
    "linalg_svd": lambda pos, kw: 3 if _static(pos, kw, 2, "compute_uv", True) else 1,
    "linalg_lstsq": lambda pos, kw: 4,
}


def _dot_shapes(attrs, shapes):
    """Deferred-init shape inference of ``dot``/``matmul``: a weight's unknown (0) contracted
    dim is the data's, as MXNet's numpy dot infers ``w`` of ``x.dot(w)`` with w (0, 100)."""
    pos, kw = _literal(attrs["call"])
    if kw or len(shapes) != 2 or pos != (("a", 0), ("a", 1)) or None in shapes:
        return list(shapes)
    a, b = (list(s) for s in shapes)
    if a and b:
        kb = -2 if len(b) >= 2 else 0
        if b[kb] == 0:
            b[kb] = a[-1]
        if a[-1] == 0:
            a[-1] = b[kb]
    return [tuple(a), tuple(b)]


_PARAM_SHAPES = {"dot": _dot_shapes, "matmul": _dot_shapes}


def _take(a, indices, axis=None, mode="raise"):
    """MXNet's np.take: float indices truncated toward zero (MXNet casts them), ``mode`` 'clip'
    or 'wrap' as numpy's, 'raise' (the default) checked before the run (_take_in_range)."""
    if mode not in ("raise", "clip", "wrap"):
        raise ValueError(f"take: mode must be one of 'raise', 'clip', 'wrap', got {mode!r}")
    if axis is None:
        a, axis = jnp.ravel(a), 0
    idx = jnp.asarray(indices)
    idx = idx if jnp.issubdtype(idx.dtype, jnp.integer) else jnp.trunc(idx).astype(jnp.int64)
    n = a.shape[axis]
    return jnp.take(a, jnp.mod(idx, n) if mode == "wrap" else jnp.clip(idx, 0, n - 1), axis=axis)


def _bound(attrs, data, names):
    """The arguments of a frozen call (attrs["call"]) by parameter name, for kernel checks."""
    pos, kw = _literal(attrs["call"])
    scalars = _literal(attrs.get("scalars", ()))
    out = {k: _thaw(v, data, scalars) for k, v in kw}
    out.update(zip(names, (_thaw(x, data, scalars) for x in pos)))
    return out


def _take_in_range(attrs, *data):
    """np.take(mode='raise'): out-of-range indices raise MXNetError, as MXNet reports them."""
    kwargs = _bound(attrs, data, ("a", "indices", "axis", "mode"))
    if kwargs.get("mode", "raise") != "raise":
        return
    a, axis = kwargs["a"], kwargs.get("axis")
    n = int(onp.prod(jnp.shape(a))) if axis is None else jnp.shape(a)[axis]
    idx = onp.trunc(onp.asarray(kwargs["indices"]))
    if ((idx < -n) | (idx >= n)).any() if axis is None else ((idx < 0) | (idx >= n)).any():
        raise MXNetError(f"take: indices {idx.ravel()[:8].tolist()} out of bound for size {n}"
                         f" (mode='raise')")


def _real_eigenvalues(attrs, *data):
    """eig/eigvals: MXNet 1.9.1 supports real eigenvalues only, and raises for complex ones."""
    a = onp.asarray(_bound(attrs, data, ("a",))["a"])
    if a.size and (onp.abs(onp.linalg.eigvals(a).imag) > 1e-15).any():
        raise MXNetError("eig: complex eigenvalues are not supported (nor in MXNet 1.9.1)")


_KERNEL_CHECKS = {"take": _take_in_range, "linalg_eig": _real_eigenvalues,
                  "linalg_eigvals": _real_eigenvalues}


def _make(name, jfn, rule):
    binary = _binary(jfn, name) if rule == "binary" else None

    def fn(*data, call: _literal = ((), ()), scalars: Dynamic(_literal) = ()):
        pos, kw = call
        if binary is not None:
            (a, b), = (pos,)
            return binary(_thaw(a, data, scalars), _thaw(b, data, scalars), a[0] == "a", b[0] == "a")
        args = [_thaw(x, data, scalars) for x in pos]
        kwargs = {k: _thaw(v, data, scalars) for k, v in kw}
        out = jfn(*args, **kwargs)
        ins = _arrays_of(call, data)
        explicit = kwargs.get("dtype") is not None
        if isinstance(out, (tuple, list)):
            return tuple(_post(rule, o, ins, explicit) for o in out)
        return _post(rule, out, ins, explicit)
    fn.__name__ = f"_npi_{name}"
    fn.__doc__ = f"numpy.{name} with MXNet 1.9.1's numpy-mode dtype rule {rule!r}."
    count = _N_OUTPUTS.get(name)
    register(f"_npi_{name}", num_outputs=(lambda attrs: count(*_literal(attrs["call"])))
             if count else 1, param_shapes=_PARAM_SHAPES.get(name),
             kernel_check=_KERNEL_CHECKS.get(name))(fn)
    _ANY_SHAPE.add(f"_npi_{name}")  # numpy arrays may be 0-d or empty


def _cast_float(x):
    return x if _isfloat(x.dtype) else x.astype(_F32)


_ACCUMULATE = frozenset("sum nansum prod nanprod cumsum".split())


def _accumulating(jfn):
    """MXNet's ``dtype=`` casts the result, not the input: it accumulates in the wider of the
    input's and the asked dtype (float16 in float32) and casts the total (``sum(float32,
    dtype=float16)`` is the float32 sum rounded once, not a float16 running sum)."""
    def run(a, *args, dtype=None, **kwargs):
        if dtype is None:
            return jfn(a, *args, **kwargs)
        acc = jnp.promote_types(a.dtype, dtype)
        if acc == jnp.float16 or acc == jnp.bfloat16:
            acc = _F32
        return cast_passing_grad(jfn(a, *args, dtype=acc, **kwargs), dtype)
    run.__name__ = jfn.__name__
    return run


def _mean(a, axis=None, dtype=None, keepdims=False):
    """numpy's mean: an integer ``dtype`` on integer input sums in that dtype (wrapping) and
    truncates the quotient; otherwise the wider float accumulates (float16 in float32)."""
    if dtype is not None and not _isfloat(jnp.dtype(dtype)) and not _isfloat(a.dtype):
        total = jnp.sum(a.astype(dtype), axis=axis, dtype=dtype, keepdims=keepdims)
        return cast_passing_grad(total / (a.size // max(total.size, 1) if a.size else 1), dtype)
    acc = None if dtype is None else jnp.promote_types(a.dtype, dtype)
    if acc is not None and not _isfloat(acc):
        acc = _F32 if a.dtype != _F64 else _F64
    if acc is not None and (acc == jnp.float16 or acc == jnp.bfloat16):
        acc = _F32
    r = jnp.mean(a, axis=axis, dtype=acc, keepdims=keepdims)
    if dtype is not None:
        return cast_passing_grad(r, dtype)
    return r if dtype is not None or _isfloat(a.dtype) else r.astype(_F32)


def _spacing(x):
    """numpy.spacing from the bits (the same on every jax: jax 0.4.30 has no jnp.spacing, and
    XLA's flushing of subnormals would zero nextafter(x) - x near 0): the value of x's last
    mantissa bit, with x's sign; inf at the largest finite value, NaN at inf and NaN."""
    x = _cast_float(x)
    fi = jnp.finfo(x.dtype)
    m = int(fi.nmant)
    u = {16: jnp.uint16, 32: jnp.uint32, 64: jnp.uint64}[fi.bits]
    e = jax.lax.shift_right_logical(jax.lax.bitcast_convert_type(jnp.abs(x), u), u(m))
    bits = jnp.where(e > m, jax.lax.shift_left(e - u(m), u(m)),
                     jax.lax.shift_left(u(1), jnp.maximum(e, u(1)) - u(1)))
    s = jax.lax.bitcast_convert_type(bits.astype(u), x.dtype)
    s = jnp.where(jnp.abs(x) == fi.max, jnp.inf, jnp.where(jnp.isfinite(x), s, jnp.nan))
    return jnp.where(jnp.signbit(x), -s, s).astype(x.dtype)


def _remainder(a, b):
    """numpy's floor remainder (sign of the divisor). For floats with |a| < |b| the remainder
    is ``a`` itself, and the sign fix-up reads a's bits: XLA's CPU kernels flush a subnormal
    remainder to zero before comparing it (numpy's mod(-1e-45, 1.0) is 1.0, not -0). As in
    MXNet, a zero divisor gives 0 (numpy: NaN) and a zero ``a`` keeps its sign."""
    t = jnp.result_type(a, b)
    if not jnp.issubdtype(t, jnp.floating):
        return jnp.remainder(a, b)
    a, b = jnp.broadcast_arrays(jnp.asarray(a).astype(t), jnp.asarray(b).astype(t))
    u = {2: jnp.uint16, 4: jnp.uint32, 8: jnp.uint64}[jnp.dtype(t).itemsize]
    magnitude = u(jnp.iinfo(u).max >> 1)
    abits, bbits = (jax.lax.bitcast_convert_type(v, u) & magnitude for v in (a, b))
    flip = jnp.signbit(a) != jnp.signbit(b)
    small = jnp.where(abits == 0, a, jnp.where(flip, a + b, a))
    out = jnp.where((abits < bbits) & ~jnp.isnan(b), small, jnp.remainder(a, b))
    return jnp.where(bbits == 0, jnp.zeros_like(a), out)


def _npx_target_shape(src, shape):
    """``broadcast_to``'s shape with MXNet's -2 codes: keep the input's size there (the axes
    aligned from the right, as broadcasting aligns them)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    lead = len(shape) - len(src)
    return tuple(src[i - lead] if d == -2 and i >= lead else d for i, d in enumerate(shape))


def _indices(obj):
    """insert/delete's index argument: an int, a slice or an integer array; MXNet 1.9.1 takes
    no Python list there (TypeError)."""
    if isinstance(obj, (list, tuple)):
        raise TypeError(f"'obj' can not support type {type(obj)}")
    return obj


def _unravel_index(indices, shape, order="C"):
    """numpy.unravel_index in the indices' dtype; MXNet 1.9.1 has no order='F'."""
    if order != "C":
        raise NotImplementedError("unravel_index: column-major (Fortran-style) order is not "
                                  "supported (nor in MXNet 1.9.1)")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    # (computed in int64: jax 0.4.30's unravel_index gives zeros for uint8 indices)
    return tuple(i.astype(indices.dtype)
                 for i in jnp.unravel_index(indices.astype(jnp.int64), shape))


def _quantile(scale):
    """quantile (scale 1) / percentile (100) with MXNet's ``interpolation=`` (jnp's
    ``method=``); 'nearest' rounds the position half to even, as numpy (jnp rounds 49.5 down)."""
    def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear",
                 keepdims=False):
        if interpolation != "nearest" or isinstance(axis, (tuple, list)):
            return jnp.quantile(a, jnp.asarray(q) / scale, axis=axis, method=interpolation,
                                keepdims=keepdims)
        ax = 0 if axis is None else axis % a.ndim
        srt = jnp.sort(a.ravel() if axis is None else a, axis=ax)
        pos = jnp.round(jnp.asarray(q, jnp.float64) / scale * (srt.shape[ax] - 1))
        out = jnp.moveaxis(jnp.take(srt, pos.astype(jnp.int64), axis=ax),
                           list(range(ax, ax + pos.ndim)), list(range(pos.ndim)))
        if keepdims:
            kept = (1,) * a.ndim if axis is None else a.shape[:ax] + (1,) + a.shape[ax + 1:]
            out = out.reshape(pos.shape + kept)
        return out
    return quantile


def _tensorsolve(a, b, axes=None):
    """numpy.linalg.tensorsolve, its shapes included: the solution has a's trailing
    ``a.ndim - b.ndim`` axes, all of a's when the two ranks are equal (numpy's -0 slice)."""
    an = a.ndim
    if axes is not None:
        order = [k for k in range(an) if k not in [x % an for x in axes]]
        a = jnp.transpose(a, order + [x % an for x in axes])
    old = a.shape[-(an - b.ndim):]
    n = math.prod(old)
    if a.size != n * n:
        raise ValueError(f"tensorsolve: a of shape {a.shape} is not square over b's "
                         f"{b.shape}")
    return jnp.linalg.solve(a.reshape(n, n), b.reshape(n)).reshape(old)


def _clip(a, a_min=None, a_max=None, out=None):
    """numpy.clip in a's dtype, as MXNet keeps it (clip(int32, 2.5, 7.5) of 9 is 7); scalar
    bounds outside an integer dtype's range clamp to it (clip(uint8, -120, 100) keeps 0)."""
    if jnp.issubdtype(a.dtype, jnp.integer):
        info = jnp.iinfo(a.dtype)
        fit = (lambda v: v if v is None or not isinstance(v, (int, float))
               else type(v)(min(max(v, info.min), info.max)))
        a_min, a_max = fit(a_min), fit(a_max)
    return jnp.clip(a, a_min, a_max).astype(a.dtype)


def _fdt(dtype):
    """A float dtype argument: float32 by default (MXNet's default float)."""
    return jnp.dtype(dtype or "float32")


def _window(jfn):
    """hanning/hamming/blackman with MXNet's ``dtype=`` (float32 default); M < 1 is empty."""
    def window(M, dtype=None, ctx=None):
        return jfn(max(int(M), 0)).astype(_fdt(dtype))
    window.__name__ = jfn.__name__
    return window


def _round(a, decimals=0, out=None):
    """numpy.round (half to even) for floats; MXNet rounds integers to a negative number of
    decimals by truncating toward zero (np.round(15, -1) is 10 there, 20 in numpy)."""
    if jnp.issubdtype(a.dtype, jnp.floating):
        return jnp.round(a, decimals)
    if decimals >= 0 or a.dtype == jnp.bool_:
        return a
    f = jnp.asarray(10 ** -decimals, a.dtype)
    return jnp.sign(a) * (jnp.abs(a) // f) * f


def _arg_extreme(jfn):
    """argmax/argmin; of a 0-d array along axis 0 or -1 numpy (and MXNet) give 0."""
    def arg(a, axis=None, out=None):
        if axis is not None and not -max(a.ndim, 1) <= axis < max(a.ndim, 1):
            raise MXNetError(f"{jfn.__name__}: axis {axis} is out of bounds for array of "
                             f"dimension {a.ndim}")
        if a.ndim == 0:
            axis = None
        if (a.size if axis is None else a.shape[axis]) == 0:
            raise MXNetError(f"{jfn.__name__}: attempt to get {jfn.__name__} of an empty "
                             f"sequence (axis {axis} of shape {a.shape})")
        return jfn(a, axis=axis)
    return arg


def _delete(arr, obj, axis=None):
    """numpy.delete; of an index array MXNet ignores the negative and out-of-range entries."""
    obj = _indices(obj)
    if isinstance(obj, onp.ndarray):
        n = arr.size if axis is None else arr.shape[axis]
        obj = onp.unique(obj[(obj >= 0) & (obj < n)])
    return jnp.delete(arr, obj, axis)


def _split(ary, indices_or_sections, axis=0, equal=True):
    """numpy's split (``equal``) and array_split: the parts between sorted split points, which
    clip as Python slices do (numpy's split of an empty axis at [1] is two empty parts)."""
    n = ary.shape[axis]
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        if equal and n % k:
            raise ValueError("array split does not result in an equal division")
        sizes = [n // k + (i < n % k) for i in range(k)]
        bounds = [sum(sizes[:i]) for i in range(k + 1)]
    else:
        bounds = [0, *(int(i) for i in indices_or_sections), n]
    lead = (slice(None),) * (axis % ary.ndim)
    return [ary[lead + (slice(a, b),)] for a, b in zip(bounds, bounds[1:])]


def _dim_split(name, ndim):
    """numpy's hsplit/vsplit/dsplit: an array of fewer dimensions is numpy's ValueError."""
    def split(ary, indices_or_sections):
        if ary.ndim < ndim:
            raise ValueError(f"{name} only works on arrays of {ndim} or more dimensions, got "
                             f"shape {ary.shape}")
        return _split(ary, indices_or_sections, 1 if name == "hsplit" and ary.ndim > 1 else
                      {"hsplit": 0, "vsplit": 0, "dsplit": 2}[name])
    return split


def _transpose(a, axes=None):
    if axes is not None:
        axes = (axes,) if isinstance(axes, int) else tuple(axes)
        norm = [x + a.ndim if x < 0 else x for x in axes]
        if len(axes) != a.ndim or sorted(norm) != list(range(a.ndim)):
            raise ValueError(f"transpose: axes {axes} are not a permutation of the {a.ndim} "
                             f"axes of an array of shape {a.shape}")
    return jnp.transpose(a, axes)


def _tri_mask(m, k, upper):
    """numpy's tril/triu, 1-D input included (it is broadcast against the square mask)."""
    n, c = (m.shape[-1], m.shape[-1]) if m.ndim < 2 else m.shape[-2:]
    keep = jnp.tri(n, c, k - 1 if upper else k, dtype=bool)
    return jnp.where(~keep if upper else keep, m, jnp.zeros((), m.dtype))


def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """MXNet's linspace computes ``start + i * step`` in double and casts once (float16's
    points are the nearest halves of the exact ones, not a float16 running sum)."""
    div = (num - 1 if endpoint else num) or 1
    lib = onp if all(isinstance(v, (int, float)) for v in (start, stop)) else jnp
    # (numpy on static bounds: the points exactly as MXNet's double arithmetic gives them,
    # whatever XLA would fuse; the last point is not forced to stop)
    step = (lib.asarray(stop, _F64) - start) / div
    out = jnp.asarray(start + step * lib.arange(num, dtype=_F64))
    out = cast_passing_grad(out, dtype or _F32)
    return (out, step) if retstep else out


def _logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    return jnp.logspace(start, stop, num, endpoint, base, dtype=_F64, axis=axis).astype(
        dtype or _F32)


def _getitem(data, *indices, index=()):
    return data[_thaw_index(index, indices)]


# name -> (jnp function, dtype rule); rules: see the module docstring ("" = float32 default only)
_BINARY = ("add subtract multiply true_divide divide power mod remainder maximum minimum fmax "
           "fmin hypot arctan2 copysign equal not_equal greater greater_equal less less_equal "
           "logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor lcm gcd "
           "ldexp float_power heaviside fmod").split()
_UNARY_KEEP = ("abs absolute negative positive sign sqrt cbrt square reciprocal exp expm1 exp2 "
               "log log2 log10 log1p sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh "
               "arccosh arctanh degrees radians deg2rad rad2deg floor ceil trunc rint "
               "fabs").split()
_REDUCE_KEEP = "sum prod max min amax amin cumsum nansum nanprod nanmax nanmin ptp".split()
_STAT_KEEP = "std var".split()
_PLAIN = ("argmax argmin argsort sort where clip round around concatenate stack vstack hstack "
          "dstack column_stack row_stack split array_split hsplit vsplit dsplit reshape ravel "
          "transpose swapaxes moveaxis rollaxis expand_dims squeeze broadcast_to "
          "broadcast_arrays tile repeat flip fliplr flipud roll rot90 diag diagflat diagonal "
          "tril triu trace dot vdot inner outer matmul tensordot einsum kron cross take "
          "take_along_axis pad searchsorted isnan isinf isfinite isposinf isneginf signbit "
          "logical_not invert bitwise_not all any allclose isclose array_equal array_equiv "
          "count_nonzero median quantile percentile nanmedian nanquantile nanpercentile "
          "average cov corrcoef interp diff ediff1d cumprod nancumsum nancumprod nanargmax "
          "nanargmin linspace logspace eye identity tri full full_like zeros_like ones_like "
          "empty_like meshgrid indices tril_indices triu_indices "
          "tril_indices_from triu_indices_from atleast_1d atleast_2d atleast_3d append insert "
          "delete isin nan_to_num copy real modf frexp divmod i0 sinc polyval "
          "polyadd polysub polymul vander blackman hamming hanning bartlett kaiser select "
          "choose unravel_index ravel_multi_index lexsort partition argpartition digitize "
          "resize ix_ convolve correlate packbits unpackbits unwrap apply_along_axis "
          "fill_diagonal").split()

# data-dependent result shapes, computed on the host by numpy (mx.np's host functions)
HOST_FUNCS = ("nonzero flatnonzero argwhere unique bincount histogram intersect1d union1d "
              "diag_indices_from "
              "setdiff1d setxor1d in1d extract compress trim_zeros").split()


def _in1d(ar1, ar2, assume_unique=False, invert=False):
    """numpy.in1d, which numpy 2.4 removed (MXNet's mx.np has it): isin of the flattened
    first array."""
    return onp.isin(onp.ravel(ar1), ar2, assume_unique=assume_unique, invert=invert)


# the numpy function behind each (the same on every numpy)
HOST_NUMPY = {n: _in1d if n == "in1d" else getattr(onp, n) for n in HOST_FUNCS}


def _host_node(name):
    """The graph node of host function ``name`` (F.np.unique in a hybridized block): its
    result's shape depends on the values, so graphs holding it run imperatively."""
    def fn(*data, call: _literal = ((), ())):
        raise MXNetError(f"{name}: the shape of its result depends on the input values, which "
                         f"a compiled graph cannot have; xnd runs it imperatively (a "
                         f"hybridized block holding it runs as if not hybridized)")
    fn.__name__ = f"_npi_{name}"
    count = {"unique": lambda pos, kw: 1 + sum(bool(_static(pos, kw, i, k, False)) for i, k in (
        (1, "return_index"), (2, "return_inverse"), (3, "return_counts")))}.get(name)
    register(f"_npi_{name}", num_outputs=(lambda attrs: count(*_literal(attrs["call"])))
             if count else 1)(fn)
    _get_op(f"_npi_{name}").imperative = True


for _n in HOST_FUNCS:
    if f"_npi_{_n}" not in _REGISTERED:  # (histogram's operator is the legacy one's)
        _host_node(_n)

NP_FUNCS = {}
for _n in _BINARY:
    NP_FUNCS[_n] = (getattr(jnp, _n), "binary")
_EXACT_ON_INT = set("abs absolute negative positive sign square floor ceil trunc rint fabs".split())
_INT_FORM_OF = {"deg2rad": "radians", "rad2deg": "degrees"}


def _int_math_np(name, f):
    """Float math of an integer array as the legacy operators compute it (elemwise's rule:
    in double, MXNet's conversion back; degrees/radians their own forms)."""
    form = _elemwise.INT_FORMS.get(_INT_FORM_OF.get(name, name))

    def run(a, *rest, **kw):
        if rest or kw or not jnp.issubdtype(jnp.asarray(a).dtype, jnp.integer):
            return f(a, *rest, **kw)
        a = jnp.asarray(a)
        return form(a) if form is not None else int_math(f, a)
    return run


for _n in _UNARY_KEEP:
    _f = _elemwise._log10 if _n == "log10" else getattr(jnp, _n)  # exact at powers of ten
    NP_FUNCS[_n] = (_f if _n in _EXACT_ON_INT else _int_math_np(_n, _f), "keep")
NP_FUNCS["fix"] = (jnp.trunc, "keep")
NP_FUNCS["negative"] = (lambda a: -(a.astype(_I64) if a.dtype == _BOOL else a), "keep")
for _n in _REDUCE_KEEP + _STAT_KEEP:
    NP_FUNCS[_n] = (_accumulating(getattr(jnp, _n)) if _n in _ACCUMULATE else getattr(jnp, _n),
                    "keep_int")
for _n in _PLAIN:
    if _n in dir(jnp):  # (hasattr would trip jnp's deprecation errors)
        NP_FUNCS[_n] = (getattr(jnp, _n), "")
# MXNet 1.9.1's mx.np.row_stack is vstack (newer jax dropped jnp.row_stack)
NP_FUNCS.setdefault("row_stack", (jnp.vstack, ""))
NP_FUNCS.update({
    "mean": (_mean, ""),
    "spacing": (_spacing, ""),
    "mod": (_remainder, "binary"),
    "remainder": (_remainder, "binary"),
    "sort": (lambda a, axis=-1, kind=None, order=None: jnp.sort(a, axis=axis), ""),
    "argsort": (lambda a, axis=-1, kind=None, order=None: jnp.argsort(a, axis=axis), ""),
    "broadcast_to": (lambda a, shape: jnp.broadcast_to(a, _npx_target_shape(jnp.shape(a),
                                                                             shape)), ""),
    "transpose": (_transpose, ""),
    **{n: (_dim_split(n, d), "") for n, d in (("hsplit", 1), ("vsplit", 2), ("dsplit", 3))},
    "split": (_split, ""),
    "array_split": (lambda ary, indices_or_sections, axis=0:
                    _split(ary, indices_or_sections, axis, equal=False), ""),
    "insert": (lambda arr, obj, values, axis=None: jnp.insert(arr, _indices(obj), values, axis),
               ""),
    "delete": (_delete, ""),
    "argmax": (_arg_extreme(jnp.argmax), ""),
    "unravel_index": (_unravel_index, ""),
    "empty_like": (lambda prototype, dtype=None, order="C", subok=False, shape=None:
                   jnp.zeros_like(prototype, dtype, shape=shape), ""),
    **{n: (_window(getattr(jnp, n)), "") for n in ("hanning", "hamming", "blackman")},
    "round": (_round, ""),
    "around": (_round, ""),
    "round_": (_round, ""),
    "clip": (_clip, ""),
    "argmin": (_arg_extreme(jnp.argmin), ""),
    "meshgrid": (lambda *xs, **kw: jnp.meshgrid(*(jnp.ravel(x) for x in xs), **kw), ""),
    "tril": (lambda m, k=0: _tri_mask(m, k, False), ""),
    "triu": (lambda m, k=0: _tri_mask(m, k, True), ""),
    "squeeze": (lambda a, axis=None: a if a.ndim == 0 else jnp.squeeze(a, axis), ""),
    "linspace": (_linspace, ""),
    "logspace": (_logspace, ""),
    "getitem": (_getitem, ""),
    "take": (_take, ""),
    "astype": (cast_passing_grad, ""),
    "arange": (jnp.arange, ""),
    "zeros": (jnp.zeros, ""),
    "ones": (jnp.ones, ""),
    "float_cast": (_cast_float, ""),
    # linear algebra (mx.np.linalg)
    **{f"linalg_{n}": (getattr(jnp.linalg, n), "") for n in (
        "norm svd cholesky qr inv det slogdet eig eigh eigvals eigvalsh pinv solve lstsq "
        "matrix_rank matrix_power multi_dot tensorinv tensorsolve cond").split()
       if hasattr(jnp.linalg, n)},
    "quantile": (_quantile(1.0), ""),
    "percentile": (_quantile(100.0), ""),
    "linalg_tensorsolve": (_tensorsolve, ""),
    # MXNet's eig supports real eigenvalues only: real arrays, not numpy's complex ones
    "linalg_eig": (lambda a: tuple(x.real for x in jnp.linalg.eig(a)), ""),
    "linalg_eigvals": (lambda a: jnp.linalg.eigvals(a).real, ""),
    # MXNet takes ord='inf' / '-inf' as strings too
    "linalg_norm": (lambda x, ord=None, axis=None, keepdims=False: jnp.linalg.norm(
        x, float(ord) if ord in ("inf", "-inf") else ord, axis, keepdims), ""),
    # MXNet's svd is the reduced one (ut (..., M, M), l, v (..., M, N)), differentiable
    "linalg_svd": (lambda a, full_matrices=False, compute_uv=True, hermitian=False:
                   jnp.linalg.svd(a, full_matrices, compute_uv, hermitian), ""),
    # numpy reads only the UPLO triangle; jnp symmetrizes the input unless told not to
    "linalg_eigh": (lambda a, UPLO="L": jnp.linalg.eigh(a, UPLO, symmetrize_input=False), ""),
    "linalg_eigvalsh": (lambda a, UPLO="L": jnp.linalg.eigh(a, UPLO, symmetrize_input=False)[0],
                        ""),
})

for _n, (_f, _r) in NP_FUNCS.items():
    _make(_n, _f, _r)

assert jax  # jnp needs jax imported


# ---- numpy-extension operators without a legacy counterpart ----------------------------
def _masked(log):
    def fn(data, mask, axis=-1, temperature=1.0):
        x = data / temperature
        m = mask.astype(bool)
        x = jnp.where(m, x, -jnp.inf)
        out = jax.nn.log_softmax(x, axis=axis) if log else jax.nn.softmax(x, axis=axis)
        return jnp.where(m, out, -jnp.inf if log else 0.0).astype(data.dtype)
    return fn


def npx_reshape_shape(shape, newshape, reverse=False):
    """The result shape of npx.reshape's codes (MXNet's numpy extension, not legacy Reshape)."""
    src, codes = list(shape), list(newshape)
    if reverse:
        src, codes = src[::-1], codes[::-1]
    out, i, j, infer = [], 0, 0, None
    while j < len(codes):
        c = codes[j]
        if c >= 0:
            out.append(c); i += 1
        elif c == -1:
            infer = len(out); out.append(-1); i += 1
        elif c == -2:
            out.append(src[i]); i += 1
        elif c == -3:
            if src[i] != 1:
                raise ValueError(f"npx.reshape: -3 drops a size-1 axis, axis {i} has size {src[i]}")
            i += 1
        elif c == -4:
            out.extend(src[i:]); i = len(src)
        elif c == -5:
            out.append(src[i] * src[i + 1]); i += 2
        elif c == -6:
            a, b = codes[j + 1], codes[j + 2]
            if a == -1:
                a = src[i] // b
            if b == -1:
                b = src[i] // a
            out.extend([a, b]); i += 1; j += 2
        else:
            raise ValueError(f"npx.reshape: unknown code {c}")
        j += 1
    if infer is not None:
        known = 1
        for k, d in enumerate(out):
            if k != infer:
                known *= d
        total = 1
        for d in src:
            total *= d
        out[infer] = total // known if known else 0
    if reverse:
        out = out[::-1]
    return tuple(out)


def _npx_reshape(a, newshape, reverse=False):
    return a.reshape(npx_reshape_shape(a.shape, newshape, reverse))


def _constraint_check(input, msg="Constraint violated"):
    """npx.constraint_check: True (a 0-d bool) when every element of ``input`` is; otherwise
    MXNet's ValueError(msg) when the result is read (_constraint_holds)."""
    return jnp.all(input)


def _constraint_holds(attrs, *data):
    got = _bound(attrs, data, ("input", "msg"))
    if not onp.asarray(got["input"]).all():
        raise ValueError(got.get("msg", "Constraint violated"))


_KERNEL_CHECKS["constraint_check"] = _constraint_holds

# registry functions of mx.npx only (not in mx.np)
NPX_ONLY = ("masked_softmax", "masked_log_softmax", "npx_reshape", "constraint_check")
for _n, _f in (("masked_softmax", _masked(False)), ("masked_log_softmax", _masked(True)),
               ("npx_reshape", _npx_reshape), ("constraint_check", _constraint_check)):
    NP_FUNCS[_n] = (_f, "")
    _make(_n, _f, "")
