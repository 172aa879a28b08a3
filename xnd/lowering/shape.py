"""Shape manipulation: Reshape (MXNet's special codes), transpose, broadcast,
concat/stack/split, slicing, tiling.
"""
import math

import jax
import jax.numpy as jnp
from jax import lax

from ..base import MXNetError
from ..semantics import is_np_shape
from .attrs import Bool, Dtype, Int, Int32, IntOrShape, OptShape, Shape, optional
from .dtypes import REAL_RUN, c_cast, real_ints, same_dtype
from .elemwise import same_shapes
from .registry import register


def infer_reshape(op, src, codes, reverse=False):
    """MXNet's Reshape codes: 0 copy, -1 infer, -2 copy rest, -3 merge two, -4 split one."""
    src, codes = tuple(src), list(codes)
    if reverse:
        src, codes = src[::-1], codes[::-1]
    out, i, j = [], 0, 0
    while j < len(codes):
        c = codes[j]
        if c == 0:
            out.append(src[i]); i += 1
        elif c == -1:
            out.append(-1); i += 1
        elif c == -2:
            out.extend(src[i:]); i = len(src)
        elif c == -3:
            out.append(src[i] * src[i + 1]); i += 2
        elif c == -4:
            a, b = codes[j + 1], codes[j + 2]
            if reverse:
                a, b = b, a
            d = src[i]
            if 0 in (a, b) and -1 in (a, b):  # MXNet divides by the 0 (SIGFPE)
                raise MXNetError(f"{op}: cannot split dimension {d} into ({a}, {b}): -1 "
                                 f"cannot be inferred next to a 0")
            if a == -1:
                a = d // b
            if b == -1:
                b = d // a
            if a * b != d:
                raise MXNetError(f"{op}: cannot split dimension {d} into ({a}, {b})")
            out.extend((b, a) if reverse else (a, b)); i += 1; j += 2
        elif c > 0:
            out.append(c); i += 1
        else:
            raise MXNetError(f"{op}: invalid shape code {c}")
        j += 1
    if reverse:
        out = out[::-1]
    size = math.prod(src)
    if out.count(-1) > 1:
        raise MXNetError(f"{op}: more than one -1 in shape {tuple(codes)}")
    if -1 in out:
        rest = math.prod(d for d in out if d != -1)
        if rest == 0 or size % rest:
            raise ValueError(f"Cannot reshape array of size {size} into shape {tuple(codes)}")
        out[out.index(-1)] = size // rest
    if math.prod(out) != size:
        raise ValueError(f"Cannot reshape array of size {size} into shape {tuple(codes)}")
    return tuple(out)


@register("Reshape", "reshape")
def reshape(data, *, shape: Shape = (), reverse: Bool = False, target_shape: Shape = (),
            keep_highest: Bool = False):
    """MXNet's Reshape codes (``infer_reshape``). The deprecated ``target_shape`` (used when
    ``shape`` is not given) has a single 0 for the dim inferred from the size, and with
    ``keep_highest`` its first dim is the data's. Where MXNet truncates a size that does not
    divide (a (7, 0) of 150 elements is (7, 21) there), xnd raises."""
    if shape or not target_shape:
        return data.reshape(infer_reshape("Reshape", data.shape, shape, reverse))
    dims = list(target_shape)
    if keep_highest:
        dims[0] = data.shape[0]
    if dims.count(0) > 1:
        raise MXNetError(f"Reshape: target_shape {tuple(target_shape)} may have one 0 only")
    if 0 in dims:
        rest = math.prod(d for d in dims if d)
        dims[dims.index(0)] = data.size // rest if rest else 0
    if math.prod(dims) != data.size:
        raise MXNetError(f"Reshape: cannot reshape array of shape {data.shape} to target_shape "
                         f"{tuple(target_shape)}")
    return data.reshape(dims)


def _span(n, begin, end):
    b = 0 if begin is None else (begin + n if begin < 0 else begin)
    e = n if end is None else (end + n if end < 0 else end)
    return b, e


@register("reshape_like")
def reshape_like(lhs, rhs, *, lhs_begin: optional(Int) = None, lhs_end: optional(Int) = None,
                 rhs_begin: optional(Int) = None, rhs_end: optional(Int) = None):
    """MXNet's reshape_like: lhs's dims [lhs_begin, lhs_end) become rhs's dims
    [rhs_begin, rhs_end) (None: the start / the end; negative: from the end)."""
    lb, le = _span(lhs.ndim, lhs_begin, lhs_end)
    rb, re_ = _span(rhs.ndim, rhs_begin, rhs_end)
    shape = lhs.shape[:lb] + rhs.shape[rb:re_] + lhs.shape[le:]
    if not (0 <= lb <= le <= lhs.ndim and 0 <= rb <= re_ <= rhs.ndim) or \
            math.prod(shape) != lhs.size:
        raise MXNetError(f"reshape_like: cannot reshape {lhs.shape} like {rhs.shape} (lhs dims "
                         f"[{lhs_begin}, {lhs_end}), rhs dims [{rhs_begin}, {rhs_end}))")
    return lhs.reshape(shape)


@register("Flatten", "flatten")
def flatten(data):
    """(N, d1, d2, ...) -> (N, d1*d2*...); a 1-D (N,) becomes (N, 1)."""
    return data.reshape((data.shape[0] if data.ndim else 1, -1))


def _axis(op, axis, ndim):
    if not -ndim <= axis < ndim:
        raise MXNetError(f"{op}: axis {axis} is out of bounds for an array of {ndim} dimension(s)")
    return axis % ndim


@register("expand_dims")
def expand_dims(data, *, axis: Int):
    return jnp.expand_dims(data, _axis("expand_dims", axis, data.ndim + 1))


@register("squeeze")
def squeeze(data, *, axis: IntOrShape = None):
    """Never 0-d: squeezing everything out of (1, 1) gives (1,)."""
    if axis is None:
        axes = tuple(i for i, d in enumerate(data.shape) if d == 1)
    else:
        axes = tuple(_axis("squeeze", a, data.ndim) for a in ((axis,) if isinstance(axis, int) else axis))
        for a in axes:
            if data.shape[a] != 1:
                raise MXNetError(f"squeeze: cannot select an axis to squeeze out which has size "
                                 f"{data.shape[a]} not equal to one (axis {a}, shape {data.shape})")
    out = jnp.squeeze(data, axes)
    return out.reshape((1,)) if out.ndim == 0 else out


@register("transpose")
def transpose(data, *, axes: Shape = ()):
    return jnp.transpose(data, axes or None)


@register("SwapAxis", "swapaxes")
def swapaxes(data, *, dim1: Int32 = 0, dim2: Int32 = 0):
    """A negative dim counts from the end; MXNet's check names the axis after that."""
    for k, d in (("1", dim1), ("2", dim2)):
        a = d + data.ndim if d < 0 else d
        if not 0 <= a < data.ndim:
            raise MXNetError(f"SwapAxis: axis{k}: Check failed: axis{k} >= 0 && axis{k} < "
                             f"shape0.ndim(): axis {d} is out of bounds for array of ndim "
                             f"{data.ndim}")
    return jnp.swapaxes(data, dim1, dim2)


@register("broadcast_to")
def broadcast_to(data, *, shape: Shape = ()):
    """A 0 in ``shape`` keeps the input dimension."""
    if len(shape) != data.ndim:
        raise MXNetError(f"broadcast_to: shape {shape} must have {data.ndim} dimensions like the input "
                         f"{data.shape}")
    target = tuple(s if t == 0 else t for s, t in zip(data.shape, shape))
    for s, t in zip(data.shape, target):
        if s != t and s != 1:
            raise MXNetError(f"broadcast_to: cannot broadcast {data.shape} to {target}")
    return jnp.broadcast_to(data, target)


@register("broadcast_axis", "broadcast_axes")
def broadcast_axis(data, *, axis: Shape = (), size: Shape = ()):
    target = list(data.shape)
    for a, s in zip(axis, size):
        a = _axis("broadcast_axis", a, data.ndim)
        if data.shape[a] != 1:
            raise MXNetError(f"broadcast_axis: axis {a} has size {data.shape[a]}, expected 1")
        target[a] = s
    return jnp.broadcast_to(data, tuple(target))


@register("broadcast_like")
def broadcast_like(lhs, rhs, *, lhs_axes: optional(Shape) = None, rhs_axes: optional(Shape) = None):
    """lhs broadcast to rhs's shape, or only its ``lhs_axes`` (each of size 1) to the sizes of
    rhs's ``rhs_axes``, with MXNet's checks."""
    if lhs_axes is None and rhs_axes is None:
        return broadcast_to(lhs, shape=rhs.shape)
    lhs_axes, rhs_axes = tuple(lhs_axes or ()), tuple(rhs_axes or ())
    if not lhs_axes or not rhs_axes:
        raise MXNetError("broadcast_like: Empty axes tuple is not allowed")
    if len(lhs_axes) != len(rhs_axes):
        raise MXNetError(f"broadcast_like: lhs_axes {lhs_axes} and rhs_axes {rhs_axes} differ "
                         f"in size")
    target = list(lhs.shape)
    for la, ra in zip(lhs_axes, rhs_axes):
        for name, a, shape in (("lhs_axes", la, lhs.shape), ("rhs_axes", ra, rhs.shape)):
            if not -len(shape) <= a < len(shape):
                raise MXNetError(f"broadcast_like: Invalid dimension specified in {name}: {a} "
                                 f"(shape {shape})")
        if lhs.shape[la] != 1 and lhs.shape[la] != rhs.shape[ra]:
            raise MXNetError(f"broadcast_like: Input axis {la} at dimension {lhs.shape[la]} "
                             f"cannot be broadcasted to {rhs.shape[ra]}")
        target[la] = rhs.shape[ra]
    return jnp.broadcast_to(lhs, tuple(target))


def _tile_reps(attrs, data):
    # checked on every call, not when tracing: a kernel traced under np_shape is reused outside
    reps = attrs["reps"]
    if any(r < 0 for r in reps) or (0 in reps and not is_np_shape()):
        raise MXNetError(f"Operator tile: reps {reps} must be positive (0 is allowed only under "
                         f"mx.np_shape()), data shape {tuple(data.shape)}")


@register("tile", check=_tile_reps)
def tile(data, *, reps: Shape):
    """MXNet's tile. A negative rep is an error, and so is a 0 in the legacy shape semantics,
    where the zero-size result it makes reads as an unknown shape."""
    return jnp.tile(data, reps)


@register("repeat")
def repeat(data, *, repeats: Int, axis: optional(Int) = None):
    return jnp.repeat(data, repeats, axis=axis)


@register("reverse", "flip")
def flip(data, *, axis: IntOrShape):
    return jnp.flip(data, axis)


@register("clip")
def clip(data, *, a_min: float, a_max: float):
    """x < a_min -> a_min, else x > a_max -> a_max (so a_min > a_max gives a_min below, a_max above)."""
    lo, hi = jnp.asarray(a_min).astype(data.dtype), jnp.asarray(a_max).astype(data.dtype)
    return jnp.where(data < lo, lo, jnp.where(data > hi, hi, data))


def _concat_shapes(attrs, shapes):
    """An unknown input has the known inputs' shape, its size along ``dim`` unknown (0)."""
    known = next((s for s in shapes if s is not None), None)
    if known is None:
        return shapes
    dim = attrs["dim"] % len(known)
    return [s if s is not None else tuple(0 if i == dim else d for i, d in enumerate(known))
            for s in shapes]


@register("Concat", "concat", param_shapes=_concat_shapes)
def concat(*data, dim: Int = 1, num_args: Int = None):
    data = real_ints(*data)
    same_dtype("Concat", *data)
    return jnp.concatenate(data, axis=dim)


@register("stack")
def stack(*data, axis: Int = 0, num_args: Int = None):
    data = real_ints(*data)
    same_dtype("stack", *data)
    return jnp.stack(data, axis=axis)


@register("SliceChannel", "split", num_outputs=lambda a: a["num_outputs"])
def split(data, *, num_outputs: Int, axis: Int = 1, squeeze_axis: Bool = False):
    axis = _axis("split", axis, data.ndim)
    if data.shape[axis] % num_outputs:
        raise MXNetError(f"split: axis {axis} of shape {data.shape} is not divisible by "
                         f"num_outputs={num_outputs}")
    parts = jnp.split(data, num_outputs, axis=axis)
    if squeeze_axis:
        parts = [jnp.squeeze(p, axis) for p in parts]
    return tuple(parts)


def _slices(op, shape, begin, end, step):
    step = step or ()
    out = []
    for i, n in enumerate(shape):
        b = begin[i] if i < len(begin) else None
        e = end[i] if i < len(end) else None
        s = step[i] if i < len(step) and step[i] is not None else 1
        if s == 0:
            raise MXNetError(f"{op}: slice step cannot be 0")
        out.append(slice(b, e, s))
    return tuple(out)


@register("slice", "crop", "_slice")
def slice_(data, *, begin: OptShape, end: OptShape, step: OptShape = ()):
    if len(begin) > data.ndim or len(end) != len(begin):
        raise MXNetError(f"slice: begin {begin} and end {end} must have the same length <= ndim of "
                         f"{data.shape}")
    return _strided(data, _slices("slice", data.shape, begin, end, step))


def _strided(data, slices):
    """``data[slices]`` as lax.rev and lax.slice: jax 0.4.30 turns strided indexing into a
    gather, which neither runs on the host path (host_eval) nor is as cheap."""
    rev, starts, limits, strides = [], [], [], []
    for d, (sl, n) in enumerate(zip(slices, data.shape)):
        b, e, st = sl.indices(n)
        count = max(0, -(-(e - b) // st))
        if st < 0:
            rev.append(d)
            b, st = n - 1 - b, -st
        starts.append(b if count else 0)
        limits.append(b + (count - 1) * st + 1 if count else 0)
        strides.append(st)
    if rev:
        data = lax.rev(data, rev)
    return lax.slice(data, starts, limits, strides)


@register("slice_axis")
def slice_axis(data, *, axis: Int, begin: Int, end: optional(Int) = None):
    axis = _axis("slice_axis", axis, data.ndim)
    n = data.shape[axis]
    b = begin + n if begin < 0 else begin
    e = n if end is None else (end + n if end < 0 else end)
    if b < 0:
        raise MXNetError(f"slice_axis: Invalid begin for begin={begin}")
    if e > n:
        raise MXNetError(f"slice_axis: Invalid end for end={end} as axis_size is {n}")
    if not b < e:
        raise MXNetError(f"slice_axis: Invalid begin, end, get begin={begin}, end={end}")
    key = [slice(None)] * data.ndim
    key[axis] = slice(b, e)
    return data[tuple(key)]


@register("slice_like")
def slice_like(data, shape_like, *, axes: Shape = ()):
    axes = axes or tuple(range(min(data.ndim, shape_like.ndim)))
    key = [slice(None)] * data.ndim
    for a in axes:
        a = a % data.ndim
        key[a] = slice(0, shape_like.shape[a])
    return data[tuple(key)]


@register("Cast", "cast", elementwise=True)
def cast(data, *, dtype: Dtype):
    """Float -> int truncates toward zero; out-of-range values wrap like C casts. The gradient
    is the head's, cast back to the input's dtype, even from an integer output (traced
    under ``dtypes.real_run`` the result keeps a float dtype to carry it)."""
    return cast_passing_grad(data, dtype)


def cast_passing_grad(data, dtype):
    """``data`` cast to ``dtype`` as MXNet's casts do (Cast, ``np.astype``, a reduction's
    ``dtype=``): under ``dtypes.real_run`` a float -> int cast keeps the float dtype, with the
    integer values, so that the gradient passes through it."""
    out = _cast(data, dtype)
    if REAL_RUN.active and jnp.issubdtype(data.dtype, jnp.floating) and \
            jnp.issubdtype(out.dtype, jnp.integer):
        return data + jax.lax.stop_gradient(out.astype(data.dtype) - data)
    return out


def _cast(x, dtype):
    return c_cast(x, jnp.dtype(dtype))  # float -> int: MXNet's x86 conversion (dtypes)


@register("cumsum", "_np_cumsum")
def cumsum(a, *, axis: optional(Int) = None, dtype: Dtype = None):
    """NumPy's cumsum: flattened when axis is None."""
    return jnp.cumsum(a.reshape(-1) if axis is None else a, axis=0 if axis is None else axis,
                      dtype=dtype)


@register("_split_v2", num_outputs=lambda a: _v2_count(a))
def split_v2(data, *, indices: Shape = (), axis: Int = 0, squeeze_axis: Bool = False,
             sections: Int = 0):
    """Split at ``indices`` (positions along axis), or into ``sections`` equal parts."""
    axis = _axis("split_v2", axis, data.ndim)
    if sections > 0:
        if data.shape[axis] % sections:
            raise MXNetError(f"split_v2: axis {axis} of {data.shape} not divisible by {sections}")
        parts = jnp.split(data, sections, axis=axis)
    else:
        parts = jnp.split(data, [i for i in indices if i > 0], axis=axis)
    if squeeze_axis:
        parts = [jnp.squeeze(p, axis) for p in parts]
    return tuple(parts)


def _v2_count(a):
    return a["sections"] if a["sections"] > 0 else len([i for i in a["indices"] if i > 0]) + 1


@register("shape_array")
def shape_array(data):
    return jnp.asarray(data.shape, jnp.int64)


@register("size_array")
def size_array(data):
    return jnp.asarray([data.size], jnp.int64)


@register("diag")
def diag(data, *, k: Int = 0, axis1: Int = 0, axis2: Int = 1):
    if data.ndim == 1:
        return jnp.diag(data, k)
    h, w = data.shape[_axis("diag", axis1, data.ndim)], data.shape[_axis("diag", axis2, data.ndim)]
    if (min(h, w - k) if k >= 0 else min(h + k, w)) < 0:
        raise MXNetError(f"diag: Diagonal does not exist (k={k} for a {h}x{w} plane)")
    return jnp.diagonal(data, k, axis1, axis2)


def _where_shapes(attrs, shapes):
    """x and y complete each other's shape, and a condition of their rank completes theirs,
    as MXNet's where shape function assigns them (a begin state ``F.zeros(shape=(0, C))``
    masked by a (N, C) condition is (N, C)); a 1-D condition completes nothing."""
    c, x, y = shapes
    x, y = same_shapes(attrs, [x, y])
    ref = x if x is not None else y
    if c is None or 0 in c or ref is None or len(c) != len(ref):
        return [c, x, y]
    return [c, *same_shapes(attrs, [tuple(c), x, y])[1:]]


@register("where", param_shapes=_where_shapes)
def where(condition, x, y):
    """Same-shape condition, or a 1-D condition of length N selecting whole rows."""
    x, y = real_ints(x, y)
    same_dtype("where", x, y)
    if x.shape != y.shape:
        raise MXNetError(f"where: x and y must have the same shape, got {x.shape} and {y.shape} "
                         f"(Operator where inferring shapes failed)")
    if condition.shape != x.shape:
        if condition.ndim == 1 and condition.shape[0] == x.shape[0]:
            condition = condition.reshape((-1,) + (1,) * (x.ndim - 1))
        else:
            raise MXNetError(f"where: condition shape {condition.shape} must equal {x.shape} or be "
                             f"({x.shape[0]},)")
    return jnp.where(condition != 0, x, y)


@register("_contrib_arange_like")
def arange_like(data, *, start: float = 0.0, step: float = 1.0, repeat: Int = 1,
                axis: optional(Int) = None):
    n = data.size if axis is None else data.shape[axis]
    r = start + step * jnp.floor(jnp.arange(n) / repeat)
    r = r.astype(data.dtype)
    return r.reshape(data.shape) if axis is None else r


def _sized(op, shape):
    """A creation op's shape, which must be known when it runs: in a graph, -1 dims are
    inferred from the op's consumers (symbol/infer.py) before the executor runs it."""
    if -1 in shape:
        raise MXNetError(f"Operator {op}: shape {tuple(shape)} has unknown (-1) dims: Shape dim "
                         f"size cannot be a negative value -1")
    return shape


@register("_zeros", "zeros")
def zeros(*, shape: Shape = (), dtype: Dtype = "float32"):
    return jnp.zeros(_sized("_zeros", shape), dtype)


@register("_ones", "ones")
def ones(*, shape: Shape = (), dtype: Dtype = "float32"):
    return jnp.ones(_sized("_ones", shape), dtype)


@register("_full", "full")
def full(*, shape: Shape = (), value: float = 0.0, dtype: Dtype = "float32"):
    return _cast(jnp.full(_sized("_full", shape), value, jnp.float64), dtype)


@register("_arange", "arange")
def arange(*, start: float = 0.0, stop: optional(float) = None, step: float = 1.0, repeat: Int = 1,
           infer_range: Bool = False, dtype: Dtype = "float32"):
    """Length from the float range, values ``start + i*step`` computed in ``dtype``:
    arange(0, 1, 0.3) -> [0, 0.3, 0.6, 0.90000004]; with dtype int32 and step 1.5 the step
    itself is cast (-> 0, 1, 2, 3)."""
    if stop is None:
        start, stop = 0.0, start
    if step == 0:
        raise MXNetError(f"arange: Range does not support step=0, received {step}")
    n = math.ceil((stop - start) / step)
    if n <= 0:
        raise MXNetError(f"arange: invalid range start={start}, stop={stop}, step={step} (empty)")
    dt = jnp.dtype(dtype)
    r = _cast(jnp.asarray(start), dt) + _cast(jnp.asarray(step), dt) * jnp.arange(n).astype(dt)
    return jnp.repeat(r, repeat) if repeat > 1 else r


@register("_eye", "eye")
def eye(*, N: Int, M: Int = 0, k: Int = 0, dtype: Dtype = "float32"):
    return jnp.eye(N, M or N, k, dtype=dtype)


@register("_linspace", "linspace")
def linspace(*, start: float, stop: float, num: Int, endpoint: Bool = True, dtype: Dtype = "float32"):
    return jnp.linspace(start, stop, num, endpoint=endpoint, dtype=jnp.float64).astype(dtype)
