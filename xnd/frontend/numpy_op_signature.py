"""``mx.numpy_op_signature``: the numpy functions behind MXNet's built-in numpy operators.

``_get_builtin_op(name)`` is the ``mx.np`` (or ``mx.npx``) function that an operator name
stands for: ``_np_sum``/``_npi_add`` -> ``mx.np.sum``/``mx.np.add``, ``_npx_relu`` ->
``mx.npx.relu``; None when there is none.  The operators of ``mx._numpy_op_doc`` come with
their documented ``__signature__``, as MXNet's generated functions do."""


def _get_builtin_op(op_name):
    from . import _numpy_op_doc, numpy as _np, numpy_extension as _npx
    if op_name in _numpy_op_doc._SIGNATURES:  # with MXNet's documented signature
        return getattr(_numpy_op_doc, op_name)
    for prefix, ns in (("_npi_", _np), ("_np_", _np), ("_npx_", _npx)):
        if op_name.startswith(prefix):
            name = op_name[len(prefix):]
            if name.startswith("linalg_"):
                return getattr(_np.linalg, name[len("linalg_"):], None)
            try:
                return getattr(ns, name)
            except AttributeError:
                return None
    return None
