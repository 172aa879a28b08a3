"""Operators on sparse arrays: MXNet's storage-type inference table, in one place.

An operator called with a sparse input (or a sparse ``out=``) comes here from
``ndarray.invoke`` (only once a sparse array exists: until then the hook is not set). The
rule of ``STYPE`` for the operator gives the output's storage type from the inputs';
operators with a kernel of their own (``KERNELS``: ``dot``, ``retain``, ``square_sum``,
``add_n``, elementwise sums of row_sparse arrays ...) compute on the stored entries only;
every other call computes on the dense values -- MXNet's storage fallback -- and stores
its result in the inferred type. The values are MXNet's either way; the table decides only
how they are stored.
"""
import threading

import numpy as np

from .arrays import CLASSES, BaseSparseNDArray, _core, cast_storage

D, R, C = "default", "row_sparse", "csr"

# f(0) == 0: the output keeps the input's storage (MXNet's sparse unary kernels)
ZERO_PRESERVING = frozenset("""abs sign round rint ceil floor trunc fix square sqrt sin tan
arcsin arctan sinh tanh arcsinh arctanh expm1 log1p relu negative degrees radians cbrt
_copy copy identity stop_gradient BlockGrad make_loss clip _mul_scalar _div_scalar
_square_sum _contrib_quadratic""".split())


def _same(stypes):
    return stypes[0]


def _add_like(stypes):
    """elemwise_add/sub: the common sparse type of both, else dense."""
    a, b = stypes[:2]
    return a if a == b else D


def _mul_like(stypes):
    """elemwise_mul: a sparse factor keeps its storage (zeros stay zeros)."""
    a, b = stypes[:2]
    if a == b:
        return a
    if D in (a, b):
        return b if a == D else a
    return D


def _all_rsp(stypes):
    return R if all(s == R for s in stypes) else D


def _broadcast_mul(stypes):
    return C if stypes[0] == C else D


def _zeros_like(stypes):
    return stypes[0]


def _where(stypes):
    return D


def _quadratic(stypes, attrs):
    """contrib.quadratic: a*x^2 + b*x + c keeps zeros only when c == 0."""
    return stypes[0] if float(attrs.get("c", 0.0)) == 0.0 else D


def _take(stypes):
    return C if stypes[0] == C else D


# scalar comparisons: sparse when comparing a stored zero with the scalar gives 0
# (MXNet: `y > 0` stays csr, `y == 0` is dense)
CMP_SCALAR = {"_equal_scalar": np.equal, "_not_equal_scalar": np.not_equal,
              "_greater_scalar": np.greater, "_greater_equal_scalar": np.greater_equal,
              "_lesser_scalar": np.less, "_lesser_equal_scalar": np.less_equal}


def _cmp_scalar(stypes, attrs, name):
    zero_gives = CMP_SCALAR[name](0.0, float(attrs.get("scalar", 0.0)))
    return D if zero_gives else stypes[0]


# op name (or alias) -> rule(list of input stypes) -> output stype; ops not listed: dense
STYPE = {name: _same for name in ZERO_PRESERVING}
STYPE.update({
    "elemwise_add": _add_like, "_plus": _add_like, "_add": _add_like,
    "elemwise_sub": _add_like, "_minus": _add_like, "_sub": _add_like,
    "elemwise_mul": _mul_like, "_mul": _mul_like,
    "add_n": _all_rsp, "ElementWiseSum": _all_rsp, "_sum": _all_rsp,
    "broadcast_mul": _broadcast_mul, "broadcast_div": _broadcast_mul,
    "zeros_like": _zeros_like, "_zeros_like": _zeros_like,
    "slice": _same, "_sparse_retain": _same, "_contrib_SparseEmbedding": lambda s: D,
    "where": _where, "take": _take,
})
STYPE.update({name: (lambda stypes, attrs, name=name: _cmp_scalar(stypes, attrs, name))
              for name in CMP_SCALAR})
STYPE["_contrib_quadratic"] = _quadratic
STYPE.update({n: _same for n in ("_scatter_plus_scalar", "_scatter_minus_scalar",
                                 "_scatter_elemwise_div")})
STYPE["cast_storage"] = lambda stypes, attrs: attrs["stype"]
WITH_ATTRS = frozenset(CMP_SCALAR) | {"_contrib_quadratic", "cast_storage"}


def output_stype(name, stypes, attrs):
    """The storage type MXNet gives the result of operator ``name`` on inputs of ``stypes``."""
    rule = STYPE.get(name)
    if rule is None:
        return D
    return rule(stypes, attrs) if name in WITH_ATTRS else rule(stypes)


KERNELS = {}
WRITTEN = object()   # a kernel's answer when it wrote ``out`` itself (the lazy updates)


def kernel(*names):
    def deco(fn):
        for n in names:
            KERNELS[n] = fn
        return fn
    return deco


# op name -> rule(op, inputs, attrs, ctx) -> result, or None: how a call is recorded on
# autograd's tape when its gradient is sparse or its input csr (xnd/sparse/tape.py)
TAPE = {}


def tape_rule(*names):
    def deco(fn):
        for n in names:
            TAPE[n] = fn
        return fn
    return deco


def _is_sparse(x):
    return isinstance(x, BaseSparseNDArray)


class _Inside(threading.local):
    on = False


_INSIDE = _Inside()


def _invoke_dense(op, inputs, attrs, ctx):
    """``invoke`` on the sparse arrays themselves, read through their dense values (so that
    autograd records them as the graph's inputs); the hook steps aside meanwhile."""
    _INSIDE.on = True
    try:
        return _core.invoke(op, list(inputs), attrs, ctx=ctx)
    finally:
        _INSIDE.on = False


def dispatch(op, inputs, attrs, out, ctx):
    """``invoke``'s hook: NotImplemented unless an input or ``out`` is sparse."""
    if _INSIDE.on:
        return NotImplemented
    recording = _core.STATE.recording
    if recording and out is None and op.name in TAPE:
        res = TAPE[op.name](op, inputs, attrs, ctx)
        if res is not None:
            return res
    outs = out if isinstance(out, list) else [out]
    if not any(_is_sparse(x) for x in inputs if x is not None) and \
            not any(_is_sparse(o) for o in outs if o is not None):
        return NotImplemented
    stypes = [D if x is None else x.stype for x in inputs]
    res = None
    fn = None if recording else KERNELS.get(op.name)
    if fn is not None:
        res = fn(op, inputs, attrs, out)
        if res is WRITTEN:
            return out
    if res is None:
        res = _invoke_dense(op, inputs, attrs, ctx)
        target = output_stype(op.name, stypes, attrs)
        if recording:   # the result stays the recorded (dense) array: its gradient flows
            target = D
        if target != D and isinstance(res, _core.NDArray):
            if target == C and res.ndim != 2:
                target = D
            else:
                res = CLASSES[target].from_dense(res.asnumpy(), res.context)
    if out is None:
        return res
    for o, r in zip(outs, res if isinstance(res, list) else [res]):
        if _is_sparse(o):
            o._assign(cast_storage(r, o.stype).astype(o.dtype) if r.stype != o.stype
                      else r.astype(o.dtype))
        else:
            o._write(cast_storage(r, D)._val().astype(np.dtype(o.dtype)))
    return out
