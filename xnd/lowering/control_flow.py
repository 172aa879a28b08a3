"""MXNet's ``_foreach`` control-flow operator: a loop body (a subgraph) run over axis 0 of
its data inputs with ``jax.lax.scan``, so a symbolic loop compiles to one XLA loop whose
length is the data's, whatever it is when the graph runs (mx.sym.contrib.foreach).

The body is the node's ``subgraph`` attribute: an opaque object the symbol layer builds
(xnd.symbol.subgraph.Subgraph), called as ``body(values, key, is_train) -> outputs`` with
the values of the subgraph's inputs in its input order, and asked
``body.input_shapes(shapes)`` for the shapes of its inputs that it can infer (weights from
data, as MXNet's shape inference does through a subgraph). Nothing here knows Symbols.

Inputs, as MXNet orders them: the data arrays, the initial states, then the body's other
inputs (parameters, values from outside the loop); ``in_data_locs``, ``in_state_locs``
and ``remain_locs`` say where each sits among the subgraph's inputs. Outputs: the
``num_out_data`` per-step outputs stacked on a new axis 0, then the final states."""
import jax
import jax.numpy as jnp

from ..base import MXNetError
from .attrs import Int, Shape
from .registry import register


def _opaque(v):
    """The subgraph attribute is an object, passed through as it is."""
    return v


def _split(inputs, attrs):
    nd, ns = len(attrs["in_data_locs"]), len(attrs["in_state_locs"])
    return inputs[:nd], inputs[nd:nd + ns], inputs[nd + ns:]


def _place(attrs, data, states, rest):
    """The body's input list: each value at its location among the subgraph's inputs."""
    values = [None] * (len(data) + len(states) + len(rest))
    for locs, vals in (("in_data_locs", data), ("in_state_locs", states),
                       ("remain_locs", rest)):
        for loc, v in zip(attrs[locs], vals):
            values[loc] = v
    return values


def _foreach_shapes(attrs, shapes):
    """Input shapes filled from the body's shape inference: a data input's step is its
    shape without axis 0; states and other inputs are the body's own inputs."""
    body = attrs["subgraph"]
    if body is None:
        return shapes
    data, states, rest = _split(list(shapes), attrs)
    step = [None if s is None or len(s) < 1 else tuple(s[1:]) for s in data]
    filled = body.input_shapes(_place(attrs, step, states, rest))
    out = list(data)
    for locs in ("in_state_locs", "remain_locs"):
        out.extend(filled[loc] for loc in attrs[locs])
    # a given shape stands unless it is unknown or partly known (0s) and the body knows more
    return [f if f is not None and (s is None or 0 in s) else s for s, f in zip(shapes, out)]


def _step_key(key, t):
    """A distinct random key per iteration: random ops of the body (Dropout) draw new values
    at each step, as MXNet's loop does."""
    return jnp.stack([key[0] + (t + 1).astype(jnp.uint32) * jnp.uint32(0x9E3779B9),
                      key[1]]).astype(jnp.uint32)


@register("_foreach", num_outputs=lambda a: a["num_outputs"], param_shapes=_foreach_shapes)
def foreach(*data, num_args: Int, num_outputs: Int, num_out_data: Int, in_state_locs: Shape,
            in_data_locs: Shape, remain_locs: Shape, subgraph: _opaque = None, is_train=False,
            key):
    """Run the body over axis 0 of the data inputs, carrying the states (see module doc)."""
    body = subgraph
    if body is None:
        raise MXNetError("Operator _foreach needs its loop body: build it with "
                         "mx.sym.contrib.foreach (mx.nd.contrib.foreach runs eagerly)")
    attrs = {"in_data_locs": in_data_locs, "in_state_locs": in_state_locs,
             "remain_locs": remain_locs}
    xs, init, rest = _split(list(data), attrs)
    if not xs:
        raise MXNetError("Operator _foreach: the loop needs at least one data input")
    lengths = {x.shape[0] if x.ndim else None for x in xs}
    if len(lengths) != 1 or None in lengths:
        raise MXNetError(f"Operator _foreach: the data inputs must share their first "
                         f"dimension, got shapes {[tuple(x.shape) for x in xs]}")

    def step(carry, x):
        t, states = carry
        outs = body(_place(attrs, x, states, rest), _step_key(key, t), is_train)
        new_states = outs[num_out_data:]
        for s, n in zip(states, new_states):
            if tuple(s.shape) != tuple(n.shape):
                raise MXNetError(f"Operator _foreach: a loop state changes shape from "
                                 f"{tuple(s.shape)} to {tuple(n.shape)} in the body")
        # the carry keeps its type (a Python-scalar update must not promote it)
        new_states = tuple(n.astype(s.dtype) for s, n in zip(states, new_states))
        return (t + 1, new_states), tuple(outs[:num_out_data])

    (_, final), stacked = jax.lax.scan(step, (jnp.int32(0), tuple(init)), tuple(xs))
    return tuple(stacked) + tuple(final)
