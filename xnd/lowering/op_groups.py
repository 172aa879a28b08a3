"""MXNet's generated operator modules, as aliases (``mxnet.ndarray.gen_op``, ``op``,
``gen_contrib``, ``gen_linalg``, ``gen_image``, ``gen_random``, ``gen_sparse``,
``gen__internal`` and their ``mxnet.symbol`` twins).

MXNet (base._init_op_module) puts the function of each registered operator in the module its
name's prefix selects: ``_contrib_X`` in ``contrib`` as ``X`` (likewise ``_linalg_``,
``_image_``, ``_random_``, ``_sparse_``), any other ``_X`` in ``_internal``, the rest in
``op``; the ``gen_*`` files hold the same groups.  Here a group module binds the functions
of the namespace users call (``mx.nd``, ``mx.nd.contrib``, ``mx.nd._internal``, or
``mx.sym``'s): the same objects, found by the operator they run (``fn._xnd_op``).  Only an
operator whose namespace function is hand-written Python with another calling convention
(``nd.contrib.adamw_update`` takes ``rescale_grad`` as a number) gets a generated function of
its own, as MXNet's ``gen_contrib`` holds the raw operator.
"""
from . import registry, unavailable  # noqa: F401  (gen_contrib binds its entries)

__all__ = ["PREFIXES", "SPARSE", "members", "bind", "bind_names"]

PREFIXES = ("_contrib_", "_linalg_", "_sparse_", "_image_", "_random_")

# MXNet's ``_sparse_`` operators: sparse-storage aliases of these dense operators (the same
# values on dense arrays, which are the only arrays xnd has: the sparse namespaces bind them)
SPARSE = (
    "ElementWiseSum", "Embedding", "FullyConnected", "LinearRegressionOutput",
    "LogisticRegressionOutput", "MAERegressionOutput", "abs", "adagrad_update", "adam_update",
    "add_n", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "broadcast_add",
    "broadcast_div", "broadcast_minus", "broadcast_mul", "broadcast_plus", "broadcast_sub",
    "cast_storage", "cbrt", "ceil", "clip", "concat", "cos", "cosh", "degrees", "dot",
    "elemwise_add", "elemwise_div", "elemwise_mul", "elemwise_sub", "exp", "expm1", "fix",
    "floor", "ftrl_update", "gamma", "gammaln", "log", "log10", "log1p", "log2", "make_loss",
    "mean", "negative", "norm", "radians", "relu", "retain", "rint", "round", "rsqrt",
    "sgd_mom_update", "sgd_update", "sigmoid", "sign", "sin", "sinh", "slice", "sqrt",
    "square", "stop_gradient", "sum", "tan", "tanh", "trunc", "where", "zeros_like")


def _group_of(name):
    for prefix in PREFIXES:
        if name.startswith(prefix):
            return prefix[1:-1], name[len(prefix):]
    return ("_internal" if name.startswith("_") else "op"), name


def members(group):
    """{function name: registry name} of MXNet's operator group `group` ('op', '_internal',
    'contrib', 'linalg', 'image', 'random', 'sparse')."""
    out = {}
    for name in sorted(registry.all_ops()):
        g, short = _group_of(name)
        if g == group and short.isidentifier():
            out[short] = name
    return out


def bind(namespace, group, sources, make):
    """Fill `namespace` (a module's globals) with the functions of operator group `group`:
    for each, the first of ``getattr(source, short name)`` (then, in ``_internal``-like
    sources, the full registry name) that runs that operator, else ``make(op, short name)``.
    `sources` are modules, searched in order."""
    names = members(group)
    for short, full in names.items():
        op = registry.get(full)
        fn = None
        for src in sources:
            for attr in (short, full):
                cand = getattr(src, attr, None)
                if getattr(cand, "_xnd_op", None) is op:
                    fn = cand
                    break
            if fn is not None:
                break
        namespace.setdefault(short, fn if fn is not None else make(op, short))
    namespace.setdefault("__all__", sorted(names))
    return names


def bind_names(namespace, source, names):
    """Fill `namespace` with ``source``'s functions of those `names` it has (the sparse
    group: MXNet's ``_sparse_`` aliases of its dense operators, listed by the sparse module)."""
    for name in names:
        if hasattr(source, name):
            namespace.setdefault(name, getattr(source, name))
