"""The reverse sweep's per-node step, shared by the whole-tape backward (engine.py) and a
long tape's pieces (pieces.py): how one recorded node is called, and how the cotangents of
its outputs are pulled back to its inputs (``jax.vjp`` of the node at its recorded inputs)."""
import jax
import jax.numpy as jnp
import numpy as np

from ..lowering.dtypes import NOT_REAL_ERRORS, as_real, real_run


def op_caller(kind):
    """fn(input values, dynamic attribute values) -> tuple of outputs, for an ``("op", Op,
    static key)`` node."""
    op, skey = kind[1], kind[2]
    static = dict(zip(op.static, skey))
    names, fn = op.dynamic, op.fn

    def call(ins, dyn):
        r = fn(*ins, **static, **dict(zip(names, dyn)))
        return tuple(r) if isinstance(r, (tuple, list)) else (r,)
    return call


def aux_update_fn(op):
    f = getattr(op, "aux_update", None)
    return f if f is not None else getattr(op.fn, "aux_update", None)


def get(r, ext, outs):
    return None if r is None else (ext[r[1]] if r[0] == 0 else outs[r[1]][r[2]])


def inexact(x):
    return x is not None and jnp.issubdtype(x.dtype, jnp.inexact)


def integer(x):
    """Integer and bool arrays, whose MXNet gradients are in their own dtype (as_real)."""
    return x is not None and (jnp.issubdtype(x.dtype, jnp.integer) or x.dtype == jnp.bool_)


def node_vjp(call, ins, d, dpos, opos):
    """``jax.vjp`` of one node's outputs at ``opos`` (those with a cotangent: a hybridized
    block's saved residuals, BatchNorm's statistics get none, and zeros for them cost a
    trace each) in the inputs at ``dpos`` (integer ones as float64)."""
    def f(*dv):
        ii = list(ins)
        for p, v in zip(dpos, dv):
            ii[p] = v
        r = call(ii, d)
        return tuple(r[k] for k in opos)
    with real_run():
        return jax.vjp(f, *[as_real(ins[p]) for p in dpos])


def sum_groups(groups, per, ext_vals):
    res = []
    for group in groups:
        acc = None
        for i in group:
            g = per.get(i)
            if g is None:
                g = jnp.zeros_like(ext_vals[i])
            elif g.dtype != ext_vals[i].dtype:  # an integer variable's gradient, truncated to
                g = g.astype(ext_vals[i].dtype)   # its dtype as MXNet's integer kernels do
            acc = g if acc is None else acc + g
        res.append(acc)
    return tuple(res)


def float0_ct(o):
    """The cotangent JAX takes for an integer or boolean output."""
    return np.zeros(o.shape, jax.dtypes.float0)


def reverse_node(call, refs, ins, d, cts, live, add):
    """One node of the reverse sweep: the cotangents ``cts`` of its outputs (None: none came)
    pulled back to its inputs at ``refs`` that are ``live``, each handed to ``add(ref, c)``
    (the whole-tape sweep and a tape's pieces, pieces.py, share it)."""
    dpos = [p for p, r in enumerate(refs) if live(r) and (inexact(ins[p]) or integer(ins[p]))]
    opos = [k for k, c in enumerate(cts) if c is not None]
    try:
        outs, pull = node_vjp(call, ins, d, dpos, opos)
    except NOT_REAL_ERRORS:
        dpos = [p for p in dpos if inexact(ins[p])]
        outs, pull = node_vjp(call, ins, d, dpos, opos)
    full = tuple(c.astype(o.dtype) if inexact(o) else float0_ct(o)
                 for c, o in zip([cts[k] for k in opos], outs))
    for p, c in zip(dpos, pull(full)):
        add(refs[p], c)
