"""Shape and dtype inference over a graph (``Symbol.infer_shape``/``infer_type``, MXNet's
nnvm InferShape/InferType passes).

Output shapes come from ``jax.eval_shape`` of each op's own function, so there
is no second implementation to drift. The only per-op knowledge is the
registry's ``param_shapes`` hook: MXNet infers weight shapes *from* the data
(``fc1_weight`` is (num_hidden, in_units)), which no forward evaluation can do.
"""
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from ..base import MXNetError
from ..lowering.attrs import Shape
from ..lowering.registry import check_size
from ..lowering.staged import staged
from ..semantics import is_np_shape
from ..lowering.elemwise import same_shapes
from . import shape_cache
from .graph import aux_nodes, graph_pass, topo

_KEY = jax.ShapeDtypeStruct((2,), jnp.uint32)


def _declared_shape(node):
    """A variable's ``__shape__``: may hold 0s (unknown dims, Gluon's deferred init), or
    under ``mx.np_shape()`` -1s, read as 0s like the shapes given to infer_shape."""
    s = node.attrs.get("__shape__")
    if s is None:
        return None
    s = Shape(s)
    return tuple(0 if d == -1 else d for d in s) if is_np_shape() else s


def _declared_dtype(node):
    code = node.attrs.get("__dtype__")
    if code is None:
        return None
    from ..serialization import CODE_DTYPES
    return CODE_DTYPES[int(code)]


def node_call(node, is_train):
    """(function of input values [+ key], attrs) that evaluates one op node."""
    op = node.op
    attrs = dict(node.params())
    if op.train:
        attrs["is_train"] = is_train
    if op.extra is not None:         # a custom operator: one Python operator per node
        return lambda *xs: op.fn(*xs, **attrs)
    if op.rng:
        return staged(_keyed, op_fn=op.fn, **attrs)
    return staged(op.fn, **attrs)


def _keyed(*xs, op_fn, **attrs):
    return op_fn(*xs[:-1], **attrs, key=xs[-1])


_MEMO = {}  # (op, attributes, is_train, numpy shape mode, input avals) -> output structs
_MEMO_MAX = 1 << 14


def _memo_key(node, in_structs, is_train):
    try:
        key = (node.op.name, tuple(sorted(node.params().items())), is_train, is_np_shape(),
               tuple((tuple(s.shape), s.dtype) for s in in_structs))
        hash(key)
    except TypeError:  # an unhashable attribute value: evaluate without the memo
        return None
    return key


def eval_node(node, in_structs, is_train=False):
    """Abstract evaluation of one op node: a list of ShapeDtypeStructs (every internal output).

    Memoised on (op, attributes, input avals): a 30,000-node chain of one op on one shape
    traces the op once, not 30,000 times (each trace costs milliseconds)."""
    key = _memo_key(node, in_structs, is_train)
    hit = _MEMO.get(key) if key is not None else None
    if hit is not None:
        return list(hit)
    disk_key = shape_cache.key(node.op.name, node.params(), is_train, in_structs)
    res = shape_cache.get(disk_key)
    if res is None:
        res = _eval_node(node, in_structs, is_train)
        shape_cache.put(disk_key, res)
    for s in res:  # the size check the eager path makes, before an executor allocates
        check_size(node.op.name, s.shape, s.dtype)
    if key is not None:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        _MEMO[key] = tuple(res)
    return res


def _eval_node(node, in_structs, is_train):
    args = list(in_structs) + ([_KEY] if node.op.rng else [])
    try:
        res = jax.eval_shape(node_call(node, is_train), *args)
    except MXNetError as e:
        raise MXNetError(f"Error in operator {node.name}: {e}") from None
    except (TypeError, ValueError, IndexError) as e:
        shapes = ", ".join(str(tuple(s.shape)) for s in in_structs)
        raise MXNetError(f"Error in operator {node.name} ({node.op.name}): inputs {shapes}: {e}") \
            from None
    return list(res) if isinstance(res, (tuple, list)) else [res]


_SAME_SHAPE = frozenset({"amp_cast", "Cast"})  # one input, output of its shape


def behind_casts(src):
    """The node under a chain of casts (AMP puts amp_cast between a weight and its op, and
    the weight has the shape the op asks for) and the chain, outermost first."""
    chain = []
    while src.op is not None and src.op.name in _SAME_SHAPE and len(src.inputs) == 1:
        chain.append(src)
        src = src.inputs[0][0]
    return src, chain


def eval_chain(chain, out, is_train=False):
    """Evaluate the casts of `behind_casts` once the node under them is known."""
    for c in reversed(chain):
        out[(id(c), 0)] = eval_node(c, [out[(id(c.inputs[0][0]), 0)]], is_train)[0]


def propagate(sym, shapes, dtypes, is_train=False):
    """Known variable shapes/dtypes -> {(id(node), i): ShapeDtypeStruct} for everything inferable."""
    nodes = topo(sym._outputs)
    out, partial = {}, {}

    def define(n, shape, dt):
        if 0 in shape:  # partly known: usable by param_shapes rules, not evaluable
            partial[id(n)] = tuple(shape)
        else:
            out[(id(n), 0)] = jax.ShapeDtypeStruct(tuple(shape), np.dtype(dt))
            partial.pop(id(n), None)
    targets = {}  # (id(op node), output) -> a partly known shape it must have (its consumers')
    for sweep in range(3):  # later sweeps let shapes found later flow back into variables
        if sweep == 2 and not _backward(nodes, out, partial, targets, define, dtypes, is_train):
            break
        for n in nodes:
            if n.op is None:
                if (id(n), 0) not in out:
                    shape = shapes.get(n.name, _declared_shape(n))
                    if shape is not None:
                        define(n, shape, dtypes.get(n.name) or _declared_dtype(n) or np.float32)
                continue
            if _unsized(n) is not None and (id(n), 0) not in out:
                want = _merge(targets.get((id(n), 0)), _unsized(n))
                if not want:      # rank unknown, and no consumer has given a shape yet
                    continue
                if 0 in want:
                    partial[id(n)] = want
                else:
                    out[(id(n), 0)] = eval_node(sized(n, want), [], is_train)[0]
                continue
            ins = [out.get((id(src), i)) for src, i in n.inputs]
            if any(s is None for s in ins) and n.op.param_shapes is not None:
                given = [tuple(s.shape) if s is not None else partial.get(id(src))
                         for s, (src, _) in zip(ins, n.inputs)]
                filled = n.op.param_shapes(n.params(), given)
                known = next((s for s in ins if s is not None), None)
                for k, (src, i) in enumerate(n.inputs):
                    var, chain = behind_casts(src)
                    if ins[k] is None and filled[k] is not None and var.op is not None:
                        targets[(id(var), i)] = _merge(targets.get((id(var), i)), filled[k])
                    if ins[k] is None and filled[k] is not None and var.op is None:
                        dt = dtypes.get(var.name) or _declared_dtype(var) or (
                            known.dtype if known is not None else np.float32)
                        define(var, filled[k], dt)
                        if (id(var), 0) in out:
                            eval_chain(chain, out, is_train)
                        ins[k] = out.get((id(src), 0))
            if all(s is not None for s in ins) and (id(n), 0) not in out:
                for i, s in enumerate(eval_node(n, ins, is_train)):
                    out[(id(n), i)] = s
            elif (id(n), 0) not in out and all(
                    s is not None or _partly(src, i, partial, targets) is not None
                    for s, (src, i) in zip(ins, n.inputs)):
                shape = _partial_output(n, ins, [_partly(src, i, partial, targets)
                                                 for _, (src, i) in zip(ins, n.inputs)], is_train)
                if shape is not None:
                    partial[id(n)] = shape
    propagate.partial = partial
    return nodes, out


# creation ops whose ``shape`` may hold -1s, dims MXNet infers from the op's consumers
# (``mx.sym.ones(shape=(-1, -1)) + x``), or be (), a shape of unknown rank in the legacy
# semantics (``mx.sym.random.uniform() + x``); the executor runs them at the inferred shape
_CREATION = frozenset({"_zeros", "_ones", "_full", "_random_uniform", "_random_normal",
                       "_random_randint", "_random_exponential", "_random_gamma",
                       "_random_poisson", "_random_negative_binomial",
                       "_random_generalized_negative_binomial"})


def _infers_range(node):
    """``arange(infer_range=True)`` without a stop: MXNet takes its length from the
    consumers' shape (``sym.arange(start=0, infer_range=True) + sym.zeros((5,))``)."""
    if node.op.name != "_arange" or node.inputs:
        return False
    p = node.params()
    return bool(p.get("infer_range")) and p.get("stop") is None


def _unsized(node):
    """A creation node's shape with its unknown dims as 0s, () for an unknown rank, or None
    when fully given. Unknown: -1, and in MXNet's legacy shape semantics 0 too
    (``F.zeros(shape=(0, C))`` in a hybridized block: the batch size, inferred from the
    consumers); under ``mx.np_shape()`` a 0 is a real zero-size dim."""
    if _infers_range(node):
        return (0,)
    if node.op.name not in _CREATION or node.inputs:
        return None
    shape = tuple(node.params().get("shape") or ())
    if not shape:
        return None if is_np_shape() else ()
    unknown = (-1,) if is_np_shape() else (-1, 0)
    if not any(d in unknown for d in shape):
        return None
    return tuple(0 if d in unknown else d for d in shape)


def sized(node, shape):
    """A copy of a creation node with its inferred shape."""
    from .graph import Node
    if _infers_range(node):
        p = node.params()
        if len(shape) != 1 or shape[0] % p["repeat"]:
            raise MXNetError(f"Error in operator {node.name}: arange with infer_range cannot "
                             f"produce shape {tuple(shape)} (repeat={p['repeat']})")
        stop = p["start"] + (shape[0] // p["repeat"]) * p["step"]
        return Node(node.op, node.name, {**node.attrs, "stop": repr(float(stop)),
                                         "infer_range": "False"})
    return Node(node.op, node.name, {**node.attrs, "shape": str(tuple(shape))})


def complete_creations(sym, shapes):
    """``sym``'s output entries with every creation node of unknown dims run at its inferred
    shape (the entries unchanged when there is none); ``shapes``: the arguments' shapes."""
    from .graph import rebuild
    nodes = topo(sym._outputs)
    if not any(n.op is not None and _unsized(n) is not None for n in nodes):
        return sym._outputs
    _, out = propagate(sym, shapes, _variable_dtypes(sym))

    def fill(n, ins):
        if _unsized(n) is None:
            return None
        s = out.get((id(n), 0))
        if s is None:
            raise MXNetError(f"Error in operator {n.name}: cannot infer the unknown dims of "
                             f"shape {tuple(n.params()['shape'])} from its consumers")
        return sized(n, s.shape)
    return rebuild(sym._outputs, fill)


def _partly(src, i, partial, targets):
    """What is known of output ``i`` of ``src`` without its value: its partial shape, merged
    with the shape its consumers require."""
    return _merge(targets.get((id(src), i)), partial.get(id(src)) if i == 0 else None)


def _merge(a, b):
    """Two partly known shapes (0: unknown dim) as one, or ``a`` where they disagree."""
    if a is None or b is None or len(a) != len(b):
        return b if a is None else a
    if any(x and y and x != y for x, y in zip(a, b)):
        return a
    return tuple(x or y for x, y in zip(a, b))


# stand-in sizes of unknown dims: primes (no accidental divisibility), small enough that a
# 4-d stand-in stays under the size check
_PROBE = (61, 67)


def _solve_inputs(node, ins, partials, want, is_train):
    # want: {output index: partly known shape}
    """MXNet's shape functions also run backwards: an op's unknown input dims from its known
    output dims. Each unknown input dim is probed at two stand-in sizes; an output dim that
    moves with it affinely (and with no other unknown) gives its size. Returns
    {input position: completed shape}."""
    unknown = [(k, j) for k, p in enumerate(partials) if p is not None
               for j, d in enumerate(p) if d == 0]
    if not unknown:
        return {}

    def run(vary=(), size=_PROBE[1]):
        structs = []
        for k, (s, p) in enumerate(zip(ins, partials)):
            if s is not None:
                structs.append(s)
            else:
                dims = tuple((size if (k, j) in vary else _PROBE[0]) if d == 0 else d
                             for j, d in enumerate(p))
                structs.append(jax.ShapeDtypeStruct(dims, np.float32))
        return [tuple(o.shape) for o in eval_node(node, structs, is_train)]
    try:
        base = run()
    except Exception:  # noqa: BLE001  (an op that cannot take the stand-ins: no rule)
        return {}
    try:
        groups = [(u,) for u in unknown]
        moved = {g: run(g) for g in groups}
    except Exception:  # noqa: BLE001  (coupled dims, as Concat's batch dims: move together)
        by_dim = {}
        for k, j in unknown:
            by_dim.setdefault(j, []).append((k, j))
        groups = [tuple(g) for g in by_dim.values()]
        try:
            moved = {g: run(g) for g in groups}
        except Exception:  # noqa: BLE001
            return {}
    solved = {}
    for i, shape in want.items():
        if i >= len(base) or len(base[i]) != len(shape):
            continue
        for m, w in enumerate(shape):
            movers = [g for g in groups if moved[g][i][m] != base[i][m]]
            if w == 0 or len(movers) != 1:
                continue
            g = movers[0]
            alpha = (moved[g][i][m] - base[i][m]) / (_PROBE[1] - _PROBE[0])
            d = (w - base[i][m]) / alpha + _PROBE[0]
            if d >= 1 and d == int(d) and _unique(run, g, int(d), i, m, w):
                solved.update({u: int(d) for u in g})
    res = {}
    for (k, j), d in solved.items():
        res[k] = tuple(d if jj == j else x for jj, x in enumerate(res.get(k, partials[k])))
    return res


def _unique(run, group, d, i, m, w):
    """``d`` gives output dim ``w`` and its neighbours do not (a strided window's floor makes
    several sizes give one output size: MXNet then leaves the input unknown too)."""
    try:
        return run(group, d)[i][m] == w and all(
            run(group, e)[i][m] != w for e in (d - 1, d + 1) if e >= 1)
    except Exception:  # noqa: BLE001
        return False


# ops whose output has the data's size: one unknown data dim is the output's size over the
# known dims' product, as MXNet's Reshape shape function infers it
_SIZE_KEEPING = frozenset({"Reshape", "Flatten"})


def _solve_size(data, want):
    if data is None or want is None or 0 in want or data.count(0) != 1:
        return {}
    known = int(np.prod([d for d in data if d]))
    total = int(np.prod(want))
    if known == 0 or total % known:
        return {}
    return {0: tuple(total // known if d == 0 else d for d in data)}


def _backward(nodes, out, partial, targets, define, dtypes, is_train):
    """One sweep from the heads down: each op whose output shape is (partly) known fills in
    the unknown dims of its partly known inputs (a variable, or an op whose output must then
    have that shape). True when a variable got a shape."""
    grew = False
    for n in reversed(nodes):
        if n.op is None:
            continue
        want = {}
        for i in range(n.num_outputs()):
            have = out.get((id(n), i))
            w = _merge(targets.get((id(n), i)), tuple(have.shape) if have is not None else
                       partial.get(id(n)) if i == 0 else None)
            if w is not None:
                want[i] = w
        if not want:
            continue
        ins = [out.get((id(src), i)) for src, i in n.inputs]
        partials = [None if s is not None else _partly(src, i, partial, targets)
                    for s, (src, i) in zip(ins, n.inputs)]
        if n.op.param_shapes is same_shapes and 0 in want:
            # every input has the output's shape: no probing needed, and an input nothing
            # else knows of (add_n's, _identity_with_attr_like_rhs's) gets it too
            solved = {k: _merge(p, want[0]) for k, (s, p) in enumerate(zip(ins, partials))
                      if s is None and _merge(p, want[0]) != p}
        elif any(s is None and p is None for s, p in zip(ins, partials)):
            continue
        elif n.op.name in _SIZE_KEEPING:
            solved = _solve_size(partials[0], want.get(0))
        else:
            solved = _solve_inputs(n, ins, partials, want, is_train)
        for k, shape in solved.items():
            src, i = n.inputs[k]
            var, chain = behind_casts(src)
            if var.op is None:
                known = next((s for s in ins if s is not None), None)
                define(var, shape, dtypes.get(var.name) or _declared_dtype(var) or (
                    known.dtype if known is not None else np.float32))
                if (id(var), 0) in out:
                    eval_chain(chain, out, is_train)
                grew = True
            else:
                targets[(id(var), i)] = _merge(targets.get((id(var), i)), shape)
                grew = grew or _unsized(var) is not None  # a creation op can now be sized
    return grew


# ops whose shape functions give no output shape until these inputs are fully known (MXNet's
# where: a partly known condition leaves the output unknown, whatever x and y are)
_NEEDS_KNOWN = {"where": (0,)}
# ops whose output dim is unknown wherever the data's is, even where the attributes alone
# would give its size (slicing 0:5 of an unknown dim: MXNet cannot check that 5 fits)
_SLICES = frozenset({"slice", "slice_axis"})


def _partial_output(node, ins, partials, is_train):
    """First output shape of a node whose inputs have unknown (0) dims. Evaluated with those
    dims zero-sized, which is how MXNet's shape functions read unknowns (a Concat of (2, 3)
    and (0, 3) on axis 0 is (2, 3)); where an op cannot take zero-size inputs, evaluated with
    two different stand-in sizes, and dims that differ between the runs are unknown."""
    if any(partials[k] is not None for k in _NEEDS_KNOWN.get(node.op.name, ())):
        return None
    def run(fill):
        structs = [s if s is not None else jax.ShapeDtypeStruct(
            tuple(fill if d == 0 else d for d in p), np.float32) for s, p in zip(ins, partials)]
        return tuple(eval_node(node, structs, is_train)[0].shape)
    try:
        shape = run(0)
    except Exception:  # noqa: BLE001  (any failure: try the stand-in sizes)
        try:
            a, b = run(7919), run(7927)
        except Exception:  # noqa: BLE001  (not inferable from partial shapes: leave unknown)
            return None
        if len(a) != len(b):
            return None
        shape = tuple(x if x == y else 0 for x, y in zip(a, b))
    data = partials[0]
    if node.op.name in _SLICES and data is not None and len(data) == len(shape):
        shape = tuple(0 if d == 0 else s for d, s in zip(data, shape))
    return shape


def _named(sym, args, kwargs):
    if args:
        if kwargs:
            raise ValueError("Can only specify known argument shapes either by positional or kwargs way.")
        names = sym.list_arguments()
        return {n: a for n, a in zip(names, args) if a is not None}
    known = set(sym.list_inputs())
    for k in kwargs:
        if k not in known:
            raise MXNetError(f"infer: {k!r} is not an input of the symbol; inputs are "
                             f"{sorted(known)}")
    return {k: v for k, v in kwargs.items() if v is not None}


@graph_pass
def infer_shape(sym, args, kwargs, partial):
    """MXNet's infer_shape(_partial). Unknown dimensions are 0 and unknown shapes () in
    the legacy shape semantics; under ``mx.np_shape()`` they are -1 and None, as in MXNet
    (xnd then reads a -1 of the given shapes as unknown; a 0 stays unknown too, so numpy
    mode's zero-size dimensions are not inferred through a graph here)."""
    np_mode = is_np_shape()
    known = {}
    for k, v in _named(sym, args, kwargs).items():
        if not isinstance(v, (tuple, list)):
            raise TypeError(f"Arguments need to be shapes (tuple), got {k}={v!r}")
        known[k] = tuple(0 if np_mode and int(d) == -1 else int(d) for d in v)
    nodes, out = propagate(sym, known, _variable_dtypes(sym))
    partial_shapes = propagate.partial
    aux = aux_nodes(nodes)
    arg_nodes = [n for n in nodes if n.op is None and id(n) not in aux]
    aux_list = [n for n in nodes if n.op is None and id(n) in aux]

    def shape(key):
        s = out.get(key)
        if s is None and partial and key[1] == 0 and key[0] in partial_shapes:
            return partial_shapes.get(key[0])
        return None if s is None else tuple(s.shape)
    arg_shapes = [shape((id(n), 0)) for n in arg_nodes]
    aux_shapes = [shape((id(n), 0)) for n in aux_list]
    out_shapes = [shape((id(n), i)) for n, i in sym._outputs]
    if partial:
        if np_mode:
            fix = lambda xs: [None if x is None else tuple(-1 if d == 0 else d for d in x)  # noqa: E731
                              for x in xs]
        else:
            fix = lambda xs: [() if x is None else x for x in xs]  # noqa: E731
        return fix(arg_shapes), fix(out_shapes), fix(aux_shapes)
    missing = [n.name for n, s in zip(arg_nodes + aux_list, arg_shapes + aux_shapes) if s is None]
    if missing or any(s is None for s in out_shapes):
        warnings.warn("Cannot decide shape for the following arguments (0s in shape means unknown "
                      "dimensions). Consider providing them as input:\n" +
                      "\n".join(f"\t{m}: ()" for m in missing), stacklevel=3)
        return None, None, None
    return arg_shapes, out_shapes, aux_shapes


_CASTS = frozenset(("Cast", "amp_cast"))


@graph_pass
def infer_type(sym, args, kwargs, partial=False):
    from ..lowering.dtypes import np_dtype
    known = {k: np_dtype(v) for k, v in _named(sym, args, kwargs).items()}
    nodes, dt = _dtype_pass(sym, known)
    aux = aux_nodes(nodes)
    arg_t = [dt.get((id(n), 0)) for n in nodes if n.op is None and id(n) not in aux]
    aux_t = [dt.get((id(n), 0)) for n in nodes if n.op is None and id(n) in aux]
    out_t = [dt.get((id(n), i)) for n, i in sym._outputs]
    if not partial and any(t is None for t in arg_t + aux_t + out_t):
        return None, None, None
    return arg_t, out_t, aux_t


def _variable_dtypes(sym):
    """The dtypes the dtype-only pass finds for the variables (for shape inference: a weight
    multiplied with a float64 constant is float64 there too); {} when the types conflict."""
    try:
        nodes, dt = _dtype_pass(sym, {})
    except MXNetError:
        return {}
    return {n.name: dt[(id(n), 0)] for n in nodes if n.op is None and (id(n), 0) in dt}


def _dtype_pass(sym, known):
    """{(id(node), i): dtype} for every output whose type is decidable, MXNet's InferType.

    MXNet's type functions run both ways (most are ElemwiseType: inputs and outputs share
    one type), so a forward sweep alternates with a backward one until nothing changes: an
    RNN cell's begin-state variable that only meets other unknowns in its FullyConnected
    (h2h) gets its type back from the add that consumes that FullyConnected's output."""
    nodes = topo(sym._outputs)
    dt = {}
    for n in nodes:
        if n.op is None:
            t = known.get(n.name) or _declared_dtype(n)
            if t is not None:
                dt[(id(n), 0)] = np.dtype(t).type
    ops = [n for n in nodes if n.op is not None]
    for _ in range(len(ops) + 1):   # each backward sweep that adds a type adds at least one
        _dtype_forward(ops, dt)
        if not _dtype_backward(ops, dt):
            break
    return nodes, dt


def _attr_dtype(n):
    attr_dt = n.params().get("dtype")
    return np.dtype(attr_dt).type if isinstance(attr_dt, str) else None


def _dtype_forward(ops, dt):
    # an op's outputs take its 'dtype' attribute or its first input's dtype; unknown inputs
    # (weights) take the op's data dtype, as MXNet's default type inference does
    for n in ops:
        ins = [dt.get((id(src), i)) for src, i in n.inputs]
        first = next((t for t in ins if t is not None), None)
        if n.op.param_shapes is same_shapes:
            kinds = {t for t in ins if t is not None}
            if len(kinds) > 1:
                raise MXNetError(f"Error in operator {n.name}: Incompatible attr: inputs have "
                                 f"dtypes {[np.dtype(t).name for t in ins if t is not None]}")
        attr_dt = _attr_dtype(n)
        # a cast's dtype is its output's: it says nothing of its input
        fill = first if n.op.name in _CASTS else (attr_dt or first)
        for src, i in n.inputs:
            if src.op is None and (id(src), 0) not in dt and fill is not None:
                dt[(id(src), 0)] = fill
        o = attr_dt or first
        if o is None:
            continue
        for i in range(n.num_outputs()):
            dt[(id(n), i)] = o


def _dtype_backward(ops, dt):
    """Heads to leaves: an op whose output type is known (from its inputs or its consumers)
    gives it to its inputs of unknown type, unless the op decides its output type itself (a
    cast, a 'dtype' attribute). True when some input got a type."""
    grew = False
    for n in reversed(ops):
        o = dt.get((id(n), 0))
        if o is None or n.op.name in _CASTS or _attr_dtype(n) is not None:
            continue
        for src, i in n.inputs:
            if (id(src), i) not in dt:
                dt[(id(src), i)] = o
                grew = True
    return grew
