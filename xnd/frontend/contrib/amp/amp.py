"""Automatic mixed precision, MXNet 1.9.1's ``mx.contrib.amp`` on XLA.

``init(target_dtype)`` rewraps the operator functions of ``mx.nd`` and ``mx.sym`` (so also
Gluon's ``F``, eager and hybridized) by MXNet's lists (`lists`): the low precision ops
(``FP16_FUNCS``/``BF16_FUNCS``: convolutions, fully connected...) cast their inputs to the
target type, the float32 ops cast theirs to float32 (conditional ones only for the listed
attribute values), the widest-type ops cast to the widest type among their inputs, and the
loss outputs of ``mx.nd`` scale their gradient by the loss scale.  Parameters stay float32,
so the optimizer updates float32 weights with float32 gradients (the casts' gradients).

``init_trainer(trainer)`` gives a Gluon Trainer a dynamic `LossScaler`;
``with scale_loss(loss, trainer) as scaled:`` yields the loss times the scale and makes the
next ``trainer.step`` divide it back out; a step whose gradients hold an inf or nan is
skipped and the scale halved (MXNet's rule, see loss_scaler.py).  ``unscale(trainer)`` divides
the gradients in place (before gradient clipping).

``convert_symbol``/``convert_model``/``convert_hybrid_block`` rewrite a graph offline as
MXNet's ReducePrecision pass does: an ``amp_cast`` named ``<input>_amp_cast_<dtype>`` is
inserted where an input's type differs from what the op's list asks for (one per input and
type), types flowing through the ops that run in either precision.
"""
import contextlib
import logging

import numpy as np

from .... import symbol as _symbol
from ....base import MXNetError
from ....context import gpu
from ....lowering import dtypes as _dtypes
from ....ndarray import NDArray
from ....symbol import Symbol
from ....symbol.symbol import Node
from ... import ndarray as _nd
from ... import optimizer as _opt
from . import lists
from .loss_scaler import LossScaler
# names MXNet's module holds by importing them (its users import them from here)
from ....base import c_array_buf, c_str_array, check_call  # noqa: E402,F401
from ...module import BucketingModule  # noqa: E402,F401
from ... import ndarray  # noqa: E402,F401
from ... import optimizer as opt  # noqa: E402,F401
from .... import symbol  # noqa: E402,F401

__all__ = ["init", "init_trainer", "scale_loss", "unscale", "convert_model",
           "convert_hybrid_block", "convert_symbol", "convert_bucketing_module",
           "list_lp16_ops", "list_fp32_ops", "list_lp16_fp32_ops", "list_conditional_fp32_ops",
           "list_widest_type_cast", "list_loss_output_functions", "list_lp16_use_fp32_params",
           "bfloat16"]

bfloat16 = np.dtype(_dtypes.BFLOAT16)  # MXNet's amp.bfloat16 (here the real bfloat16 type)
_FLOATS = (np.dtype(np.float16), bfloat16, np.dtype(np.float32))


# ---- the lists --------------------------------------------------------------------------------
def _kind(target_dtype):
    if target_dtype in ("float16", np.float16) or (
            isinstance(target_dtype, np.dtype) and target_dtype == np.float16):
        return lists.symbol_fp16, "FP16"
    assert target_dtype in ("bfloat16", bfloat16, _dtypes.BFLOAT16), "not supported type"
    return lists.symbol_bf16, "BF16"


def list_lp16_ops(target_dtype):
    """Ops that run in the low precision type."""
    m, p = _kind(target_dtype)
    return getattr(m, p + "_FUNCS")


def list_fp32_ops(target_dtype):
    """Ops that run in float32."""
    return _kind(target_dtype)[0].FP32_FUNCS


def list_lp16_fp32_ops(target_dtype):
    """Ops that run in either precision (their input's)."""
    m, p = _kind(target_dtype)
    return getattr(m, p + "_FP32_FUNCS")


def list_conditional_fp32_ops(target_dtype):
    """(op, attribute, values): the op runs in float32 when the attribute has one of them."""
    return _kind(target_dtype)[0].CONDITIONAL_FP32_FUNCS


def list_widest_type_cast(target_dtype):
    """Ops whose inputs are cast to the widest type among them."""
    return _kind(target_dtype)[0].WIDEST_TYPE_CASTS


def list_loss_output_functions(target_dtype):
    """Loss outputs whose gradient the loss scale multiplies."""
    return _kind(target_dtype)[0].LOSS_OUTPUT_FUNCTIONS


def list_lp16_use_fp32_params(target_dtype):
    """Per op, the inputs that stay float32 when it runs in low precision (None: none)."""
    m, p = _kind(target_dtype)
    return None if p == "FP16" else m.BF16_USE_FP32_PARAMS


def _np_target(target_dtype):
    return np.dtype(np.float16) if _kind(target_dtype)[1] == "FP16" else bfloat16


# ---- casts ------------------------------------------------------------------------------------
def _amp_cast(F, x, dtype):
    f = getattr(F, "amp_cast", None)
    if f is None:  # the registry entry arrives with the multi-tensor ops
        f = F.Cast
    return f(x, dtype=np.dtype(dtype).name)


def _cast(x, dtype):
    """`x` in `dtype`: a Symbol through amp_cast, a float NDArray of another float type cast;
    anything else unchanged."""
    if isinstance(x, Symbol):
        return _amp_cast(_symbol, x, dtype)
    if isinstance(x, NDArray) and x.dtype in _FLOATS and np.dtype(x.dtype) != np.dtype(dtype):
        return _amp_cast(_nd, x, dtype)
    return x


def _wrap_nd(f, dtype, cond=None):
    def fn(*args, **kwargs):
        if cond is not None and str(kwargs.get(cond[0])) not in cond[1]:
            return f(*args, **kwargs)
        return f(*[_cast(a, dtype) for a in args], **{k: _cast(v, dtype) for k, v in kwargs.items()})
    return _named(fn, f)


def _wrap_sym(f, dtype, cond=None):
    """The op's node, its non-auxiliary inputs behind amp_cast nodes (implicit weights too)."""
    def fn(*args, **kwargs):
        out = f(*args, **kwargs)
        if cond is not None and str(kwargs.get(cond[0])) not in cond[1]:
            return out
        node = out._outputs[0][0]
        if node.op is None:
            return out
        aux = set(out.list_auxiliary_states())
        node.inputs = [e if (e[0].is_var and e[0].name in aux)
                       else _cast(Symbol([e]), dtype)._outputs[0] for e in node.inputs]
        return out
    return _named(fn, f)


def _wrap_widest(f, target):
    def fn(*args, **kwargs):
        args = list(args)
        slots = [(args, i) for i, a in enumerate(args) if isinstance(a, (Symbol, NDArray))]
        slots += [(kwargs, k) for k, a in kwargs.items() if isinstance(a, (Symbol, NDArray))]
        vals = [c[k] for c, k in slots]
        if any(isinstance(v, Symbol) for v in vals):
            if len(vals) > 1:
                multicast = getattr(_symbol, "amp_multicast", None)
                if multicast is not None:
                    cast = multicast(*vals, num_outputs=len(vals))
                    for (c, k), s in zip(slots, cast):
                        c[k] = s
        elif any(v.dtype == np.float32 for v in vals):
            for c, k in slots:
                if np.dtype(c[k].dtype) == target:
                    c[k] = _cast(c[k], np.float32)
        return f(*args, **kwargs)
    return _named(fn, f)


def _named(fn, f):
    fn.__name__ = getattr(f, "__name__", "op")
    fn.__doc__ = f.__doc__
    fn.__wrapped__ = f
    return fn


def _holders(module, name):
    """(namespace, attribute) pairs where the operator `name` is reachable in `module`."""
    for prefix, sub in (("_contrib_", "contrib"), ("_linalg_", "linalg"), ("_random_", "random"),
                        ("_sparse_", "sparse"), ("_image_", "image")):
        if name.startswith(prefix):
            holder = getattr(module, sub, None)
            if holder is not None and hasattr(holder, name[len(prefix):]):
                yield holder, name[len(prefix):]
    for holder in (module, getattr(module, "_internal", None), getattr(module, "op", None)):
        if holder is not None and holder.__dict__.get(name) is not None:
            yield holder, name


# ---- init -------------------------------------------------------------------------------------
_amp_initialized = False
_amp_loss_scale_initialized = False
_loss_scaler = None
_saved = []   # (namespace, attribute, original function): what init replaced


def _replace(holder, attr, fn):
    _saved.append((holder, attr, holder.__dict__[attr]))
    setattr(holder, attr, fn)


def _wrap_module(module, target, target_precision_ops, conditional_fp32_ops, fp32_ops):
    wrap = _wrap_sym if module is _symbol else _wrap_nd
    plan = [(n, target, None) for n in (target_precision_ops if target_precision_ops is not None
                                        else list_lp16_ops(target))]
    plan += [(n, np.float32, None) for n in (fp32_ops if fp32_ops is not None
                                             else list_fp32_ops(target))]
    plan += [(n, np.float32, (a, [str(v) for v in vals])) for n, a, vals in (
        conditional_fp32_ops if conditional_fp32_ops is not None
        else list_conditional_fp32_ops(target))]
    for name, dtype, cond in plan:
        for holder, attr in list(_holders(module, name)):
            _replace(holder, attr, wrap(holder.__dict__[attr], dtype, cond))
    for name in list_widest_type_cast(target):
        for holder, attr in list(_holders(module, name)):
            _replace(holder, attr, _wrap_widest(holder.__dict__[attr], target))


def _wrap_loss_outputs(module, scaler, target):
    for name in list_loss_output_functions(target):
        f = module.__dict__.get(name)
        if f is None:
            continue
        if module is _nd:
            def fn(*args, _f=f, **kwargs):
                kwargs["grad_scale"] = kwargs.get("grad_scale", 1.0) * scaler.loss_scale
                return _f(*args, **kwargs)
        else:
            def fn(*args, _f=f, **kwargs):
                logging.warning("%s does not support dynamic loss scaling in symbolic and "
                                "hybridized execution.", _f.__name__)
                return _f(*args, **kwargs)
        _replace(module, name, _named(fn, f))


def init(target_dtype="float16", target_precision_ops=None, conditional_fp32_ops=None,
         fp32_ops=None):
    """Turn AMP on for every later ``mx.nd``/``mx.sym`` call (once per process, as in
    MXNet); the op lists default to MXNet's for `target_dtype` (float16 or bfloat16)."""
    global _amp_initialized, _loss_scaler
    if _amp_initialized:
        return
    assert target_dtype in ("float16", np.float16, "bfloat16", bfloat16), \
        "AMP currently supports only float16 or bfloat16 as a target_dtype"
    _amp_initialized = True
    logging.info("Using AMP")
    target = _np_target(target_dtype)
    _wrap_module(_symbol, target, target_precision_ops, conditional_fp32_ops, fp32_ops)
    _wrap_module(_nd, target, target_precision_ops, conditional_fp32_ops, fp32_ops)
    _loss_scaler = LossScaler()
    _wrap_loss_outputs(_nd, _loss_scaler, target)
    _wrap_loss_outputs(_symbol, _loss_scaler, target)


def _reset():
    """Undo `init` (xnd's, for tests and notebooks: MXNet cannot turn AMP off)."""
    global _amp_initialized, _amp_loss_scale_initialized, _loss_scaler
    while _saved:
        holder, attr, f = _saved.pop()
        setattr(holder, attr, f)
    _amp_initialized = _amp_loss_scale_initialized = False
    _loss_scaler = None


# ---- the trainer --------------------------------------------------------------------------------
def _trainer_class():
    from ...gluon.trainer import Trainer
    return Trainer


def _check_trainer(obj):
    if isinstance(obj, _trainer_class()):
        return
    if isinstance(obj, _opt.Optimizer):
        raise TypeError("AMP is currently only compatible with Gluon Trainer")
    raise TypeError("optimizer_or_trainer should be a Gluon Trainer or an optimizer, instead "
                    "is %s" % type(obj))


def init_trainer(optimizer_or_trainer):
    """Give a Gluon Trainer a dynamic loss scaler: its steps skip updates whose gradients
    overflow."""
    global _amp_loss_scale_initialized
    assert _amp_initialized, "AMP not initialized, did you forget to call amp.init()?"
    _check_trainer(optimizer_or_trainer)
    if not _amp_loss_scale_initialized:
        _amp_loss_scale_initialized = True
        scaler = _loss_scaler
    else:
        scaler = LossScaler()
    trainer = optimizer_or_trainer
    trainer._amp_loss_scaler = scaler
    trainer._amp_original_scale = trainer._scale
    update = trainer._update

    def _update(ignore_stale_grad=False):
        # MXNet's Trainer._update: an overflowing step changes no weight
        if trainer._amp_loss_scaler.has_overflow(trainer._params):
            return
        update(ignore_stale_grad)
    trainer._update = _update


@contextlib.contextmanager
def scale_loss(loss, optimizer_or_trainer):
    """Yield the loss (or list of losses) times the loss scale; the next step of the
    trainer divides the scale back out of the gradients."""
    t = optimizer_or_trainer
    assert getattr(t, "_amp_loss_scaler", None) is not None, \
        "Loss scaler is not initialized, did you forget to call amp.init_trainer()?"
    t._scale = t._amp_original_scale / t._amp_loss_scaler.loss_scale
    scale = t._amp_loss_scaler.loss_scale
    if isinstance(loss, (list, tuple)):
        yield [l * scale for l in loss]
    else:
        yield scale * loss


def unscale(optimizer_or_trainer):
    """Divide the loss scale out of the gradients now (e.g. before clipping them)."""
    _check_trainer(optimizer_or_trainer)
    t = optimizer_or_trainer
    for p in t._params:
        if p._grad is not None:
            for g in p.list_grad():
                g[:] *= t._scale
    t._scale = 1.0


# ---- offline conversion -------------------------------------------------------------------------
_LP, _F32 = "lp", "f32"


def _check_lists(target, target_dtype_ops, fp32_ops, conditional_fp32_ops):
    for value, what in ((target_dtype_ops, "target_dtype_ops should be a list of strs"),
                        (fp32_ops, "fp32_ops should be a list of strs"),
                        (conditional_fp32_ops, "conditional_fp32_ops should be a list")):
        if value is not None:
            assert isinstance(value, list), what
    lp = list(target_dtype_ops) if target_dtype_ops is not None else list_lp16_ops(target)
    f32 = list(fp32_ops) if fp32_ops is not None else list_fp32_ops(target)
    cond = conditional_fp32_ops if conditional_fp32_ops is not None \
        else list_conditional_fp32_ops(target)
    for c in cond:
        assert isinstance(c[0], str) and isinstance(c[1], str) and isinstance(c[2], list), \
            "conditional_fp32_ops should be a list of (str, str, list of str)"
    cond_names = [c[0] for c in cond]
    for a, b, an, bn in ((lp, f32, "target_dtype_ops", "fp32_ops"),
                         (lp, cond_names, "target_dtype_ops", "conditional_fp32_ops"),
                         (cond_names, f32, "fp32_ops", "conditional_fp32_ops")):
        common = set(a) & set(b)
        assert not common, "Ops cannot be in two or more lists. Common ops in %s and %s %s" \
            % (an, bn, common)
    known = set(list_lp16_ops(target) + list_fp32_ops(target) + list_lp16_fp32_ops(target)
                + [c[0] for c in list_conditional_fp32_ops(target)])
    illegal = set(lp + f32 + cond_names) - known
    assert not illegal, "Can only choose ops from one of the three lists for lp16_ops and " \
        "fp32_ops: amp.list_lp16_ops, amp.list_fp32_ops, amp.list_lp16_fp32_ops, " \
        "amp.list_conditional_fp32_ops; Op %s not in any of them" % illegal
    return set(lp), set(f32), {c[0]: (c[1], set(map(str, c[2]))) for c in cond}


def convert_symbol(sym, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                   conditional_fp32_ops=None, excluded_sym_names=None, data_names=None,
                   cast_optional_params=False):
    """A copy of `sym` with ``amp_cast`` nodes so that the low precision ops run in
    `target_dtype` and the float32 ones in float32 (MXNet's ReducePrecision pass).  With
    `cast_optional_params`, parameters read only by low precision ops are stored in
    `target_dtype` (their variables get ``__dtype__``) instead of being cast each run."""
    assert isinstance(sym, Symbol), "First argument to convert_symbol should be Symbol"
    assert target_dtype in ("float16", "bfloat16"), \
        "Only target_dtype float16 and bfloat16 are supported currently"
    target = _np_target(target_dtype)
    lp_ops, f32_ops, cond_ops = _check_lists(target, target_dtype_ops, fp32_ops,
                                              conditional_fp32_ops)
    if excluded_sym_names is not None:
        assert isinstance(excluded_sym_names, list), "excluded_sym_names should be a list of strs"
    excluded = set(excluded_sym_names or [])
    widest = set(list_widest_type_cast(target))
    attrs = sym.attr_dict()
    if data_names is None:
        data_names = [n for n in sym.list_inputs() if "__dtype__" not in attrs.get(n, {})]
    aux_names = set(sym.list_auxiliary_states())
    sym = sym.__copy__()
    nodes = sym._nodes()
    consumers = {}
    for n in nodes:
        for i, (src, _) in enumerate(n.inputs):
            consumers.setdefault(id(src), []).append((n, i))
    kinds, casts = {}, {}
    lp_name = target.name

    def kind_of(entry):
        src, i = entry
        return kinds.get((id(src), i), _F32)

    def cast(entry, to):
        key = (id(entry[0]), entry[1], to)
        if key not in casts:
            src, i = entry
            base = src.name if src.is_var else src.output_names()[i]
            dt = lp_name if to == _LP else "float32"
            op = _symbol_op("amp_cast")
            node = Node(op, "%s_amp_cast_%s" % (base, dt), {"dtype": dt}, [entry])
            casts[key] = (node, 0)
        return casts[key]

    optional = set()
    if cast_optional_params:
        for n in nodes:
            if n.is_var and n.name not in data_names and n.name not in aux_names and all(
                    c.op.name in lp_ops and c.name not in excluded for c, _ in
                    consumers.get(id(n), [])) and consumers.get(id(n)):
                optional.add(id(n))
                n.attrs["__dtype__"] = str(_type_code(target))
    for n in nodes:
        if n.is_var:
            if id(n) in optional:
                kinds[(id(n), 0)] = _LP
            continue
        name = n.op.name
        aux_slots = {i for i, (s, _) in enumerate(n.inputs) if s.is_var and s.name in aux_names}
        ins = [kind_of(e) for e in n.inputs]
        want = None
        if n.name in excluded:
            want = _F32
        elif name in lp_ops:
            want = _LP
        elif name in f32_ops:
            want = _F32
        elif name in cond_ops:
            attr, values = cond_ops[name]
            if str(n.params().get(attr, n.attrs.get(attr))) in values:
                want = _F32
        elif name in widest:
            want = _F32 if _F32 in [k for i, k in enumerate(ins) if i not in aux_slots] else _LP
        if want is None:  # runs in either precision: its (first) input's
            out_kind = ins[0] if ins else _F32
        else:
            out_kind = want
            n.inputs = [e if i in aux_slots or ins[i] == want else cast(e, want)
                        for i, e in enumerate(n.inputs)]
        for i in range(n.num_outputs()):
            kinds[(id(n), i)] = out_kind
        n._parsed = None
    return sym


def _symbol_op(name):
    from ....lowering import registry
    return registry.get(name if registry.exists(name) else "Cast")


def _type_code(dtype):
    """MXNet's type flag of a dtype (bfloat16 is 12)."""
    if np.dtype(dtype) == bfloat16:
        return 12
    return list(_dtypes.DTYPES.values()).index(np.dtype(dtype).type)


def _param_dtype(attrs, name):
    code = attrs.get(name, {}).get("__dtype__")
    if code is None or code == "-1":
        return None
    code = int(code)
    return bfloat16 if code == 12 else np.dtype(list(_dtypes.DTYPES.values())[code])


def convert_model(sym, arg_params, aux_params, target_dtype="float16", target_dtype_ops=None,
                  fp32_ops=None, conditional_fp32_ops=None, excluded_sym_names=None,
                  cast_optional_params=False):
    """`convert_symbol` for a checkpoint: returns (symbol, arg_params, aux_params) with the
    parameters the new symbol stores in low precision cast."""
    if excluded_sym_names is not None and not isinstance(excluded_sym_names, list):
        raise ValueError("excluded_sym_names must be a list of strings representing the names "
                         "of the symbols that should not be casted, while received type %s"
                         % str(type(excluded_sym_names)))
    assert target_dtype in ("float16", "bfloat16"), \
        "Only target_dtype float16 and bfloat16 are supported currently"
    assert isinstance(sym, Symbol), "First argument to convert_model should be Symbol"
    assert isinstance(arg_params, dict), \
        "Second argument to convert_model should be a dict of name to ndarray"
    assert isinstance(aux_params, dict), \
        "Third argument to convert_model should be a dict of name to ndarray"
    data_names = list(set(sym.list_inputs()) - set(arg_params) - set(aux_params))
    sym = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                         excluded_sym_names, data_names, cast_optional_params)
    attrs = sym.attr_dict()
    for params in (arg_params, aux_params):
        for name in list(params):
            dt = _param_dtype(attrs, name)
            if dt is not None:
                params[name] = params[name].astype(dt)
    return sym, arg_params, aux_params


def convert_hybrid_block(block, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                         conditional_fp32_ops=None, excluded_sym_names=None, ctx=gpu(0),
                         cast_optional_params=False):
    """A SymbolBlock running `block`'s graph (hybridized and run once) converted by
    `convert_symbol`, with `block`'s parameters, on `ctx`."""
    from ...gluon import HybridBlock, SymbolBlock
    assert isinstance(block, HybridBlock), "block input should be a HybridBlock"
    if not block._cached_graph:
        raise RuntimeError("Please first call block.hybridize() and then run forward with "
                           "this block at least once before calling export.")
    inputs, sym = block._cached_graph
    converted = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops,
                               conditional_fp32_ops, excluded_sym_names,
                               data_names=[i.name for i in inputs],
                               cast_optional_params=cast_optional_params)
    attrs = converted.attr_dict()
    arg_names = set(converted.list_arguments())
    values = {}
    for name, param in block.collect_params().items():
        value = param._reduce()
        dt = _param_dtype(attrs, name)
        if dt is not None:
            value = value.astype(dt)
        values[("arg:%s" if name in arg_names else "aux:%s") % name] = value
    ret = SymbolBlock(converted, inputs)
    for key, param in ret.collect_params().items():
        for k in ("arg:" + key, "aux:" + key):
            if k in values and param.dtype != values[k].dtype:
                param.cast(values[k].dtype)
    ret.collect_params().load_dict(values, ctx=ctx)
    return ret


def convert_bucketing_module(bucketing_mod, target_dtype="float16", target_dtype_ops=None,
                             fp32_ops=None, conditional_fp32_ops=None, excluded_sym_names=None,
                             cast_optional_params=False):
    """A BucketingModule whose buckets' symbols are converted by `convert_model`."""
    from ...module import BucketingModule
    assert isinstance(bucketing_mod, BucketingModule), \
        "module should be instance of bucketing module"
    assert len(bucketing_mod._buckets) > 0, "Bucketing Module should not be empty"
    assert bucketing_mod.params_initialized, \
        "bucketing_mod params should be initialized for mixed precision conversion"
    arg_params = bucketing_mod._curr_module._arg_params
    aux_params = bucketing_mod._curr_module._aux_params
    sym_dict = {}
    for key, val in bucketing_mod._buckets.items():
        sym_dict[key], arg_params, aux_params = convert_model(
            val._symbol, arg_params, aux_params, target_dtype, target_dtype_ops, fp32_ops,
            conditional_fp32_ops, excluded_sym_names, cast_optional_params)
    if not hasattr(BucketingModule, "load_dict"):
        raise MXNetError("convert_bucketing_module: this BucketingModule has no load_dict")
    return BucketingModule.load_dict(
        sym_dict, sym_gen=bucketing_mod._sym_gen, arg_params=arg_params, aux_params=aux_params,
        default_bucket_key=bucketing_mod._default_bucket_key, logger=bucketing_mod.logger,
        context=bucketing_mod._context, work_load_list=bucketing_mod._work_load_list,
        fixed_param_names=bucketing_mod._fixed_param_names,
        state_names=bucketing_mod._state_names, group2ctxs=bucketing_mod._group2ctxs,
        compression_params=bucketing_mod._compression_params)
