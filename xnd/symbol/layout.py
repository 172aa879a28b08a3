"""Channels-last evaluation of a symbol graph's convolution chains.

MXNet graphs are channel-first (NCHW).  XLA:CPU runs every convolution in NHWC/HWIO and
lowers a channel-first one to transpose -> convolution -> transpose, per op; a hand-written
JAX LeNet training step ran 1.6x the steps/s in NHWC (docs/performance.md).  So graphs are
evaluated with a channels-last *internal* layout: a Convolution computes NHWC from an NHWC
input, and pooling, BatchNorm, Concat and elementwise ops that consume channels-last values
stay channels-last, so a chain of them is transposed once where it starts (the data) and
once where it ends (Flatten, FullyConnected, any other op, the graph outputs).  Values are
MXNet's up to float32 rounding; random ops (Dropout) always see the channel-first form, so
their masks are the same as without this.

Used by ``GraphFunction._run`` (executor forward/backward, Module's fused step, hybridized
Gluon blocks; the convolution weight is laid out inside the program) and by the inference
rewrites of ``xnd.symbol.rewrite`` (which prepare the weight once per parameter version).
``XND_CHANNELS_LAST=0`` turns it off.
"""
import os

from jax import lax

from ..lowering import conv as _conv
from ..lowering import elemwise as _elemwise
from ..lowering import registry
from ..lowering.staged import staged
from .infer import node_call

ENABLED = os.environ.get("XND_CHANNELS_LAST", "1") != "0"


def _canonical(names):
    return frozenset(registry.get(n).name for n in names if registry.exists(n))


def _op_sets():
    unary = set()
    for table in (_elemwise.UNARY_FLOAT, _elemwise.UNARY_ANY):
        for names in table:
            unary.update(names)
    binary, bcast = set(), set()
    for same, bc, scalar in _elemwise._NAMES.values():
        binary.update(same)
        bcast.update(bc)
        unary.add(scalar)
    unary.update(f"_{r}_scalar" for r in _elemwise._REVERSED.values())
    unary.update(("Activation", "clip", "Cast", "_copy"))
    binary.update(("add_n",))
    return _canonical(unary), _canonical(binary), _canonical(bcast)


UNARY, BINARY, BROADCAST = _op_sets()
_LEAKY_ELEMENTWISE = ("leaky", "elu", "selu", "gelu")


def key(entry):
    return (id(entry[0]), entry[1])


def channel_first_conv(node):
    """Whether ``node`` is a channel-first Convolution (the start of a channels-last chain)."""
    return node.op is not None and node.op.name == "Convolution" and \
        not _conv._channel_last(node.params().get("layout"))


def eval_node(n, ins, env, is_train, conv_weight):
    """Channels-last evaluation of op node ``n`` where it applies: ``[(value, is_cl)]`` for
    each output, or None (evaluate it the ordinary way, on channel-first values).

    ``ins``: the node's input entries; ``env``: an ``Env``; ``conv_weight(n, ins)``: the
    ``(kernel, bias)`` pair that ``conv.conv_channels_last`` takes for convolution ``n``, or
    None where ``n`` stays channel-first."""
    name = n.op.name
    if name == "Convolution":
        wb = conv_weight(n, ins)
        if wb is None:
            return None
        a = n.params()
        user_cl = _conv._channel_last(a.get("layout"))  # then the value itself is NHWC
        x = env.get(ins[0], cl=not user_cl)
        out = staged(_conv.conv_channels_last, stride=a["stride"], dilate=a["dilate"],
                     pad=a["pad"], num_group=a["num_group"])(x, wb[0], wb[1])
        return [(out, not user_cl)]
    if n.op.rng or not ins or not any(env.is_cl(e) for e in ins):
        return None
    ndim = env.ndim(ins[0])
    if name in UNARY:
        return [(node_call(n, is_train)(env.get(ins[0], True)), True)]
    if name == "LeakyReLU" and n.params()["act_type"] in _LEAKY_ELEMENTWISE:
        return [(staged(n.op.fn, **n.params(), is_train=is_train, key=None)(
            env.get(ins[0], True)), True)]
    if name in BINARY or name in BROADCAST:
        if any(env.ndim(e) != ndim for e in ins):
            return None
        return [(node_call(n, is_train)(*[env.get(e, True) for e in ins]), True)]
    if name == "Pooling":
        a = n.params()
        if a.get("layout") not in (None, "NCW", "NCHW", "NCDHW"):
            return None
        attrs = dict(a, layout=_conv.channels_last_layout(ndim))
        return [(v, i == 0) for i, v in enumerate(_outputs(staged(n.op.fn, **attrs)(
            env.get(ins[0], True))))]
    if name == "BatchNorm" and len(ins) == 5:
        a = n.params()
        if a["axis"] % ndim != 1:
            return None
        out = staged(n.op.fn, **dict(a, axis=ndim - 1), is_train=is_train)(
            env.get(ins[0], True), *[env.get(e) for e in ins[1:]])
        return [(out[0], True), (out[1], False), (out[2], False)]
    if name == "Concat":
        a = n.params()
        if a["dim"] % ndim != 1 or any(env.ndim(e) != ndim for e in ins):
            return None
        return [(staged(n.op.fn, **dict(a, dim=ndim - 1))(*[env.get(e, True) for e in ins]),
                 True)]
    return None


def _outputs(res):
    return list(res) if isinstance(res, (tuple, list)) else [res]


class Env:
    """Values of a program: entry -> (value, channels-last?), with the transposed form of a
    value made at most once."""

    def __init__(self):
        self.vals, self._other = {}, {}

    def set(self, entry, value, cl=False):
        self.vals[key(entry)] = (value, cl)

    def is_cl(self, entry):
        return self.vals[key(entry)][1]

    def ndim(self, entry):
        return self.vals[key(entry)][0].ndim

    def get(self, entry, cl=False):
        k = key(entry)
        v, is_cl = self.vals[k]
        if is_cl == cl:
            return v
        if k not in self._other:
            # (lax, not jnp.moveaxis: a jnp function is a jit of its own, and differentiating
            # the program linearizes each such call, ~1 ms)
            rest = list(range(2, v.ndim) if cl else range(1, v.ndim - 1))
            perm = [0] + rest + [1] if cl else [0, v.ndim - 1] + rest
            self._other[k] = lax.transpose(v, perm)
        return self._other[k]
