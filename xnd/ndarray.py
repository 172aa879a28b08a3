"""The NDArray: a mutable MXNet handle over an immutable ``jax.Array``.

In-place writes (``+=``, ``x[:] = v``, ``out=``) rebind the handle's buffer, so ``id(x)`` and
every Python reference stay valid. Views (contiguous basic indexing, ``reshape``, ``detach``)
are handles onto a root array plus a flat offset and a shape: MXNet's views are always one
contiguous block of the row-major buffer, so (root, offset, shape) describes every one of
them, and a view of a view is again one. Reads recompute the block when the root's buffer
changed; writes update the root.

Every operator goes through ``invoke``: registry op, frozen attributes, the cached jitted
kernel, then (when recording) the autograd hook in ``STATE``.
"""
import collections
import ctypes
import math
import numbers
import threading
import time
import warnings
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from . import _compat_jax, _transfer
from . import engine as _engine
from . import lowering
from . import rng as _rng
from .base import MXNetError, error_like
from .context import Context, current_context
from .lowering import bucket, host_eval, live_executables, registry
from .lowering.indexing import index_plan as _plan_index
from .lowering.dtypes import np_dtype
from .engine import Awaited as _Awaited, Failed as _Failed

py_slice = slice  # MXNet's name for the builtin (its module defines an op called slice)
_SPARSE = [None, None]  # xnd/sparse's (dispatch of ops on sparse arrays, cast_storage)
_STORAGE_TYPE_UNDEFINED, _STORAGE_TYPE_DEFAULT = -1, 0
_STORAGE_TYPE_STR_TO_ID = {"undefined": -1, "default": 0, "row_sparse": 1, "csr": 2}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}

jax.config.update("jax_enable_x64", True)  # MXNet has real float64/int64 arrays
# an out= buffer is donated on a guess that the result fits: XLA allocates where it does not
warnings.filterwarnings("ignore", message="Some donated buffers were not usable")


class GradReqError(MXNetError, KeyError):
    """A grad_req outside write/add/null (MXNet raises KeyError: catching either works);
    ``mx.autograd.GradReqError``."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


class _State(threading.local):
    """Autograd's flags and hooks; xnd.autograd fills them in (the core never imports it).

    The flags are per thread, as MXNet's ``is_recording``/``is_training`` are: a DataLoader
    thread's transforms are not recorded by the main thread's ``autograd.record()``.  The
    hooks are class attributes, shared by every thread."""
    recording = False
    training = False
    record = None      # record(op, attrs, inputs, outputs) while recording
    on_write = None    # on_write(ndarray) before an in-place write while recording
    backward = None    # autograd.backward(heads, head_grads, retain_graph, train_mode)


STATE = _State()
_RECENT = collections.deque(maxlen=16)  # weak refs to the newest results, for nd.waitall()
_ref = weakref.ref
_new = object.__new__
_HOST, _HOST_OK = host_eval.Seen(), host_eval.eligible  # new shapes: numpy (host_jaxpr)
_FLAT = bucket.Flat()  # elementwise ops on new shapes: one kernel per bucketed length


def _wrap(data, ctx):
    x = _new(NDArray)
    x._data, x._ctx, x._base, x._grad, x._ag, x._shared = data, ctx, None, None, None, False
    return x


def copy_buffer(value, device):
    """A new buffer holding ``value`` on ``device``, compiling no copy kernel for each new
    shape (as ``jnp.array(copy=True)`` does)."""
    return _compat_jax.fresh_copy(value, device)


def _wrap_results(values, ctx):
    """NDArrays of values a whole program produced outside ``invoke`` (hybridized inference):
    synchronous under NaiveEngine, and covered by ``nd.waitall()``, as invoke's results are."""
    if _engine.NAIVE:
        _engine.sync(values)
    _RECENT.extend(_ref(v) for v in values)
    return [_wrap(v, ctx) for v in values]


_SCALARS, _KNOWN = (numbers.Number, np.bool_), (_Failed, _Awaited)  # _KNOWN: shape without a run
_HANDLES = weakref.WeakValueDictionary()  # id -> array, for handles given out (_as_parameter_)


class NDArray:
    """MXNet's n-dimensional array (mx.nd.NDArray)."""

    __slots__ = ("_data", "_ctx", "_base", "_offset", "_shape", "_src", "_grad", "_grad_req",
                 "_ag", "_shared", "_fresh", "__weakref__")
    __array_priority__ = 1000.0  # numpy defers `np_array + nd_array` to us (we raise TypeError)

    def __init__(self, handle, writable=True):
        """MXNet's ``NDArray(handle)``. xnd has no C handles: the only ones are those
        ``ctypes.cast(array, NDArrayHandle)`` makes of an xnd array, as monitor callbacks do
        (mx.monitor's own idiom), and the result is a view of that array."""
        src = _HANDLES.get(getattr(handle, "value", handle))
        if src is None:
            raise MXNetError(f"NDArray({handle!r}): xnd has no C library; an NDArray can only "
                             f"be made from the handle of an xnd array (ctypes.cast(array, "
                             f"NDArrayHandle))")
        v = src._view(0, src.shape)
        for k in ("_data", "_ctx", "_base", "_offset", "_shape", "_src", "_grad", "_ag",
                  "_shared"):
            setattr(self, k, getattr(v, k))

    @property
    def _as_parameter_(self):
        """What ctypes passes for this array (``ctypes.cast(array, NDArrayHandle)``): a handle
        ``NDArray(handle)`` turns back into this array."""
        _HANDLES[id(self)] = self
        return ctypes.c_void_p(id(self))

    @property
    def _fresh_grad(self):
        """MXNet's flag on a marked variable: whether a backward pass has written its
        gradient since the flag was last cleared (attach_grad/mark_variables clear it)."""
        return getattr(self, "_fresh", False)

    @_fresh_grad.setter
    def _fresh_grad(self, value):
        self._fresh = bool(value)

    # ---- buffer access ---------------------------------------------------------------
    def _val(self):
        """The current jax.Array of this handle (a view re-reads its root when it changed)."""
        b = self._base
        if b is None:
            d = self._data
            return d if d is not None else self._force()
        src = b._data
        if src is None:
            src = b._force()
        if self._src is not src:
            size = math.prod(self._shape)
            kern = _VIEW_READ.kernel((self._shape, size))
            self._data = kern(src, np.int64(self._offset))
            self._src = src
        return self._data

    def _set_val(self, value):
        """Replace the whole content with ``value`` (same shape and dtype)."""
        b = self._base
        if b is None:
            self._data = value
            return
        kern = _VIEW_WRITE.kernel((self._shape,))
        b._data = kern(b._val(), value, np.int64(self._offset))
        b._shared = False

    def _force(self):
        """Run a deferred large elementwise op (see ``_defer``), or deliver a failed op's
        error (``engine.Failed``: raised once, then the array reads as zeros)."""
        if type(self._src) is _Failed:
            failed = self._src
            self._data = jnp.zeros(failed.shape, failed.dtype, device=self._ctx.jax_device())
            self._src = None
            _PENDING.pop(id(self), None)
            failed.failure.deliver()
            return self._data
        if type(self._src) is _Awaited:
            self._src.resolve()  # fills the array, or leaves a Failed in it
            return self._data if self._data is not None else self._force()
        op, key, args, _ = self._src
        self._data = op.kernel(key)(*args)
        self._src = None
        _PENDING.pop(id(self), None)
        return self._data

    def _view(self, offset, shape):
        root = self if self._base is None else self._base
        base_off = 0 if self._base is None else self._offset
        v = _new(NDArray)
        v._data, v._ctx, v._base, v._grad, v._ag, v._shared = None, self._ctx, root, None, None, False
        v._offset, v._shape, v._src = base_off + offset, tuple(shape), None
        return v

    # ---- properties ----------------------------------------------------------------
    @property
    def shape(self):
        if self._base is not None:
            return self._shape
        d = self._data
        if d is None:
            d = self._src if type(self._src) in _KNOWN else self._force()
        return tuple(d.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def dtype(self):
        """A numpy type class (``numpy.float32``), as MXNet reports it."""
        root = self if self._base is None else self._base
        if root._data is None and type(root._src) in _KNOWN:
            return np.dtype(root._src.dtype).type
        return root._val().dtype.type

    @property
    def context(self):
        return self._ctx

    ctx = context

    @property
    def stype(self):
        return "default"

    @property
    def grad(self):
        return self._grad

    @property
    def handle(self):
        return self

    @property
    def writable(self):
        return True

    @property
    def T(self):
        return self.transpose()

    def __hash__(self):
        return id(self) // 16

    # ---- conversion and printing ------------------------------------------------------
    def asnumpy(self):
        """A fresh, writable numpy copy (blocks until the value is computed)."""
        with _READ_ALLOCATION:
            return np.array(self._val())

    def asscalar(self):
        if self.size != 1:
            raise ValueError("The current array is not a scalar")
        a = self.asnumpy()
        return a[0] if a.shape == (1,) else (a[()] if a.ndim == 0 else a)

    def _scalar(self):
        if self.size != 1:
            raise TypeError(f"only size-1 arrays can be converted to Python scalars, got {self.shape}")
        return self.asnumpy().reshape(())

    def __float__(self):  # extension: MXNet 1.9.1 raises TypeError
        return float(self._scalar())

    def __int__(self):  # extension, as __float__
        return int(self._scalar())

    def __index__(self):
        if self.size != 1 or not np.issubdtype(self.dtype, np.integer):
            raise TypeError("only integer size-1 arrays can be used as an index")
        return int(self)

    def __array__(self, dtype=None, copy=None):  # extension: np.array(x) gives numbers, not objects
        a = self.asnumpy()
        return a if dtype is None else a.astype(dtype)

    def __repr__(self):
        shape = "x".join(str(d) for d in self.shape)
        return f"\n{self.asnumpy()}\n<{type(self).__name__} {shape} @{self._ctx}>"

    __str__ = __repr__

    def __bool__(self):
        n = self.size
        if n == 0:
            return False
        if n == 1:
            return bool(self.asnumpy().reshape(()))
        raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")

    __nonzero__ = __bool__

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        for i in range(self.shape[0]):
            yield self[i]

    def __getstate__(self):
        from . import serialization
        return {"handle": bytearray(serialization.record_bytes(self.asnumpy()))}

    def __setstate__(self, state):
        from . import serialization
        arr = serialization.parse_record(bytes(state["handle"]))
        ctx = current_context()
        self._data = jax.device_put(arr, ctx.jax_device())
        self._ctx, self._base, self._grad, self._ag, self._shared = ctx, None, None, None, False

    # ---- synchronisation ------------------------------------------------------------
    def wait_to_read(self):
        with _READ_ALLOCATION:
            self._val().block_until_ready()

    wait_to_write = wait_to_read

    # ---- copies, dtypes, contexts --------------------------------------------------------
    def copy(self):
        if STATE.recording:
            return invoke(registry.get("_copy"), [self], {})
        return self.copyto(self._ctx)

    def copyto(self, other):
        """Copy into a new array on a context, or into an existing array (shapes must match)."""
        if isinstance(other, Context):
            if STATE.recording and other == self._ctx:
                return invoke(registry.get("_copy"), [self], {})
            failed = _held(self)
            if type(failed) is _Failed:
                return _failed(failed.failure, self.shape, self.dtype, other)
            res = _wrap(copy_buffer(self._val(), other.jax_device()), other)
            if STATE.recording and STATE.record is not None:  # the gradient flows back
                STATE.record(_OP_COPYTO, {}, [self], [res])
            return res
        if not isinstance(other, NDArray):
            raise TypeError(f"copyto does not support type {type(other).__name__}")
        if other is self:
            warnings.warn("You are attempting to copy an array to itself", RuntimeWarning)
            return False
        if STATE.recording:
            return invoke(registry.get("_copy"), [self], {}, out=other)
        if other.shape != self.shape:
            raise MXNetError(f"copyto: shape mismatch, source {self.shape} vs target {other.shape}")
        src = self._val()
        if src.dtype != other._val().dtype:
            src = src.astype(other.dtype)
        other._write(jax.device_put(src, other._ctx.jax_device()))
        self._shared = other._shared = True
        return other

    def as_in_context(self, context):
        if context == self._ctx:
            return self
        return self.copyto(context)

    as_in_ctx = as_in_context

    def astype(self, dtype, copy=True):
        dt = np_dtype(dtype, "astype")
        if not copy and dt == self.dtype:
            return self
        return invoke(_OP_CAST, [self], {"dtype": np.dtype(dt).name})

    def tostype(self, stype):
        return _SPARSE[1](self, stype)

    def detach(self):
        """A view sharing memory, cut from the autograd graph."""
        return self._view(0, self.shape)

    def attach_grad(self, grad_req="write", stype=None):
        if grad_req not in ("write", "add", "null"):
            raise GradReqError(f"grad_req must be one of 'write', 'add', 'null', got "
                                        f"{grad_req!r}")
        g = _wrap(_transfer.zeros(self.shape, self.dtype, self._ctx.jax_device()), self._ctx)
        self._grad, self._grad_req = (g if stype in (None, "default") else g.tostype(stype)), grad_req
        self._fresh = False
        self._ag = None

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        STATE.backward([self], None if out_grad is None else [out_grad], retain_graph, train_mode)

    # ---- shape methods that are views in MXNet -------------------------------------------
    def reshape(self, *shape, **kwargs):
        """MXNet reshape codes (0, -1, -2, -3, -4, reverse=True); returns a view."""
        reverse = kwargs.pop("reverse", False)
        if "shape" in kwargs:
            shape = kwargs.pop("shape")
        elif len(shape) == 1 and not isinstance(shape[0], numbers.Integral):
            shape = shape[0]
        if kwargs:
            raise TypeError(f"reshape() got unexpected keyword arguments {sorted(kwargs)}")
        if STATE.recording:
            return invoke(_OP_RESHAPE, [self], {"shape": tuple(shape), "reverse": bool(reverse),
                                                "target_shape": (), "keep_highest": False})
        from .lowering.shape import infer_reshape
        return self._view(0, infer_reshape("Reshape", self.shape, tuple(shape), reverse))

    def broadcast_to(self, shape):
        """The method (unlike the op) may add leading axes: (3,) -> (2, 3)."""
        shape = tuple(shape)
        x = self if len(shape) <= self.ndim else self.reshape((1,) * (len(shape) - self.ndim)
                                                             + self.shape)
        return invoke(registry.get("broadcast_to"), [x], {"shape": shape})

    # ---- indexing --------------------------------------------------------------------
    def __getitem__(self, key):
        plan = _index_plan(self.shape, key, self._ctx)
        if plan[0] == "view" and not (STATE.recording and (self._ag or hasattr(self, "_grad_req"))):
            return self._view(plan[1], plan[2])   # (recording: only a read the tape records)
        frozen, arrays = plan[-2], plan[-1]
        return invoke(_OP_GETITEM, [self, *arrays], {"index": frozen})

    def __setitem__(self, key, value):
        if (type(value) is NDArray and value._data is None and type(value._src) is tuple
                and self._base is None and self._data is not None and not STATE.recording
                and isinstance(key, slice) and key == _FULL and _consume(self, value)):
            return
        shape, dtype = self.shape, self.dtype
        plan = _index_plan(shape, key, self._ctx)
        if STATE.recording and STATE.on_write is not None:
            STATE.on_write(self)
        if isinstance(value, NDArray):
            val = value._val()
            if value._ctx is not self._ctx and value._ctx.jax_device() != self._ctx.jax_device():
                val = copy_buffer(val, self._ctx.jax_device())  # MXNet copies it over
                value = None
        else:
            host = np.asarray(value).astype(dtype)
            if (plan[0] == "view" and plan[2] == shape and host.shape != shape
                    and host.ndim <= len(shape) and math.prod(shape) <= host_eval.MAX_ELEMENTS
                    and _broadcastable(host.shape, shape)):
                # a fill (x[:] = 0, every initializer's constants): broadcast on the host,
                # not by a kernel compiled for each new shape
                host = np.ascontiguousarray(np.broadcast_to(host, shape))
            val = _transfer.to_device(host, self._ctx.jax_device())
        if plan[0] == "view" and not STATE.recording:
            target = plan[2]
            extra = val.ndim - len(target)
            if extra > 0 and all(d == 1 for d in val.shape[:extra]):
                val = val.reshape(val.shape[extra:])   # MXNet drops a value's leading 1s
            if not _broadcastable(val.shape, target):
                raise ValueError(f"operands could not be broadcast together: value of shape "
                                 f"{val.shape} cannot be assigned to the indexed shape {target} of "
                                 f"an array of shape {shape}")
            if val.dtype != dtype:
                val = val.astype(dtype)
            if target == shape and self._base is None:
                if val.ndim > len(shape):  # leading 1s
                    val = val.reshape(val.shape[-len(shape):] if shape else ())
                new = val if val.shape == shape else jnp.broadcast_to(val, shape)
                self._data, self._shared, self._ag = new, False, None
                if new is val and isinstance(value, NDArray):
                    _share(self, value)
                return
            self._view(plan[1], target)._set_val(val)
            self._ag = None
            return
        value_nd = value if isinstance(value, NDArray) else _wrap(val, self._ctx)
        res = invoke(_OP_SETITEM, [self, value_nd, *plan[-1]], {"index": plan[-2]})
        self._take(res)

    def _take(self, res):
        """Become ``res`` (an op result of my shape/dtype): the in-place write primitive."""
        self._set_val(res._val())
        self._ag = res._ag

    def _write(self, value):
        self._set_val(value)
        self._ag = None
        _RECENT.append(_ref(value))  # nd.waitall() covers writes from backward and updates

    # ---- operators -------------------------------------------------------------------
    def __add__(self, other):
        return _binary(self, other, _OP_BADD, _OP_PLUS_S)

    def __radd__(self, other):
        return _binary(self, other, None, _OP_PLUS_S)

    def __sub__(self, other):
        return _binary(self, other, _OP_BSUB, _OP_MINUS_S)

    def __rsub__(self, other):
        return _binary(self, other, None, _OP_RMINUS_S)

    def __mul__(self, other):
        return _binary(self, other, _OP_BMUL, _OP_MUL_S)

    def __rmul__(self, other):
        return _binary(self, other, None, _OP_MUL_S)

    def __truediv__(self, other):
        return _binary(self, other, _OP_BDIV, _OP_DIV_S)

    def __rtruediv__(self, other):
        return _binary(self, other, None, _OP_RDIV_S)

    __div__, __rdiv__ = __truediv__, __rtruediv__

    def __floordiv__(self, other):  # extension: MXNet 1.9.1 has no //; floor, keeping the dtype
        return (self - self % other) / other

    def __mod__(self, other):
        return _binary(self, other, _OP_BMOD, _OP_MOD_S)

    def __rmod__(self, other):
        return _binary(self, other, None, _OP_RMOD_S)

    def __pow__(self, other):
        return _binary(self, other, _OP_BPOW, _OP_POW_S)

    def __rpow__(self, other):
        return _binary(self, other, None, _OP_RPOW_S)

    def __matmul__(self, other):  # extension: MXNet 1.9.1 has no @
        return invoke(_OP_DOT, [self, other], _OP_DOT.parse_attrs({}))

    def __neg__(self):
        return invoke(_OP_MUL_S, [self], {"scalar": -1.0})

    def __abs__(self):
        return invoke(registry.get("abs"), [self], {})

    def __eq__(self, other):
        if other is None:
            raise TypeError("NDArray does not support comparison with None")
        return _binary(self, other, _OP_BEQ, _OP_EQ_S)

    def __ne__(self, other):
        if other is None:
            raise TypeError("NDArray does not support comparison with None")
        return _binary(self, other, _OP_BNE, _OP_NE_S)

    def __gt__(self, other):
        return _binary(self, other, _OP_BGT, _OP_GT_S)

    def __ge__(self, other):
        return _binary(self, other, _OP_BGE, _OP_GE_S)

    def __lt__(self, other):
        return _binary(self, other, _OP_BLT, _OP_LT_S)

    def __le__(self, other):
        return _binary(self, other, _OP_BLE, _OP_LE_S)

    def __iadd__(self, other):
        return _inplace(self, other, _OP_BADD, _OP_PLUS_S)

    def __isub__(self, other):
        return _inplace(self, other, _OP_BSUB, _OP_MINUS_S)

    def __imul__(self, other):
        return _inplace(self, other, _OP_BMUL, _OP_MUL_S)

    def __itruediv__(self, other):
        return _inplace(self, other, _OP_BDIV, _OP_DIV_S)

    def __imod__(self, other):
        return _inplace(self, other, _OP_BMOD, _OP_MOD_S)

    __idiv__ = __itruediv__

# ---- dispatch ---------------------------------------------------------------------------
def _check_ctx(opname, first, other):
    if first._ctx is not other._ctx and first._ctx.kind != other._ctx.kind:
        raise MXNetError(f"Operator {opname} require all inputs live on the same context. But the "
                         f"first argument is on {first._ctx} while another argument is on {other._ctx}")


_READ_ALLOCATION = registry.allocation_errors("reading an array")  # stateless: one for all reads


def _describe(inputs):
    return ", ".join(f"{tuple(x.shape)} {np.dtype(x.dtype).name}" for x in inputs if x is not None)


def invoke(op, inputs, attrs, out=None, ctx=None):
    """Run registry ``op`` eagerly on NDArray ``inputs`` with parsed ``attrs``.

    Returns an NDArray, or a list when the op has several visible outputs.
    """
    if _engine.PROFILING and not getattr(_engine._SCOPE, "timing", False):
        return _timed(op, inputs, attrs, out, ctx)
    if _SPARSE[0] is not None and (res := _SPARSE[0](op, inputs, attrs, out, ctx)) is not NotImplemented:
        return res
    if inputs:
        first = inputs[0]
        ctx = first._ctx
        for x in inputs:
            if x is not None:
                if x._ctx is not ctx:
                    _check_ctx(op.name, first, x)
                if x._data is None:  # a view, or a result held back (failed or awaited)
                    held = _held(x)
                    if type(held) is _Failed:
                        return _fail(op, attrs, inputs, held.failure, out, ctx)
                    if held is not None and out is None and not op.mutates:
                        return _await(op, attrs, inputs, ctx)
        vals = [None if x is None else x._val() for x in inputs]
    else:
        ctx = ctx or current_context()
        vals = []
    if live_executables.STATE["due"]:  # too many compiled programs alive: free them
        live_executables.release_if_concrete(vals)
    if op.train:
        attrs["is_train"] = STATE.training
    if op.rng:
        attrs["key"] = _rng.next_key()
    if op.check is not None:
        op.check(attrs, *vals)
    if op.kernel_check is not None:
        try:
            op.kernel_check(attrs, *vals)
        except (MXNetError, IndexError, ValueError) as e:
            if _engine.NAIVE:
                raise
            return _fail(op, attrs, inputs, _engine.Failure(e), out, ctx)
    static, dynamic = op.static, op.dynamic
    key = tuple([attrs[n] for n in static]) if static else ()
    dyn = [attrs[n] for n in dynamic] if dynamic else ()
    try:
        if out is not None and not STATE.recording and type(out) is not list and _exclusive(out):
            _flush_pending(out._data)
            donate = _donation(out, inputs)
            if donate is None:
                res = op.kernel(key)(*vals, *dyn)
            elif donate == "old":
                res = op.kernel(key, "old")(out._data, *vals, *dyn)
            else:
                res = op.kernel(key, donate)(*vals, *dyn)
        elif vals:
            # (while recording, the host paths wait for no input still computed)
            res = _uncompiled(op, key, vals, dyn, ctx.jax_device(), STATE.recording)
            if res is None:
                res = (op._kernels.get(key) or op.kernel(key))(*vals, *dyn)
            elif len(res) == 1:
                res = res[0]
        else:
            host = _HOST.plan_for(op, key, vals, dyn) if _HOST_OK(op, ctx.jax_device()) else None
            res = host_eval.run(host, vals, ctx.jax_device(), dyn=dyn) if host is not None else None
            if res is None and op.elementwise == "flat":
                with jax.default_device(ctx.jax_device()):
                    res = _FLAT.create(op, key, dyn, ctx.jax_device())
            if res is None:
                with jax.default_device(ctx.jax_device()):
                    res = op.kernel(key)(*dyn)
            else:
                res = res[0]
    except MXNetError:
        raise
    except (TypeError, ValueError, IndexError, MemoryError, RuntimeError) as e:
        oom = registry.out_of_memory(e)
        if not oom and not isinstance(e, (TypeError, ValueError, IndexError)):
            raise
        what = "Failed to allocate CPU Memory: operator" if oom else "Operator"
        cls = error_like(e) if op.name.startswith("_npi_") and not oom else MXNetError
        raise cls(f"{what} {op.name} failed on inputs [{_describe(inputs)}] with "
                         f"attributes {attrs}: {e}") from None
    if _engine.NAIVE:  # MXNET_ENGINE_TYPE=NaiveEngine: errors surface at the op
        _engine.sync(res)
    if type(res) is tuple or type(res) is list:
        outs = [_wrap(r, ctx) for r in res]
        _RECENT.append(_ref(res[0]))
    else:
        outs = [_wrap(res, ctx)]
        _RECENT.append(_ref(res))
    if inputs and type(first) is not NDArray and isinstance(first, NDArray) and first.stype == "default":
        for o in outs:  # the numpy face (mx.np.ndarray) of the first input carries over
            o.__class__ = type(first)
    if STATE.recording and STATE.record is not None:
        STATE.record(op, attrs, inputs, outs)
    if op.mutates:  # optimizer update ops write their states back into their inputs
        if callable(op.mutates):
            pos = op.mutates(attrs)
            for p, new in zip(pos, outs[len(outs) - len(pos):]):
                inputs[p]._write(new._data)
        else:
            for name, new in zip(op.mutates, outs[1:]):
                inputs[op.inputs.index(name)]._write(new._data)
    nvis = op.num_visible
    if nvis is not None:
        outs = outs[:nvis(attrs) if callable(nvis) else nvis]
    if out is not None:
        return _write_out(op, out, outs)
    return outs[0] if len(outs) == 1 else outs


def _timed(op, inputs, attrs, out, ctx):
    """``invoke`` timed for the profiler's aggregate statistics, waiting for the results (as
    MXNet's profiler times an operator's execution)."""
    scope = _engine._SCOPE
    scope.timing = True
    t0 = time.perf_counter()
    try:
        res = invoke(op, inputs, attrs, out, ctx)
        for r in res if isinstance(res, (list, tuple)) else [res]:
            if isinstance(r, NDArray) and r._data is not None:
                r._data.block_until_ready()
    finally:
        scope.timing = False
    _engine.record(op.name, time.perf_counter() - t0)
    return res


def _held(x):
    """The ``engine.Failed`` or ``engine.Awaited`` that ``x`` (or the array it views) holds."""
    root = x if x._base is None else x._base
    return root._src if root._data is None and type(root._src) in _KNOWN else None


def _failed(failure, shape, dtype, ctx):
    x = _wrap(None, ctx)
    x._src = _Failed(failure, shape, dtype)
    _PENDING[id(x)] = x
    return x


def fail_arrays(arrays, error):
    """Make ``arrays`` hold ``error`` until one of them is read (``engine.Failed``): a bound
    graph whose kernel check failed. Under NaiveEngine, raise it now."""
    failure = _engine.Failure(error)
    if _engine.NAIVE:
        failure.deliver()
    for t in arrays:
        if t is None:
            continue
        if t._base is not None:
            failure.deliver()
            continue
        shape, dtype = t.shape, t.dtype
        t._data, t._src = None, _Failed(failure, shape, dtype)
        _PENDING[id(t)] = t


def _out_specs(op, attrs, inputs):
    """The shapes and dtypes of ``op``'s visible results, without running it."""
    if op.train:
        attrs.setdefault("is_train", STATE.training)
    if op.rng:
        attrs.setdefault("key", _rng.next_key())
    key = tuple([attrs[n] for n in op.static]) if op.static else ()
    specs = [None if x is None else jax.ShapeDtypeStruct(x.shape, x.dtype) for x in inputs]
    res = jax.eval_shape(op.kernel(key), *specs, *[attrs[n] for n in op.dynamic])
    res = res if isinstance(res, (tuple, list)) else [res]
    nvis = op.num_visible
    return res if nvis is None else res[:nvis(attrs) if callable(nvis) else nvis]


def _fail(op, attrs, inputs, failure, out, ctx):
    """``invoke``'s results when an input or the op's kernel check failed: arrays of the
    right shapes and dtypes holding ``failure`` until they are read (``engine.Failed``)."""
    outs = [_failed(failure, r.shape, r.dtype, ctx) for r in _out_specs(op, attrs, inputs)]
    if out is None:
        return outs[0] if len(outs) == 1 else outs
    for t, r in zip(out if isinstance(out, (list, tuple)) else [out], outs):
        if t._base is not None or t.shape != r.shape:
            failure.deliver()
            continue
        t._data, t._src = None, r._src
        _PENDING[id(t)] = t
    return out


def _await(op, attrs, inputs, ctx):
    """``invoke``'s results when an input is awaited (``engine.Awaited``): awaited arrays
    whose node runs the call later, under this thread's autograd and training flags now."""
    specs, flags = _out_specs(op, attrs, inputs), (STATE.recording, STATE.training)
    outs = [_wrap(None, ctx) for _ in specs]

    def call():
        saved, (STATE.recording, STATE.training) = (STATE.recording, STATE.training), flags
        try:
            res = invoke(op, inputs, attrs)
        finally:
            STATE.recording, STATE.training = saved
        for o, r in zip(outs, res if isinstance(res, list) else [res]):
            o._data, o._ag, o._shared, o._src = r._data, r._ag, r._shared, None

    node = _engine.Deferred(call, inputs)
    for o, s in zip(outs, specs):
        o._src = _Awaited(node, s.shape, s.dtype)
        if type(inputs[0]) is not NDArray and isinstance(inputs[0], NDArray):
            o.__class__ = type(inputs[0])
    return outs[0] if len(outs) == 1 else outs


def _donation(out, inputs):
    """Which buffer an ``out=`` write may donate: out's own position among the inputs, else
    its old buffer (unread, kept alive by keep_unused so XLA can reuse it)."""
    hits = [i for i, x in enumerate(inputs) if x is not None and x._data is out._data]
    if len(hits) > 1 or (hits and inputs[hits[0]] is not out):
        return None
    return (hits[0],) if hits else "old"


def _write_out(op, out, outs):
    targets = out if isinstance(out, (list, tuple)) else [out]
    for t, r in zip(targets, outs):
        if not isinstance(t, NDArray):
            raise TypeError(f"{op.name}: out must be an NDArray, got {type(t).__name__}")
        if t.shape != r.shape:
            raise MXNetError(f"{op.name}: out has shape {t.shape} but the result has shape {r.shape}")
        rv = r._val()
        if rv.dtype != t.dtype:
            rv = rv.astype(t.dtype)
        if STATE.recording and STATE.on_write is not None:
            STATE.on_write(t)
        t._set_val(rv)
        t._ag = r._ag
        if t._base is None:
            t._shared, t._src = False, None
    return out


def _uncompiled(op, key, vals, dyn, device, recording=False):
    """A call's results without compiling, on a new shape: the host plan (host_eval), else
    an elementwise op's bucketed run (bucket); None: the kernel runs."""
    host = _HOST.plan_for(op, key, vals, dyn) if _HOST_OK(op, device) else None
    res = None if host is None or host is host_eval.SERVED else \
        host_eval.run(host, vals, device, recording, dyn)
    if res is None and op.elementwise and host is not host_eval.SERVED:
        res = _FLAT.run(op, key, vals, dyn, device, recording)
    return res


def _flat_or(kern, op, ctx, *args):
    """``kern(*args)``, or on a new shape ``_uncompiled``'s run; args: arrays, then a scalar."""
    if args[0].size > host_eval.ELEMENTWISE_MAX:        # (neither uncompiled path takes it)
        return kern(*args)
    arrays = [a for a in args if isinstance(a, jax.Array)]
    res = _uncompiled(op, (), arrays, args[len(arrays):], ctx.jax_device())
    return kern(*args) if res is None else res[0]


def _binary(self, other, bop, sop):
    """NDArray operators. The common case (plain arrays, not recording, kernel compiled)
    skips ``invoke`` and calls the cached kernel directly: this path sets eager speed."""
    if isinstance(other, NDArray):
        if bop is None:  # reflected op with an NDArray on the left never reaches here
            return NotImplemented
        sd, od = self._data, other._data
        if (sd is not None and od is not None and self._base is None and other._base is None
                and self._ctx is other._ctx and not STATE.recording and not _engine.PROFILING):
            kern = bop._kernels.get(())
            if kern is not None:
                if sd.size >= _DEFER_MIN_SIZE and sd.shape == od.shape and sd.dtype == od.dtype:
                    return _defer(bop, [self, other], [sd, od])
                try:
                    res = _flat_or(kern, bop, self._ctx, sd, od)
                except Exception:  # re-run through invoke for MXNet's error message
                    return invoke(bop, [self, other], {})
                _RECENT.append(_ref(res))
                return _wrap(res, self._ctx)
        return invoke(bop, [self, other], {})
    if isinstance(other, _SCALARS):
        sd = self._data
        if sd is not None and self._base is None and not STATE.recording and not _engine.PROFILING:
            kern = sop._kernels.get((), None)
            if kern is not None:
                if sd.size >= _DEFER_MIN_SIZE:
                    return _defer(sop, [self], [sd, other])
                try:
                    res = _flat_or(kern, sop, self._ctx, sd, other)
                except Exception:
                    return invoke(sop, [self], {"scalar": other})
                _RECENT.append(_ref(res))
                return _wrap(res, self._ctx)
        return invoke(sop, [self], {"scalar": other})
    if isinstance(other, np.ndarray):
        raise TypeError(f"type {type(other).__name__} not supported: NDArray and numpy.ndarray cannot "
                        f"be mixed; convert with nd.array(...) or .asnumpy()")
    return NotImplemented


# ---- deferred large elementwise results --------------------------------------------------
# `z[:] = z + y` on big arrays: XLA can only compute in place if z's buffer is donated, and
# `z + y` cannot know that its result will land in z. So the fast path defers large
# elementwise results (a thunk over the input buffers); `z[:] = pending` runs the kernel
# donating z's buffer, anything else forces the thunk. Thunks are rare (big arrays only), so
# the registry of live ones is a plain weak set, forced before any buffer they read is donated.
_DEFER_MIN_SIZE = 1 << 20
_PENDING = weakref.WeakValueDictionary()  # id -> pending NDArray (NDArray == is elementwise)


def _defer(op, handles, args):
    x = _wrap(None, handles[0]._ctx)
    x._src = (op, (), args, tuple(_exclusive(h) for h in handles))
    _PENDING[id(x)] = x
    return x


def _exclusive(x):
    """True when no other live handle or pending thunk holds x's buffer (donation is safe)."""
    if x._shared or x._base is not None:
        return False
    owner = getattr(x, "_src", None)
    return owner is None or (callable(owner) and owner() is None)


def _share(dst, src):
    """``dst`` (a plain handle) now holds ``src``'s buffer.  While src was its buffer's only
    holder the two point at each other weakly, so the buffer is exclusive (donatable: the
    ``z[:] = z + y`` fast path) again once either handle dies; otherwise neither may donate it
    (a flag that never clears)."""
    if src._base is None and _exclusive(src):
        dst._src, src._src = weakref.ref(src), weakref.ref(dst)
        return
    dst._shared = src._shared = True
    partner = src._src() if src._base is None and callable(src._src) else None
    if partner is not None:   # src's pair partner holds the buffer too: now a third holder
        partner._shared = True


def _flush_pending(buffer, skip=None):
    for p in list(_PENDING.values()):
        if (p is not skip and p._data is None and type(p._src) is tuple
                and any(a is buffer for a in p._src[2])):
            p._force()


def _consume(self, value):
    """``self[:] = value`` where value is a pending thunk reading self: compute in place."""
    op, key, args, exclusive = value._src
    buf = self._data
    hits = [i for i, a in enumerate(args) if a is buf]
    if len(hits) != 1 or not exclusive[hits[0]] or not _exclusive(self) or hits[0] >= len(exclusive):
        return False
    _flush_pending(buf, skip=value)
    res = op.kernel(key, (hits[0],))(*args)
    _PENDING.pop(id(value), None)
    value._data = self._data = res
    self._shared, self._ag = False, None
    # the two share the buffer: neither may donate it while the other lives (a kept
    # temporary, ``v = z + y; z[:] = v``, must not donate z's buffer, nor z v's)
    self._src, value._src = weakref.ref(value), weakref.ref(self)
    _RECENT.append(_ref(res))
    return True


def _inplace(self, other, bop, sop):
    res = _binary(self, other, bop, sop)
    if res is NotImplemented:
        return res
    if res.shape != self.shape:
        raise MXNetError(f"{bop.name}: in-place result shape {res.shape} differs from the target "
                         f"shape {self.shape} (the left side cannot grow)")
    if STATE.recording and STATE.on_write is not None:
        STATE.on_write(self)
    self._take(res)
    return self


def _broadcastable(src, dst):
    if len(src) > len(dst):
        return math.prod(src) == math.prod(dst) and all(d == 1 for d in src[:len(src) - len(dst)])
    return all(s in (1, d) for s, d in zip(src[::-1], dst[::-1]))


def _index_plan(shape, key, ctx):
    return _plan_index(shape, key, _is_ndarray,
                       lambda a: _wrap(_transfer.to_device(a, ctx.jax_device()), ctx))


def _is_ndarray(x):
    return isinstance(x, NDArray)


_FULL = slice(None)
(_OP_CAST, _OP_RESHAPE, _OP_GETITEM, _OP_SETITEM, _VIEW_READ, _VIEW_WRITE, _OP_DOT, _OP_COPYTO) = (
    registry.get(n) for n in ("Cast", "Reshape", "_getitem", "_setitem", "_view_read",
                              "_view_write", "dot", "_copyto"))
(_OP_BADD, _OP_BSUB, _OP_BMUL, _OP_BDIV, _OP_BMOD, _OP_BPOW, _OP_BEQ, _OP_BNE, _OP_BGT, _OP_BGE,
 _OP_BLT, _OP_BLE) = (registry.get("broadcast_" + n) for n in (
    "add", "sub", "mul", "div", "mod", "power", "equal", "not_equal", "greater", "greater_equal",
    "lesser", "lesser_equal"))
(_OP_PLUS_S, _OP_MINUS_S, _OP_RMINUS_S, _OP_MUL_S, _OP_DIV_S, _OP_RDIV_S, _OP_MOD_S, _OP_RMOD_S,
 _OP_POW_S, _OP_RPOW_S, _OP_EQ_S, _OP_NE_S, _OP_GT_S, _OP_GE_S, _OP_LT_S, _OP_LE_S) = (
    registry.get(f"_{n}_scalar") for n in (
        "plus", "minus", "rminus", "mul", "div", "rdiv", "mod", "rmod", "power", "rpower", "equal",
        "not_equal", "greater", "greater_equal", "lesser", "lesser_equal"))
assert lowering  # registration side effects


def waitall():
    """Block until every pending computation has finished, then rethrow the oldest pending
    error of a failed operator (``engine.Failure``), clearing them all, as MXNet does."""
    for p in list(_PENDING.values()):
        if p._data is None and type(p._src) is not _Failed:
            p._force()
    for ref in list(_RECENT):
        r = ref()
        if r is not None and not r.is_deleted():  # a donated buffer was consumed by a later op
            r.block_until_ready()
    _RECENT.clear()
    _engine.raise_pending()
