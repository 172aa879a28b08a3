"""``mx._numpy_op_doc``: MXNet 1.9.1's built-in numpy operators (``_np_*``/``_npx_*``) under
their operator names, with MXNet's documented signatures.  Each forwards to the ``mx.np`` /
``mx.npx`` function it documents (``numpy_op_signature._get_builtin_op`` finds the same)."""
import ast
import inspect

# operator name -> MXNet's signature
_SIGNATURES = {
    "_np_all": "a, axis=None, keepdims=False, out=None",
    "_np_any": "a, axis=None, keepdims=False, out=None",
    "_np_sometrue": "a, axis=None, keepdims=False, out=None",
    "_np_cumsum": "a, axis=None, dtype=None, out=None",
    "_npx_nonzero": "a",
    "_np_repeat": "a, repeats, axis=None",
    "_np_transpose": "a, axes=None",
    "_np_dot": "a, b, out=None",
    "_np_sum": "a, axis=None, dtype=None, keepdims=False, initial=None, out=None",
    "_np_copy": "a, out=None",
    "_np_atleast_1d": "*arys",
    "_np_atleast_2d": "*arys",
    "_np_atleast_3d": "*arys",
    "_np_reshape": "a, newshape, order='C', out=None",
    "_np_roll": "a, shift, axis=None",
    "_np_trace": "a, offset=0, axis1=0, axis2=1, out=None",
    "_np_squeeze": "a, axis=None, out=None",
    "_np_max": "a, axis=None, keepdims=False, out=None",
    "_np_amax": "a, axis=None, keepdims=False, out=None",
    "_np_min": "a, axis=None, keepdims=False, out=None",
    "_np_amin": "a, axis=None, keepdims=False, out=None",
    "_np_prod": "a, axis=None, dtype=None, out=None, keepdims=False",
    "_np_product": "a, axis=None, dtype=None, out=None, keepdims=False",
    "_np_moveaxis": "a, source, destination",
    "_np__random_shuffle": "x",
    "_npx_constraint_check": "x, msg",
    "_npx_reshape": "a, newshape, reverse=False, order='C'",
    "_np_diag": "array, k=0",
    "_np_diagonal": "a, offset=0, axis1=0, axis2=1",
    "_np_diagflat": "array, k=0",
}


def _signature(text):
    P = inspect.Parameter
    params = []
    for item in text.split(", "):
        name, eq, default = item.partition("=")
        if name.startswith("*"):
            params.append(P(name[1:], P.VAR_POSITIONAL))
        else:
            params.append(P(name, P.POSITIONAL_OR_KEYWORD,
                            default=ast.literal_eval(default) if eq else P.empty))
    return inspect.Signature(params)


def _target(op_name):
    from . import numpy as np, numpy_extension as npx
    if op_name == "_np__random_shuffle":
        return np.random.shuffle
    if op_name == "_np_sometrue":
        return np.any
    if op_name == "_np_product":
        return np.prod
    ns, name = (npx, op_name[5:]) if op_name.startswith("_npx_") else (np, op_name[4:])
    return getattr(ns, name)


def _documented(op_name, text):
    def op(*args, **kwargs):
        return _target(op_name)(*args, **kwargs)
    op.__name__ = op.__qualname__ = op_name
    op.__signature__ = _signature(text)
    op.__doc__ = f"MXNet's built-in operator {op_name}: mx.{op_name[1:].replace('_', '.', 1)}."
    return op


for _n, _s in _SIGNATURES.items():
    globals()[_n] = _documented(_n, _s)
