"""Helpers shared by the neural-network operator modules (conv, nn, norm, loss, rnn).

Besides its pure function, an NN operator tells the graph layers what MXNet's
graph knows about it (``register(..., param_shapes=..., num_outputs=...,
output_names=..., input_init=..., loss=..., aux_update=...)``). Its weight-shape
rule is written once as ``rule(attrs, data_shape) -> {input name: shape}`` (also
kept as ``fn.infer_shapes``) and adapted here to the registry's positional
``param_shapes(attrs, input shapes)`` hook.
"""


def fmt(shape):
    """A shape as MXNet-style text without spaces: ``(2,3)``, ``(4,)``."""
    return str(tuple(int(d) for d in shape)).replace(" ", "")


def _unknown(s):
    return s is None or 0 in s


def _complete(have, rule):
    """A parameter's shape from the rule, dims it leaves unknown (a 0 in the data's shape)
    filled from what was given: MXNet infers (64, 0, 7, 7) for a 7x7 convolution's weight
    from data of shape (1, 0, 0, 0)."""
    if have is None or len(have) != len(rule):
        return rule
    return tuple(r or h for r, h in zip(rule, have))


def param_shapes_from(rule, slots):
    """The registry hook ``(attrs, shapes) -> shapes`` from ``rule(attrs, data_shape)``.

    ``slots``: the op's input names in order, or ``callable(attrs, n_inputs)`` giving them
    (RNN's inputs depend on its mode). Unknown entries (None, or holding a 0 dimension) are
    filled from the rule when the data shape is (partly) known; known ones are kept.
    """
    def param_shapes(attrs, shapes):
        shapes = list(shapes)
        if not shapes or shapes[0] is None:
            return shapes
        names = slots(attrs, len(shapes)) if callable(slots) else slots
        got = rule(attrs, tuple(shapes[0]))
        out = []
        for k, s in enumerate(shapes):
            g = got.get(names[k]) if k < len(names) else None
            out.append(_complete(s, tuple(g)) if _unknown(s) and g is not None else s)
        return out
    return param_shapes
